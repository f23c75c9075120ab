package text

import "unicode/utf8"

// ClipBytes is the most of one outside value a message echoes.
const ClipBytes = 80

// Clip bounds text a message echoes (a key, a value, a flag, a path) to ClipBytes, cut on a rune
// boundary and marked with "…" when cut. It reads no further than the cut, so a megabyte of input
// costs what eighty bytes do. Every refusal and protocol error that quotes outside input goes
// through it, whichever door the input came through.
func Clip(s string) string {
	if len(s) <= ClipBytes {
		return s
	}
	cut := ClipBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
