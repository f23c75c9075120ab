package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// xargsValues are the options of xargs that take a value.
var xargsValues = []string{"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--eof"}

// xargs runs its command with the words it reads appended (or put in place of -I's string): the
// words are known when what feeds it is (echo / | xargs rm -rf), else named by what feeds it.
func (w *walker) xargs(c *cmdCall) bool {
	rest, opts := argv.Skip(c.words[1:], xargsValues)
	if len(rest) == 0 {
		rest = []guard.Word{guard.Lit("echo")}
	}
	in := c.sc.stdin
	if f, ok := argv.FirstOf(opts, "-a", "--arg-file"); ok {
		in = w.fileInput(f, c.sc, nil)
	}
	repl, hasRepl := argv.FirstOf(opts, "-I", "--replace", "-i")
	if r, ok := repl.Text(); hasRepl && (!ok || r == "") {
		repl = guard.Lit("{}")
	}
	_, nul := argv.FirstOf(opts, "-0", "--null")
	delim, hasDelim := argv.FirstOf(opts, "-d", "--delimiter")
	// each word xargs reads is one argument: it cannot split into more
	inputs := []guard.Word{{Parts: []guard.Part{{Hole: true, From: orStdin(in), Quoted: true, Reads: in.sources()}}}}
	if in.hasWord() {
		switch d, _ := delim.Text(); {
		case hasRepl:
			// -I reads whole lines, each put in place of its string
			inputs = splitOn(in.word, "\n\x00")
		case nul || hasDelim:
			inputs = splitOn(in.word, "\x00"+wordexp.ANSIC(d))
		default:
			inputs = splitWord(in.word, maxLoopValues)
		}
	}
	words := slices.Clone(rest)
	if hasRepl && len(inputs) > 0 {
		r, _ := repl.Text()
		words = words[:0]
		for _, wd := range rest {
			words = append(words, replaceIn(wd, r, inputs[0]))
		}
	} else {
		words = append(words, inputs...)
	}
	c.sc.stdin = nil
	return c.through("xargs", words)
}

// splitOn splits a word at any of the separator characters, keeping unknown parts in place.
func splitOn(wd guard.Word, seps string) []guard.Word {
	out := splitAt(wd, seps, "")
	return out[:min(len(out), maxLoopValues)]
}

// splitAt splits a word's known text at any of seps, dropping the characters in drop; unknown
// parts stay inside the word they fall in.
func splitAt(wd guard.Word, seps, drop string) []guard.Word {
	var out []guard.Word
	var cur guard.Word
	flush := func() {
		if len(cur.Parts) > 0 {
			out = append(out, cur)
		}
		cur = guard.Word{}
	}
	for _, p := range wd.Parts {
		if p.Hole {
			cur.Parts = append(cur.Parts, p)
			continue
		}
		for _, r := range p.Text {
			switch {
			case strings.ContainsRune(seps, r):
				flush()
			case strings.ContainsRune(drop, r):
			default:
				cur.Parts = wordexp.AddPart(cur.Parts, guard.Part{Text: string(r)})
			}
		}
	}
	flush()
	return out
}

// replaceIn puts in in place of every r inside wd's known text.
func replaceIn(wd guard.Word, r string, in guard.Word) guard.Word {
	if r == "" {
		return wd
	}
	var out guard.Word
	for _, p := range wd.Parts {
		if p.Hole || !strings.Contains(p.Text, r) {
			out.Parts = append(out.Parts, p)
			continue
		}
		pieces := strings.Split(p.Text, r)
		for i, piece := range pieces {
			if i > 0 {
				for _, q := range in.Parts {
					q.Quoted = p.Quoted
					out.Parts = append(out.Parts, q)
				}
			}
			if piece != "" {
				out.Parts = append(out.Parts, guard.Part{Text: piece, Quoted: p.Quoted})
			}
		}
	}
	return out
}

func orStdin(in *input) string {
	if in == nil || in.from == "" {
		return "stdin"
	}
	return in.from
}

// findExec follows find's -exec, -execdir, -ok and -okdir: the command runs once per file, {} being
// the file found.
func (w *walker) findExec(c *cmdCall) {
	args := c.words[1:]
	for i := 0; i < len(args); i++ {
		t, _ := args[i].Text()
		if t != "-exec" && t != "-execdir" && t != "-ok" && t != "-okdir" {
			continue
		}
		var sub []guard.Word
		found := findName(args[:i])
		j := i + 1
		for ; j < len(args); j++ {
			e, _ := args[j].Text()
			if e == ";" || (e == "+" && j > i+1) {
				break
			}
			if e == "{}" {
				sub = append(sub, found)
				continue
			}
			if strings.Contains(e, "{}") && args[j].Known() {
				// f=@{}: the path found inside the word
				sub = append(sub, replaceIn(args[j], "{}", found))
				continue
			}
			sub = append(sub, args[j])
		}
		if len(sub) > 0 {
			inner := &cmdCall{words: sub, env: c.env, sc: c.sc, via: append(slices.Clone(c.via), "find "+t), text: c.text}
			w.command(inner)
			w.findModes(c, args[:i], args[i+1:j])
		}
		i = j
	}
}

// narrowing are find's tests that pick some files out of what it walks; -type alone does not.
var narrowing = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-newer", "-mtime", "-mmin", "-atime",
	"-amin", "-ctime", "-cmin", "-empty", "-size", "-user", "-perm", "-links", "-inum", "-samefile", "-lname", "-ilname"}

// findModes reads find -exec chmod (chown, chgrp) with no test narrowing what it walks as the
// recursive change it is: find ~ -exec chmod 000 {} + is chmod -R 000 ~.
func (w *walker) findModes(c *cmdCall, expr, sub []guard.Word) {
	name, _ := argv.FirstText(sub)
	if base := path.Base(name); base != "chmod" && base != "chown" && base != "chgrp" || hasAny(expr, narrowing) {
		return
	}
	for _, start := range findStarts(expr) {
		words := []guard.Word{sub[0], guard.Lit("-R")}
		for _, wd := range sub[1:] {
			if t, ok := wd.Text(); ok && strings.Contains(t, "{}") {
				wd = start
			}
			words = append(words, wd)
		}
		w.command(&cmdCall{words: words, env: c.env, sc: c.sc, via: append(slices.Clone(c.via), "find -exec"), text: c.text})
	}
}

// hasAny reports a word among ws that is one of names.
func hasAny(ws []guard.Word, names []string) bool {
	return slices.ContainsFunc(ws, func(wd guard.Word) bool { t, ok := wd.Text(); return ok && slices.Contains(names, t) })
}

// findName is what find's {} stands for: a path found under its start point (when it has one
// known start point), ending in the name -name gives (find . -name .git -exec rm -rf {} +), or in
// what its pattern spells around its wildcards (-name '*.sh' ends in .sh).
func findName(args []guard.Word) guard.Word {
	var name *guard.Word
	for i := 0; i+1 < len(args); i++ {
		t, _ := args[i].Text()
		if t != "-name" && t != "-iname" {
			continue
		}
		v, ok := args[i+1].Text()
		if !ok || strings.ContainsAny(v, "\\/") || name != nil || t == "-iname" && strings.ContainsAny(v, "*?[") {
			return guard.HoleWord("find")
		}
		n := namePattern(v)
		name = &n
	}
	start := guard.Word{Parts: []guard.Part{{Hole: true, From: "find"}}}
	if starts := findStarts(args); len(starts) == 1 {
		if t, ok := starts[0].Text(); ok && t != "" {
			start = guard.Word{Parts: []guard.Part{{Text: t}, {Hole: true, From: "find"}}}
		}
	}
	if name == nil {
		return start
	}
	parts := wordexp.AddPart(start.Parts, guard.Part{Text: "/"})
	for _, p := range name.Parts {
		parts = wordexp.AddPart(parts, p)
	}
	return guard.Word{Parts: parts}
}

// findStarts are find's start points: its words after its leading options, up to its expression.
func findStarts(args []guard.Word) []guard.Word {
	i := 0
	for ; i < len(args); i++ {
		t, ok := args[i].Text()
		if !ok || t != "-H" && t != "-L" && t != "-P" && !strings.HasPrefix(t, "-O") && t != "-D" {
			break
		}
		if t == "-D" {
			i++
		}
	}
	var out []guard.Word
	for ; i < len(args); i++ {
		t, ok := args[i].Text()
		if ok && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" || t == ",") {
			break
		}
		out = append(out, args[i])
	}
	return out
}

// namePattern is a -name pattern as a word: its literal text, and a hole for each run of wildcards.
func namePattern(p string) guard.Word {
	var w guard.Word
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*', '?', '[':
			if c == '[' {
				if j := strings.IndexByte(p[i+1:], ']'); j >= 0 {
					i += j + 1
				}
			}
			if n := len(w.Parts); n == 0 || !w.Parts[n-1].Hole {
				w.Parts = append(w.Parts, guard.Part{Hole: true, From: "find"})
			}
		default:
			w.Parts = wordexp.AddPart(w.Parts, guard.Part{Text: string(c)})
		}
	}
	return w
}

// splitWord splits a word the way xargs splits its input (blanks and newlines, quotes dropped),
// keeping unknown parts inside the words they fall in; past max words the rest is one unknown word.
func splitWord(wd guard.Word, max int) []guard.Word {
	out := splitAt(wd, " \t\n", "'\"")
	if len(out) > max {
		out = append(out[:max], guard.HoleWord("echo"))
	}
	return out
}

var fdValues = []string{"-e", "--extension", "-t", "--type", "-d", "--max-depth", "--min-depth", "--exact-depth", "-E", "--exclude", "-S", "--size",
	"--changed-within", "--changed-before", "-o", "--owner", "-j", "--threads", "-c", "--color", "--max-results", "--format", "--path-separator",
	"--ignore-file", "--batch-size", "--max-buffer-time", "--and", "--base-directory"}

// fdExec reads fd (fd-find): with -x/--exec or -X/--exec-batch it runs a command on what it finds
// under its search paths, read as find -exec is (fd . ~ -X rm -rf is find ~ -exec rm -rf {} +).
func (w *walker) fdExec(c *cmdCall) {
	args := c.words[1:]
	var positional, paths, cmd, tests []guard.Word
	for i := 0; i < len(args); i++ {
		t, ok := args[i].Text()
		switch {
		case ok && (t == "-x" || t == "--exec" || t == "-X" || t == "--exec-batch"):
			for j := i + 1; j < len(args); j++ {
				if e, _ := args[j].Text(); e == ";" {
					break
				}
				cmd = append(cmd, args[j])
			}
			i = len(args)
		case ok && t == "--search-path" && i+1 < len(args):
			i++
			paths = append(paths, args[i])
		case ok && strings.HasPrefix(t, "--search-path="):
			paths = append(paths, guard.Lit(strings.TrimPrefix(t, "--search-path=")))
		case ok && (t == "-e" || t == "--extension" || t == "-g" || t == "--glob") && i+1 < len(args):
			// what fd matches narrows what it finds, as find's -name does
			i++
			tests = append(tests, guard.Lit("-name"), args[i])
		case ok && slices.Contains(fdValues, t):
			i++
		case ok && strings.HasPrefix(t, "-"):
		default:
			positional = append(positional, args[i])
		}
	}
	if len(cmd) == 0 {
		c.emit(w)
		return
	}
	if len(positional) > 1 {
		paths = append(paths, positional[1:]...)
	}
	if len(positional) > 0 {
		if t, ok := positional[0].Text(); !ok || (t != "." && t != "" && t != "^" && t != ".*") {
			tests = append(tests, guard.Lit("-name"), positional[0])
		}
	}
	if len(paths) == 0 {
		paths = []guard.Word{guard.Lit(".")}
	}
	words := append(append(append([]guard.Word{guard.Lit("find")}, paths...), tests...), guard.Lit("-exec"))
	words = append(append(words, cmd...), guard.Lit("{}"), guard.Lit("+"))
	as := &cmdCall{words: words, env: c.env, reds: c.reds, sc: c.sc, via: append(slices.Clone(c.via), "fd"), text: c.text}
	as.emit(w)
	w.findExec(as)
}
