package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// call reads a simple command: its assignments, words and redirections, then the command it runs.
func (w *walker) call(ce *syntax.CallExpr, st *syntax.Stmt, sc scope) []guard.CdStep {
	var env []guard.Assign
	for _, a := range ce.Assigns {
		if a.Name == nil {
			w.substs(a, sc)
			continue
		}
		v := guard.Lit("")
		if a.Value != nil {
			v = w.word(a.Value, sc)
		} else {
			w.substs(a, sc)
		}
		env = append(env, guard.Assign{Name: a.Name.Value, Value: v})
	}
	words := make([]guard.Word, 0, len(ce.Args))
	for _, a := range ce.Args {
		words = append(words, w.word(a, sc))
	}
	reds, stdin := w.redirects(st.Redirs, sc)
	if stdin != nil {
		sc.stdin = stdin
	}
	if len(words) == 0 {
		if len(reds) > 0 {
			w.emit(guard.Command{Name: guard.Lit(""), Env: env, Redirects: reds, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Text: w.text(st, sc)})
		}
		return nil
	}
	return w.command(words, env, reds, sc, w.text(st, sc))
}

// Options that take a value, per wrapper; a wrapper's other options are flags.
var (
	sudoValues    = []string{"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--close-from"}
	doasValues    = []string{"-u", "-C"}
	envValues     = []string{"-u", "-C", "--unset", "--chdir", "-S", "--split-string"}
	niceValues    = []string{"-n", "--adjustment"}
	timeoutValues = []string{"-s", "-k", "--signal", "--kill-after"}
	execValues    = []string{"-a"}
	stdbufValues  = []string{"-i", "-o", "-e", "--input", "--output", "--error"}
	ioniceValues  = []string{"-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"}
	xargsValues   = []string{"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}
	shellValues   = []string{"-o", "-O", "+o", "+O", "--rcfile", "--init-file"}
)

// skipOptions drops a wrapper's leading options and returns the words from the wrapped command on,
// and the options seen (name to value).
func skipOptions(words []guard.Word, values []string) ([]guard.Word, map[string]guard.Word) {
	seen := map[string]guard.Word{}
	for len(words) > 0 {
		t, ok := words[0].Text()
		if !ok || len(t) < 2 || (t[0] != '-' && t[0] != '+') {
			return words, seen
		}
		words = words[1:]
		if t == "--" {
			return words, seen
		}
		if strings.HasPrefix(t, "--") {
			name, val, has := strings.Cut(t, "=")
			switch {
			case has:
				seen[name] = guard.Lit(val)
			case slices.Contains(values, name) && len(words) > 0:
				seen[name] = words[0]
				words = words[1:]
			default:
				seen[name] = guard.Word{}
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			o := t[:1] + string(t[j])
			if slices.Contains(values, o) {
				switch {
				case j+1 < len(t):
					seen[o] = guard.Lit(t[j+1:])
				case len(words) > 0:
					seen[o] = words[0]
					words = words[1:]
				}
				break
			}
			seen[o] = guard.Word{}
		}
	}
	return words, seen
}

// leadingAssigns takes NAME=VALUE words (env and sudo accept them before the command).
func leadingAssigns(words []guard.Word) ([]guard.Word, []guard.Assign) {
	var env []guard.Assign
	for len(words) > 0 {
		p := words[0].Parts
		if len(p) == 0 || p[0].Hole || p[0].Quoted {
			break
		}
		name, val, ok := strings.Cut(p[0].Text, "=")
		if !ok || !validName(name) {
			break
		}
		v := guard.Word{Parts: append([]guard.Part{{Text: val}}, p[1:]...)}
		env = append(env, guard.Assign{Name: name, Value: v})
		words = words[1:]
	}
	return words, env
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh"}

// command finds the command that actually runs past wrappers, emits it, and follows what it
// executes. It returns the cd steps a cd leaves in force.
func (w *walker) command(words []guard.Word, env []guard.Assign, reds []guard.Redirect, sc scope, text string) []guard.CdStep {
	via := slices.Clone(sc.via)
	emit := func(ws []guard.Word) {
		w.emit(guard.Command{Name: ws[0], Args: slices.Clone(ws[1:]), Env: env, Redirects: reds, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: via, Text: text})
	}
	for range maxUnwrap {
		if len(words) == 0 || w.refused != "" {
			return nil
		}
		name, known := words[0].Text()
		if !known {
			emit(words)
			return nil
		}
		base := path.Base(name)
		rest := words[1:]
		switch base {
		case "sudo", "doas":
			values := sudoValues
			if base == "doas" {
				values = doasValues
			}
			var opts map[string]guard.Word
			rest, opts = skipOptions(rest, values)
			if _, listing := opts["-l"]; listing {
				emit(words)
				return nil
			}
			var more []guard.Assign
			rest, more = leadingAssigns(rest)
			env = append(env, more...)
		case "env":
			var opts map[string]guard.Word
			rest, opts = skipOptions(rest, envValues)
			split, hasSplit := opts["-S"]
			if s, ok := opts["--split-string"]; ok {
				split, hasSplit = s, true
			}
			var more []guard.Assign
			rest, more = leadingAssigns(rest)
			env = append(env, more...)
			if hasSplit {
				// env -S "cmd args" splits its string into the command line.
				w.executed(append([]guard.Word{split}, rest...), sc, via, "env -S")
				return nil
			}
		case "nice":
			rest, _ = skipOptions(rest, niceValues)
		case "nohup", "builtin", "unbuffer", "caffeinate":
			if len(rest) > 0 {
				if t, _ := rest[0].Text(); t == "--" {
					rest = rest[1:]
				}
			}
		case "timeout":
			rest, _ = skipOptions(rest, timeoutValues)
			if len(rest) > 0 {
				rest = rest[1:] // the duration
			}
		case "stdbuf":
			rest, _ = skipOptions(rest, stdbufValues)
		case "ionice":
			rest, _ = skipOptions(rest, ioniceValues)
		case "time":
			rest, _ = skipOptions(rest, nil)
		case "command":
			var opts map[string]guard.Word
			rest, opts = skipOptions(rest, nil)
			_, v := opts["-v"]
			_, V := opts["-V"]
			if v || V {
				emit(words)
				return nil // command -v only looks the name up
			}
		case "exec":
			rest, _ = skipOptions(rest, execValues)
		case "xargs":
			rest, _ = skipOptions(rest, xargsValues)
			if len(rest) == 0 {
				rest = []guard.Word{guard.Lit("echo")}
			}
			from := "stdin"
			if sc.stdin != nil {
				from = sc.stdin.from
				if sc.stdin.known {
					from = "echo"
				}
			}
			rest = append(slices.Clone(rest), guard.HoleWord(from))
			sc.stdin = nil
		case "eval":
			emit(words)
			w.executed(rest, sc, via, "eval")
			return nil
		case "cd", "pushd":
			emit(words)
			return []guard.CdStep{cdStep(rest)}
		case "find":
			emit(words)
			w.findExec(rest, env, reds, sc, via, text)
			return nil
		case "git":
			emit(words)
			w.gitAlias(rest, sc, via, text)
			return nil
		case "watch":
			rest, _ = skipOptions(rest, []string{"-n", "--interval", "-d", "--differences", "-q", "--equexit"})
			emit(words)
			w.executed(rest, sc, via, "watch")
			return nil
		default:
			if slices.Contains(shells, base) {
				w.shell(words, env, reds, sc, via, text)
				return nil
			}
			emit(words)
			return nil
		}
		via = append(via, base)
		words = rest
	}
	w.refuse("the command line wraps one command in more than 16 others")
	return nil
}

// cdStep is where cd goes: its first operand past -L -P -e -@, or home when there is none.
func cdStep(args []guard.Word) guard.CdStep {
	for _, a := range args {
		t, ok := a.Text()
		if ok && (t == "-L" || t == "-P" || t == "-e" || t == "-@" || t == "--") {
			continue
		}
		if ok && t == "" {
			return guard.CdStep{Target: a}
		}
		return guard.CdStep{Target: a}
	}
	return guard.CdStep{Home: true}
}

// executed reads words the shell joins into a command line and runs (eval, env -S, watch): parsed
// again one level deeper when known, or an opaque command when not.
func (w *walker) executed(words []guard.Word, sc scope, via []string, how string) {
	if len(words) == 0 {
		return
	}
	parts := make([]string, 0, len(words))
	known := true
	for _, wd := range words {
		in := textOf(wd, "")
		if !wd.Known() {
			known = false
		}
		parts = append(parts, in.text)
	}
	inner := sc
	inner.via = append(slices.Clone(via), how)
	inner.depth++
	inner.stdin = nil
	if !known && allUnknown(words) {
		w.opaque(inner, how+" "+text.ClipAt(strings.Join(parts, " "), maxEcho))
		return
	}
	w.line(strings.Join(parts, " "), inner)
}

func allUnknown(words []guard.Word) bool {
	for _, wd := range words {
		if !wd.AllHole() {
			return false
		}
	}
	return true
}

// opaque records a command whose text cannot be known.
func (w *walker) opaque(sc scope, text string) {
	w.emit(guard.Command{Name: guard.HoleWord(""), Opaque: true, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Text: text})
}

// shell follows sh|bash|zsh: -c "string", a script fed on stdin (heredoc, here-string, echo ... |),
// or a script file, which the guard cannot read.
func (w *walker) shell(words []guard.Word, env []guard.Assign, reds []guard.Redirect, sc scope, via []string, text string) {
	base := path.Base(func() string { t, _ := words[0].Text(); return t }())
	w.emit(guard.Command{Name: words[0], Args: slices.Clone(words[1:]), Env: env, Redirects: reds, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: via, Text: text})
	rest := words[1:]
	command := false
	fromStdin := false
	for len(rest) > 0 {
		t, ok := rest[0].Text()
		if !ok || len(t) < 2 || (t[0] != '-' && t[0] != '+') {
			break
		}
		rest = rest[1:]
		if t == "--" || t == "-" {
			break
		}
		if strings.HasPrefix(t, "--") {
			if slices.Contains(shellValues, t) && len(rest) > 0 {
				rest = rest[1:]
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			switch t[j] {
			case 'c':
				command = true
			case 's':
				fromStdin = true
			case 'o', 'O':
				if j == len(t)-1 && len(rest) > 0 {
					rest = rest[1:]
				}
			}
		}
	}
	inner := sc
	inner.via = append(slices.Clone(via), base+map[bool]string{true: " -c", false: ""}[command])
	inner.depth++
	inner.stdin = nil
	switch {
	case command:
		if len(rest) == 0 {
			return
		}
		if rest[0].AllHole() {
			w.opaque(inner, base+" -c "+rest[0].String())
			return
		}
		w.line(textOf(rest[0], "").text, inner)
	case len(rest) > 0 && !fromStdin:
		// a script file: its text is not on the line
	case sc.stdin != nil && sc.stdin.known:
		w.line(sc.stdin.text, inner)
	case sc.stdin != nil:
		w.opaque(inner, sc.stdin.from+" | "+base)
	}
}

// findExec follows find's -exec, -execdir, -ok and -okdir: the command runs once per file, {} being
// the file found.
func (w *walker) findExec(args []guard.Word, env []guard.Assign, reds []guard.Redirect, sc scope, via []string, text string) {
	for i := 0; i < len(args); i++ {
		t, _ := args[i].Text()
		if t != "-exec" && t != "-execdir" && t != "-ok" && t != "-okdir" {
			continue
		}
		var sub []guard.Word
		j := i + 1
		for ; j < len(args); j++ {
			e, _ := args[j].Text()
			if e == ";" || (e == "+" && j > i+1) {
				break
			}
			if strings.Contains(e, "{}") && args[j].Known() {
				sub = append(sub, guard.HoleWord("find"))
				continue
			}
			sub = append(sub, args[j])
		}
		if len(sub) > 0 {
			inner := sc
			w.command(sub, env, nil, inner.withVia(via, "find "+t), text)
		}
		i = j
	}
	_ = reds
}

func (s scope) withVia(via []string, how string) scope {
	s.via = append(slices.Clone(via), how)
	return s
}

// gitAlias follows git -c alias.NAME=VALUE NAME: the alias runs in the subcommand's place, and an
// alias starting with ! runs as a shell command.
func (w *walker) gitAlias(args []guard.Word, sc scope, via []string, text string) {
	aliases := map[string]guard.Word{}
	var global []guard.Word
	i := 0
	for ; i < len(args); i++ {
		t, ok := args[i].Text()
		if !ok || !strings.HasPrefix(t, "-") {
			break
		}
		global = append(global, args[i])
		var kv guard.Word
		switch {
		case t == "-c" && i+1 < len(args):
			i++
			global = append(global, args[i])
			kv = args[i]
		case strings.HasPrefix(t, "-c") && len(t) > 2:
			kv = guard.Lit(t[2:])
		case (t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace") && i+1 < len(args):
			i++
			global = append(global, args[i])
			continue
		default:
			continue
		}
		if len(kv.Parts) == 0 || kv.Parts[0].Hole {
			continue
		}
		key, val, ok := strings.Cut(kv.Parts[0].Text, "=")
		if name, isAlias := strings.CutPrefix(strings.ToLower(key), "alias."); ok && isAlias {
			aliases[name] = guard.Word{Parts: append([]guard.Part{{Text: val}}, kv.Parts[1:]...)}
		}
	}
	if i >= len(args) || len(aliases) == 0 {
		return
	}
	sub, ok := args[i].Text()
	value, found := aliases[strings.ToLower(sub)]
	if !ok || !found {
		return
	}
	inner := sc
	inner.via = append(slices.Clone(via), "git alias "+sub)
	inner.depth++
	body := textOf(value, "").text
	rest := args[i+1:]
	if shellBody, bang := strings.CutPrefix(strings.TrimSpace(body), "!"); bang {
		// git runs a ! alias with the shell, the remaining words as its arguments.
		w.line(shellBody, inner)
		return
	}
	if inner.depth > MaxDepth {
		w.refuse("the command line executes strings nested more than 4 deep")
		return
	}
	// A plain alias is git's own words: read them as shell words, then run git with them.
	f, err := parse(body)
	if err != nil || len(f.Stmts) != 1 {
		w.opaque(inner, "git alias "+sub)
		return
	}
	ce, isCall := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !isCall {
		w.opaque(inner, "git alias "+sub)
		return
	}
	inner.src = body
	words := []guard.Word{guard.Lit("git")}
	words = append(words, global...)
	for _, a := range ce.Args {
		words = append(words, w.word(a, inner))
	}
	words = append(words, rest...)
	w.command(words, nil, nil, inner, text)
}
