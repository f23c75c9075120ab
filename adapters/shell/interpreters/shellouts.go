package interpreters

import (
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/text"
)

// opaqueCalls run text the code builds: a shell-out or an eval given anything but a string literal,
// and decoders whose output is run.
var opaqueCalls = []string{"system", "popen", "execSync", "spawnSync", "check_output", "check_call", "Popen", "shell_exec", "passthru",
	"getoutput", "getstatusoutput", "execute", "exec", "eval", "b64decode", "atob", "decode_base64", "fromhex"}

// shellCalls are the functions and forms that hand a string or an argument list to a shell or run
// a program; removers delete a folder and everything in it.
var (
	shellCalls = []string{"system", "popen", "exec", "execSync", "execFileSync", "spawnSync", "spawn", "execFile", "check_call", "check_output",
		"call", "run", "Popen", "getoutput", "getstatusoutput", "shell_exec", "passthru", "proc_open", "execute", "io.popen", "Command", "sh", "capture2", "capture3", "popen3", "spawnvp", "execvp", "execlp",
		"execv", "execve", "execl", "execle", "execvpe", "execlpe", "posix_spawn", "posix_spawnp", "create_subprocess_exec", "create_subprocess_shell", "pcntl_exec", "spawn_sync", "capture2e", "pipeline", "exec_command"}
	removers = []string{"rm", "unlink", "rmtree", "rm_rf", "rm_r", "remove_dir", "remove_entry", "remove_entry_secure", "remove_tree", "rmSync", "rmdirSync", "removeSync", "emptyDir", "emptyDirSync", "remove", "rimraf", "RemoveAll", "delete_tree", "deltree", "rmdir_p"}
)

// execFamily are the calls given a program, then its argument list with the name it runs under
// first (os.execlp("git", "git", "push"), os.execv("/bin/rm", ["rm", "-rf", "/"])).
var execFamily = []string{"execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe", "posix_spawn", "posix_spawnp", "spawnvp"}

// spawnCalls are python's os.spawn* functions: a mode, then the program and its arguments.
var spawnCalls = []string{"spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"}

// aliasedShellOuts are the string literals of code that takes a shell-out function under another
// name (from os import system as s, getattr(os, 'system'), const {execSync: e} = ...): any of its
// strings may be what that name runs.
func aliasedShellOuts(code string) []string {
	aliased := false
	for _, name := range []string{"system", "popen", "execSync", "exec", "spawnSync", "spawn", "check_output", "check_call", "Popen", "run", "call", "shell_exec", "passthru"} {
		for i := strings.Index(code, name); i >= 0; {
			end := i + len(name)
			before := i == 0 || !isIdent(code[i-1])
			after := end >= len(code) || !isIdent(code[end])
			if i > 0 && end < len(code) && (code[i-1] == '\'' || code[i-1] == '"') && code[end] == code[i-1] {
				// getattr(os, 'system'): the function named by a string
				aliased = true
			} else if before && after {
				rest := strings.TrimLeft(code[end:], " \t")
				if !strings.HasPrefix(rest, "(") && !strings.HasPrefix(rest, "\"") && !strings.HasPrefix(rest, "'") && !strings.HasPrefix(rest, "`") {
					aliased = true
				}
			}
			next := strings.Index(code[end:], name)
			if next < 0 {
				break
			}
			i = end + next
		}
	}
	if !aliased {
		return nil
	}
	return quotedStrings(code, 16, func(lit string) (string, bool) { return lit, strings.ContainsAny(lit, " \t") })
}

// httpDeletes are the URLs code sends a DELETE to by naming the method ({method: 'DELETE'},
// Request(url, method='DELETE')).
func httpDeletes(code string) []string {
	if !strings.Contains(code, "'DELETE'") && !strings.Contains(code, "\"DELETE\"") {
		return nil
	}
	return quotedStrings(code, 4, func(lit string) (string, bool) {
		return "curl -X DELETE " + text.ShellQuote(lit), strings.Contains(lit, "://")
	})
}

// shellOuts finds the shell commands in interpreter code: the first string (or list of strings)
// given to a shell-out function, text in backticks, rm -rf of what a remover is given, an HTTP
// DELETE of a URL, and a fork in a loop.
func shellOuts(code string) []string {
	out := awkPipes(code)
	lists := namedLists(code)
	if strings.Contains(code, "fork") && (strings.Contains(code, "while") || strings.Contains(code, "loop") || strings.Contains(code, "for(;;)") || strings.Contains(code, "for (;;)")) {
		// fork while fork: the same multiplying as a shell fork bomb, read as one
		out = append(out, ":(){ :|:& };:")
	}
	for i := 0; i < len(code) && len(out) < 32; i++ {
		switch {
		case code[i] == '`':
			end := strings.IndexByte(code[i+1:], '`')
			if end < 0 {
				return out
			}
			out = append(out, code[i+1:i+1+end])
			i += end + 1
		case isIdentStart(code[i]) && (i == 0 || !isIdent(code[i-1])):
			if rest, ok := strings.CutPrefix(code[i:], "do shell script"); ok {
				if s, ok := argument(rest); ok {
					out = append(out, s)
				}
				i += len("do shell script") - 1
				continue
			}
			j := i
			for j < len(code) && isIdent(code[j]) {
				j++
			}
			name := code[i:j]
			k := j
			for k < len(code) && (code[k] == ' ' || code[k] == '(' || code[k] == '\t') {
				k++
			}
			if i > 0 && code[i-1] == '%' && name == "x" {
				name = "qx" // ruby's %x(...)
			}
			if n, ok := qxForm(name, code[j:]); ok {
				out = append(out, n)
				i = j - 1
				continue
			}
			switch {
			case slices.Contains(shellCalls, name) || slices.Contains(opaqueCalls, name) || slices.Contains(spawnCalls, name):
				args := code[k:]
				if slices.Contains(spawnCalls, name) {
					// os.spawnlp(os.P_WAIT, 'rm', ...): the mode comes first
					if _, after, found := strings.Cut(args, ","); found {
						args = after
					}
				}
				s, ok := argumentIn(args, lists, slices.Contains(spawnCalls, name) || slices.Contains(execFamily, name))
				switch {
				case ok && (slices.Contains(shellCalls, name) || slices.Contains(spawnCalls, name)):
					out = append(out, s)
				case !ok && slices.Contains(opaqueCalls, name) && k > j && strings.Contains(code[j:k], "("):
					out = append(out, UnknownCommand)
				}
			case slices.Contains(removers, name):
				if p, ok := pathArgument(code[k:]); ok {
					out = append(out, "rm -rf -- "+p)
				}
			case name == "delete" && i > 0 && code[i-1] == '.':
				// requests.delete(url), httpx.delete(url): an HTTP DELETE
				if u, _, ok := concatenated(strings.TrimLeft(code[k:], " \t(")); ok && strings.Contains(u, "://") {
					out = append(out, "curl -X DELETE "+text.ShellQuote(u))
				}
			}
			i = j - 1
		}
	}
	return out
}

// awkPipes are the commands awk code runs through pipes: "cmd" | getline, and print | "cmd".
func awkPipes(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < 16; i++ {
		if code[i] != '"' {
			continue
		}
		lit, n, ok := literal(code[i:])
		if !ok {
			return out
		}
		before := strings.TrimRight(code[:i], " \t")
		after := strings.TrimLeft(code[i+n:], " \t")
		if strings.HasPrefix(after, "|") && strings.HasPrefix(strings.TrimLeft(after[1:], " \t"), "getline") || strings.HasSuffix(before, "|") {
			out = append(out, lit)
		}
		i += n - 1
	}
	return out
}

// tclExecs are the commands Tcl's exec runs: its words up to the end of the command (exec rm -rf ~,
// [exec sh -c {...}]).
func tclExecs(code string) []string {
	var out []string
	for rest := code; len(out) < 16; {
		i := strings.Index(rest, "exec ")
		if i < 0 {
			break
		}
		if i > 0 && isIdent(rest[i-1]) {
			rest = rest[i+5:]
			continue
		}
		rest = rest[i+5:]
		end := strings.IndexAny(rest, "\n;]")
		if end < 0 {
			end = len(rest)
		}
		out = append(out, strings.NewReplacer("{", "'", "}", "'").Replace(rest[:end]))
	}
	return out
}
