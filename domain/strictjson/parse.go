package strictjson

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/text"
)

type parser struct {
	data   []byte
	pos    int
	lim    Limits
	build  bool // build the values, or only check them
	values int
	object bool
	// path is where the parser is, kept as segments and written out only when an error needs it:
	// formatting it for every value would cost the path's length per value.
	path   []Segment
	opaque [][]string
	// skipping is set while skip reads an opaque value, whose text is kept as it is: a lone
	// surrogate there is not this reader's to refuse.
	skipping bool
}

func (p *parser) fail(kind Kind, why reason, msg string) *Error {
	at := append([]Segment(nil), p.path...)
	return &Error{Kind: kind, Offset: p.pos, Path: JoinPath(at), At: at, Msg: msg, why: why, object: p.object}
}

// syntax reports the byte c at p.pos in encoding/json's words: "invalid character 'x' <context>".
func (p *parser) syntax(c byte, context string) *Error {
	return p.fail(Syntax, rSyntax, "invalid character "+quoteChar(c)+" "+context)
}

// end reports input that stops inside a value.
func (p *parser) end() *Error {
	p.pos = len(p.data)
	return p.fail(Syntax, rEnd, "unexpected end of JSON input")
}

// endIn reports input that stops where a space would not do either: encoding/json names the space
// it reads at the end, so the words match.
func (p *parser) endIn(context string) *Error {
	p.pos = len(p.data)
	return p.fail(Syntax, rEnd, "invalid character ' ' "+context)
}

// quoteChar writes c as encoding/json does in its errors.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *parser) skipSpace() {
	for p.pos < len(p.data) && isSpace(p.data[p.pos]) {
		p.pos++
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.end()
	}
	p.values++
	if p.lim.MaxValues > 0 && p.values > p.lim.MaxValues {
		e := p.fail(Limit, rValues, fmt.Sprintf("the document holds more than %d values (objects, arrays, strings, numbers, booleans and nulls)", p.lim.MaxValues))
		e.bound = p.lim.MaxValues
		return nil, e
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.objectValue(depth + 1)
	case c == '[':
		return p.arrayValue(depth + 1)
	case c == '"':
		s, err := p.str(p.build, p.lim.MaxString)
		if err != nil || !p.build {
			return nil, err
		}
		return s, nil
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		if err := p.number(); err != nil {
			return nil, err
		}
		if !p.build {
			return nil, nil
		}
		return json.Number(p.data[start:p.pos]), nil
	default:
		return nil, p.syntax(c, "looking for beginning of value")
	}
}

func (p *parser) tooDeep() *Error {
	e := p.fail(Limit, rDepth, fmt.Sprintf("nests deeper than %d levels", p.lim.MaxDepth))
	e.bound = p.lim.MaxDepth
	return e
}

func (p *parser) objectValue(depth int) (any, error) {
	if depth > p.lim.MaxDepth {
		return nil, p.tooDeep()
	}
	p.pos++ // {
	var obj map[string]any
	var seen map[string]struct{}
	if p.build {
		obj = map[string]any{}
	}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		if p.pos >= len(p.data) {
			return nil, p.end()
		}
		if c := p.data[p.pos]; c != '"' {
			return nil, p.syntax(c, "looking for beginning of object key string")
		}
		keyAt := p.pos
		key, err := p.str(true, p.lim.MaxString)
		if err != nil {
			return nil, err
		}
		dup := false
		if p.build {
			_, dup = obj[key]
		} else {
			if seen == nil {
				seen = map[string]struct{}{}
			}
			_, dup = seen[key]
			seen[key] = struct{}{}
		}
		if dup {
			p.pos = keyAt
			p.path = append(p.path, Segment{Key: key, Index: -1})
			e := p.fail(Duplicate, rDuplicate, fmt.Sprintf("the key %q appears twice in one object", text.Clip(key)))
			p.path = p.path[:len(p.path)-1]
			return nil, e
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.end()
		}
		if c := p.data[p.pos]; c != ':' {
			return nil, p.syntax(c, "after object key")
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, Segment{Key: key, Index: -1})
		var v any
		if p.isOpaque() {
			v, err = p.skip()
		} else {
			v, err = p.value(depth)
		}
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		if p.build {
			obj[key] = v
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.end()
		}
		switch c := p.data[p.pos]; c {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.syntax(c, "after object key:value pair")
		}
	}
}

func (p *parser) arrayValue(depth int) (any, error) {
	if depth > p.lim.MaxDepth {
		return nil, p.tooDeep()
	}
	p.pos++ // [
	var arr []any
	if p.build {
		arr = []any{}
	}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for i := 0; ; i++ {
		p.path = append(p.path, Segment{Index: i})
		v, err := p.value(depth)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		if p.build {
			arr = append(arr, v)
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.end()
		}
		switch c := p.data[p.pos]; c {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.syntax(c, "after array element")
		}
	}
}

func (p *parser) literal(word string) error {
	for i := 1; i < len(word); i++ {
		at := p.pos + i
		context := fmt.Sprintf("in literal %s (expecting %s)", word, quoteChar(word[i]))
		if at >= len(p.data) {
			return p.endIn(context)
		}
		if p.data[at] != word[i] {
			p.pos = at
			return p.syntax(p.data[at], context)
		}
	}
	p.pos += len(word)
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number reads a number at p.pos, in the grammar's states: sign, integer, fraction, exponent.
func (p *parser) number() error {
	if p.data[p.pos] == '-' {
		p.pos++
		if p.pos >= len(p.data) {
			return p.endIn("in numeric literal")
		}
		if c := p.data[p.pos]; !isDigit(c) {
			return p.syntax(c, "in numeric literal")
		}
	}
	if p.data[p.pos] == '0' {
		p.pos++
	} else {
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.pos >= len(p.data) {
			return p.endIn("after decimal point in numeric literal")
		}
		if c := p.data[p.pos]; !isDigit(c) {
			return p.syntax(c, "after decimal point in numeric literal")
		}
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.data) {
			return p.endIn("in exponent of numeric literal")
		}
		if c := p.data[p.pos]; !isDigit(c) {
			return p.syntax(c, "in exponent of numeric literal")
		}
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	return nil
}

// str reads a string at p.pos (an opening quote), decoding its escapes when keep is set, and
// refusing a decoded length over limit (0: none). The document is already known to be UTF-8.
func (p *parser) str(keep bool, limit int) (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			p.pos++
			if limit > 0 && len(s) > limit {
				return "", p.longString(limit)
			}
			if !keep {
				return "", nil
			}
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.syntax(c, "in string literal")
		}
		p.pos++
	}
	var b []byte
	if keep {
		b = append(b, p.data[start:p.pos]...)
	}
	n := p.pos - start // the decoded length
	for {
		if p.pos >= len(p.data) {
			return "", p.end()
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if limit > 0 && n > limit {
				return "", p.longString(limit)
			}
			return string(b), nil
		case c < 0x20:
			return "", p.syntax(c, "in string literal")
		case c != '\\':
			if keep {
				b = append(b, c)
			}
			n++
			p.pos++
			continue
		}
		escAt := p.pos
		p.pos++
		if p.pos >= len(p.data) {
			return "", p.endIn("in string escape code")
		}
		e := p.data[p.pos]
		p.pos++
		r, simple := simpleEscape(e)
		switch {
		case simple:
		case e == 'u':
			var err error
			if r, err = p.hex4(); err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				pair, ok, err := p.lowSurrogate(r)
				if err != nil {
					return "", err
				}
				if !ok && !p.skipping {
					p.pos = escAt
					return "", p.fail(Syntax, rSurrogate, "a lone UTF-16 surrogate in a \\u escape")
				}
				r = pair
			}
		default:
			p.pos--
			return "", p.syntax(e, "in string escape code")
		}
		if keep {
			b = utf8.AppendRune(b, r)
		}
		n += utf8.RuneLen(r)
	}
}

// simpleEscape decodes the one-letter escapes.
func simpleEscape(e byte) (rune, bool) {
	switch e {
	case '"', '\\', '/':
		return rune(e), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// lowSurrogate reads the \uXXXX that must follow the high surrogate hi, and returns the rune the
// pair makes; false when there is no such escape or it does not complete the pair.
func (p *parser) lowSurrogate(hi rune) (rune, bool, error) {
	if hi >= 0xDC00 || p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
		return 0, false, nil
	}
	p.pos += 2
	lo, err := p.hex4()
	if err != nil {
		return 0, false, err
	}
	r := utf16.DecodeRune(hi, lo)
	return r, r != utf8.RuneError, nil
}

func (p *parser) hex4() (rune, error) {
	var r rune
	for range 4 {
		if p.pos >= len(p.data) {
			return 0, p.endIn("in \\u hexadecimal character escape")
		}
		c := p.data[p.pos]
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, p.syntax(c, "in \\u hexadecimal character escape")
		}
		p.pos++
	}
	return r, nil
}

func (p *parser) longString(limit int) *Error {
	e := p.fail(Limit, rString, fmt.Sprintf("a string is longer than %d bytes", limit))
	e.bound = limit
	return e
}

// isOpaque reports whether the member being read sits at one of ParseOpaque's paths.
func (p *parser) isOpaque() bool {
	for _, want := range p.opaque {
		if len(want) != len(p.path) {
			continue
		}
		match := true
		for i, s := range p.path {
			if s.Index >= 0 || s.Key != want[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// skip checks one value is well-formed JSON without recursion (it may nest as deep as the input is
// long) and returns its text. Only syntax is checked: no key, depth, string or value rule applies.
func (p *parser) skip() (json.RawMessage, error) {
	start := p.pos
	p.skipping = true
	defer func() { p.skipping = false }()
	var stack []byte // the open containers, '{' or '['
	for {
		// A value starts here.
		if p.pos >= len(p.data) {
			return nil, p.end()
		}
		switch c := p.data[p.pos]; {
		case c == '{' || c == '[':
			p.pos++
			p.skipSpace()
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if p.pos < len(p.data) && p.data[p.pos] == closer {
				p.pos++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if err := p.skipKey(); err != nil {
					return nil, err
				}
			}
			continue
		case c == '"':
			if _, err := p.str(false, 0); err != nil {
				return nil, err
			}
		case c == 't':
			if err := p.literal("true"); err != nil {
				return nil, err
			}
		case c == 'f':
			if err := p.literal("false"); err != nil {
				return nil, err
			}
		case c == 'n':
			if err := p.literal("null"); err != nil {
				return nil, err
			}
		case c == '-' || isDigit(c):
			if err := p.number(); err != nil {
				return nil, err
			}
		default:
			return nil, p.syntax(c, "looking for beginning of value")
		}
		// A value ended: close what it ends, until a comma opens the next one.
		for {
			if len(stack) == 0 {
				return json.RawMessage(p.data[start:p.pos]), nil
			}
			p.skipSpace()
			if p.pos >= len(p.data) {
				return nil, p.end()
			}
			top, c := stack[len(stack)-1], p.data[p.pos]
			if top == '{' && c == '}' || top == '[' && c == ']' {
				p.pos++
				stack = stack[:len(stack)-1]
				continue
			}
			if c != ',' {
				if top == '{' {
					return nil, p.syntax(c, "after object key:value pair")
				}
				return nil, p.syntax(c, "after array element")
			}
			p.pos++
			p.skipSpace()
			if top == '{' {
				if err := p.skipKey(); err != nil {
					return nil, err
				}
			}
			break
		}
	}
}

// skipKey reads `"key" :` and the space after it, for skip.
func (p *parser) skipKey() error {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return p.end()
	}
	if c := p.data[p.pos]; c != '"' {
		return p.syntax(c, "looking for beginning of object key string")
	}
	if _, err := p.str(false, 0); err != nil {
		return err
	}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return p.end()
	}
	if c := p.data[p.pos]; c != ':' {
		return p.syntax(c, "after object key")
	}
	p.pos++
	p.skipSpace()
	return nil
}
