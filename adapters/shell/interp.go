package shell

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/abcd-dev/abcd/adapters/shell/wordexp"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

// interpreters run code in their own language. The guard does not read those languages; it reads
// the shell commands their code hands to a shell (os.system, subprocess, execSync, system, backticks,
// do shell script) and the folders it removes whole (shutil.rmtree, fs.rmSync with recursive,
// FileUtils.rm_rf, File::Path's rmtree), and it marks code whose text it cannot know (a download
// piped in) as opaque.
var interpreters = sync.OnceValue(func() map[string]interp {
	return map[string]interp{
		"python":    {code: []string{"-c"}, values: []string{"-W", "-X", "-Q"}, stop: []string{"-m"}},
		"pypy":      {code: []string{"-c"}, values: []string{"-W", "-X"}, stop: []string{"-m"}},
		"perl":      {code: []string{"-e", "-E"}, values: []string{"-I", "-x", "-0", "-l", "-C", "-F", "-d", "-D", "-V"}},
		"ruby":      {code: []string{"-e"}, values: []string{"-I", "-r", "-E", "-C", "-F", "-x", "-0", "-T", "-W"}},
		"node":      {code: []string{"-e", "--eval", "-p", "--print"}, values: []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--env-file", "--title"}},
		"nodejs":    {code: []string{"-e", "--eval", "-p", "--print"}, values: []string{"-r", "--require", "--import"}},
		"deno":      {code: []string{"eval"}, values: []string{"--allow-read", "--allow-write", "--allow-run", "--allow-net", "--config", "-c", "--import-map"}, sub: true},
		"bun":       {code: []string{"-e", "--eval", "-p", "--print"}, values: []string{"-r", "--preload", "--cwd", "--env-file"}},
		"php":       {code: []string{"-r"}, values: []string{"-c", "-d", "-z"}},
		"lua":       {code: []string{"-e"}, values: []string{"-l"}},
		"luajit":    {code: []string{"-e"}, values: []string{"-l", "-j", "-O"}},
		"Rscript":   {code: []string{"-e"}, values: []string{"--default-packages"}},
		"R":         {code: []string{"-e"}, values: []string{"-f", "--file", "-d", "--debugger"}},
		"osascript": {code: []string{"-e"}, values: []string{"-l", "-s"}},
		"julia":     {code: []string{"-e", "--eval", "-E", "--print"}, values: []string{"-J", "-L", "-p", "-t", "--project"}},
		"raku":      {code: []string{"-e"}, values: []string{"-I", "-M"}},
		"racket":    {code: []string{"-e", "--eval"}, values: []string{"-l", "-t", "-r"}},
		"guile":     {code: []string{"-c"}, values: []string{"-l", "-e", "-L"}},
		"elixir":    {code: []string{"-e", "--eval"}, values: []string{"-r", "-pa", "-pz"}},
		"groovy":    {code: []string{"-e"}, values: []string{"-cp", "--classpath"}},
		"tclsh":     {},
		"irb":       {},
		"jshell":    {},
		"awk":       {values: []string{"-F", "-v", "--assign", "--field-separator"}, program: true},
	}
})

// interp is how an interpreter takes its code: options whose value is code, options that take a
// value, options after which it runs a module rather than code, a subcommand that takes the code
// (deno eval), or a program as its first operand (awk).
type interp struct {
	code, values, stop []string
	sub                bool
	program            bool
}

// interpreterOf is the table entry for a program name, its version suffix ignored (python3.12,
// php8.2, gawk).
func interpreterOf(base string) (interp, bool) {
	if i, ok := interpreters()[base]; ok {
		return i, true
	}
	trimmed := strings.TrimRightFunc(base, func(r rune) bool { return unicode.IsDigit(r) || r == '.' })
	if i, ok := interpreters()[trimmed]; ok {
		return i, true
	}
	switch base {
	case "gawk", "mawk", "nawk", "busybox-awk":
		return interpreters()["awk"], true
	case "python3", "python2", "pypy3":
		return interpreters()["python"], true
	}
	return interp{}, false
}

func isInterpreter(base string) bool {
	_, ok := interpreterOf(base)
	return ok
}

// interpreter follows an interpreter's code: given with -c or -e, read from its input, or a file the
// line wrote (a download) or a process substitution.
func (w *walker) interpreter(c *cmdCall, base string) {
	c.emit(w)
	spec, _ := interpreterOf(base)
	inner := c.sc.sub().child(c.via, base)
	rest := c.words[1:]
	if spec.sub {
		if t, _ := firstText(rest); len(rest) > 0 && (t == "eval" || t == "run") {
			if t == "run" {
				rest = rest[1:]
			}
		} else {
			return
		}
	}
	var script *guard.Word
	for i := 0; i < len(rest); i++ {
		t, ok := rest[i].Text()
		if !ok || !strings.HasPrefix(t, "-") || t == "-" {
			if spec.program || (spec.sub && t == "eval") {
				if spec.sub {
					i++
					if i >= len(rest) {
						return
					}
				}
				w.interpCode(rest[i], inner, base)
				return
			}
			script = &rest[i]
			break
		}
		if t == "--" {
			if i+1 < len(rest) {
				script = &rest[i+1]
			}
			break
		}
		name, val, joined := t[:min(2, len(t))], t[min(2, len(t)):], len(t) > 2 && !strings.HasPrefix(t, "--")
		if strings.HasPrefix(t, "--") {
			name, val, joined = strings.Cut(t, "=")
		}
		switch {
		case contains(spec.stop, name):
			return
		case contains(spec.code, name):
			if joined {
				w.interpCode(guard.Lit(val), inner, base)
			} else if i+1 < len(rest) {
				w.interpCode(rest[i+1], inner, base)
			}
			return
		case contains(spec.values, name) && !joined:
			i++
		}
	}
	if script == nil {
		if onlyInteractive(rest) && w.interactive(c, base) {
			return
		}
		w.interpInput(c.sc.stdin, inner, base, c.text)
		return
	}
	if t, _ := script.Text(); t == "-" {
		w.interpInput(c.sc.stdin, inner, base, c.text)
		return
	} else if strings.HasPrefix(t, "https://") || strings.HasPrefix(t, "http://") {
		// deno run https://...: code fetched from the network as it runs
		w.opaque(inner, c.text, "url")
		return
	}
	w.interpInput(w.fileInput(*script, c.sc, nil), inner, base, c.text)
}

// onlyInteractive is an interpreter's argument list that starts its REPL and nothing else: no words,
// or only the flags that ask for the REPL or quiet it.
func onlyInteractive(words []guard.Word) bool {
	for _, wd := range words {
		if t, _ := wd.Text(); t != "-i" && t != "-q" && t != "-u" && t != "--interactive" {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// interpInput reads code an interpreter gets from its input or a file. Known code is also recorded
// as the interpreter given that code (python3 -c CODE), so rules about what code touches see it.
func (w *walker) interpInput(in *input, sc scope, base, text string) {
	switch {
	case in == nil:
	case in.hasWord():
		w.emit(guard.Command{Name: guard.Lit(base), Args: []guard.Word{guard.Lit("-c"), in.word}, Cd: slices.Clone(sc.cd), Depth: sc.depth, Via: slices.Clone(sc.via), Text: text})
		w.interpCode(in.word, sc, base)
	default:
		w.opaque(sc, text, in.from)
	}
}

// interpCode reads one piece of code for the shell commands it runs and the folders it removes.
func (w *walker) interpCode(code guard.Word, sc scope, base string) {
	if code.AllHole() {
		w.opaque(sc, base+" "+code.String(), holeFrom([]guard.Word{code}))
		return
	}
	src := wordexp.Source(code)
	if len(src) > maxOutput {
		src = text.Prefix(src, maxOutput)
	}
	if strings.Contains(src, "__import__") {
		src = importCall().ReplaceAllString(src, "$1")
	}
	outs := append(shellOuts(src), aliasedShellOuts(src)...)
	outs = append(outs, httpDeletes(src)...)
	if base == "tclsh" || base == "wish" || base == "jimsh" {
		outs = append(outs, tclExecs(src)...)
	}
	for _, line := range outs {
		if line == unknownCode {
			// a shell-out or an eval of text the code builds as it runs (a variable, a decoded
			// string): the guard cannot read what it runs
			w.opaque(sc, base+" "+text.ClipAt(src, maxEcho), base)
			continue
		}
		if _, err := parse(line); err != nil {
			// a string that is not shell (python's own exec("print(1)")): nothing the shell runs
			continue
		}
		w.line(line, sc)
		if w.refused != "" {
			return
		}
	}
	for _, f := range writtenFiles(src) {
		sc.st.files[path.Clean(f)] = fromNames(base)
	}
}

// unknownCode marks a shell-out whose command the code builds at run time.
const unknownCode = "\x00unknown"

// opaqueCalls run text the code builds: a shell-out or an eval given anything but a string literal,
// and decoders whose output is run.
var opaqueCalls = []string{"system", "popen", "execSync", "spawnSync", "check_output", "check_call", "Popen", "shell_exec", "passthru",
	"getoutput", "getstatusoutput", "execute", "exec", "eval", "b64decode", "atob", "decode_base64", "fromhex"}

// writtenFiles are the files interpreter code opens for writing or writes whole, by a literal name
// (open('x.sh', 'w'), writeFileSync('x.sh', ...), File.write('x.sh', ...), file_put_contents).
func writtenFiles(code string) []string {
	var out []string
	for _, call := range []string{"open(", "writeFileSync(", "writeFile(", "File.write(", "file_put_contents(", "Path("} {
		for i := strings.Index(code, call); i >= 0 && len(out) < 16; {
			rest := strings.TrimLeft(code[i+len(call):], " \t")
			if lit, n, ok := literal(rest); ok {
				after := rest[n:]
				head := after[:min(len(after), 16)]
				switch call {
				case "open(":
					if strings.ContainsAny(head, "wa") {
						out = append(out, lit)
					}
				case "Path(":
					if strings.HasPrefix(head, ").write_") {
						out = append(out, lit)
					}
				default:
					out = append(out, lit)
				}
			}
			next := strings.Index(code[i+len(call):], call)
			if next < 0 {
				break
			}
			i += len(call) + next
		}
	}
	return out
}

// shellCalls are the functions and forms that hand a string or an argument list to a shell or run
// a program; removers delete a folder and everything in it.
var (
	shellCalls = []string{"system", "popen", "exec", "execSync", "execFileSync", "spawnSync", "spawn", "execFile", "check_call", "check_output",
		"call", "run", "Popen", "getoutput", "getstatusoutput", "shell_exec", "passthru", "proc_open", "execute", "io.popen", "Command", "sh", "capture2", "capture3", "popen3", "spawnvp", "execvp", "execlp"}
	removers = []string{"rm", "unlink", "rmtree", "rm_rf", "rm_r", "remove_dir", "remove_entry", "remove_entry_secure", "remove_tree", "rmSync", "rmdirSync", "removeSync", "emptyDir", "emptyDirSync", "remove", "rimraf", "RemoveAll", "delete_tree", "deltree", "rmdir_p"}
)

// spawnCalls are python's os.spawn* functions: a mode, then the program and its arguments.
var spawnCalls = []string{"spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"}

// importCall is python's __import__('os'), read as the module it names; compiled on first use, so
// abcd's start pays nothing for it.
var importCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`__import__\(\s*['"]([\w.]+)['"]\s*\)`) })

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

// quotedStrings reads code's quoted strings in order, up to the first it cannot read, and keeps at
// most max of what keep makes of those it takes.
func quotedStrings(code string, max int, keep func(lit string) (string, bool)) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < max; i++ {
		if code[i] != '"' && code[i] != '\'' {
			continue
		}
		lit, n, ok := literal(code[i:])
		if !ok {
			break
		}
		if v, ok := keep(lit); ok {
			out = append(out, v)
		}
		i += n - 1
	}
	return out
}

// shellOuts finds the shell commands in interpreter code: the first string (or list of strings)
// given to a shell-out function, text in backticks, rm -rf of what a remover is given, an HTTP
// DELETE of a URL, and a fork in a loop.
func shellOuts(code string) []string {
	out := awkPipes(code)
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
			} else if contains(shellCalls, name) || contains(opaqueCalls, name) || contains(spawnCalls, name) {
				args := code[k:]
				if contains(spawnCalls, name) {
					// os.spawnlp(os.P_WAIT, 'rm', ...): the mode comes first
					if _, after, found := strings.Cut(args, ","); found {
						args = after
					}
				}
				s, ok := argument(args)
				switch {
				case ok && (contains(shellCalls, name) || contains(spawnCalls, name)):
					out = append(out, s)
				case !ok && contains(opaqueCalls, name) && k > j && strings.Contains(code[j:k], "("):
					out = append(out, unknownCode)
				}
			} else if contains(removers, name) {
				if p, ok := pathArgument(code[k:]); ok {
					out = append(out, "rm -rf -- "+p)
				}
			} else if name == "delete" && i > 0 && code[i-1] == '.' {
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

// qxForm reads perl's qx{...} and ruby's %x(...) text.
func qxForm(name, rest string) (string, bool) {
	if name != "qx" || len(rest) < 2 {
		return "", false
	}
	open := rest[0]
	closeBy := map[byte]byte{'(': ')', '{': '}', '[': ']', '<': '>', '/': '/', '|': '|', '!': '!'}[open]
	if closeBy == 0 {
		return "", false
	}
	end := strings.IndexByte(rest[1:], closeBy)
	if end < 0 {
		return "", false
	}
	return rest[1 : 1+end], true
}

// argument reads a call's first argument: a string literal, or a list of them joined as a command
// line (each word quoted).
func argument(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t(")
	if list, ok := bareWords(s); ok {
		return list, true
	}
	if strings.HasPrefix(s, "[") {
		var words []string
		rest := s[1:]
		for len(words) < 64 {
			rest = strings.TrimLeft(rest, " \t,\n")
			lit, n, ok := literal(rest)
			if !ok {
				break
			}
			words = append(words, text.ShellQuote(lit))
			rest = rest[n:]
		}
		return strings.Join(words, " "), len(words) > 0
	}
	lit, n, ok := concatenated(s)
	if !ok {
		return "", false
	}
	after := strings.TrimLeft(s[n:], " \t")
	if !strings.HasPrefix(after, ",") {
		return lit, true
	}
	rest := strings.TrimLeft(after[1:], " \t")
	if strings.HasPrefix(rest, "[") {
		// spawn("rm", ["-rf", "/"]): the program, then its argument list
		if list, ok := argument(rest); ok {
			return text.ShellQuote(lit) + " " + list, true
		}
	}
	// system "rm", "-rf", "/" (perl, ruby): the program and its arguments, each a word
	words := []string{text.ShellQuote(lit)}
	for len(words) < 64 {
		next, m, ok := concatenated(rest)
		if !ok {
			break
		}
		words = append(words, text.ShellQuote(next))
		rest = strings.TrimLeft(rest[m:], " \t")
		if !strings.HasPrefix(rest, ",") {
			break
		}
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	if len(words) == 1 {
		return lit, true
	}
	return strings.Join(words, " "), true
}

// concatenated reads string literals joined with + or . ('r' + 'm -rf ~'): their text, and how
// many bytes they took.
func concatenated(s string) (string, int, bool) {
	lit, n, ok := literal(s)
	if !ok {
		return "", 0, false
	}
	for {
		rest := strings.TrimLeft(s[n:], " \t")
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			// "r" "m -rf ~": adjacent literals are one string (python, C)
			next, m, ok := literal(rest)
			if !ok {
				return lit, n, true
			}
			lit += next
			n = len(s) - len(rest) + m
			continue
		}
		if rest == "" || rest[0] != '+' && rest[0] != '.' {
			return lit, n, true
		}
		skip := len(s) - len(rest) + 1
		more := strings.TrimLeft(s[skip:], " \t")
		next, m, ok := literal(more)
		if !ok {
			return lit, n, true
		}
		lit += next
		n = len(s) - len(more) + m
	}
}

// bareWords reads perl's qw(...) and ruby's %w(...): words without quotes, as a command line.
func bareWords(s string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(s, "qw"):
		rest = s[2:]
	case strings.HasPrefix(s, "%w"), strings.HasPrefix(s, "%W"):
		rest = s[2:]
	default:
		return "", false
	}
	if rest == "" {
		return "", false
	}
	closeBy := map[byte]byte{'(': ')', '{': '}', '[': ']', '<': '>', '/': '/', '|': '|'}[rest[0]]
	end := strings.IndexByte(rest[1:], closeBy)
	if closeBy == 0 || end < 0 {
		return "", false
	}
	var words []string
	for _, f := range strings.Fields(rest[1 : 1+end]) {
		words = append(words, text.ShellQuote(f))
	}
	return strings.Join(words, " "), len(words) > 0
}

// literal reads a quoted string at the start of s: its text and how many bytes it took.
func literal(s string) (string, int, bool) {
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return "", 0, false
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case q:
			return b.String(), i + 1, true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, false
}

// homeForms are the spellings of the home folder in interpreter code.
var homeForms = []string{"os.path.expanduser('~')", `os.path.expanduser("~")`, "Path.home()", "pathlib.Path.home()", "os.homedir()", "require('os').homedir()",
	`require("os").homedir()`, "homedir()", "path.expand('~')", `path.expand("~")`, `Sys.getenv("HOME")`, "Sys.getenv('HOME')", "process.env.HOME", "os.environ['HOME']", `os.environ["HOME"]`, "os.getenv('HOME')", `os.getenv("HOME")`, "ENV['HOME']", `ENV["HOME"]`, "$ENV{HOME}", "$ENV{'HOME'}", "Dir.home", `getenv("HOME")`, "Deno.env.get('HOME')", `Deno.env.get("HOME")`}

// pathArgument reads a remover's first argument as a shell word: a string literal (quoted, so it
// stays literal), or the home folder.
func pathArgument(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t(")
	for _, h := range homeForms {
		if rest, ok := strings.CutPrefix(s, h); ok {
			rest = strings.TrimLeft(rest, " \t")
			if rest == "" || rest[0] == ')' || rest[0] == ',' || rest[0] == ';' {
				return "~", true
			}
			return "~/\"$__abcd_unknown\"", true
		}
	}
	if strings.HasPrefix(s, "os.path.expanduser(") {
		if lit, _, ok := literal(strings.TrimPrefix(s, "os.path.expanduser(")); ok && strings.HasPrefix(lit, "~") {
			return "~" + text.ShellQuote(strings.TrimPrefix(lit, "~")), true
		}
	}
	if rest, ok := strings.CutPrefix(s, "glob("); ok {
		// unlink glob("~/.ssh/*"): every file the pattern matches
		if lit, _, ok := literal(rest); ok {
			return interpolatedHome(lit, false), true
		}
	}
	lit, n, ok := literal(s)
	if !ok {
		return "", false
	}
	rest := strings.TrimLeft(s[n:], " \t")
	if rest != "" && (rest[0] == '+' || rest[0] == '.') {
		// a path built on: its beginning, the rest unknown
		return interpolatedHome(lit, true) + "\"$__abcd_unknown\"", true
	}
	return interpolatedHome(lit, true), true
}

// interpolatedHome is a string literal as a shell word, with the home folder a perl, PHP or Ruby
// string spells ($ENV{HOME}, $HOME, ~ in a glob) read as home; quoted keeps glob characters literal.
func interpolatedHome(lit string, quoted bool) string {
	for _, h := range []string{"$ENV{HOME}", "${HOME}", "$HOME", "#{ENV['HOME']}", `#{ENV["HOME"]}`, "#{Dir.home}"} {
		if rest, ok := strings.CutPrefix(lit, h); ok {
			if quoted {
				return "~" + text.ShellQuote(rest)
			}
			return "~" + rest
		}
	}
	if !quoted {
		return lit
	}
	return text.ShellQuote(lit)
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

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
