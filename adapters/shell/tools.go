package shell

import (
	"strings"

	"github.com/abcd-dev/abcd/adapters/shell/argv"
	"github.com/abcd-dev/abcd/adapters/shell/interpreters"
	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
)

// Programs that are not shells or wrappers but run a command they are given in an option or a
// script of their own: an editor's or pager's shell escape, tar's and zip's hooks, rsync's remote
// shell, sed's e command, make's recipes, socat's and netcat's programs. Each hands that command to
// a shell (or runs it with a network peer on its input).

// runsCommands reads those programs; it reports whether base was one.
func (w *walker) runsCommands(c *cmdCall, base string) bool {
	var cmds []guard.Word
	networkShell := false
	switch base {
	case "vi", "vim", "nvim", "view", "ex", "gvim", "less", "more":
		cmds = editorEscapes(c.words[1:])
	case "man":
		cmds = argv.Values(c.words[1:], "-P", "--pager")
		for _, e := range c.env {
			// man hands its pager to a shell
			if e.Name == "PAGER" || e.Name == "MANPAGER" {
				cmds = append(cmds, e.Value)
			}
		}
	case "tar":
		cmds = tarCommands(c.words[1:])
	case "rsync":
		cmds = argv.Values(c.words[1:], "-e", "--rsh")
	case "scp", "sftp":
		cmds = argv.Values(c.words[1:], "-S")
	case "zip":
		cmds = argv.Values(c.words[1:], "-TT", "--unzip-command")
	case "sed", "gsed":
		cmds = sedCommands(c.words[1:])
	case "make", "gmake":
		cmds = makeRecipes(c.words[1:])
		for _, f := range argv.Values(c.words[1:], "-f", "--file", "--makefile") {
			// make -f - reads its makefile from its input
			if t, _ := f.Text(); (t == "-" || t == "/dev/stdin") && c.sc.stdin.hasWord() {
				cmds = append(cmds, recipeLines(wordexp.Source(c.sc.stdin.word))...)
			}
		}
	case "emacs", "emacsclient":
		cmds = elispShell(argv.Values(c.words[1:], "--eval", "-eval", "-e"))
	case "gdb":
		cmds = gdbShell(argv.Values(c.words[1:], "-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command"))
		if len(cmds) == 0 {
			return false
		}
	case "socat":
		cmds, networkShell = socatPrograms(c.words[1:])
	case "nc", "ncat", "netcat":
		cmds = argv.Values(c.words[1:], "-e", "-c", "--exec", "--sh-exec", "--lua-exec")
		networkShell = len(cmds) > 0
	default:
		return false
	}
	c.emit(w)
	for _, cmd := range cmds {
		if networkShell {
			// a program fed by a network peer runs what the peer sends
			w.opaque(c.sc.child(c.via, base), c.text, base)
		}
		w.executed([]guard.Word{cmd}, c.sc, c.via, base)
	}
	return true
}

// editorEscapes are the shell commands an editor or pager is told to run at start: -c ':!cmd',
// +'!cmd', --cmd '!cmd'.
func editorEscapes(words []guard.Word) []guard.Word {
	var out []guard.Word
	cmds := argv.Values(words, "-c", "--cmd")
	for _, wd := range words {
		if t, ok := wd.Text(); ok && strings.HasPrefix(t, "+") {
			cmds = append(cmds, guard.Lit(t[1:]))
		}
	}
	for _, cmd := range cmds {
		t, ok := cmd.Text()
		if !ok {
			continue
		}
		t = strings.TrimLeft(t, ": ")
		t = strings.TrimPrefix(t, "silent")
		t = strings.TrimLeft(t, " ")
		if rest, bang := strings.CutPrefix(t, "!"); bang {
			out = append(out, guard.Lit(rest))
			continue
		}
		for _, io := range []string{"r !", "read !", "w !", "write !", "r!", "w!"} {
			if rest, ok := strings.CutPrefix(t, io); ok {
				out = append(out, guard.Lit(rest))
			}
		}
		for _, line := range interpreters.EditorScript(t) {
			out = append(out, guard.Lit(line))
		}
	}
	return out
}

// tarCommands are the programs tar runs: --to-command, a compressor (-I), the scripts it runs
// between volumes, and a checkpoint's exec= action.
func tarCommands(words []guard.Word) []guard.Word {
	out := argv.Values(words, "--to-command", "-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script")
	for _, a := range argv.Values(words, "--checkpoint-action") {
		if t, ok := a.Text(); ok {
			if cmd, found := strings.CutPrefix(t, "exec="); found {
				out = append(out, guard.Lit(cmd))
			}
		}
	}
	return out
}

// sedCommands are the commands a sed script's e command runs (1e cmd, e cmd).
func sedCommands(words []guard.Word) []guard.Word {
	scripts := argv.Values(words, "-e", "--expression")
	if len(scripts) == 0 {
		for _, wd := range words {
			if t, ok := wd.Text(); ok && !strings.HasPrefix(t, "-") {
				scripts = append(scripts, wd)
				break
			}
		}
	}
	var out []guard.Word
	for _, s := range scripts {
		t, ok := s.Text()
		if !ok {
			continue
		}
		for _, line := range strings.FieldsFunc(t, func(r rune) bool { return r == '\n' || r == ';' }) {
			line = strings.TrimLeft(line, " \t0123456789,$/^!")
			if rest, e := strings.CutPrefix(line, "e "); e {
				out = append(out, guard.Lit(rest))
			}
		}
	}
	return out
}

// makeRecipes are the recipes of a makefile given on the line (--eval, -E): what follows a rule's
// ; and its tab-indented lines.
func makeRecipes(words []guard.Word) []guard.Word {
	var out []guard.Word
	for _, e := range argv.Values(words, "--eval", "-E") {
		t, ok := e.Text()
		if !ok {
			continue
		}
		out = append(out, recipeLines(t)...)
	}
	return out
}

// recipeLines are a makefile's recipes: its tab-indented lines and what follows a rule's ;.
func recipeLines(t string) []guard.Word {
	var out []guard.Word
	for _, line := range strings.Split(t, "\n") {
		switch {
		case strings.HasPrefix(line, "\t"):
			out = append(out, guard.Lit(strings.TrimLeft(strings.TrimSpace(line), "@-+")))
		case strings.Contains(line, ":") && strings.Contains(line, ";"):
			out = append(out, guard.Lit(line[strings.Index(line, ";")+1:]))
		}
	}
	return out
}

// elispShell are the shell commands Emacs Lisp code given to emacs runs.
func elispShell(code []guard.Word) []guard.Word {
	var out []guard.Word
	for _, c := range code {
		for _, cmd := range interpreters.Elisp(wordexp.Source(c)) {
			out = append(out, guard.Lit(cmd))
		}
	}
	return out
}

// gdbShell are the shell commands gdb's start-up commands run: shell CMD, !CMD and pipe's command.
func gdbShell(cmds []guard.Word) []guard.Word {
	var out []guard.Word
	for _, c := range cmds {
		t := strings.TrimSpace(wordexp.Source(c))
		if rest, ok := strings.CutPrefix(t, "!"); ok {
			out = append(out, guard.Lit(rest))
		} else if rest, ok := strings.CutPrefix(t, "shell "); ok {
			out = append(out, guard.Lit(rest))
		} else if rest, ok := strings.CutPrefix(t, "pipe "); ok {
			if _, cmd, found := strings.Cut(rest, "|"); found {
				out = append(out, guard.Lit(cmd))
			}
		}
	}
	return out
}

// socatPrograms are the programs socat's EXEC: and SYSTEM: addresses run; network is true when the
// other address is a network peer, which then feeds the program.
func socatPrograms(words []guard.Word) ([]guard.Word, bool) {
	var out []guard.Word
	network := false
	for _, wd := range words {
		t, ok := wd.Text()
		if !ok {
			continue
		}
		upper := strings.ToUpper(t)
		for _, p := range []string{"EXEC:", "SYSTEM:"} {
			if strings.HasPrefix(upper, p) {
				prog, _, _ := strings.Cut(t[len(p):], ",")
				out = append(out, guard.Lit(prog))
			}
		}
		for _, p := range []string{"TCP:", "TCP4:", "TCP6:", "UDP:", "OPENSSL:", "SSL:", "TCP-LISTEN:", "TCP-L:", "UDP-LISTEN:", "OPENSSL-LISTEN:"} {
			network = network || strings.HasPrefix(upper, p)
		}
	}
	return out, network && len(out) > 0
}
