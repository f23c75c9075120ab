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
			w.emit(guard.Command{Name: guard.Lit(""), Env: env, Redirects: red.out, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Remote: sc.remote, Text: text})
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
		Depth: c.sc.depth, Via: slices.Clone(c.via), Stdin: c.sc.stdin.asWord(), Remote: c.sc.remote, Text: c.text}
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
	stage(c, base)
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
	}
	if w.builtin(c, base) {
		return false, nil
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
		// text the line does not know (cmd > x.sh): running the file later runs what cmd wrote,
		// and sending it sends what cmd read
		reads := text.sources()
		text = fromNames(base)
		text.reads = reads
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

// downloaders are programs whose output is what a server sent.
var downloaders = []string{"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "nc", "ncat", "socat", "curlie", "lynx", "w3m"}
