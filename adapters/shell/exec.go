package shell

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf16"

	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// shells read POSIX or bash syntax; otherShells run strings the guard reads as the same when they
// parse (rm -rf ~ is the same in fish), and as unreadable when they do not.
var (
	shells      = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh", "yash", "posh", "lksh", "pdksh", "oksh", "loksh", "rbash", "osh", "ksh93"}
	otherShells = []string{"fish", "csh", "tcsh", "nu", "xonsh", "elvish", "rc", "es", "ion", "murex", "ysh", "pwsh", "powershell", "pwsh-preview"}
)

// shellValues are the shells' options that take a value.
var shellValues = []string{"-o", "-O", "+o", "+O", "--rcfile", "--init-file"}

// executed reads words the shell joins into a command line and runs (eval, env -S, watch): parsed
// again one level deeper when known, or an opaque command when not.
func (w *walker) executed(words []guard.Word, sc scope, via []string, how string) {
	if len(words) == 0 {
		return
	}
	parts := make([]string, 0, len(words))
	for _, wd := range words {
		parts = append(parts, wordexp.Source(wd))
	}
	inner := sc.child(via, how)
	if allUnknown(words) || onlyHoles(words) {
		w.opaque(inner, how+" "+text.ClipAt(strings.Join(parts, " "), maxEcho), holeFrom(words))
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

// holeFrom names the commands the unknown parts of words come from.
func holeFrom(words []guard.Word) string {
	var names []string
	for _, wd := range words {
		for _, p := range wd.Parts {
			if p.Hole && p.From != "" {
				names = append(names, p.From)
			}
		}
	}
	return strings.Join(names, " ")
}

// opaque records a command whose text cannot be known; from names the commands it comes from.
func (w *walker) opaque(sc scope, text, from string) {
	c := guard.Command{Name: guard.HoleWord(""), Opaque: true, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Remote: sc.remote, Text: text}
	if from != "" {
		c.Args = []guard.Word{guard.HoleWord(from)}
	}
	w.emit(c)
}

// runInput reads what a shell runs from its input: known text is parsed as the line, anything else
// is opaque, named by what produced it.
func (w *walker) runInput(in *input, sc scope, text string) {
	in = in.code()
	switch {
	case in == nil:
	case in.hasWord() && !onlyHoles([]guard.Word{in.word}):
		w.line(wordexp.Source(in.word), sc)
	case in.hasWord():
		w.opaque(sc, text, holeFrom([]guard.Word{in.word}))
	default:
		w.opaque(sc, text, in.from)
	}
}

// onlyHoles reports words whose known text is only blanks: what runs is all unknown ("$CMD").
func onlyHoles(words []guard.Word) bool {
	holes := false
	for _, wd := range words {
		for _, p := range wd.Parts {
			if p.Hole {
				holes = true
			} else if strings.TrimSpace(p.Text) != "" {
				return false
			}
		}
	}
	return holes
}

// shell follows sh, bash and the other shells: -c "string", a script fed on stdin (a heredoc, a
// here-string, echo ... |, /dev/stdin, a descriptor), a process substitution or a downloaded file
// run as the script, and the files --rcfile names. A script file the line does not write cannot be
// read.
func (w *walker) shell(c *cmdCall, base string) {
	c.emit(w)
	rest := c.words[1:]
	command, stdin := false, false
	var code *guard.Word
	for len(rest) > 0 && code == nil {
		t, ok := rest[0].Text()
		if !ok || len(t) < 2 || (t[0] != '-' && t[0] != '+') {
			break
		}
		rest = rest[1:]
		if t == "--" || t == "-" {
			stdin = stdin || t == "-"
			break
		}
		lower := strings.ToLower(t)
		switch {
		case t == "--rcfile" || t == "--init-file":
			if len(rest) > 0 {
				w.sourced(rest[0], c.sc.sub(), c.via, base+" "+t)
				rest = rest[1:]
			}
			continue
		case strings.HasPrefix(t, "--command=") || strings.HasPrefix(t, "--commands="):
			v := guard.Lit(t[strings.IndexByte(t, '=')+1:])
			code = &v
			continue
		case t == "--command" || t == "--commands" || lower == "-command" || lower == "-c" && base == "pwsh":
			command = true
			continue
		case strings.HasPrefix(lower, "-e") && (base == "pwsh" || base == "powershell"):
			if len(rest) > 0 {
				v := decodePwsh(rest[0])
				code = &v
			}
			continue
		case strings.HasPrefix(t, "--"):
			if slices.Contains(shellValues, t) && len(rest) > 0 {
				rest = rest[1:]
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			switch t[j] {
			case 'c':
				command = true
			case 's', 'i':
				stdin = true
			case 'o', 'O':
				if j == len(t)-1 && len(rest) > 0 {
					rest = rest[1:]
				}
			}
		}
	}
	if t, _ := argv.FirstText(rest); len(rest) == 1 && t == "-" {
		// sh -: the script is stdin
		rest, stdin = nil, true
	}
	inner := c.sc.sub().child(c.via, base+map[bool]string{true: " -c", false: ""}[command || code != nil])
	switch {
	case code != nil:
		w.shellCode(*code, inner, base)
	case command:
		if len(rest) > 0 {
			// bash -c 'code' a0 a1 ...: the words after the code are $0, $1 ... for it
			bindPositional(inner.st, rest[1:])
			w.shellCode(rest[0], inner, base)
		}
	case len(rest) > 0 && !stdin:
		w.runInput(w.fileInput(rest[0], c.sc, nil), inner, c.text)
	default:
		if len(rest) == 0 && !asksAbout(c.words[1:]) && w.interactive(c, base) {
			return
		}
		w.runInput(c.sc.stdin, inner, c.text)
	}
}

// interactive refuses a shell or a REPL started with nothing to run and nothing fed to it: it reads
// its commands from the terminal (an agent's interactive session, Codex's write_stdin), where the
// guard never sees them.
// A shell exec or ssh-agent starts in place of the agent's own is a person's set-up, left to run;
// that one is among the limits docs/guard.md names.
func (w *walker) interactive(c *cmdCall, base string) bool {
	if c.sc.stdin != nil || c.redirected || len(c.via) > 0 && (c.via[len(c.via)-1] == "exec" || c.via[len(c.via)-1] == "ssh-agent") {
		return false
	}
	w.refuse(base + " is started with no script, no -c and no input, so it would read commands typed into it later, which the guard never sees; pass the commands with -c, a script file or a heredoc")
	return true
}

// asksAbout is a program asked only about itself (--version, --help), which runs nothing.
func asksAbout(words []guard.Word) bool {
	for _, wd := range words {
		if t, _ := wd.Text(); t == "--version" || t == "--help" || t == "-V" || t == "-h" {
			return true
		}
	}
	return false
}

// shellCode reads a -c string: a shell the guard cannot parse (PowerShell) is opaque.
func (w *walker) shellCode(code guard.Word, sc scope, base string) {
	if code.AllHole() {
		w.opaque(sc, base+" -c "+code.String(), holeFrom([]guard.Word{code}))
		return
	}
	src := wordexp.Source(code)
	if base == "pwsh" || base == "powershell" || base == "pwsh-preview" {
		w.opaque(sc, base+" -c "+text.ClipAt(src, maxEcho), "")
		return
	}
	if slices.Contains(otherShells, base) {
		if _, err := parse(src); err != nil {
			w.opaque(sc, base+" -c "+text.ClipAt(src, maxEcho), "")
			return
		}
	}
	w.line(src, sc)
}

// decodePwsh reads PowerShell's -EncodedCommand: base64 of UTF-16LE text.
func decodePwsh(wd guard.Word) guard.Word {
	t, ok := wd.Text()
	if !ok {
		return wd
	}
	raw, err := base64.StdEncoding.DecodeString(t)
	if err != nil || len(raw)%2 != 0 {
		return wd
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	return guard.Lit(string(utf16.Decode(u)))
}

// sourced reads a file the shell runs in its own process (source, ., BASH_ENV, --rcfile), when the
// line decides what it holds.
func (w *walker) sourced(file guard.Word, sc scope, via []string, how string) {
	if in := w.fileInput(file, sc, nil); in != nil {
		w.runInput(in, sc.child(via, how), how+" "+file.String())
	}
}

// source runs a file in the current shell.
func (w *walker) source(c *cmdCall, base string) {
	c.emit(w)
	if len(c.words) > 1 {
		w.sourced(c.words[1], c.sc, c.via, base)
	}
}

// trap runs its action later, when the signal comes (EXIT: when the line ends).
func (w *walker) trap(c *cmdCall) {
	c.emit(w)
	args := c.words[1:]
	if t, _ := argv.FirstText(args); t == "--" {
		args = args[1:]
	}
	if t, known := argv.FirstText(args); len(args) < 2 || known && (t == "-" || t == "" || strings.HasPrefix(t, "-")) {
		return
	}
	w.executed(args[:1], c.sc, c.via, "trap")
}

// alias defines a name that runs its value: read the value as if it ran.
func (w *walker) alias(c *cmdCall) {
	c.emit(w)
	for _, a := range c.words[1:] {
		if len(a.Parts) == 0 || a.Parts[0].Hole {
			continue
		}
		name, val, ok := strings.Cut(a.Parts[0].Text, "=")
		if !ok {
			continue
		}
		body := guard.Word{Parts: append([]guard.Part{{Text: val}}, a.Parts[1:]...)}
		w.executed([]guard.Word{body}, c.sc, c.via, "alias "+name)
	}
}

// prompt reads a prompt variable's value as the shell expands it each time it shows the prompt:
// its command substitutions run (PS4='$(...)' runs under set -x).
func (w *walker) prompt(v guard.Word, sc scope, name string) {
	src := wordexp.Source(v)
	if !strings.ContainsAny(src, "$`") {
		return
	}
	doc, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(src))
	if err != nil {
		w.opaque(sc.child(sc.via, name), name+"="+text.ClipAt(src, maxEcho), "")
		return
	}
	inner := sc.child(sc.via, name)
	inner.src = src
	w.substs(doc, inner)
}

// switchUser follows su, runuser and sg: a command string (-c), a command after runuser -u, or a
// shell reading its input.
func (w *walker) switchUser(c *cmdCall, base string) {
	c.emit(w)
	rest := c.words[1:]
	var positional []guard.Word
	for i := 0; i < len(rest); i++ {
		t, ok := rest[i].Text()
		switch {
		case ok && (t == "-c" || t == "--command" || t == "--session-command") && i+1 < len(rest):
			w.executed(rest[i+1:i+2], c.sc, c.via, base+" -c")
			return
		case ok && (strings.HasPrefix(t, "--command=") || strings.HasPrefix(t, "--session-command=")):
			w.executed([]guard.Word{guard.Lit(t[strings.IndexByte(t, '=')+1:])}, c.sc, c.via, base+" -c")
			return
		case ok && base == "runuser" && (t == "-u" || t == "--user") && i+1 < len(rest):
			cmd := rest[i+2:]
			if t, _ := argv.FirstText(cmd); t == "--" {
				cmd = cmd[1:]
			}
			w.command(&cmdCall{words: cmd, env: c.env, reds: c.reds, sc: c.sc, via: append(slices.Clone(c.via), "runuser"), text: c.text})
			return
		case ok && (t == "-s" || t == "--shell" || t == "-g" || t == "--group" || t == "-G" || t == "--supp-group" || t == "-w" || t == "--whitelist-environment"):
			i++
		case ok && strings.HasPrefix(t, "-") && t != "-":
		default:
			positional = append(positional, rest[i])
		}
	}
	if base == "sg" && len(positional) > 1 {
		w.executed(positional[1:2], c.sc, c.via, "sg")
		return
	}
	if !asksAbout(rest) && w.interactive(c, base) {
		return
	}
	w.runInput(c.sc.stdin, c.sc.sub().child(c.via, base), c.text)
}

// script -c runs its string; without it, a shell reads its input.
func (w *walker) script(c *cmdCall) {
	c.emit(w)
	rest := c.words[1:]
	for i := 0; i < len(rest); i++ {
		t, _ := rest[i].Text()
		switch {
		case (t == "-c" || t == "--command") && i+1 < len(rest):
			w.executed(rest[i+1:i+2], c.sc, c.via, "script -c")
			return
		case strings.HasPrefix(t, "--command="):
			w.executed([]guard.Word{guard.Lit(strings.TrimPrefix(t, "--command="))}, c.sc, c.via, "script -c")
			return
		case strings.HasPrefix(t, "-q") && strings.HasSuffix(t, "c") && i+1 < len(rest):
			w.executed(rest[i+1:i+2], c.sc, c.via, "script -c")
			return
		}
	}
	w.runInput(c.sc.stdin, c.sc.sub().child(c.via, "script"), c.text)
}

var sshValues = []string{"-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"}

// ssh runs its remaining words through the remote shell, and a ProxyCommand or LocalCommand here.
func (w *walker) ssh(c *cmdCall) {
	c.emit(w)
	rest, _ := argv.Skip(c.words[1:], sshValues)
	for _, o := range argv.Values(c.words[1:len(c.words)-len(rest)], "-o") {
		if t, ok := o.Text(); ok {
			k, v, found := strings.Cut(t, "=")
			if !found {
				k, v, _ = strings.Cut(t, " ")
			}
			if strings.EqualFold(k, "ProxyCommand") || strings.EqualFold(k, "LocalCommand") {
				w.executed([]guard.Word{guard.Lit(v)}, c.sc, c.via, "ssh "+k)
			}
		}
	}
	if len(rest) == 0 {
		return
	}
	// what the other host runs is read as commands too, but its paths are that host's
	remote := c.sc
	remote.remote = !loopback(rest[0])
	if len(rest) == 1 {
		w.runInput(c.sc.stdin, remote.sub().child(c.via, "ssh"), c.text)
		return
	}
	w.executed(rest[1:], remote, c.via, "ssh "+rest[0].String())
}

// loopback reports an ssh destination that is this machine (localhost, a loopback address): what
// it runs there is what runs here.
func loopback(dest guard.Word) bool {
	t, ok := dest.Text()
	if !ok {
		return false
	}
	t = strings.TrimPrefix(t, "ssh://")
	if i := strings.LastIndexByte(t, '@'); i >= 0 {
		t = t[i+1:]
	}
	t = strings.TrimSuffix(strings.TrimPrefix(strings.Split(t, ":")[0], "["), "]")
	return t == "localhost" || strings.HasPrefix(t, "127.") || t == "" || t == "0.0.0.0" || strings.HasPrefix(t, "localhost.")
}

var parallelValues = []string{"-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a", "--arg-file", "--delay", "--timeout", "-I", "--colsep", "-N", "-n", "-L", "--max-args", "--workdir", "--tmpdir", "--results", "-d", "--delimiter", "-E", "--env"}

// parallel runs its command once per input (after :::, or read from its input), or each input as a
// command when it has none.
func (w *walker) parallel(c *cmdCall) {
	rest, _ := argv.Skip(c.words[1:], parallelValues)
	var template, inputs []guard.Word
	sep, fromFiles := false, false
	// -a FILE and :::: FILE give the arguments a line each
	files := argv.Values(c.words[1:len(c.words)-len(rest)], "-a", "--arg-file")
	for _, wd := range rest {
		t, _ := wd.Text()
		switch {
		case t == ":::" || t == ":::+":
			sep, fromFiles = true, false
		case t == "::::" || t == "::::+":
			sep, fromFiles = true, true
		case sep && fromFiles:
			files = append(files, wd)
		case sep:
			inputs = append(inputs, wd)
		default:
			template = append(template, wd)
		}
	}
	for _, f := range files {
		sep = true
		if in := w.fileInput(f, c.sc, nil); in.hasWord() {
			inputs = append(inputs, splitOn(in.word, "\n")...)
		} else {
			inputs = append(inputs, guard.HoleWord(orStdin(in)))
		}
	}
	if !sep {
		inputs = []guard.Word{guard.HoleWord(orStdin(c.sc.stdin))}
		if in := c.sc.stdin; in.hasWord() {
			// one argument a line
			inputs = splitOn(in.word, "\n")
		}
	}
	if len(template) == 0 {
		c.emit(w)
		for _, in := range inputs[:min(len(inputs), maxLoopValues)] {
			w.executed([]guard.Word{in}, c.sc, c.via, "parallel")
		}
		return
	}
	for _, in := range inputs[:min(len(inputs), maxLoopValues)] {
		words := make([]guard.Word, 0, len(template)+1)
		placed := false
		for _, t := range template {
			if s, ok := t.Text(); ok && s == "{}" {
				words, placed = append(words, in), true
				continue
			}
			if s, ok := t.Text(); ok && strings.Contains(s, "{}") {
				// 'rm -rf {}': the input in place of {} inside the word
				words, placed = append(words, replaceIn(t, "{}", in)), true
				continue
			}
			words = append(words, t)
		}
		if !placed {
			words = append(words, in)
		}
		w.executed(words, c.sc, c.via, "parallel")
	}
}

// at and batch run the commands they read later (or the file -f names).
func (w *walker) at(c *cmdCall) {
	c.emit(w)
	in := c.sc.stdin
	for i, wd := range c.words[1:] {
		if t, _ := wd.Text(); t == "-f" && i+2 < len(c.words) {
			in = w.fileInput(c.words[i+2], c.sc, nil)
		}
		if t, _ := wd.Text(); t == "-l" || t == "-r" || t == "-d" || t == "-c" {
			return
		}
	}
	w.runInput(in, c.sc.sub().child(c.via, "at"), c.text)
}

// crontab installs the jobs it reads: each line's command is read as if it ran.
func (w *walker) crontab(c *cmdCall) {
	c.emit(w)
	rest, opts := argv.Skip(c.words[1:], []string{"-u"})
	if _, ok := argv.FirstOf(opts, "-l", "-r", "-e", "-i"); ok && len(rest) == 0 {
		return
	}
	in := c.sc.stdin
	if t, _ := argv.FirstText(rest); len(rest) > 0 && t != "-" {
		in = w.fileInput(rest[0], c.sc, nil)
	}
	inner := c.sc.sub().child(c.via, "crontab")
	if in == nil || !in.hasWord() {
		w.runInput(in, inner, c.text)
		return
	}
	for _, line := range strings.Split(wordexp.Source(in.word), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		skip := 5
		if strings.HasPrefix(f[0], "@") {
			skip = 1
		} else if strings.Contains(f[0], "=") {
			continue
		}
		if len(f) > skip {
			w.line(strings.Join(f[skip:], " "), inner)
		}
	}
}

// terminal follows tmux and screen: the shell command a new session, window or pane runs, and the
// keys send-keys types into a shell.
func (w *walker) terminal(c *cmdCall, base string) {
	c.emit(w)
	rest := c.words[1:]
	if base == "screen" {
		for i, wd := range rest {
			if t, _ := wd.Text(); t == "stuff" && i+1 < len(rest) {
				w.executed(rest[i+1:i+2], c.sc, c.via, "screen stuff")
				return
			}
		}
		rest, _ = argv.Skip(rest, []string{"-S", "-c", "-e", "-h", "-p", "-X", "-T", "-t", "-s", "-Logfile"})
		if len(rest) > 0 {
			w.command(&cmdCall{words: rest, env: c.env, sc: c.sc, via: append(slices.Clone(c.via), "screen"), text: c.text})
		}
		return
	}
	rest, _ = argv.Skip(rest, []string{"-L", "-S", "-f", "-T"})
	if len(rest) == 0 {
		return
	}
	sub, _ := rest[0].Text()
	args, _ := argv.Skip(rest[1:], []string{"-c", "-e", "-F", "-n", "-s", "-t", "-x", "-y", "-l", "-w", "-p", "-T"})
	switch sub {
	case "send-keys", "send":
		var keys []guard.Word
		for _, k := range args {
			if t, ok := k.Text(); ok && (t == "Enter" || t == "C-m" || t == "KPEnter" || t == "Escape" || t == "C-c") {
				continue
			}
			keys = append(keys, k)
		}
		w.executed(keys, c.sc, c.via, "tmux send-keys")
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run", "display-popup", "popup":
		if len(args) > 0 {
			w.executed(args, c.sc, c.via, "tmux "+sub)
		}
	}
}

// expect -c runs Tcl: the commands it spawns or execs are read as shell commands.
func (w *walker) expect(c *cmdCall) {
	c.emit(w)
	for i, wd := range c.words[1:] {
		t, _ := wd.Text()
		if t != "-c" || i+2 >= len(c.words) {
			continue
		}
		code, ok := c.words[i+2].Text()
		if !ok {
			continue
		}
		for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '\n' }) {
			f := strings.Fields(stmt)
			if len(f) > 1 && (f[0] == "spawn" || f[0] == "exec" || f[0] == "system") {
				w.line(strings.Join(f[1:], " "), c.sc.child(c.via, "expect "+f[0]))
			}
		}
	}
}

// nix run runs an installable's program with the words after --; nix shell and nix develop run
// --command (or -c).
func (w *walker) nix(c *cmdCall) {
	c.emit(w)
	rest := c.words[1:]
	sub, _ := argv.FirstText(rest)
	switch sub {
	case "run":
		var prog string
		for i, wd := range rest[1:] {
			t, _ := wd.Text()
			if t == "--" {
				if prog != "" {
					w.command(&cmdCall{words: append([]guard.Word{guard.Lit(prog)}, rest[i+2:]...), env: c.env, sc: c.sc, via: append(slices.Clone(c.via), "nix run"), text: c.text})
				}
				return
			}
			if prog == "" && !strings.HasPrefix(t, "-") {
				prog = t[strings.LastIndexAny(t, "#/.")+1:]
			}
		}
	case "shell", "develop":
		for i, wd := range rest[1:] {
			if t, _ := wd.Text(); (t == "--command" || t == "-c") && i+2 < len(rest) {
				w.command(&cmdCall{words: rest[i+2:], env: c.env, sc: c.sc, via: append(slices.Clone(c.via), "nix "+sub), text: c.text})
				return
			}
		}
	}
}
