package text

import "unicode/utf8"

// ClipBytes is the most of one outside value a message echoes.
const ClipBytes = 80

// Prefix is the longest prefix of s of at most n bytes that does not end inside a rune: the one
// rune-boundary cut every bound on bytes uses. It reads no further than the cut, so a megabyte of
// input costs what n bytes do.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ClipAt bounds s to n bytes on a rune boundary, marked with "…" when cut (the mark is past the
// bound).
func ClipAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}

// PathBytes is the most of one path a message echoes: the longest path a system takes (Linux's
// PATH_MAX), so a path is echoed whole and can be copied from the message.
const PathBytes = 4096

// ClipPath bounds a path a message echoes to PathBytes, as Clip bounds any other value.
func ClipPath(s string) string { return ClipAt(s, PathBytes) }

// Clip bounds text a message echoes (a key, a value, a flag, a path) to ClipBytes, cut on a rune
// boundary and marked with "…" when cut. Every refusal and protocol error that quotes outside input
// goes through it, whichever door the input came through.
func Clip(s string) string { return ClipAt(s, ClipBytes) }
