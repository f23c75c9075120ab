package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a text, folded to lower case, with where it stands.
type token struct {
	text string
}

// isWordRune is what a word is made of: letters, digits and the underscore, as \w reads them in
// every script. Everything else (spaces, punctuation, hyphens, dots, slashes) is a boundary.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// tokens splits s into its words, folded to lower case. Words are whole: "postgresql" holds no
// "sql", and "pre-commit" is "pre" then "commit".
func tokens(s string) []token {
	var out []token
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, token{text: fold(s[start:i])})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{text: fold(s[start:])})
	}
	return out
}

// fold lowers a word, without allocating when it is already lower-case ASCII.
func fold(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') {
			return strings.ToLower(s)
		}
	}
	return s
}

// forced lists the names a text forces in with *NAME: an asterisk at the start of the text or after
// anything but a word character or another asterisk, then a name (letters, digits, hyphens), folded.
// "2*3" and "**bold**" force nothing.
func forced(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '*' {
			continue
		}
		if i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			if prev == '*' || isWordRune(prev) {
				continue
			}
		}
		j := i + 1
		for j < len(s) && (isASCIIAlnum(s[j]) || s[j] == '-') {
			j++
		}
		if j < len(s) {
			if next, _ := utf8.DecodeRuneInString(s[j:]); isWordRune(next) {
				continue // a name runs into a word character abcd's names never hold
			}
		}
		name := strings.TrimRight(fold(s[i+1:j]), "-")
		if name != "" && (j >= len(s) || s[j] != '*') {
			out = append(out, name)
		}
		i = j - 1
	}
	return out
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// prompt is a prompt read for matching: its words, and an index from each word to where it stands.
type prompt struct {
	words []string
	at    map[string][]int
}

func readPrompt(s string) *prompt {
	toks := tokens(s)
	t := &prompt{words: make([]string, len(toks)), at: make(map[string][]int, len(toks))}
	for i, tk := range toks {
		t.words[i] = tk.text
		t.at[tk.text] = append(t.at[tk.text], i)
	}
	return t
}

// has reports whether the text holds w: its words in a row, the last one as a prefix when w ends in
// *. It returns the words as they matched, for saying why.
func (t *prompt) has(w word) (string, bool) {
	first := w.parts[0]
	if len(w.parts) == 1 && w.prefix {
		for _, x := range t.words {
			if strings.HasPrefix(x, first) {
				return x, true
			}
		}
		return "", false
	}
	for _, i := range t.at[first] {
		if i+len(w.parts) > len(t.words) {
			continue
		}
		ok := true
		for j := 1; j < len(w.parts); j++ {
			x := t.words[i+j]
			last := j == len(w.parts)-1
			if x != w.parts[j] && !(last && w.prefix && strings.HasPrefix(x, w.parts[j])) {
				ok = false
				break
			}
		}
		if ok {
			return strings.Join(t.words[i:i+len(w.parts)], " "), true
		}
	}
	return "", false
}
