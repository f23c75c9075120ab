// Package secret takes credentials out of text: every text abcd takes from a route (an answer, a
// model id, an error, a header, a CLI's event) passes through a Scrubber before it is written or
// printed, on success paths as on failure paths. There is one scrubber, for every route.
//
// A server may echo a key in any spelling it has at hand, and may cut it: so the scrubber knows
// every spelling Forms lists, and takes out not only a whole spelling but every run of Window bytes
// or more that a spelling holds. A key without its prefix ("sk-"), a key inside a longer base64 text
// at any of the three byte alignments it can sit at, a key cut short by an excerpt's bound: each
// shares such a run with a form, and goes. The password in a URL's userinfo goes whoever's it is.
package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// MinBytes is the shortest credential a Scrubber takes out: a shorter one would scrub ordinary
// words, and no credential is this short.
const MinBytes = 4

// Window is the shortest run of a credential's spelling that is taken out wherever it stands: a cut
// or embedded key shares at least this much with one of its forms. Twelve bytes of a key's spelling
// never occur by chance in what a server says; fewer are no longer the key.
const Window = 12

// minBody is the shortest part of a key after its prefix that is a spelling of its own: a shorter
// one could be an ordinary word.
const minBody = 8

// Mark replaces a credential in scrubbed text.
const Mark = "[key]"

// Forms lists the spellings of a credential a text could carry it in, longest first: as is and
// without its prefix (the part after a leading "sk-", "sk-proj-", "ghp_"), base64 (standard and URL, padded or not, alone and at each of the three byte alignments it can
// take inside a longer base64 text, where only the characters that depend on the key alone are
// fixed), hex, URL-encoded (query and path escaping, every byte but the unreserved ones, upper- and
// lowercase hex) and JSON-escaped (with and without HTML escapes, with "/" escaped, ASCII only). A
// credential shorter than MinBytes has none.
func Forms(credential string) []string {
	if len(credential) < MinBytes {
		return nil
	}
	var forms []string
	for _, c := range append([]string{credential}, bodies(credential)...) {
		forms = append(forms, spellings(c)...)
	}
	return longestFirst(slices.DeleteFunc(forms, func(f string) bool { return len(f) < MinBytes }))
}

// bodies are the parts of a key after each prefix it may carry: a prefix is letters and digits
// ending in "-" or "_" within the key's first half, and what follows is long enough to be a key.
func bodies(c string) []string {
	var out []string
	for i := 0; i < len(c)/2; i++ {
		if (c[i] == '-' || c[i] == '_') && len(c)-i-1 >= minBody {
			out = append(out, c[i+1:])
		}
	}
	return out
}

// spellings are the encodings of one text.
func spellings(c string) []string {
	raw := []byte(c)
	forms := []string{c, hex.EncodeToString(raw), strings.ToUpper(hex.EncodeToString(raw))}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		forms = append(forms, enc.EncodeToString(raw), enc.WithPadding(base64.NoPadding).EncodeToString(raw))
		for align := range 3 {
			if f := aligned(enc, raw, align); len(f) >= minBody {
				forms = append(forms, f, url.QueryEscape(f))
			}
		}
	}
	for _, f := range []string{url.QueryEscape(c), url.PathEscape(c), percent(c, "-._~"), percent(c, "-._~!*'()")} {
		forms = append(forms, f, lowerEscapes(f))
	}
	return append(forms, jsonForms(c)...)
}

// aligned is the part of raw's base64 spelling that is the same whatever surrounds raw, when align
// bytes (mod 3) come before it in the text encoded: the characters whose six bits all come from raw.
func aligned(enc *base64.Encoding, raw []byte, align int) string {
	buf := make([]byte, align+len(raw)+2)
	copy(buf[align:], raw)
	s := enc.EncodeToString(buf)
	first := (8*align + 5) / 6           // the first character that starts at or after raw's first bit
	last := (8 * (align + len(raw))) / 6 // the characters before this end at or before raw's last bit
	if last <= first {
		return ""
	}
	return s[first:last]
}

// percent escapes every byte of s but ASCII letters, digits and those in keep, with uppercase hex.
func percent(s, keep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

// lowerEscapes is s with the hex digits of its percent escapes in lowercase.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// jsonForms are c inside a JSON string, as encoders write it: with HTML escapes (Go's default) and
// without, with "/" escaped (PHP's default), and with everything past ASCII as \u escapes (Python's
// default), in lower- and uppercase hex.
func jsonForms(c string) []string {
	quoted, _ := json.Marshal(c) // a string always encodes
	var plain strings.Builder
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(c)
	html := string(quoted[1 : len(quoted)-1])
	bare := strings.TrimSuffix(plain.String(), "\n")
	bare = bare[1 : len(bare)-1]
	forms := []string{html, bare, strings.ReplaceAll(bare, "/", `\/`), strings.ReplaceAll(html, "/", `\/`)}
	var ascii strings.Builder
	for _, r := range bare {
		if r < utf8.RuneSelf {
			ascii.WriteRune(r)
			continue
		}
		if r > 0xFFFF {
			r -= 0x10000
			ascii.WriteString(uEscape(0xD800 + (r >> 10)))
			r = 0xDC00 + (r & 0x3FF)
		}
		ascii.WriteString(uEscape(r))
	}
	return append(forms, ascii.String(), upperU(ascii.String()))
}

func uEscape(r rune) string {
	const digits = "0123456789abcdef"
	return `\u` + string([]byte{digits[r>>12&0xF], digits[r>>8&0xF], digits[r>>4&0xF], digits[r&0xF]})
}

// upperU is s with the hex digits of its \u escapes in uppercase.
func upperU(s string) string {
	b := []byte(s)
	for i := 0; i+5 < len(b); i++ {
		if b[i] == '\\' && b[i+1] == 'u' {
			for k := i + 2; k < i+6; k++ {
				if 'a' <= b[k] && b[k] <= 'f' {
					b[k] -= 'a' - 'A'
				}
			}
			i += 5
		}
	}
	return string(b)
}

// longestFirst sorts forms longest first (then by bytes, so repeats sit together) and drops repeats.
func longestFirst(forms []string) []string {
	slices.SortFunc(forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(forms)
}

// Scrub replaces every credential in s, in every form Forms lists and every run of Window bytes of
// one, with Mark.
func Scrub(s string, credentials ...string) string {
	return NewScrubber(credentials...).Scrub(s)
}

// Scrubber holds the credentials abcd holds, for scrubbing many texts: every run of Window bytes of
// every form, and the forms shorter than that whole. It matches regardless of ASCII case: a server
// (or a parser on its way, as a media type's) may fold a key's case, and a key folded is as good as
// the key to anyone guessing the rest.
type Scrubber struct {
	windows map[string]struct{}
	// pairs has a bit for each two bytes a window starts with: most positions of a text are passed
	// over without a lookup.
	pairs *[1 << 16 / 64]uint64
	short []string
}

// NewScrubber keeps the forms of every credential; credentials shorter than MinBytes are left out.
func NewScrubber(credentials ...string) *Scrubber {
	sc := &Scrubber{windows: map[string]struct{}{}, pairs: new([1 << 16 / 64]uint64)}
	for _, c := range credentials {
		for _, f := range Forms(c) {
			f = foldASCII(f)
			if len(f) < Window {
				sc.short = append(sc.short, f)
				continue
			}
			for i := 0; i+Window <= len(f); i++ {
				w := f[i : i+Window]
				sc.windows[w] = struct{}{}
				p := uint16(w[0])<<8 | uint16(w[1])
				sc.pairs[p/64] |= 1 << (p % 64)
			}
		}
	}
	sc.short = longestFirst(sc.short)
	return sc
}

// Scrub replaces every credential the scrubber holds in s: each stretch of s covered by a run of
// Window bytes of a form, or by a whole form shorter than that, becomes one Mark. The password of
// every URL's userinfo goes too, held or not (Passwords).
func (sc *Scrubber) Scrub(s string) string {
	return Passwords(sc.held(s))
}

// held is Scrub of the credentials the scrubber holds alone.
func (sc *Scrubber) held(s string) string {
	spans := sc.Spans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(Mark)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// Spans are the stretches of s that carry a credential the scrubber holds, in order and apart: each
// run of Window bytes of a form, or a whole form shorter than that, widened to whole characters. A
// URL's password is not one (Scrub takes it out all the same, as Passwords).
func (sc *Scrubber) Spans(s string) [][2]int {
	if sc.Empty() {
		return nil
	}
	folded := foldASCII(s) // the same length: every offset in it is one in s
	var covered []bool
	mark := func(from, to int) {
		if covered == nil {
			covered = make([]bool, len(s))
		}
		for k := from; k < to; k++ {
			covered[k] = true
		}
	}
	for i := 0; i+Window <= len(folded); i++ {
		p := uint16(folded[i])<<8 | uint16(folded[i+1])
		if sc.pairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		if _, ok := sc.windows[folded[i:i+Window]]; ok {
			mark(i, i+Window)
		}
	}
	for _, f := range sc.short {
		for from := 0; ; {
			k := strings.Index(folded[from:], f)
			if k < 0 {
				break
			}
			mark(from+k, from+k+len(f))
			from += k + 1
		}
	}
	if covered == nil {
		return nil
	}
	var out [][2]int
	for i := 0; i < len(s); {
		if !covered[i] {
			i++
			continue
		}
		// A stretch starts and ends on a character's boundary: no half of a character is left behind.
		start := i
		for start > 0 && !utf8.RuneStart(s[start]) {
			start--
		}
		for i < len(s) && covered[i] {
			i++
		}
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		if n := len(out); n > 0 && out[n-1][1] >= start {
			out[n-1][1] = i
			continue
		}
		out = append(out, [2]int{start, i})
	}
	return out
}

// Bytes is Scrub for bytes; b is returned unchanged (not copied) when it holds no credential.
func (sc *Scrubber) Bytes(b []byte) []byte {
	if sc.Empty() && !bytes.Contains(b, []byte("@")) {
		return b
	}
	s := string(b)
	out := sc.Scrub(s)
	if out == s {
		return b
	}
	return []byte(out)
}

// Passwords replaces the password of every URL's userinfo in s with Mark: scheme://user:secret@host
// becomes scheme://user:[key]@host, also where the slashes are JSON-escaped (:\/\/). A URL carries its
// password in plain view, whoever's it is, so no credential abcd holds is needed to know it for one.
// The user stays (it names whose the URL was); a userinfo without a password is left as it is.
func Passwords(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is written to b
	// Where the next "//" and the next JSON-escaped \/\/ stand (-1: none is left), each looked for
	// again only once passed: one pass over s, however many of either it holds.
	plain, escaped := -2, -2
	find := func(at *int, sep string, from int) {
		if *at == -1 || *at >= from {
			return
		}
		if k := strings.Index(s[from:], sep); k >= 0 {
			*at = from + k
		} else {
			*at = -1
		}
	}
	for i := 0; i < len(s); {
		find(&plain, "//", i)
		find(&escaped, `\/\/`, i)
		var start int
		switch {
		case escaped >= 0 && (plain < 0 || escaped < plain):
			start = escaped + len(`\/\/`)
		case plain >= 0:
			start = plain + len("//")
		default:
			i = len(s)
			continue
		}
		end := start
		for end < len(s) && !endsAuthority(s[end]) {
			if s[end] == '\\' {
				if end+1 < len(s) && s[end+1] == '\\' {
					end += 2 // a JSON-escaped backslash: the password's own
					continue
				}
				break // another escape (\/, \", \n): the URL's text ends here
			}
			end++
		}
		authority := s[start:end]
		if at := strings.LastIndexByte(authority, '@'); at > 0 {
			userinfo := authority[:at]
			if colon := strings.IndexByte(userinfo, ':'); colon >= 0 && colon+1 < len(userinfo) && userinfo[colon+1:] != Mark {
				b.WriteString(s[done : start+colon+1])
				b.WriteString(Mark)
				done = start + at
			}
		}
		i = max(end, start)
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// endsAuthority reports whether c ends a URL's authority (user:password@host:port) where it stands
// in text: a path, query or fragment begins, or the text around the URL resumes (a space, a quote,
// a bracket of markup).
func endsAuthority(c byte) bool {
	switch c {
	case '/', '?', '#', ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`':
		return true
	}
	return false
}

// Empty reports whether the scrubber holds no credential.
func (sc *Scrubber) Empty() bool { return sc == nil || (len(sc.windows) == 0 && len(sc.short) == 0) }

// Holds reports whether s carries a credential the scrubber holds, in any form or part of one, or a
// URL's password (Scrub would change it).
func (sc *Scrubber) Holds(s string) bool { return sc.Scrub(s) != s }

// foldASCII is s with ASCII capitals in lowercase (and nothing else changed, so every byte keeps its
// offset); s itself when it has none.
func foldASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for k := i; k < len(b); k++ {
				if 'A' <= b[k] && b[k] <= 'Z' {
					b[k] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
