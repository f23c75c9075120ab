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

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
