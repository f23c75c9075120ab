package shell

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// builtin reads the shell's builtins that change what it remembers: read and mapfile set variables
// from their input, set sets the positional parameters, hash -p gives a name a program's path and
// printf -v sets a variable. It reports whether base was one.
func (w *walker) builtin(c *cmdCall, base string) bool {
	w.namedSubscripts(c, base)
	switch base {
	case "read":
		c.emit(w)
		w.readWords(c.words[1:], c.sc.stdin, c.sc)
	case "hash":
		c.emit(w)
		args := c.words[1:]
		for i := 0; i+2 < len(args); i++ {
			if t, _ := args[i].Text(); t == "-p" {
				for _, n := range args[i+2:] {
					if name, ok := n.Text(); ok {
						c.sc.st.vars[hashKey+name] = wordexp.Value{Words: []guard.Word{args[i+1]}}
					}
				}
				break
			}
		}
	case "set":
		c.emit(w)
		setPositional(c.sc.st, c.words[1:])
	case "mapfile", "readarray":
		c.emit(w)
		mapfile(c.words[1:], c.sc.stdin, c.sc.st)
	case "printf":
		name, ok := printfVar(c.words[1:])
		if !ok {
			return false
		}
		// printf -v NAME FORMAT ARGS sets NAME to what it would print
		c.emit(w)
		out, known := printfOutput(c.words[3:])
		if !known {
			out = guard.HoleWord("printf")
		}
		c.sc.st.set(name, wordexp.Value{Words: []guard.Word{out}})
	default:
		return false
	}
	return true
}

// cdStep is where cd goes: its first operand past -L -P -e -@, or home when there is none.
func cdStep(args []guard.Word) guard.CdStep {
	for _, a := range args {
		t, ok := a.Text()
		if ok && (t == "-L" || t == "-P" || t == "-e" || t == "-@" || t == "--") {
			continue
		}
		return guard.CdStep{Target: a}
	}
	return guard.CdStep{Home: true}
}

// hashKey marks, among the variables, a name hash -p gave a program's path: not a name a variable can have.
const hashKey = "\x00hash:"

// setPositional follows set's operands into $1, $@ and the rest: set -- rm -rf / and set a b, but not
// set -e or set -o pipefail, which only change options.
func setPositional(st *state, words []guard.Word) {
	for i := 0; i < len(words); i++ {
		t, ok := words[i].Text()
		switch {
		case !ok:
			return
		case t == "--" || t == "-":
			bindPositional(st, append([]guard.Word{guard.Lit("bash")}, words[i+1:]...))
			return
		case t == "-o" || t == "+o":
			i++
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
		default:
			bindPositional(st, append([]guard.Word{guard.Lit("bash")}, words[i:]...))
			return
		}
	}
}

// printfVar is the variable printf -v NAME sets, when the command is that form.
func printfVar(args []guard.Word) (string, bool) {
	if len(args) < 3 {
		return "", false
	}
	if t, ok := args[0].Text(); !ok || t != "-v" {
		return "", false
	}
	name, ok := args[1].Text()
	return name, ok && wordexp.ValidName(name)
}

// mapfile sets mapfile's (readarray's) array from the lines it reads: known text line by line,
// anything else unknown.
func mapfile(args []guard.Word, in *input, st *state) {
	name, strip, delim := "MAPFILE", false, "\n"
	for i := 0; i < len(args); i++ {
		t, _ := args[i].Text()
		switch {
		case t == "-t":
			strip = true
		case t == "-d" && i+1 < len(args):
			i++
			delim, _ = args[i].Text()
		case t == "-n" || t == "-O" || t == "-s" || t == "-u" || t == "-C" || t == "-c":
			i++
		case strings.HasPrefix(t, "-"):
		case wordexp.ValidName(t):
			name = t
		}
	}
	if delim == "" {
		delim = "\x00"
	}
	if !in.hasWord() {
		st.set(name, wordexp.Value{Words: []guard.Word{{Parts: []guard.Part{{Hole: true, From: from(in)}}}}, Array: true})
		return
	}
	text, ok := in.word.Text()
	if !ok {
		st.set(name, wordexp.Value{Words: []guard.Word{in.word}, Array: true})
		return
	}
	var words []guard.Word
	for _, line := range strings.SplitAfter(strings.TrimSuffix(text, delim), delim) {
		if strip {
			line = strings.TrimSuffix(line, delim)
		}
		words = append(words, guard.Lit(line))
	}
	st.set(name, wordexp.Value{Words: words, Array: true})
}

// readWords sets read's variables from the line it reads: split at $IFS, the last variable taking
// the rest; unknown input leaves them unknown, named by what feeds it.
func (w *walker) readWords(args []guard.Word, in *input, sc scope) {
	skip := false
	var names []string
	for _, a := range args {
		lit, _ := a.Text()
		switch {
		case skip:
			skip = false
		case lit == "-d" || lit == "-p" || lit == "-n" || lit == "-N" || lit == "-t" || lit == "-u" || lit == "-i":
			skip = true
		case strings.HasPrefix(lit, "-"):
		case wordexp.ValidName(lit):
			names = append(names, lit)
		}
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	vals := make([]guard.Word, len(names))
	for i := range vals {
		vals[i] = guard.Word{Parts: []guard.Part{{Hole: true, From: from(in), Reads: in.sources()}}}
	}
	if in.hasWord() {
		if t, ok := in.word.Text(); ok {
			first, _, _ := strings.Cut(t, "\n")
			ifs, _ := sc.st.ifs()
			fields := strings.FieldsFunc(first, func(r rune) bool { return strings.ContainsRune(ifs, r) })
			for i := range vals {
				switch {
				case i >= len(fields):
					vals[i] = guard.Lit("")
				case i == len(vals)-1:
					vals[i] = guard.Lit(strings.Join(fields[i:], " "))
				default:
					vals[i] = guard.Lit(fields[i])
				}
			}
		} else {
			vals[0] = in.word
		}
	}
	for i, n := range names {
		sc.st.set(n, wordexp.Value{Words: []guard.Word{vals[i]}})
	}
}

// bindPositional sets $0, $1, ... and $@ from the words a -c string is given.
func bindPositional(st *state, words []guard.Word) {
	if len(words) == 0 {
		return
	}
	// the outer shell expanded a ~ before handing the word over
	words = slices.Clone(words)
	for i := range words {
		words[i] = wordexp.ExpandTilde(words[i])
	}
	st.set("0", wordexp.Value{Words: words[:1]})
	for i, wd := range words[1:] {
		if i < 9 {
			st.set(strconv.Itoa(i+1), wordexp.Value{Words: []guard.Word{wd}})
		}
	}
	st.set("@", wordexp.Value{Words: slices.Clone(words[1:]), Array: true})
	st.set("*", wordexp.Value{Words: slices.Clone(words[1:]), Array: true})
}

// declare reads export, declare, local, readonly and typeset: the values it sets, the names it
// exports, and the command itself, whose environment they are.
func (w *walker) declare(c *syntax.DeclClause, st *syntax.Stmt, sc scope) {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	exporting, nameref := variant == "export", variant == "nameref"
	integer := false
	var env []guard.Assign
	for _, a := range c.Args {
		if a.Name == nil && a.Value != nil {
			if lit := a.Value.Lit(); strings.HasPrefix(lit, "-") {
				exporting = exporting || strings.Contains(lit, "x")
				nameref = nameref || strings.Contains(lit, "n")
				integer = integer || strings.Contains(lit, "i")
			}
			w.substs(a, sc)
			continue
		}
		if integer && a.Name != nil {
			sc.st.ints[a.Name.Value] = true
		}
		if nameref && a.Name != nil && a.Value != nil {
			if target := a.Value.Lit(); wordexp.ValidName(target) {
				sc.st.refs[a.Name.Value] = target
				continue
			}
		}
		as, ok := w.assign(a, sc)
		if !ok {
			continue
		}
		if exporting {
			sc.st.exported[as.Name] = true
		}
		env = append(env, as)
	}
	w.emit(guard.Command{Name: guard.Lit(variant), Env: env, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Remote: sc.remote, Text: w.text(st, sc)})
}
