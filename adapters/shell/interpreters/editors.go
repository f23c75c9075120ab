package interpreters

import "strings"

// EditorScript are the shell commands an editor's start-up command runs through its scripting: Lua
// (lua ...: its os.execute and io.popen strings) and Vim script's system(), systemlist(),
// jobstart() and termopen().
func EditorScript(cmd string) []string {
	var out []string
	if rest, ok := strings.CutPrefix(cmd, "lua "); ok {
		out = append(out, shellOuts(rest)...)
	}
	for _, fn := range []string{"system(", "systemlist(", "jobstart(", "termopen("} {
		if i := strings.Index(cmd, fn); i >= 0 && (i == 0 || !isIdent(cmd[i-1])) {
			if arg, ok := argument(cmd[i+len(fn)-1:]); ok {
				out = append(out, arg)
			}
		}
	}
	return out
}

// Elisp are the shell commands Emacs Lisp code runs: (shell-command "cmd") and its kin.
func Elisp(code string) []string {
	var out []string
	for _, fn := range []string{"(shell-command-to-string", "(async-shell-command", "(shell-command", "(call-process-shell-command", "(start-process-shell-command"} {
		for rest := code; ; {
			i := strings.Index(rest, fn)
			if i < 0 {
				break
			}
			rest = rest[i+len(fn):]
			arg := strings.TrimLeft(rest, " \t")
			if fn == "(start-process-shell-command" {
				// its name and buffer come first
				for range 2 {
					if _, n, ok := elispString(arg); ok {
						arg = strings.TrimLeft(arg[n:], " \t")
					}
				}
			}
			if lit, _, ok := elispString(arg); ok {
				out = append(out, lit)
			}
		}
	}
	return out
}

// elispString reads a Lisp string literal at the start of s: its text and length.
func elispString(s string) (string, int, bool) {
	if !strings.HasPrefix(s, "\"") {
		return "", 0, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), i + 1, true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, false
}
