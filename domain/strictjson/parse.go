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
		if err := p.member(depth, obj, &seen); err != nil {
			return nil, err
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

// member reads one "key": value of an object, into obj when building, refusing a key the object
// has had before (seen keeps them when not building).
func (p *parser) member(depth int, obj map[string]any, seen *map[string]struct{}) error {
	if p.pos >= len(p.data) {
		return p.end()
	}
	if c := p.data[p.pos]; c != '"' {
		return p.syntax(c, "looking for beginning of object key string")
	}
	keyAt := p.pos
	key, err := p.str(true, p.lim.MaxString)
	if err != nil {
		return err
	}
	if p.repeated(key, obj, seen) {
		p.pos = keyAt
		p.path = append(p.path, Segment{Key: key, Index: -1})
		e := p.fail(Duplicate, rDuplicate, fmt.Sprintf("the key %q appears twice in one object", text.Clip(key)))
		p.path = p.path[:len(p.path)-1]
		return e
	}
	if err := p.colon(); err != nil {
		return err
	}
	p.path = append(p.path, Segment{Key: key, Index: -1})
	var v any
	if p.isOpaque() {
		v, err = p.skip()
	} else {
		v, err = p.value(depth)
	}
	p.path = p.path[:len(p.path)-1]
	if err == nil && p.build {
		obj[key] = v
	}
	return err
}

// repeated reports whether the object has had key before, and remembers it.
func (p *parser) repeated(key string, obj map[string]any, seen *map[string]struct{}) bool {
	if p.build {
		_, dup := obj[key]
		return dup
	}
	if *seen == nil {
		*seen = map[string]struct{}{}
	}
	_, dup := (*seen)[key]
	(*seen)[key] = struct{}{}
	return dup
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
	if s, done, err := p.plainString(start, keep, limit); done || err != nil {
		return s, err
	}
	return p.escapedString(start, keep, limit)
}

// plainString reads a string with no escape in it, the common case, from p.pos. done is false when
// an escape begins (at p.pos) or the data ends first: escapedString reads on from there.
func (p *parser) plainString(start int, keep bool, limit int) (string, bool, error) {
	for ; p.pos < len(p.data); p.pos++ {
		switch c := p.data[p.pos]; {
		case c == '"':
			s := p.data[start:p.pos]
			p.pos++
			if limit > 0 && len(s) > limit {
				return "", true, p.longString(limit)
			}
			if !keep {
				return "", true, nil
			}
			return string(s), true, nil
		case c == '\\':
			return "", false, nil
		case c < 0x20:
			return "", true, p.syntax(c, "in string literal")
		}
	}
	return "", false, nil
}

// escapedString reads the rest of a string that holds an escape, from p.pos; the bytes from start
// to p.pos are plain. n counts the decoded length, which limit bounds.
func (p *parser) escapedString(start int, keep bool, limit int) (string, error) {
	var b []byte
	if keep {
		b = append(b, p.data[start:p.pos]...)
	}
	n := p.pos - start
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
		r, err := p.escape()
		if err != nil {
			return "", err
		}
		if keep {
			b = utf8.AppendRune(b, r)
		}
		n += utf8.RuneLen(r)
	}
}

// escape decodes the escape whose backslash is at p.pos: a one-letter escape or \uXXXX, a
// surrogate pair read as one character.
func (p *parser) escape() (rune, error) {
	escAt := p.pos
	p.pos++
	if p.pos >= len(p.data) {
		return 0, p.endIn("in string escape code")
	}
	e := p.data[p.pos]
	p.pos++
	if r, simple := simpleEscape(e); simple {
		return r, nil
	}
	if e != 'u' {
		p.pos--
		return 0, p.syntax(e, "in string escape code")
	}
	r, err := p.hex4()
	if err != nil || !utf16.IsSurrogate(r) {
		return r, err
	}
	pair, ok, err := p.lowSurrogate(r)
	if err != nil {
		return 0, err
	}
	if !ok && !p.skipping {
		p.pos = escAt
		return 0, p.fail(Syntax, rSurrogate, "a lone UTF-16 surrogate in a \\u escape")
	}
	return pair, nil
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
		if c := p.data[p.pos]; c == '{' || c == '[' {
			opened, err := p.skipOpen(c, &stack)
			if err != nil {
				return nil, err
			}
			if opened {
				continue
			}
		} else if err := p.skipScalar(c); err != nil {
			return nil, err
		}
		done, err := p.skipClose(&stack)
		if err != nil {
			return nil, err
		}
		if done {
			return json.RawMessage(p.data[start:p.pos]), nil
		}
	}
}

// skipOpen reads the opening of a container c. An empty one is a whole value (opened is false);
// otherwise it is pushed on stack, and an object's first key is read.
func (p *parser) skipOpen(c byte, stack *[]byte) (opened bool, err error) {
	p.pos++
	p.skipSpace()
	closer := byte('}')
	if c == '[' {
		closer = ']'
	}
	if p.pos < len(p.data) && p.data[p.pos] == closer {
		p.pos++
		return false, nil
	}
	*stack = append(*stack, c)
	if c == '{' {
		return true, p.skipKey()
	}
	return true, nil
}

// skipScalar reads a string, a literal or a number starting with c.
func (p *parser) skipScalar(c byte) error {
	switch {
	case c == '"':
		_, err := p.str(false, 0)
		return err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || isDigit(c):
		return p.number()
	}
	return p.syntax(c, "looking for beginning of value")
}

// skipClose is what follows a value: it closes the containers the value ends, until a comma opens
// the next value (done is false; an object's key is read) or nothing is left open (done).
func (p *parser) skipClose(stack *[]byte) (done bool, err error) {
	for len(*stack) > 0 {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return false, p.end()
		}
		top, c := (*stack)[len(*stack)-1], p.data[p.pos]
		if top == '{' && c == '}' || top == '[' && c == ']' {
			p.pos++
			*stack = (*stack)[:len(*stack)-1]
			continue
		}
		if c != ',' {
			if top == '{' {
				return false, p.syntax(c, "after object key:value pair")
			}
			return false, p.syntax(c, "after array element")
		}
		p.pos++
		p.skipSpace()
		if top == '{' {
			return false, p.skipKey()
		}
		return false, nil
	}
	return true, nil
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
	return p.colon()
}

// colon reads the colon after an object's key, and the space on either side of it.
func (p *parser) colon() error {
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
