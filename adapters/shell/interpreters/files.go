package interpreters

import (
	"strings"

	"github.com/abcd-dev/abcd/domain/text"
)

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

// homeForms are the spellings of the home folder in interpreter code.
var homeForms = []string{"$ENV{\"HOME\"}", "File.expand_path('~')", `File.expand_path("~")`, "os.environ.get('HOME')", `os.environ.get("HOME")`, `process.env["HOME"]`, "process.env['HOME']", "Dir.home()", `ENV.fetch("HOME")`, "ENV.fetch('HOME')", `getenv('HOME')`, "os.UserHomeDir()", `$_SERVER["HOME"]`, "$_SERVER['HOME']", "os.path.expanduser('~')", `os.path.expanduser("~")`, "Path.home()", "pathlib.Path.home()", "os.homedir()", "require('os').homedir()",
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
