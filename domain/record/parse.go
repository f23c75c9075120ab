package record

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on what the parsers accept. A reader bounds its read of a whole record by MaxFileBytes (+1,
// to detect an oversize file); a listing that needs only the front matter reads HeaderReadBytes.
const (
	MaxFileBytes   = 256 << 10
	MaxHeaderBytes = 8 << 10
	// HeaderReadBytes is enough of a file's start for ParseHeader to see any header within
	// MaxHeaderBytes together with its closing line's ending.
	HeaderReadBytes = MaxHeaderBytes + 2
)

// ParseError is a refusal of one record file. Line is 1-based; 0 means the file as a whole (its
// size). Msg is Problem and Remedy joined: what is wrong, then what to do about it.
type ParseError struct {
	File    string
	Line    int
	Msg     string
	Problem string // what is wrong
	Remedy  string // what to change
}

// Error is "<file>:<line>: <msg>"; without a file (SetLifecycle and AppendToSection, whose callers
// know it) "line <line>: <msg>", or just the message for line 0.
func (e *ParseError) Error() string {
	switch {
	case e.File != "":
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func newParseError(file string, line int, problem, remedy string) *ParseError {
	return &ParseError{File: file, Line: line, Msg: problem + ": " + remedy, Problem: problem, Remedy: remedy}
}

// Field is one front matter line: key: value. A value is bare ([A-Za-z0-9._:/@+-]+), a double-quoted
// string with JSON escapes (Value holds it decoded), or a list [a, b] of bare values (IsList, List).
type Field struct {
	Key    string
	Value  string
	List   []string
	IsList bool
	Line   int
}

const fence = "---"

// textLine is one line of a file.
type textLine struct {
	n    int    // 1-based line number
	off  int    // offset of its first byte
	text string // without its line ending
	end  int    // offset just past its line ending
	eol  string // "", "\n" or "\r\n"
}

type lineIter struct {
	data []byte
	pos  int
	n    int
}

func (it *lineIter) next() (textLine, bool) {
	if it.pos >= len(it.data) {
		return textLine{}, false
	}
	rest := it.data[it.pos:]
	l := textLine{n: it.n + 1, off: it.pos}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		body := rest[:i]
		l.eol = "\n"
		if len(body) > 0 && body[len(body)-1] == '\r' {
			body = body[:len(body)-1]
			l.eol = "\r\n"
		}
		l.text = string(body)
		l.end = it.pos + i + 1
	} else {
		l.text = string(rest)
		l.end = len(it.data)
	}
	it.pos = l.end
	it.n = l.n
	return l, true
}

// badText reports the first thing in s a record may not hold: invalid UTF-8, or a control character
// other than tab (C0, DEL, C1; a carriage return is allowed only before a line feed, which the line
// reader has already removed).
func badText(s string) (problem, remedy string, bad bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				return fmt.Sprintf("control character U+%04X", c), "remove it (a carriage return may only end a line, before its line feed)", true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return "invalid UTF-8", "save the file as UTF-8", true
		}
		if r >= 0x80 && r < 0xa0 {
			return fmt.Sprintf("control character U+%04X", r), "remove it", true
		}
		i += size
	}
	return "", "", false
}

// family rules: the keys of each family's front matter, in canonical order, and which are lists.
var familyKeys = map[Family][]string{
	Intents:   {"id", "type", "title", "lifecycle", "kind", "severity", "created"},
	Specs:     {"id", "type", "title", "lifecycle", "implements", "created"},
	Issues:    {"id", "type", "title", "lifecycle", "severity", "source", "related", "created"},
	Decisions: {"id", "type", "title", "date", "supersedes"},
}

var (
	kinds      = []string{"standalone", "bundle-member", "discipline"}
	severities = []string{"critical", "major", "minor", "trivial"}
)

// Keys lists a family's front matter keys in canonical order; every one is required exactly once.
func Keys(f Family) []string { return append([]string(nil), familyKeys[f]...) }

// Kinds lists the intent kinds.
func Kinds() []string { return append([]string(nil), kinds...) }

// Severities lists the severities of intents and issues, most severe first.
func Severities() []string { return append([]string(nil), severities...) }

// CheckTitle refuses a title (or an issue source) a record cannot hold: the title rule as stored
// (title.go). Callers trim what a person typed before checking.
func CheckTitle(title string) error {
	if p, r, ok := checkFree("title", title); !ok {
		return fmt.Errorf("%s: %s", p, r)
	}
	return nil
}

// checkFree applies the title rule, as stored, to a front matter member.
func checkFree(key, v string) (problem, remedy string, ok bool) {
	switch fault, detail := checkTitleText(v, true); fault {
	case titleHidden:
		return key + " holds " + detail, "remove it: a " + key + " is one line of plain text", false
	case titleEmpty:
		return key + " is empty", "write one", false
	case titleEdges:
		return key + " has leading or trailing white space", "remove it", false
	case titleLong:
		return key + " is " + detail + " long", fmt.Sprintf("shorten it to at most %d", MaxTitleRunes), false
	}
	return "", "", true
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// header is a parsed front matter block.
type header struct {
	family Family
	fields []Field // in file order
	size   int     // bytes through the closing line's ending
	close  int     // line number of the closing ---
}

func (h *header) field(key string) *Field {
	for i := range h.fields {
		if h.fields[i].Key == key {
			return &h.fields[i]
		}
	}
	return nil
}

// parseHeader reads and checks the front matter of a record of family f at the start of data. Only
// the header's own bytes are looked at.
func parseHeader(f Family, file string, data []byte) (header, *ParseError) {
	keys, ok := familyKeys[f]
	if !ok {
		return header{}, newParseError(file, 0, fmt.Sprintf("unknown record family %q", f), "use intents, specs, issues or decisions")
	}
	h := header{family: f, fields: make([]Field, 0, len(keys))}
	it := lineIter{data: data}
	first, ok := it.next()
	switch {
	case !ok:
		return h, newParseError(file, 1, "the file is empty", "start it with a --- line, the front matter keys ("+strings.Join(keys, ", ")+") and a closing --- line")
	case strings.HasPrefix(first.text, "\ufeff"):
		return h, newParseError(file, 1, "the file starts with a byte-order mark", "save it as UTF-8 without a BOM")
	case first.text != fence && strings.TrimRight(first.text, " \t") == fence:
		return h, newParseError(file, 1, "the opening --- has trailing white space", "remove it")
	case first.text != fence:
		return h, newParseError(file, 1, "line 1 is not ---", "open the front matter with a --- line before the first key")
	}
	for {
		l, ok := it.next()
		if !ok {
			return h, newParseError(file, 1, "the front matter opened on line 1 is never closed", "add a --- line after the last key")
		}
		if l.off+len(l.text) > MaxHeaderBytes || (l.eol == "" && l.end >= MaxHeaderBytes && l.text != fence) {
			return h, newParseError(file, l.n, fmt.Sprintf("the front matter is over %d bytes (8 KiB)", MaxHeaderBytes), "shorten its values")
		}
		if p, r, bad := badText(l.text); bad {
			return h, newParseError(file, l.n, p+" in the front matter", r)
		}
		if l.text == fence {
			h.close, h.size = l.n, l.end
			break
		}
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		if strings.TrimRight(l.text, " \t") == fence {
			return h, newParseError(file, l.n, "the closing --- has trailing white space", "remove it")
		}
		fd, pe := parseField(file, l, keys)
		if pe != nil {
			return h, pe
		}
		if prev := h.field(fd.Key); prev != nil {
			return h, newParseError(file, l.n, fmt.Sprintf("key %s appears twice (first on line %d)", fd.Key, prev.Line), "keep one")
		}
		if p, r, ok := checkField(f, fd); !ok {
			return h, newParseError(file, l.n, p, r)
		}
		h.fields = append(h.fields, fd)
	}
	var missing []string
	for _, k := range keys {
		if h.field(k) == nil {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return h, newParseError(file, h.close, "missing key(s) "+strings.Join(missing, ", "), "add them before the closing --- (the "+TypeOf(f)+" keys are "+strings.Join(keys, ", ")+")")
	}
	// Cross-key rules.
	id := h.field("id").Value
	for _, k := range []string{"related", "supersedes"} {
		if fd := h.field(k); fd != nil {
			for _, v := range fd.List {
				if v == id {
					return h, newParseError(file, fd.Line, k+" names the record's own id "+id, "remove it")
				}
			}
		}
	}
	return h, nil
}

func parseField(file string, l textLine, keys []string) (Field, *ParseError) {
	line := l.text
	if line[0] == ' ' || line[0] == '\t' {
		return Field{}, newParseError(file, l.n, "indented line in the front matter", "the front matter is flat key: value lines: remove the indentation")
	}
	i := strings.IndexByte(line, ':')
	key := ""
	if i > 0 {
		key = line[:i]
	}
	if key == "" || strings.IndexFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		if line[0] == '#' {
			return Field{}, newParseError(file, l.n, "comment line in the front matter", "remove it: the front matter holds only key: value lines (notes go in the body)")
		}
		return Field{}, newParseError(file, l.n, "not a key: value line", "write one key per line as key: value, and close the front matter with --- before the body")
	}
	if !oneOf(key, keys) {
		return Field{}, newParseError(file, l.n, fmt.Sprintf("unknown key %q", key), "remove it: the allowed keys are "+strings.Join(keys, ", "))
	}
	rest := line[i+1:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return Field{}, newParseError(file, l.n, "no space after the colon of "+key, "write "+key+": value")
	}
	raw := strings.Trim(rest, " \t")
	fd := Field{Key: key, Line: l.n}
	if raw == "" {
		return fd, newParseError(file, l.n, "key "+key+" has no value", "give it a value")
	}
	switch raw[0] {
	case '"':
		v, p := decodeQuoted(raw)
		if p != "" {
			return fd, newParseError(file, l.n, key+": "+p, `write a double-quoted string with JSON escapes (\" for a quote, \\ for a backslash)`)
		}
		fd.Value = v
	case '[':
		if raw[len(raw)-1] != ']' {
			return fd, newParseError(file, l.n, key+": the list does not end with ]", "write [a, b], with nothing after the ]")
		}
		inner := strings.Trim(raw[1:len(raw)-1], " \t")
		fd.IsList, fd.List = true, []string{}
		if inner != "" {
			for n, item := range strings.Split(inner, ",") {
				item = strings.Trim(item, " \t")
				if item == "" {
					return fd, newParseError(file, l.n, fmt.Sprintf("%s: item %d of the list is empty", key, n+1), "separate the items with single commas, as [a, b]")
				}
				if !isBare(item) {
					return fd, newParseError(file, l.n, fmt.Sprintf("%s: list item %q is not a bare value", key, item), "list ids such as [itd-2607011230051234], unquoted")
				}
				fd.List = append(fd.List, item)
			}
		}
	case '\'':
		return fd, newParseError(file, l.n, key+": single-quoted value", "use double quotes")
	default:
		if !isBare(raw) {
			return fd, newParseError(file, l.n, key+": the value holds characters a bare value cannot", `wrap it in double quotes (bare values are letters, digits and . _ : / @ + -)`)
		}
		fd.Value = raw
	}
	return fd, nil
}

func isBare(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:/@+-", c) >= 0) {
			return false
		}
	}
	return true
}

// decodeQuoted decodes a double-quoted string with JSON escapes; s starts with the opening quote and
// holds nothing after the closing one but white space (the caller has trimmed it).
func decodeQuoted(s string) (string, string) {
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch c {
		case '"':
			if i != len(s)-1 {
				return "", "text after the closing quote"
			}
			return b.String(), ""
		case '\\':
			if i+1 >= len(s) {
				return "", "a backslash ends the value"
			}
			e := s[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := hex4(s, i)
				if !ok {
					return "", `\u is not followed by four hex digits`
				}
				i += 4
				if r >= 0xD800 && r < 0xDC00 {
					lo, ok := rune(0), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						lo, ok = hex4(s, i+2)
					}
					if !ok || lo < 0xDC00 || lo >= 0xE000 {
						return "", "a \\u surrogate is not paired"
					}
					i += 6
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else if r >= 0xDC00 && r < 0xE000 {
					return "", "a \\u surrogate is not paired"
				}
				b.WriteRune(r)
			default:
				return "", fmt.Sprintf("unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", "the quote is never closed"
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// checkField applies a key's type rule to its value.
func checkField(f Family, fd Field) (problem, remedy string, ok bool) {
	isList := fd.Key == "related" || fd.Key == "supersedes"
	if isList && !fd.IsList {
		return fd.Key + " is not a list", "write [] for none, or [id, id]", false
	}
	if !isList && fd.IsList {
		return fd.Key + " is a list", "write a single value", false
	}
	v := fd.Value
	switch fd.Key {
	case "id":
		if g, ok := FamilyOfID(v); !ok || g != f {
			return fmt.Sprintf("id %q is not %s id", v, article(TypeOf(f))), fmt.Sprintf("write %s- and sixteen digits, as the file name starts (%s)", Prefix(f), exampleID(f)), false
		}
	case "type":
		if v != TypeOf(f) {
			remedy := "write type: " + TypeOf(f)
			if g, ok := FamilyOfType(v); ok {
				remedy += ", or move the file to a " + string(g) + " folder"
			}
			return fmt.Sprintf("type %q where this file must be %s", v, article(TypeOf(f))), remedy, false
		}
	case "title", "source":
		return checkFree(fd.Key, v)
	case "lifecycle":
		if !hasLifecycle(f, v) || v == "" {
			return fmt.Sprintf("lifecycle %q is not %s lifecycle", v, article(TypeOf(f))), "write one of " + strings.Join(lifecycles[f], ", ") + " (the name of the folder the file is in)", false
		}
	case "kind":
		if !oneOf(v, kinds) {
			return fmt.Sprintf("kind %q is not allowed", v), "write one of " + strings.Join(kinds, ", "), false
		}
	case "severity":
		if !oneOf(v, severities) {
			return fmt.Sprintf("severity %q is not allowed", v), "write one of " + strings.Join(severities, ", "), false
		}
	case "created", "date":
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			return fmt.Sprintf("%s %q is not a date", fd.Key, v), "write it as YYYY-MM-DD, such as 2026-07-01", false
		}
	case "implements":
		if g, ok := FamilyOfID(v); !ok || g != Intents {
			return fmt.Sprintf("implements %q is not an intent id", v), "write the full id of the intent this spec builds, such as " + exampleID(Intents), false
		}
	case "related", "supersedes":
		want := Family("")
		if fd.Key == "supersedes" {
			want = Decisions
		}
		for i, item := range fd.List {
			if g, ok := FamilyOfID(item); !ok || (want != "" && g != want) {
				what := "a record id"
				if want != "" {
					what = "a decision id"
				}
				return fmt.Sprintf("%s item %q is not %s", fd.Key, item, what), "write full ids, such as " + exampleID(orFamily(want, Issues)), false
			}
			for _, prev := range fd.List[:i] {
				if prev == item {
					return fmt.Sprintf("%s lists %s twice", fd.Key, item), "remove one", false
				}
			}
		}
	}
	return "", "", true
}

func orFamily(f, def Family) Family {
	if f == "" {
		return def
	}
	return f
}

func exampleID(f Family) string { return Prefix(f) + "-2607011230051234" }

func article(noun string) string {
	if noun != "" && strings.IndexByte("aeiou", noun[0]) >= 0 {
		return "an " + noun
	}
	return "a " + noun
}

// decode builds the family's typed front matter from checked fields.
func (h *header) decode() any {
	get := func(k string) string { return h.field(k).Value }
	switch h.family {
	case Intents:
		return IntentFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Lifecycle: get("lifecycle"), Kind: get("kind"), Severity: get("severity"), Created: get("created")}
	case Specs:
		return SpecFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Lifecycle: get("lifecycle"), Implements: get("implements"), Created: get("created")}
	case Issues:
		return IssueFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Lifecycle: get("lifecycle"), Severity: get("severity"), Source: get("source"), Related: h.field("related").List, Created: get("created")}
	default:
		return DecisionFrontMatter{ID: get("id"), Type: get("type"), Title: get("title"), Date: get("date"), Supersedes: h.field("supersedes").List}
	}
}

// ParseHeader reads only the front matter of a record of family f: bounded by MaxHeaderBytes, with no
// look at the body, so data may be just the file's first HeaderReadBytes. It returns the typed front
// matter (IntentFrontMatter, SpecFrontMatter, IssueFrontMatter or DecisionFrontMatter, by value) and
// the header's byte length through the closing --- line's ending.
func ParseHeader(f Family, file string, data []byte) (any, int, error) {
	h, pe := parseHeader(f, file, data)
	if pe != nil {
		return nil, 0, pe
	}
	return h.decode(), h.size, nil
}
