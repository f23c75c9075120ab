// Package text holds the rules about characters that every kind of text abcd takes from a person
// shares: what a single line may not hold, and what a block of lines may not hold.
package text

import (
	"fmt"
	"unicode/utf8"
)

// Hidden names the class of a character a single line of text may not hold, or "" when it may:
// control characters (C0, DEL, C1), bidirectional controls (which reorder what a reader sees), and
// zero-width characters (which hide a difference between two strings that look alike).
func Hidden(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return "a control character"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return "a bidirectional control"
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return "a zero-width character"
	}
	return ""
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
