// Package frontmatter reads the front matter at the start of a markdown file: the one reader of
// record files and agent definitions, with one set of rules.
//
// The block opens with a --- line (no byte-order mark, no trailing white space) and closes with
// another. Between them are flat key: value lines and blank lines; no indentation, no comment, no
// key twice, no key the file's kind does not have, every key of it present. A value is bare
// ([A-Za-z0-9._:/@+-]), a double-quoted string with JSON escapes, or, for a list key, a list
// [a, b] of bare values. Whatever a YAML reader could read differently (single quotes, flow syntax
// in a plain value, a comment) is refused rather than guessed at, so abcd and every other reader
// of the file agree on what it says. No line holds invalid UTF-8 or a control character but tab.
package frontmatter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/internal/lines"
)

// Fence opens and closes the block.
const Fence = "---"

// Spec is what one kind of file's front matter holds.
type Spec struct {
	// Noun names the kind of file in messages: "intent", "agent".
	Noun string
	// Keys are every key, in canonical order; each is required exactly once.
	Keys []string
	// Lists are the keys whose value is a list [a, b].
	Lists []string
	// MaxBytes bounds the block, its fences included.
	MaxBytes int
	// Check, when set, applies a key's own rule to each field as it is read, so the first problem
	// in the file is the one reported; it returns what is wrong and the remedy, or ok.
	Check func(Field) (problem, remedy string, ok bool)
}

// Field is one key: value line. Value holds a bare or quoted value decoded; a list's items are in
// List (IsList).
type Field struct {
	Key    string
	Value  string
	List   []string
	IsList bool
	Line   int
}

// Block is a read front matter block.
type Block struct {
	Fields []Field // in file order
	Size   int     // bytes through the closing line's ending
	Close  int     // line number of the closing ---
}

// Field is the field of that key, or nil.
func (b *Block) Field(key string) *Field {
	for i := range b.Fields {
		if b.Fields[i].Key == key {
			return &b.Fields[i]
		}
	}
	return nil
}

// Error is a refusal of the block: the line (1-based) and what is wrong, with the remedy.
type Error struct {
	Line    int
	Problem string
	Remedy  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s: %s", e.Line, e.Problem, e.Remedy) }

func refuse(line int, problem, remedy string) *Error {
	return &Error{Line: line, Problem: problem, Remedy: remedy}
}

// Read reads the front matter at the start of data. Only the block's own bytes are looked at, so
// data may be just the file's first MaxBytes+2 bytes.
func Read(data []byte, spec Spec) (Block, *Error) {
	b := Block{Fields: make([]Field, 0, len(spec.Keys))}
	if err := opening(data, spec); err != nil {
		return b, err
	}
	it := lines.Reader{Data: data}
	it.Next()
	for {
		l, ok := it.Next()
		if !ok {
			return b, refuse(1, "the front matter opened on line 1 is never closed", "add a --- line after the last key")
		}
		if l.Off+len(l.Text) > spec.MaxBytes || (l.EOL == "" && l.End >= spec.MaxBytes && l.Text != Fence) {
			return b, refuse(l.N, fmt.Sprintf("the front matter is over %d bytes (%d KiB)", spec.MaxBytes, spec.MaxBytes>>10), "shorten its values")
		}
		if p, r, bad := lines.Unreadable(l.Text); bad {
			return b, refuse(l.N, p+" in the front matter", r)
		}
		if l.Text == Fence {
			b.Close, b.Size = l.N, l.End
			break
		}
		if strings.TrimSpace(l.Text) == "" {
			continue
		}
		fd, err := field(l, spec)
		if err != nil {
			return b, err
		}
		if prev := b.Field(fd.Key); prev != nil {
			return b, refuse(l.N, fmt.Sprintf("key %s appears twice (first on line %d)", fd.Key, prev.Line), "keep one")
		}
		switch isList := slices.Contains(spec.Lists, fd.Key); {
		case isList && !fd.IsList:
			return b, refuse(l.N, fd.Key+" is not a list", "write [] for none, or [id, id]")
		case !isList && fd.IsList:
			return b, refuse(l.N, fd.Key+" is a list", "write a single value")
		}
		if spec.Check != nil {
			if p, r, ok := spec.Check(fd); !ok {
				return b, refuse(l.N, p, r)
			}
		}
		b.Fields = append(b.Fields, fd)
	}
	var missing []string
	for _, k := range spec.Keys {
		if b.Field(k) == nil {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return b, refuse(b.Close, "missing key(s) "+strings.Join(missing, ", "),
			"add them before the closing --- (the "+spec.Noun+" keys are "+strings.Join(spec.Keys, ", ")+")")
	}
	return b, nil
}

// opening checks line 1, the opening fence.
func opening(data []byte, spec Spec) *Error {
	it := lines.Reader{Data: data}
	first, ok := it.Next()
	switch {
	case !ok:
		return refuse(1, "the file is empty", "start it with a --- line, the front matter keys ("+strings.Join(spec.Keys, ", ")+") and a closing --- line")
	case strings.HasPrefix(first.Text, "\ufeff"):
		return refuse(1, "the file starts with a byte-order mark", "save it as UTF-8 without a BOM")
	case first.Text != Fence && strings.TrimRight(first.Text, " \t") == Fence:
		return refuse(1, "the opening --- has trailing white space", "remove it")
	case first.Text != Fence:
		return refuse(1, "line 1 is not ---", "open the front matter with a --- line before the first key")
	}
	return nil
}

// field reads one key: value line.
func field(l lines.Line, spec Spec) (Field, *Error) {
	line := l.Text
	if strings.TrimRight(line, " \t") == Fence {
		return Field{}, refuse(l.N, "the closing --- has trailing white space", "remove it")
	}
	if line[0] == ' ' || line[0] == '\t' {
		return Field{}, refuse(l.N, "indented line in the front matter", "the front matter is flat key: value lines: remove the indentation")
	}
	key, rest, err := splitKey(l)
	if err != nil {
		return Field{}, err
	}
	if !slices.Contains(spec.Keys, key) {
		return Field{}, refuse(l.N, fmt.Sprintf("unknown key %q", key), "remove it: the allowed keys are "+strings.Join(spec.Keys, ", "))
	}
	raw := strings.Trim(rest, " \t")
	fd := Field{Key: key, Line: l.N}
	if raw == "" {
		return fd, refuse(l.N, "key "+key+" has no value", "give it a value")
	}
	switch {
	case raw[0] == '"':
		v, p := decodeQuoted(raw)
		if p != "" {
			return fd, refuse(l.N, key+": "+p, `write a double-quoted string with JSON escapes (\" for a quote, \\ for a backslash)`)
		}
		if p, _, bad := lines.Unreadable(v); bad { // what a line may not hold, an escape may not spell
			return fd, refuse(l.N, key+": an escape writes "+p, "remove it: a value is one line of text")
		}
		fd.Value = v
	case raw[0] == '[':
		list, err := readList(l, key, raw)
		if err != nil {
			return fd, err
		}
		fd.IsList, fd.List = true, list
	case raw[0] == '\'':
		return fd, refuse(l.N, key+": single-quoted value", "use double quotes")
	case !IsBare(raw):
		return fd, refuse(l.N, key+": the value holds characters a bare value cannot", `wrap it in double quotes (bare values are letters, digits and . _ : / @ + -)`)
	default:
		fd.Value = raw
	}
	return fd, nil
}

// splitKey splits key: value, refusing what is not a key (a comment among them).
func splitKey(l lines.Line) (key, rest string, err *Error) {
	line := l.Text
	i := strings.IndexByte(line, ':')
	if i > 0 {
		key = line[:i]
	}
	if key == "" || strings.IndexFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		if line[0] == '#' {
			return "", "", refuse(l.N, "comment line in the front matter", "remove it: the front matter holds only key: value lines (notes go in the body)")
		}
		return "", "", refuse(l.N, "not a key: value line", "write one key per line as key: value, and close the front matter with --- before the body")
	}
	rest = line[i+1:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", refuse(l.N, "no space after the colon of "+key, "write "+key+": value")
	}
	return key, rest, nil
}

// readList reads [a, b] of bare values.
func readList(l lines.Line, key, raw string) ([]string, *Error) {
	if raw[len(raw)-1] != ']' {
		return nil, refuse(l.N, key+": the list does not end with ]", "write [a, b], with nothing after the ]")
	}
	inner := strings.Trim(raw[1:len(raw)-1], " \t")
	list := []string{}
	if inner == "" {
		return list, nil
	}
	for n, item := range strings.Split(inner, ",") {
		item = strings.Trim(item, " \t")
		if item == "" {
			return nil, refuse(l.N, fmt.Sprintf("%s: item %d of the list is empty", key, n+1), "separate the items with single commas, as [a, b]")
		}
		if !IsBare(item) {
			return nil, refuse(l.N, fmt.Sprintf("%s: list item %q is not a bare value", key, item), "list ids such as [itd-2607011230051234], unquoted")
		}
		list = append(list, item)
	}
	return list, nil
}

// IsBare reports whether s may stand unquoted: letters, digits and . _ : / @ + -.
func IsBare(s string) bool {
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
		switch c := s[i]; c {
		case '"':
			if i != len(s)-1 {
				return "", "text after the closing quote"
			}
			return b.String(), ""
		case '\\':
			r, n, p := escape(s, i)
			if p != "" {
				return "", p
			}
			b.WriteRune(r)
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", "the quote is never closed"
}

// escape decodes the JSON escape at s[i] (a backslash): the character and the bytes it took.
func escape(s string, i int) (rune, int, string) {
	if i+1 >= len(s) {
		return 0, 0, "a backslash ends the value"
	}
	switch e := s[i+1]; e {
	case '"', '\\', '/':
		return rune(e), 2, ""
	case 'b':
		return '\b', 2, ""
	case 'f':
		return '\f', 2, ""
	case 'n':
		return '\n', 2, ""
	case 'r':
		return '\r', 2, ""
	case 't':
		return '\t', 2, ""
	case 'u':
		r, ok := hex4(s, i+2)
		if !ok {
			return 0, 0, `\u is not followed by four hex digits`
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			lo, ok := rune(0), false
			if i+7 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				lo, ok = hex4(s, i+8)
			}
			if !ok || lo < 0xDC00 || lo >= 0xE000 {
				return 0, 0, "a \\u surrogate is not paired"
			}
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, ""
		case r >= 0xDC00 && r < 0xE000:
			return 0, 0, "a \\u surrogate is not paired"
		}
		return r, 6, ""
	default:
		return 0, 0, fmt.Sprintf("unknown escape \\%c", e)
	}
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
