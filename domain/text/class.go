// Package text holds the rules about characters that every kind of text abcd takes from a person
// shares: what a single line may not hold, and what a block of lines may not hold.
package text

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// span is a range of code points, both ends included.
type span struct{ lo, hi rune }

// hiddenClasses are the characters a single line of text may not hold, by class: control characters
// (C0, DEL, C1), bidirectional controls (which reorder what a reader sees), and zero-width
// characters (which hide a difference between two strings that look alike). Hidden reads them, and
// HiddenClass spells them for a schema, so the check and the schema cannot drift apart.
var hiddenClasses = []struct {
	name  string
	spans []span
}{
	{"a control character", []span{{0x00, 0x1f}, {0x7f, 0x9f}}},
	{"a bidirectional control", []span{{0x061c, 0x061c}, {0x200e, 0x200f}, {0x202a, 0x202e}, {0x2066, 0x2069}}},
	{"a zero-width character", []span{{0x200b, 0x200d}, {0x2060, 0x2060}, {0xfeff, 0xfeff}}},
}

// spaces are the white space characters unicode.IsSpace (and so strings.TrimSpace) knows that are
// not hidden: what a line may hold inside but a title never starts or ends with.
var spaces = []span{{0x20, 0x20}, {0xa0, 0xa0}, {0x1680, 0x1680}, {0x2000, 0x200a}, {0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f}, {0x3000, 0x3000}}

// Hidden names the class of a character a single line of text may not hold, or "" when it may.
func Hidden(r rune) string {
	for _, c := range hiddenClasses {
		if in(c.spans, r) {
			return c.name
		}
	}
	return ""
}

// Space reports whether r is white space a line may hold (not a hidden character).
func Space(r rune) bool { return in(spaces, r) }

func in(spans []span, r rune) bool {
	for _, s := range spans {
		if r >= s.lo && r <= s.hi {
			return true
		}
	}
	return false
}

// HiddenClass is every character Hidden names, as the inside of a regular expression's character
// class that RE2 and ECMA-262 read alike: code points below U+0100 as \xHH escapes, the others as
// the characters themselves (neither dialect shares an escape for them).
func HiddenClass() string {
	var all []span
	for _, c := range hiddenClasses {
		all = append(all, c.spans...)
	}
	return class(all)
}

// SpaceClass is every character Space reports, as HiddenClass spells a class.
func SpaceClass() string { return class(spaces) }

func class(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(classChar(s.lo))
		if s.hi != s.lo {
			b.WriteByte('-')
			b.WriteString(classChar(s.hi))
		}
	}
	return b.String()
}

func classChar(r rune) string {
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return string(r)
}

// LineProblem says what single-line text holds that it may not (invalid UTF-8, or a hidden
// character, named with its code point), or "" when it is clean.
func LineProblem(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		if class := Hidden(r); class != "" {
			return fmt.Sprintf("U+%04X, %s", r, class)
		}
	}
	return ""
}

// BlockProblem is LineProblem for text of several lines: tab and line feed are allowed, and a
// zero-width joiner is (it joins emoji and scripts that need it); every other hidden character is
// not.
func BlockProblem(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		if r == '\t' || r == '\n' || r == 0x200d {
			continue
		}
		if class := Hidden(r); class != "" {
			return fmt.Sprintf("U+%04X, %s", r, class)
		}
	}
	return ""
}

// Count is n with the word that counts it, as English reads: "1 lane", "2 lanes", "0 warnings".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// EscapeUnseenJSON writes every hidden or white space character past ASCII in a JSON document as a
// \uXXXX escape, so a file that names them (a schema's pattern, a test corpus) reads without
// invisible or reordering characters. In JSON they stand only inside strings, where the escape
// means the same.
func EscapeUnseenJSON(data []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(data) {
		if r >= 0x80 && (Hidden(r) != "" || Space(r)) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}
