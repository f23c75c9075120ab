package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/interpreters"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// call reads a simple command: its assignments, words and redirections, then the command it runs.
func (w *walker) call(ce *syntax.CallExpr, st *syntax.Stmt, sc scope) []guard.CdStep {
	var env []guard.Assign
	for _, a := range ce.Assigns {
		if as, ok := w.assign(a, sc); ok {
			env = append(env, as)
		}
	}
	var words []guard.Word
	for _, a := range ce.Args {
		words = append(words, w.fields(a, sc)...)
	}
	red := w.redirects(st.Redirs, sc)
	if red.stdin != nil {
		sc.stdin = red.stdin
	}
	if red.fds != nil {
		// exec with only redirections opens them for the rest of the line; otherwise they are the
		// command's own
		if len(words) == 1 && path.Base(words[0].String()) == "exec" {
			sc.st.fds = red.fds
		} else {
			sc.fds = red.fds
		}
	}
	text := w.text(st, sc)
	if len(words) == 0 {
		if len(red.out) > 0 || len(env) > 0 {
			w.emit(guard.Command{Name: guard.Lit(""), Env: env, Redirects: red.out, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Text: text})
		}
		return nil
	}
	c := &cmdCall{words: words, env: append(sc.st.exportedEnv(), env...), reds: red.out, sc: sc, via: slices.Clone(sc.via), text: text, redirected: len(st.Redirs) > 0}
	return w.command(c)
}

// cmdCall is one command being read: its words (from the program that runs on), its environment,
// its redirections, and the wrappers read past so far.
type cmdCall struct {
	words []guard.Word
	env   []guard.Assign
	reds  []guard.Redirect
	sc    scope
	via   []string
	text  string
	// redirected is a command with any redirection of its own (its input may come from one).
	redirected bool
}

// emit records the command as its words stand.
func (c *cmdCall) emit(w *walker) {
	w.emit(c.command())
}

func (c *cmdCall) command() guard.Command {
	cmd := guard.Command{Name: c.words[0], Args: slices.Clone(c.words[1:]), Env: c.env, Redirects: c.reds, Cd: slices.Clone(c.sc.cd),
		Depth: c.sc.depth, Via: slices.Clone(c.via), Text: c.text}
	// A function calling itself in the background or a pipe, or anything started in the
	// background by a loop that never ends, multiplies until the machine stops: a fork bomb.
	st := c.sc.st
	cmd.Spawns = st.inFunc != "" && cmd.Base() == st.inFunc && (c.sc.piped || c.sc.background) || st.forever && c.sc.background
	return cmd
}

// through moves past a wrapper to the command it runs.
func (c *cmdCall) through(base string, rest []guard.Word) bool {
	c.via = append(c.via, base)
	c.words = rest
	return len(rest) > 0
}

// command finds the command that actually runs past wrappers, emits it, and follows what it
// executes. It returns the cd steps a cd leaves in force.
func (w *walker) command(c *cmdCall) []guard.CdStep {
	for range maxUnwrap {
		if len(c.words) == 0 || w.refused != "" {
			return nil
		}
		name, known := c.words[0].Text()
		if !known {
			w.unknownName(c)
			return nil
		}
		if hashed, ok := c.sc.st.vars[hashKey+name]; ok && !strings.Contains(name, "/") && len(hashed.Words) == 1 {
			// hash -p PATH NAME: NAME runs PATH
			c.words = append([]guard.Word{hashed.Words[0]}, c.words[1:]...)
			name, known = hashed.Words[0].Text()
			if !known {
				w.unknownName(c)
				return nil
			}
		}
		more, cd := w.step(c, path.Base(name))
		if !more {
			return cd
		}
	}
	w.refuse("the command line wraps one command in more than 16 others")
	return nil
}

// step reads one program: a wrapper moves c on to the command it runs (more is true); anything
// else is emitted and followed into what it executes.
func (w *walker) step(c *cmdCall, base string) (more bool, cd []guard.CdStep) {
	if base == "ln" || base == "cp" {
		w.links(c, base)
	}
	switch base {
	case "sudo", "doas":
		return w.sudo(c), nil
	case "env":
		return w.env(c), nil
	case "xargs":
		return w.xargs(c), nil
	case "cd", "pushd":
		c.emit(w)
		return false, []guard.CdStep{cdStep(c.words[1:])}
	case "find":
		c.emit(w)
		w.findExec(c)
		return false, nil
	case "fd", "fdfind":
		w.fdExec(c)
		return false, nil
	case "start-stop-daemon":
		return w.startStop(c), nil
	case "git":
		w.git(c)
		return false, nil
	case "coreutils":
		return w.coreutils(c), nil
	case "apply_patch", "applypatch":
		w.applyPatch(c, base)
		return false, nil
	case "read":
		c.emit(w)
		w.readWords(c.words[1:], c.sc.stdin, c.sc)
		return false, nil
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
		return false, nil
	case "set":
		c.emit(w)
		setPositional(c.sc.st, c.words[1:])
		return false, nil
	case "mapfile", "readarray":
		c.emit(w)
		mapfile(c.words[1:], c.sc.stdin, c.sc.st)
		return false, nil
	case "printf":
		if name, ok := printfVar(c.words[1:]); ok {
			// printf -v NAME FORMAT ARGS sets NAME to what it would print
			c.emit(w)
			out, known := printfOutput(c.words[3:])
			if !known {
				out = guard.HoleWord("printf")
			}
			c.sc.st.set(name, wordexp.Value{Words: []guard.Word{out}})
			return false, nil
		}
	}
	if body := c.sc.st.funcs[base]; body != nil && base == c.words[0].String() {
		w.callFunction(c, base, body)
		return false, nil
	}
	if w.follows(c, base) {
		return false, nil
	}
	if wr, ok := wrappers()[base]; ok {
		return w.unwrap(c, base, wr), nil
	}
	w.plain(c, base)
	return false, nil
}

// follows reads the programs that run a string or a file of commands: shells, interpreters, eval,
// source, trap, alias, su, ssh and the rest. It reports whether base was one.
func (w *walker) follows(c *cmdCall, base string) bool {
	switch {
	case slices.Contains(shells, base) || slices.Contains(otherShells, base):
		w.shell(c, base)
	case interpreters.Is(base):
		w.interpreter(c, base)
	case base == "eval":
		c.emit(w)
		w.executed(c.words[1:], c.sc, c.via, "eval")
	case base == "source" || base == ".":
		w.source(c, base)
	case base == "trap":
		w.trap(c)
	case base == "alias":
		w.alias(c)
	case base == "su" || base == "runuser" || base == "sg":
		w.switchUser(c, base)
	case base == "script":
		w.script(c)
	case base == "ssh":
		w.ssh(c)
	case base == "parallel":
		w.parallel(c)
	case base == "at" || base == "batch":
		w.at(c)
	case base == "crontab":
		w.crontab(c)
	case base == "tmux" || base == "screen":
		w.terminal(c, base)
	case base == "expect":
		w.expect(c)
	case base == "nix":
		w.nix(c)
	case base == "entr" && argv.HasFlag(c.words[1:], "-s"):
		c.emit(w)
		if rest, _ := argv.Skip(c.words[1:], nil); len(rest) > 0 {
			w.executed(rest[:1], c.sc, c.via, "entr -s")
		}
	case cmdStrings[base] != nil:
		c.emit(w)
		rest, _ := argv.Skip(c.words[1:], cmdStrings[base])
		for _, s := range rest {
			w.executed([]guard.Word{s}, c.sc, c.via, base)
		}
	default:
		return w.runsCommands(c, base)
	}
	return true
}

// plain emits a command that runs nothing else: a file it downloaded earlier runs code from the
// network, and a function of the line calling itself in the background or a pipe is a fork bomb.
func (w *walker) plain(c *cmdCall, base string) {
	cmd := c.command()
	st := c.sc.st
	if name, ok := c.words[0].Text(); ok && strings.Contains(name, "/") {
		// a file the line wrote or downloaded, run as a program
		if in := w.fileInput(c.words[0], c.sc, nil); in != nil {
			w.runInput(in, c.sc.sub().child(c.via, name), c.text)
		}
	} else if ok {
		// a name found through a PATH the command is given, in a folder where the line wrote it
		for _, e := range c.env {
			if e.Name != "PATH" {
				continue
			}
			for _, dir := range strings.Split(wordexp.Source(e.Value), ":") {
				if !strings.HasPrefix(dir, "/") {
					continue
				}
				if in := w.fileInput(guard.Lit(path.Join(dir, name)), c.sc, nil); in != nil {
					w.runInput(in, c.sc.sub().child(c.via, name), c.text)
				}
			}
		}
	}
	w.emit(cmd)
	if base == "tee" && c.sc.stdin != nil && !c.sc.stdin.hasWord() && c.sc.stdin.from != "" {
		// curl ... | tee x.sh: the file holds what the download sent
		for _, wd := range c.words[1:] {
			if t, ok := wd.Text(); ok && !strings.HasPrefix(t, "-") {
				st.downloads[path.Clean(t)] = c.sc.stdin.from
			}
		}
	}
	for _, saved := range guard.Saved(cmd) {
		if t, ok := saved.Text(); ok {
			st.downloads[path.Clean(t)] = base
		}
	}
	w.remember(c, base)
}

// remember keeps what the line writes to a file when it knows the text (echo ... > x.sh, tee x.sh
// fed known text), so a later command running that file is read as running that text.
func (w *walker) remember(c *cmdCall, base string) {
	var text *input
	switch base {
	case "tee":
		if c.sc.stdin.hasWord() {
			text = c.sc.stdin
			for _, f := range c.words[1:] {
				if t, ok := f.Text(); ok && !strings.HasPrefix(t, "-") {
					c.sc.st.files[path.Clean(t)] = text
				}
			}
		}
	default:
		text = w.callOutput(c.words, c.sc)
	}
	if text == nil || !text.hasWord() {
		// text the line does not know (cmd > x.sh): running the file later runs what cmd wrote
		text = fromNames(base)
	}
	for _, r := range c.reds {
		if t, ok := r.Target.Text(); ok && (r.Op == ">" || r.Op == ">>" || r.Op == ">|") {
			c.sc.st.files[path.Clean(t)] = text
		}
	}
}

// unknownName emits a command whose name is not known until it runs ($CMD, $(...)): the guard
// matches it against every command it could be.
func (w *walker) unknownName(c *cmdCall) {
	if in := w.fileInput(c.words[0], c.sc, nil); in != nil {
		// <(...) run as a program: its output is the program
		w.runInput(in, c.sc.child(c.via, "process substitution"), c.text)
	}
	if c.words[0].AllHole() {
		for _, from := range strings.Fields(holeFrom(c.words[:1])) {
			if slices.Contains(downloaders, from) {
				// $(curl ...) as the command: what the network sends is what runs
				w.opaque(c.sc, c.text, from)
				break
			}
		}
	}
	c.emit(w)
}

// unwrap reads a wrapper from the table: its options, the words before the command, and whether
// it runs a command string, no command at all, or the words after it.
func (w *walker) unwrap(c *cmdCall, base string, wr wrap) bool {
	rest := c.words[1:]
	if len(wr.after) > 0 {
		if cmd, ok := argv.After(rest, wr.after); ok {
			return len(cmd) > 0 && c.through(base, cmd)
		}
	}
	var done bool
	if rest, done = w.wrapOptions(c, base, wr, rest); done {
		return false
	}
	if len(wr.sub) > 0 {
		t, _ := argv.FirstText(rest)
		if !slices.Contains(wr.sub, t) {
			c.emit(w)
			return false
		}
		if rest, done = w.wrapOptions(c, base, wr, rest[1:]); done {
			return false
		}
	}
	if wr.shell {
		// capsh -- ARGS runs bash ARGS
		return len(rest) > 0 && c.through(base, append([]guard.Word{guard.Lit("bash")}, rest...))
	}
	if wr.noCmd || len(wr.after) > 0 {
		c.emit(w)
		return false
	}
	rest = rest[min(wr.skip, len(rest)):]
	// options may follow the words it skips (flock FILE -c 'cmd')
	if rest, done = w.wrapOptions(c, base, wr, rest); done {
		return false
	}
	if wr.untilDash {
		for len(rest) > 0 {
			t, _ := argv.FirstText(rest)
			rest = rest[1:]
			if t == "--" {
				break
			}
		}
	}
	if t, _ := argv.FirstText(rest); t == "--" {
		rest = rest[1:]
	}
	if wr.joined {
		w.executed(rest, c.sc, c.via, base)
		return false
	}

	if len(rest) == 0 {
		// nothing to run (exec 5<>/dev/tcp/...): the wrapper's own redirections still happen
		c.emit(w)
		return false
	}
	return c.through(base, rest)
}

// wrapOptions reads a wrapper's options; done is true when they settle what runs (an option that
// runs nothing, or a command string, which is followed here).
func (w *walker) wrapOptions(c *cmdCall, base string, wr wrap, rest []guard.Word) ([]guard.Word, bool) {
	for len(rest) > 0 {
		t, ok := rest[0].Text()
		if !ok || len(t) < 2 || t[0] != '-' {
			return rest, false
		}
		rest = rest[1:]
		if t == "--" {
			return rest, false
		}
		name, val, hasVal := strings.Cut(t, "=")
		if !strings.HasPrefix(t, "--") && len(t) > 2 {
			name, val, hasVal = t[:2], t[2:], true
			if !slices.Contains(wr.values, name) && !slices.Contains(wr.str, name) && !slices.Contains(wr.dir, name) {
				hasVal = false // a cluster of flags
			}
		}
		value := func() (guard.Word, bool) {
			if hasVal {
				return guard.Lit(val), true
			}
			if len(rest) == 0 {
				return guard.Word{}, false
			}
			v := rest[0]
			rest = rest[1:]
			return v, true
		}
		switch {
		case slices.Contains(wr.stop, name):
			c.emit(w)
			return nil, true
		case slices.Contains(wr.str, name):
			if v, ok := value(); ok {
				c.emit(w)
				w.executed([]guard.Word{v}, c.sc, c.via, base+" "+name)
			}
			return nil, true
		case slices.Contains(wr.dir, name):
			if v, ok := value(); ok {
				c.sc.cd = append(slices.Clone(c.sc.cd), guard.CdStep{Target: v, Sure: true})
			}
		case slices.Contains(wr.two, name):
			if len(rest) >= 2 {
				rest = rest[2:]
			}
		case slices.Contains(wr.values, name):
			value()
		}
	}
	return rest, false
}

// Options that take a value, for the wrappers read here.
var (
	sudoValues  = []string{"-u", "-g", "-h", "-p", "-C", "-r", "-t", "-T", "-U", "--user", "--group", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--close-from"}
	envValues   = []string{"-u", "--unset", "-S", "--split-string", "-C", "--chdir", "-P", "--default-signal", "--ignore-signal", "--block-signal"}
	xargsValues = []string{"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--eof"}
	shellValues = []string{"-o", "-O", "+o", "+O", "--rcfile", "--init-file"}
)

// leadingAssigns takes NAME=VALUE words (env and sudo accept them before the command).
func leadingAssigns(words []guard.Word) ([]guard.Word, []guard.Assign) {
	var env []guard.Assign
	for len(words) > 0 {
		p := words[0].Parts
		if len(p) == 0 || p[0].Hole {
			break
		}
		name, val, ok := strings.Cut(p[0].Text, "=")
		// a program's NAME=VALUE words may be quoted, and bash takes BASH_FUNC_name%% from its
		// environment as a function
		if !ok || !(wordexp.ValidName(name) || strings.HasPrefix(name, "BASH_FUNC_") && strings.HasSuffix(name, "%%")) {
			break
		}
		v := guard.Word{Parts: append([]guard.Part{{Text: val}}, p[1:]...)}
		env = append(env, guard.Assign{Name: name, Value: v})
		words = words[1:]
	}
	return words, env
}

// sudo runs its command as another user; -s and -i run the words through a shell, -e edits files.
func (w *walker) sudo(c *cmdCall) bool {
	rest, opts := argv.Skip(c.words[1:], sudoValues)
	for _, o := range []string{"-l", "--list", "-v", "--validate", "-k", "-K", "--reset-timestamp", "--remove-timestamp", "-V", "--version", "-h", "--help"} {
		if _, ok := opts[o]; ok && len(rest) == 0 {
			c.emit(w)
			return false
		}
	}
	rest = c.chdirAndAssign(opts, rest, "-D")
	if _, edit := argv.FirstOf(opts, "-e", "--edit"); edit {
		return c.through("sudo", append([]guard.Word{guard.Lit("sudoedit")}, rest...))
	}
	if _, sh := argv.FirstOf(opts, "-s", "--shell", "-i", "--login"); sh && len(rest) == 0 {
		// a shell reading its input: echo 'cmd' | sudo -s
		c.emit(w)
		if w.interactive(c, "sudo") {
			return false
		}
		w.runInput(c.sc.stdin, c.sc.sub().child(c.via, "sudo -s"), c.text)
		return false
	}
	// sudo -s cmd runs cmd through the shell with its words escaped: the same command
	return c.through("sudo", rest)
}

// chdirAndAssign applies a wrapper's change of folder (short, or --chdir) and the NAME=value words
// that lead its command, and returns the rest.
func (c *cmdCall) chdirAndAssign(opts map[string]guard.Word, rest []guard.Word, short string) []guard.Word {
	if d, ok := argv.FirstOf(opts, short, "--chdir"); ok {
		c.sc.cd = append(slices.Clone(c.sc.cd), guard.CdStep{Target: d, Sure: true})
	}
	rest, more := leadingAssigns(rest)
	c.env = append(c.env, more...)
	return rest
}

// env sets variables for its command, may clear them (-i), change folder (-C) or split a string
// into the command line (-S).
func (w *walker) env(c *cmdCall) bool {
	rest, opts := argv.Skip(c.words[1:], envValues)
	if _, clear := argv.FirstOf(opts, "-i", "--ignore-environment", "-"); clear {
		c.env = nil
	}
	before := len(c.env)
	rest = c.chdirAndAssign(opts, rest, "-C")
	for _, a := range c.env[before:] {
		// env PS4='$(...)' bash -x: the variables env sets are code as the shell's own are
		w.special(a.Name, a.Value, c.sc)
	}
	if split, ok := argv.FirstOf(opts, "-S", "--split-string"); ok {
		// env -S "cmd args" splits its string into the command line.
		w.executed(append([]guard.Word{split}, rest...), c.sc, c.via, "env -S")
		return false
	}
	if len(rest) == 0 {
		c.emit(w)
		return false
	}
	return c.through("env", rest)
}

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
	inputs := []guard.Word{{Parts: []guard.Part{{Hole: true, From: orStdin(in), Quoted: true}}}}
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

// coreutils --coreutils-prog=rm runs the named program.
func (w *walker) coreutils(c *cmdCall) bool {
	for i, wd := range c.words[1:] {
		if t, ok := wd.Text(); ok {
			if prog, found := strings.CutPrefix(t, "--coreutils-prog="); found {
				return c.through("coreutils", append([]guard.Word{guard.Lit(prog)}, c.words[i+2:]...))
			}
		}
	}
	c.emit(w)
	return false
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
			if strings.Contains(e, "{}") && args[j].Known() {
				sub = append(sub, found)
				continue
			}
			sub = append(sub, args[j])
		}
		if len(sub) > 0 {
			inner := &cmdCall{words: sub, env: c.env, sc: c.sc, via: append(slices.Clone(c.via), "find "+t), text: c.text}
			w.command(inner)
		}
		i = j
	}
}

// findName is what find's {} stands for: a path found under its start points, ending in the name
// -name gives when it gives one plain name (find . -name .git -exec rm -rf {} +).
func findName(args []guard.Word) guard.Word {
	name := ""
	for i := 0; i+1 < len(args); i++ {
		t, _ := args[i].Text()
		if t != "-name" && t != "-iname" {
			continue
		}
		v, ok := args[i+1].Text()
		if !ok || strings.ContainsAny(v, "*?[\\/") || name != "" {
			return guard.HoleWord("find")
		}
		name = v
	}
	if name == "" {
		return guard.HoleWord("find")
	}
	return guard.Word{Parts: []guard.Part{{Hole: true, From: "find"}, {Text: "/" + name}}}
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

// callFunction reads a call of a function the line defined: its body again, with $1, $2 and $@ the
// words it is called with (g() { "$@"; }; g rm -rf ~). A function already being read is not read
// again, so a function calling itself ends.
func (w *walker) callFunction(c *cmdCall, base string, body *syntax.Stmt) {
	w.plain(c, base)
	if c.sc.st.calling[base] || len(c.words) == 1 {
		return
	}
	inner := c.sc.sub().child(c.via, "function "+base)
	inner.st.calling[base] = true
	inner.st.inFunc = base
	bindPositional(inner.st, c.words)
	w.stmt(body, inner)
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

// startStop reads start-stop-daemon --start: the program of --exec (or --startas) runs with the
// words after --.
func (w *walker) startStop(c *cmdCall) bool {
	prog := argv.Values(c.words[1:], "--startas", "-a")
	if len(prog) == 0 {
		prog = argv.Values(c.words[1:], "--exec", "-x")
	}
	if len(prog) == 0 {
		c.emit(w)
		return false
	}
	var args []guard.Word
	for i, wd := range c.words {
		if t, _ := wd.Text(); t == "--" {
			args = c.words[i+1:]
			break
		}
	}
	return c.through("start-stop-daemon", append(prog[:1:1], args...))
}

// downloaders are programs whose output is what a server sent.
var downloaders = []string{"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "nc", "ncat", "socat", "curlie", "lynx", "w3m"}
