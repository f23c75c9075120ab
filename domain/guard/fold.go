package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A path the guard protects is compared with a written path as the file systems that fold names
// compare them: macOS's (APFS and HFS+, case-insensitive by default, and normalization-insensitive)
// and Windows' (NTFS, case-insensitive, and deaf to a name's trailing dots and spaces). Folding
// always, whatever the system the hook runs on, is simpler and errs the safe way: on a system that
// does not fold, .ABCD/guard.json is another file, and a write of it is blocked all the same.
//
// The standard library has no Unicode normalization, and golang.org/x/text is not among abcd's
// dependencies. The fold below is what the protected names need: they are ASCII, so no composed or
// decomposed spelling of them differs only in normalization; what can spell them on a folding
// system is a case difference, a character whose case folding is an ASCII letter (KELVIN SIGN for
// k, LONG S for s), a code point HFS+ ignores (the joiners and marks git's own check for .git
// skips), or a trailing dot or space NTFS drops. For names the person writes in a repository's
// rules, the precomposed Latin letters (U+00C0 to U+017F) are decomposed, so an NFC and an NFD
// spelling of café compare equal.

// foldName folds one path the way the folding file systems compare names.
func foldName(s string) string { return trimSegments(foldCase(s)) }

// foldCase folds a piece of a path's text: case, the characters whose folding is an ASCII letter,
// HFS+'s ignorable code points and the Latin letters' composition.
func foldCase(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case hfsIgnorable(r):
			continue
		case r == '\u212a': // KELVIN SIGN
			r = 'k'
		case r == '\u017f': // LATIN SMALL LETTER LONG S
			r = 's'
		case r == '\u0130': // CAPITAL I WITH DOT ABOVE folds to i and a combining dot
			b.WriteString("i\u0307")
			continue
		}
		if d, ok := decomposed[r]; ok {
			b.WriteString(strings.ToLower(d))
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// trimSegments drops what NTFS drops from each name in a path: trailing dots and spaces (guard.json.
// is guard.json), and the default data stream's name (guard.json::$DATA). . and .. stay as they are.
func trimSegments(p string) string {
	if !needsTrim(p) {
		return p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		s = strings.TrimSuffix(s, "::$data")
		if s == "." || s == ".." {
			segs[i] = s
			continue
		}
		if t := strings.TrimRight(s, ". "); t != "" {
			segs[i] = t
		} else {
			segs[i] = s
		}
	}
	return strings.Join(segs, "/")
}

// needsTrim reports a path with a name ending in a dot or a space (other than . and ..) or naming
// a data stream.
func needsTrim(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '.' && c != ' ' && c != ':' {
			continue
		}
		if c == ':' {
			if strings.HasPrefix(p[i:], "::$data") {
				return true
			}
			continue
		}
		end := i + 1
		if end != len(p) && p[end] != '/' {
			continue
		}
		start := strings.LastIndexByte(p[:end], '/') + 1
		if name := p[start:end]; name != "." && name != ".." {
			return true
		}
	}
	return false
}

// hfsIgnorable are the code points HFS+ leaves out of a name when it compares names: zero-width
// joiners and non-joiners, direction marks and embeddings, the deprecated format characters and
// the byte-order mark.
func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// decomposed are the precomposed Latin letters of Latin-1 and Latin Extended-A (U+00C0 to U+017F)
// with their canonical decompositions (Unicode's NFD), written out from the Unicode character
// database once: a base letter and its combining mark.
var decomposed = map[rune]string{
	'\u00c0': "A\u0300",
	'\u00c1': "A\u0301",
	'\u00c2': "A\u0302",
	'\u00c3': "A\u0303",
	'\u00c4': "A\u0308",
	'\u00c5': "A\u030a",
	'\u00c7': "C\u0327",
	'\u00c8': "E\u0300",
	'\u00c9': "E\u0301",
	'\u00ca': "E\u0302",
	'\u00cb': "E\u0308",
	'\u00cc': "I\u0300",
	'\u00cd': "I\u0301",
	'\u00ce': "I\u0302",
	'\u00cf': "I\u0308",
	'\u00d1': "N\u0303",
	'\u00d2': "O\u0300",
	'\u00d3': "O\u0301",
	'\u00d4': "O\u0302",
	'\u00d5': "O\u0303",
	'\u00d6': "O\u0308",
	'\u00d9': "U\u0300",
	'\u00da': "U\u0301",
	'\u00db': "U\u0302",
	'\u00dc': "U\u0308",
	'\u00dd': "Y\u0301",
	'\u00e0': "a\u0300",
	'\u00e1': "a\u0301",
	'\u00e2': "a\u0302",
	'\u00e3': "a\u0303",
	'\u00e4': "a\u0308",
	'\u00e5': "a\u030a",
	'\u00e7': "c\u0327",
	'\u00e8': "e\u0300",
	'\u00e9': "e\u0301",
	'\u00ea': "e\u0302",
	'\u00eb': "e\u0308",
	'\u00ec': "i\u0300",
	'\u00ed': "i\u0301",
	'\u00ee': "i\u0302",
	'\u00ef': "i\u0308",
	'\u00f1': "n\u0303",
	'\u00f2': "o\u0300",
	'\u00f3': "o\u0301",
	'\u00f4': "o\u0302",
	'\u00f5': "o\u0303",
	'\u00f6': "o\u0308",
	'\u00f9': "u\u0300",
	'\u00fa': "u\u0301",
	'\u00fb': "u\u0302",
	'\u00fc': "u\u0308",
	'\u00fd': "y\u0301",
	'\u00ff': "y\u0308",
	'\u0100': "A\u0304",
	'\u0101': "a\u0304",
	'\u0102': "A\u0306",
	'\u0103': "a\u0306",
	'\u0104': "A\u0328",
	'\u0105': "a\u0328",
	'\u0106': "C\u0301",
	'\u0107': "c\u0301",
	'\u0108': "C\u0302",
	'\u0109': "c\u0302",
	'\u010a': "C\u0307",
	'\u010b': "c\u0307",
	'\u010c': "C\u030c",
	'\u010d': "c\u030c",
	'\u010e': "D\u030c",
	'\u010f': "d\u030c",
	'\u0112': "E\u0304",
	'\u0113': "e\u0304",
	'\u0114': "E\u0306",
	'\u0115': "e\u0306",
	'\u0116': "E\u0307",
	'\u0117': "e\u0307",
	'\u0118': "E\u0328",
	'\u0119': "e\u0328",
	'\u011a': "E\u030c",
	'\u011b': "e\u030c",
	'\u011c': "G\u0302",
	'\u011d': "g\u0302",
	'\u011e': "G\u0306",
	'\u011f': "g\u0306",
	'\u0120': "G\u0307",
	'\u0121': "g\u0307",
	'\u0122': "G\u0327",
	'\u0123': "g\u0327",
	'\u0124': "H\u0302",
	'\u0125': "h\u0302",
	'\u0128': "I\u0303",
	'\u0129': "i\u0303",
	'\u012a': "I\u0304",
	'\u012b': "i\u0304",
	'\u012c': "I\u0306",
	'\u012d': "i\u0306",
	'\u012e': "I\u0328",
	'\u012f': "i\u0328",
	'\u0130': "I\u0307",
	'\u0134': "J\u0302",
	'\u0135': "j\u0302",
	'\u0136': "K\u0327",
	'\u0137': "k\u0327",
	'\u0139': "L\u0301",
	'\u013a': "l\u0301",
	'\u013b': "L\u0327",
	'\u013c': "l\u0327",
	'\u013d': "L\u030c",
	'\u013e': "l\u030c",
	'\u0143': "N\u0301",
	'\u0144': "n\u0301",
	'\u0145': "N\u0327",
	'\u0146': "n\u0327",
	'\u0147': "N\u030c",
	'\u0148': "n\u030c",
	'\u014c': "O\u0304",
	'\u014d': "o\u0304",
	'\u014e': "O\u0306",
	'\u014f': "o\u0306",
	'\u0150': "O\u030b",
	'\u0151': "o\u030b",
	'\u0154': "R\u0301",
	'\u0155': "r\u0301",
	'\u0156': "R\u0327",
	'\u0157': "r\u0327",
	'\u0158': "R\u030c",
	'\u0159': "r\u030c",
	'\u015a': "S\u0301",
	'\u015b': "s\u0301",
	'\u015c': "S\u0302",
	'\u015d': "s\u0302",
	'\u015e': "S\u0327",
	'\u015f': "s\u0327",
	'\u0160': "S\u030c",
	'\u0161': "s\u030c",
	'\u0162': "T\u0327",
	'\u0163': "t\u0327",
	'\u0164': "T\u030c",
	'\u0165': "t\u030c",
	'\u0168': "U\u0303",
	'\u0169': "u\u0303",
	'\u016a': "U\u0304",
	'\u016b': "u\u0304",
	'\u016c': "U\u0306",
	'\u016d': "u\u0306",
	'\u016e': "U\u030a",
	'\u016f': "u\u030a",
	'\u0170': "U\u030b",
	'\u0171': "u\u030b",
	'\u0172': "U\u0328",
	'\u0173': "u\u0328",
	'\u0174': "W\u0302",
	'\u0175': "w\u0302",
	'\u0176': "Y\u0302",
	'\u0177': "y\u0302",
	'\u0178': "Y\u0308",
	'\u0179': "Z\u0301",
	'\u017a': "z\u0301",
	'\u017b': "Z\u0307",
	'\u017c': "z\u0307",
	'\u017d': "Z\u030c",
	'\u017e': "z\u030c",
}
