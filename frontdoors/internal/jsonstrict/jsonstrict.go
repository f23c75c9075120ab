// Package jsonstrict parses JSON text from outside the process into plain values, refusing what
// encoding/json lets through: a key named twice in one object, invalid UTF-8, a lone UTF-16
// surrogate, content after the value, nesting beyond a bound, strings beyond a bound and more values
// than a bound. One pass does it all, so a front door can check a whole message before it believes
// any part of it, and the memory a parse takes is bounded by the input's length and the value bound.
//
// Values are map[string]any for objects, []any for arrays, string, json.Number, bool and nil.
package jsonstrict

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Limits bound what Parse accepts. A zero field takes its default.
type Limits struct {
	// MaxDepth is the deepest nesting of objects and arrays; default 64.
	MaxDepth int
	// MaxString is the longest string, in bytes once decoded; default no bound beyond the input.
	MaxString int
	// MaxValues is the most values the document may hold, counting every object, array, string,
	// number, boolean and null (keys are not values); default no bound beyond the input. Each value
	// costs a hundred bytes or more once parsed, so a document of small values ("[0,0,0,...]") takes
	// far more memory than its text: a front door reading outside input sets this bound.
	MaxValues int
}

// Error says what is wrong and where: Offset is the byte offset in the input, Path the member path
// (like params.arguments.name or items[2]) of the value being read, empty at the top.
type Error struct {
	Kind   Kind
	Offset int
	Path   string
	Msg    string
}

// Kind sorts errors, so a caller can answer each differently.
type Kind int

const (
	// Syntax: not JSON, or not UTF-8, or content after the value.
	Syntax Kind = iota
	// Duplicate: an object names one key twice.
	Duplicate
	// Limit: nesting, a string or the number of values beyond Limits.
	Limit
)

func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s (at %s, byte %d)", e.Msg, e.Path, e.Offset)
	}
	return fmt.Sprintf("%s (at byte %d)", e.Msg, e.Offset)
}

// Parse reads exactly one JSON value from data.
func Parse(data []byte, lim Limits) (any, error) {
	v, _, err := ParseCount(data, lim)
	return v, err
}

// ParseCount is Parse that also says how many values the document holds (see Limits.MaxValues), so
// a caller can account for the memory the parsed tree takes.
func ParseCount(data []byte, lim Limits) (any, int, error) {
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = 64
	}
	p := &parser{data: data, lim: lim}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, 0, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, 0, p.fail(Syntax, "content after the JSON value")
	}
	return v, p.values, nil
}

type parser struct {
	data   []byte
	pos    int
	lim    Limits
	values int
	// path is where the parser is, kept as segments and written out only when an error needs it:
	// formatting it for every value would cost the path's length per value.
	path []Segment
}

// Segment is one step of a path: an object key, or an array index when Index is not negative.
type Segment struct {
	Key   string
	Index int
}

func (p *parser) fail(kind Kind, msg string) *Error {
	return &Error{Kind: kind, Offset: p.pos, Path: JoinPath(p.path), Msg: msg}
}

// JoinPath writes a path like params.arguments.items[2], each key clipped so an error stays short
// however long the keys it passes through.
func JoinPath(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(Clip(s.Key))
	}
	return b.String()
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail(Syntax, "unexpected end of JSON input")
	}
	p.values++
	if p.lim.MaxValues > 0 && p.values > p.lim.MaxValues {
		return nil, p.fail(Limit, fmt.Sprintf("the document holds more than %d values (objects, arrays, strings, numbers, booleans and nulls)", p.lim.MaxValues))
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		return nil, p.fail(Syntax, fmt.Sprintf("invalid character %s looking for a value", quoteByte(c)))
	}
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail(Syntax, "invalid literal, want "+word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (any, error) {
	if depth > p.lim.MaxDepth {
		return nil, p.fail(Limit, fmt.Sprintf("nests deeper than %d levels", p.lim.MaxDepth))
	}
	p.pos++ // {
	obj := map[string]any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail(Syntax, "want a string key in an object")
		}
		keyAt := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			p.pos = keyAt
			p.path = append(p.path, Segment{Key: key, Index: -1})
			e := p.fail(Duplicate, fmt.Sprintf("the key %q appears twice in one object", Clip(key)))
			p.path = p.path[:len(p.path)-1]
			return nil, e
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail(Syntax, "want ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, Segment{Key: key, Index: -1})
		v, err := p.value(depth)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		obj[key] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail(Syntax, "unexpected end of JSON input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.fail(Syntax, "want ',' or '}' in an object")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	if depth > p.lim.MaxDepth {
		return nil, p.fail(Limit, fmt.Sprintf("nests deeper than %d levels", p.lim.MaxDepth))
	}
	p.pos++ // [
	arr := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for i := 0; ; i++ {
		p.skipSpace()
		p.path = append(p.path, Segment{Index: i})
		v, err := p.value(depth)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail(Syntax, "unexpected end of JSON input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.fail(Syntax, "want ',' or ']' in an array")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.fail(Syntax, "invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail(Syntax, "invalid number: want a digit after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail(Syntax, "invalid number: want a digit in the exponent")
		}
	}
	return json.Number(p.data[start:p.pos]), nil
}

// str reads a string at p.pos (an opening quote), decoding escapes and checking UTF-8.
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes, all ASCII or valid UTF-8.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return "", p.badUTF8(start)
			}
			p.pos++
			if p.lim.MaxString > 0 && len(s) > p.lim.MaxString {
				return "", p.fail(Limit, fmt.Sprintf("a string is longer than %d bytes", p.lim.MaxString))
			}
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail(Syntax, "a control character in a string must be escaped")
		}
		p.pos++
	}
	var b []byte
	b = append(b, p.data[start:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return "", p.fail(Syntax, "unexpected end of JSON input in a string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !utf8.Valid(b) {
				return "", p.badUTF8(start)
			}
			if p.lim.MaxString > 0 && len(b) > p.lim.MaxString {
				return "", p.fail(Limit, fmt.Sprintf("a string is longer than %d bytes", p.lim.MaxString))
			}
			return string(b), nil
		case c < 0x20:
			return "", p.fail(Syntax, "a control character in a string must be escaped")
		case c != '\\':
			b = append(b, c)
			p.pos++
			continue
		}
		// An escape.
		if p.pos+1 >= len(p.data) {
			return "", p.fail(Syntax, "unexpected end of JSON input in a string escape")
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail(Syntax, "invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
					return "", p.fail(Syntax, "a lone UTF-16 surrogate in a \\u escape")
				}
				p.pos += 2
				r2, ok := p.hex4()
				if !ok {
					return "", p.fail(Syntax, "invalid \\u escape")
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", p.fail(Syntax, "a lone UTF-16 surrogate in a \\u escape")
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			p.pos -= 2
			return "", p.fail(Syntax, "invalid escape in a string")
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

func (p *parser) badUTF8(start int) *Error {
	e := p.fail(Syntax, "a string is not valid UTF-8")
	e.Offset = start
	return e
}

// Clip bounds a key or value an error quotes to 64 bytes, cut on a rune boundary.
func Clip(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
