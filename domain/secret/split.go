package secret

import (
	"slices"
	"strings"
)

// A credential is not always written whole: it may be wrapped over lines, continued with a shell's
// backslash, or cut into strings that code joins ("sk-ant-" + "api03…", Python's "a" "b", a list's
// "a", "b"). Each piece of Window bytes or more is a run Spans finds on its own; pieces shorter than
// that are found once what stands between them is taken out (joinPieces), which is what SplitSpans
// reads.

// SplitSpans are the stretches of s that carry a credential the scrubber holds once what stands
// between its pieces is taken out: each runs from its first piece's first byte to its last piece's
// last, and takes what stands between them. A credential written whole is found here too.
func (sc *Scrubber) SplitSpans(s string) [][2]int {
	if sc.Empty() {
		return nil
	}
	if joined, _ := joinPieces(s, false); len(joined) == len(s) || len(sc.Spans(joined)) == 0 {
		return sc.Spans(s) // nothing was taken out, or nothing is found once it is (most texts)
	}
	joined, at := joinPieces(s, true)
	spans := sc.Spans(s) // a form that holds white space of its own is found only where it stands
	for _, sp := range sc.Spans(joined) {
		// Only ASCII bytes are taken out, so a character's bytes stay together and the places are
		// characters' boundaries in s too.
		spans = append(spans, [2]int{at[sp[0]], at[sp[1]-1] + 1})
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, sp := range spans {
		if n := len(out); n > 0 && out[n-1][1] >= sp[0] {
			out[n-1][1] = max(out[n-1][1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// Carries reports whether s carries a credential the scrubber holds: whole, in any of its forms, cut
// short or cut into pieces (Spans, SplitSpans). A URL's password it does not hold is not one.
func (sc *Scrubber) Carries(s string) bool {
	if sc.Empty() {
		return false
	}
	if len(sc.Spans(s)) > 0 {
		return true
	}
	joined, _ := joinPieces(s, false)
	return len(joined) < len(s) && len(sc.Spans(joined)) > 0
}

// joinPieces is s with what may stand between the pieces of a credential taken out: white space,
// escaped line breaks (\n, \r, \t written out), a backslash ending a line, and the quotes and
// operator between two strings ("a" + "b", 'a' . 'b', "a" "b", "a", "b", "a" || "b", "a" & "b").
// With places, it also gives where each kept byte stood in s.
func joinPieces(s string, places bool) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	var at []int
	if places {
		at = make([]int, 0, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isSpace(c):
			continue
		case c == '\\' && i+1 < len(s) && strings.IndexByte("nrt\n\r", s[i+1]) >= 0:
			i++
			continue
		case isQuote(c):
			if j := joint(s, i); j > i {
				i = j // the closing quote, what joins, and the next string's opening quote
				continue
			}
		}
		b.WriteByte(c)
		if places {
			at = append(at, i)
		}
	}
	return b.String(), at
}

// joint is where the next string opens when the quote at s[i] closes one string and only white space
// and a joining operator stand before the next; i when they do not.
func joint(s string, i int) int {
	k := skipSpace(s, i+1)
	for _, op := range []string{"||", "..", "+", ".", "&", ","} {
		if strings.HasPrefix(s[k:], op) {
			k = skipSpace(s, k+len(op))
			break
		}
	}
	if k < len(s) && isQuote(s[k]) {
		return k
	}
	return i
}

// skipSpace is the first place at or after i that is not white space or an escaped line break.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch {
		case isSpace(s[i]):
			i++
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("nrt\n\r", s[i+1]) >= 0:
			i += 2
		default:
			return i
		}
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// ScrubPieces is Scrub that also takes out a held credential cut into pieces (SplitSpans): the whole
// stretch from its first piece to its last becomes one Mark.
func (sc *Scrubber) ScrubPieces(s string) string {
	spans := sc.SplitSpans(s)
	if len(spans) == 0 {
		return Passwords(s)
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(Mark)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return Passwords(b.String())
}
