package wordexp

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// braceAlternatives expands a word's braces ({a,b}, {1..3}, {a..c}) into the words' parts, bounded:
// cut is true when some alternatives were left unread.
func braceAlternatives(wd *syntax.Word) (alts [][]syntax.WordPart, cut bool) {
	if hasBraceLit(wd) {
		syntax.SplitBraces(wd)
	}
	alts = [][]syntax.WordPart{nil}
	braces := 0
	for _, p := range wd.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range alts {
				alts[i] = append(alts[i], p)
			}
			continue
		}
		braces++
		var elems [][]syntax.WordPart
		if b.Sequence {
			seq, more := sequence(b)
			cut = cut || more
			for _, s := range seq {
				elems = append(elems, []syntax.WordPart{&syntax.Lit{Value: s}})
			}
		} else {
			for _, e := range b.Elems {
				if braces > maxBraces {
					cut = true
					break
				}
				sub, more := braceAlternatives(e)
				cut = cut || more
				elems = append(elems, sub...)
			}
		}
		if len(elems) == 0 {
			continue
		}
		if braces > maxBraces || len(alts)*len(elems) > maxFields {
			cut = true
			elems = elems[:1]
		}
		next := make([][]syntax.WordPart, 0, len(alts)*len(elems))
		for _, a := range alts {
			for _, e := range elems {
				next = append(next, append(append([]syntax.WordPart(nil), a...), e...))
			}
		}
		alts = next
	}
	return alts, cut
}

// maxBraces bounds the brace expressions one word's expansion reads.
const maxBraces = 16

func hasBraceLit(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// sequence is {x..y[..step]} over integers or single letters; more is true past the bound.
func sequence(b *syntax.BraceExp) (out []string, more bool) {
	if len(b.Elems) < 2 {
		return nil, false
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	step := 1
	if len(b.Elems) > 2 {
		if n, err := strconv.Atoi(b.Elems[2].Lit()); err == nil && n != 0 {
			step = max(n, -n)
		}
	}
	x, err1 := strconv.Atoi(from)
	y, err2 := strconv.Atoi(to)
	if err1 != nil || err2 != nil {
		if len(from) != 1 || len(to) != 1 {
			return nil, false
		}
		x, y = int(from[0]), int(to[0])
	}
	for i := x; (x <= y && i <= y) || (x > y && i >= y); {
		if len(out) == maxFields {
			return out, true
		}
		if err1 == nil {
			out = append(out, strconv.Itoa(i))
		} else {
			out = append(out, string(rune(i)))
		}
		if x <= y {
			i += step
		} else {
			i -= step
		}
	}
	return out, false
}
