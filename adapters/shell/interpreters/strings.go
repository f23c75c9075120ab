package interpreters

import (
	"strings"

	"github.com/abcd-dev/abcd/domain/text"
)

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
func argument(s string) (string, bool) { return argumentIn(s, nil, false) }

// argumentIn reads a call's arguments as the command line they run: a string literal (a line for
// the shell); the program and its arguments as separate strings (system "rm", "-rf", "/"), in a
// list ([...], qw(...), %w[...], *%w[...], args=[...], {args: [...]}), or with perl's program in a
// block (exec {"rm"} "rm", "-rf", "/"); or a list the code named earlier (cmd = [...]; run(cmd)),
// from lists. The home folder however the language spells it is ~.
//
// argv0 is set for the exec and spawn families (os.execlp("git", "git", "push")): after the program,
// the first word of its argument list is only the name it runs under, and is left out.
func argumentIn(s string, lists map[string]string, argv0 bool) (string, bool) {
	s = strings.TrimLeft(s, " \t(")
	for _, kw := range []string{"args=", "args =", "cmd=", "argv="} {
		s = strings.TrimPrefix(s, kw)
	}
	s = strings.TrimLeft(strings.TrimPrefix(s, "*"), " \t")
	if list, ok := bareWords(s); ok {
		return list, true
	}
	if name, ok := listName(s); ok {
		if list, found := lists[name]; found {
			return list, true
		}
		return "", false
	}
	if strings.HasPrefix(s, "[") {
		words, _ := listItems(s[1:])
		return strings.Join(words, " "), len(words) > 0
	}
	if strings.HasPrefix(s, "{") {
		// perl's exec {PROGRAM} LIST: PROGRAM runs, LIST's first word is only its name
		prog, n, ok := literal(strings.TrimLeft(s[1:], " \t"))
		end := strings.IndexByte(s, '}')
		if !ok || end < 0 || n > end {
			return "", false
		}
		words, _ := listItems(s[end+1:])
		if len(words) > 0 {
			words = words[1:]
		}
		return strings.Join(append([]string{text.ShellQuote(prog)}, words...), " "), true
	}
	lit, n, ok := concatenated(s)
	if !ok {
		if home, m, ok := homeItem(s); ok {
			lit, n = home, m
		} else {
			return "", false
		}
	}
	after := strings.TrimLeft(s[n:], " \t")
	if !strings.HasPrefix(after, ",") {
		return lit, true
	}
	rest := strings.TrimLeft(after[1:], " \t")
	if strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "{") {
		// spawn("rm", ["-rf", "/"]), new Deno.Command("rm", {args: ["-rf", "/"]}): the program,
		// then its argument list
		if i := strings.IndexByte(rest, '['); strings.HasPrefix(rest, "[") || i > 0 && strings.Contains(rest[:i], "args") {
			words, _ := listItems(rest[i+1:])
			if argv0 && len(words) > 0 {
				words = words[1:]
			}
			if len(words) > 0 {
				return text.ShellQuote(lit) + " " + strings.Join(words, " "), true
			}
		}
	}
	// system "rm", "-rf", "/" (perl, ruby): the program and its arguments, each a word
	words, _ := listItems(rest)
	if argv0 && len(words) > 0 {
		words = words[1:]
	}
	if len(words) == 0 {
		return lit, true
	}
	return strings.Join(append([]string{text.ShellQuote(lit)}, words...), " "), true
}

// listItems reads a list's items, separated by commas, as shell words: string literals (joined with
// + or .), and the home folder; it stops at the first it cannot read or at the list's end.
func listItems(s string) ([]string, int) {
	var words []string
	rest := s
	for len(words) < 64 {
		rest = strings.TrimLeft(rest, " \t\n")
		if lit, n, ok := concatenated(rest); ok {
			words = append(words, text.ShellQuote(lit))
			rest = rest[n:]
		} else if home, n, ok := homeItem(rest); ok {
			words = append(words, home)
			rest = rest[n:]
		} else {
			break
		}
		rest = strings.TrimLeft(rest, " \t\n")
		if !strings.HasPrefix(rest, ",") {
			break
		}
		rest = rest[1:]
	}
	return words, len(s) - len(rest)
}

// homeItem reads the home folder as a language spells it (os.path.expanduser("~"), Dir.home,
// $ENV{HOME}, require("os").homedir(), str(Path.home())), as the shell word ~.
func homeItem(s string) (string, int, bool) {
	for _, wrap := range []string{"", "str(", "String(", "File.expand_path(", "os.path.abspath("} {
		inner, ok := strings.CutPrefix(s, wrap)
		if !ok {
			continue
		}
		for _, h := range homeForms {
			if strings.HasPrefix(inner, h) {
				n := len(wrap) + len(h)
				if wrap != "" {
					if !strings.HasPrefix(s[n:], ")") {
						continue
					}
					n++
				}
				return "~", n, true
			}
		}
	}
	return "", 0, false
}

// listName is the name of a list a call is given (cmd, @cmd, *cmd), when that is all it is given.
func listName(s string) (string, bool) {
	s = strings.TrimPrefix(s, "@")
	i := 0
	for i < len(s) && isIdent(s[i]) {
		i++
	}
	if i == 0 || !isIdentStart(s[0]) {
		return "", false
	}
	rest := strings.TrimLeft(s[i:], " \t")
	if rest != "" && rest[0] != ')' && rest[0] != ',' && rest[0] != ';' && rest[0] != '\n' {
		return "", false
	}
	return s[:i], true
}

// namedLists are the lists code assigns to a name (cmd = ["rm", "-rf", "/"], my @c = ("rm", ...),
// c = %w[rm -rf /]), as the command lines they would run.
func namedLists(code string) map[string]string {
	var out map[string]string
	for i := 0; i < len(code); i++ {
		if code[i] != '=' || i+1 < len(code) && code[i+1] == '=' || i > 0 && strings.ContainsRune("=!<>+-*/", rune(code[i-1])) {
			continue
		}
		j := i - 1
		for j >= 0 && (code[j] == ' ' || code[j] == '\t') {
			j--
		}
		end := j + 1
		for j >= 0 && isIdent(code[j]) {
			j--
		}
		name := code[j+1 : end]
		if name == "" || !isIdentStart(name[0]) {
			continue
		}
		value := strings.TrimLeft(code[i+1:], " \t")
		var list string
		switch {
		case strings.HasPrefix(value, "[") || strings.HasPrefix(value, "("):
			words, _ := listItems(value[1:])
			list = strings.Join(words, " ")
		default:
			list, _ = bareWords(value)
		}
		if list == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = list
	}
	return out
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

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
