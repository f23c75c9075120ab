package record

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Id form: "<prefix>-<yymmddhhmmss><dddd>", for example itd-2607011230051234: the family prefix, the
// UTC time to the second the record was created (two-digit year, so ids sort by time within a
// century), and four random digits. Twenty bytes, lower-case ASCII, safe in a file name.
//
// Collisions: ids need no central counter. Two records collide only when they are created in the same
// second with the same four random digits (1 in 10,000 for two records in one second). Within one
// repository the record store creates files create-only (a link, never an overwrite), so a writer
// that loses the race retries with new random digits. Across branches created apart and merged later
// nothing can retry; lint reports the duplicate (duplicate_id, on every file carrying it) and the
// remedy is to rename one of them.

// idDigits is the number of digits after the prefix and the dash.
const idDigits = 16

// idLen is the byte length of every id: three-letter prefix, dash, digits.
const idLen = 3 + 1 + idDigits

var prefixes = map[Family]string{Intents: "itd", Specs: "spc", Issues: "iss", Decisions: "dcn"}

var types = map[Family]string{Intents: "intent", Specs: "spec", Issues: "issue", Decisions: "decision"}

// Families lists the four families in their fixed order.
func Families() []Family { return []Family{Intents, Specs, Issues, Decisions} }

// Prefix is a family's id prefix: itd, spc, iss or dcn; "" for an unknown family.
func Prefix(f Family) string { return prefixes[f] }

// TypeOf is the value of a family's type key, also the CLI noun: intent, spec, issue or decision;
// "" for an unknown family.
func TypeOf(f Family) string { return types[f] }

// FamilyOfType is the family whose type key is t.
func FamilyOfType(t string) (Family, bool) {
	for _, f := range Families() {
		if types[f] == t {
			return f, true
		}
	}
	return "", false
}

// NewID builds an id from the time (converted to UTC) and a random number, of which the last four
// decimal digits are used (random%10000, zero-padded). An unknown family gives "".
func NewID(f Family, now time.Time, random uint32) string {
	p := Prefix(f)
	if p == "" {
		return ""
	}
	b := make([]byte, 0, idLen)
	b = append(b, p...)
	b = append(b, '-')
	b = now.UTC().AppendFormat(b, "060102150405")
	r := random % 10000
	return string(append(b, byte('0'+r/1000), byte('0'+r/100%10), byte('0'+r/10%10), byte('0'+r%10)))
}

// FamilyOfID reports the family of a valid full id: a known prefix, a dash and exactly sixteen
// digits (the form the front matter schemas' id patterns accept; the digits are not checked as a
// calendar time).
func FamilyOfID(id string) (Family, bool) {
	if len(id) != idLen || id[3] != '-' {
		return "", false
	}
	for i := 4; i < idLen; i++ {
		if id[i] < '0' || id[i] > '9' {
			return "", false
		}
	}
	for _, f := range Families() {
		if prefixes[f] == id[:3] {
			return f, true
		}
	}
	return "", false
}

// MaxSlugBytes bounds a slug.
const MaxSlugBytes = 48

// Slug turns a title into the file-name slug: lower-case ASCII letters and digits, words joined by
// single dashes, at most MaxSlugBytes bytes cut at a word boundary (a single longer word is cut at
// MaxSlugBytes), never empty ("untitled"). Latin letters with diacritics fold to their base letters
// (é → e, ß → ss); apostrophes join (don't → dont); any other character separates words.
func Slug(title string) string {
	var words []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	for _, r := range title {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			w.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			w.WriteRune(r + ('a' - 'A'))
		case r == '\'' || r == '\u2019':
			// an apostrophe joins: don't → dont
		default:
			if s, ok := foldLatin(r); ok {
				w.WriteString(s)
			} else {
				flush()
			}
		}
	}
	flush()
	var b strings.Builder
	for _, word := range words {
		sep := 0
		if b.Len() > 0 {
			sep = 1
		}
		if b.Len()+sep+len(word) > MaxSlugBytes {
			if b.Len() == 0 {
				b.WriteString(word[:MaxSlugBytes])
			}
			break
		}
		if sep == 1 {
			b.WriteByte('-')
		}
		b.WriteString(word)
	}
	if b.Len() == 0 {
		return "untitled"
	}
	return b.String()
}

// latinFold maps Latin-1 Supplement and Latin Extended-A letters to ASCII, lower case.
var latinFold = [...]string{
	// U+00C0..U+00FF
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
	"d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "ss",
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
	"d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
	// U+0100..U+017F
	"a", "a", "a", "a", "a", "a", "c", "c", "c", "c", "c", "c", "c", "c", "d", "d",
	"d", "d", "e", "e", "e", "e", "e", "e", "e", "e", "e", "e", "g", "g", "g", "g",
	"g", "g", "g", "g", "h", "h", "h", "h", "i", "i", "i", "i", "i", "i", "i", "i",
	"i", "i", "ij", "ij", "j", "j", "k", "k", "k", "l", "l", "l", "l", "l", "l", "l",
	"l", "l", "l", "n", "n", "n", "n", "n", "n", "n", "n", "n", "o", "o", "o", "o",
	"o", "o", "oe", "oe", "r", "r", "r", "r", "r", "r", "s", "s", "s", "s", "s", "s",
	"s", "s", "t", "t", "t", "t", "t", "t", "u", "u", "u", "u", "u", "u", "u", "u",
	"u", "u", "u", "u", "w", "w", "y", "y", "y", "z", "z", "z", "z", "z", "z", "s",
}

func foldLatin(r rune) (string, bool) {
	if r < 0xC0 || r > 0x17F {
		return "", false
	}
	s := latinFold[r-0xC0]
	return s, s != ""
}

// FileName is a record's file name: <id>-<slug>.md (<id>.md when slug is empty).
func FileName(id, slug string) string {
	if slug == "" {
		return id + ".md"
	}
	return id + "-" + slug + ".md"
}

// IDOfFileName is the id a record's file name starts with: the base name (after the last / or \)
// must be <id>.md or <id>-<anything>.md with a valid id.
func IDOfFileName(name string) (string, bool) {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	if len(base) < idLen || !strings.HasSuffix(base, ".md") {
		return "", false
	}
	id := base[:idLen]
	if _, ok := FamilyOfID(id); !ok {
		return "", false
	}
	if rest := base[idLen:]; rest != ".md" && (rest[0] != '-' || len(rest) < len("-x.md")) {
		return "", false
	}
	return id, utf8.ValidString(base)
}
