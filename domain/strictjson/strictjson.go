// Package strictjson is abcd's one reader of JSON text from outside the process: configuration and
// routing files, a run's state, an agent's return, an MCP message, a published schema. It refuses
// what encoding/json lets through: a key named twice in one object (at any depth), text that is not
// UTF-8 (including a \u escape naming half of a UTF-16 surrogate pair), content after the value,
// nesting beyond a bound, and documents, strings or value counts beyond a bound. One pass does it
// all, so a caller can check a whole document before it believes any part of it, and what a parse
// costs is bounded by the input's length and the limits.
//
// Parse returns plain values: map[string]any for objects, []any for arrays, string, json.Number,
// bool and nil. Check and CheckObject check without building them. Where the JSON is well formed,
// every error reads as encoding/json's would, at the same place, so a refusal quoting one is as
// familiar as the standard library's.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/text"
)

// DefaultMaxDepth is the nesting bound when Limits.MaxDepth is zero.
const DefaultMaxDepth = 64

// Limits bound what a document may be. A zero field takes its default.
type Limits struct {
	// MaxBytes is the longest document; default no bound beyond the input's length.
	MaxBytes int
	// MaxDepth is the deepest nesting of objects and arrays; default DefaultMaxDepth.
	MaxDepth int
	// MaxString is the longest string (keys included), in bytes once decoded; default no bound.
	MaxString int
	// MaxValues is the most values the document may hold, counting every object, array, string,
	// number, boolean and null (keys are not values); default no bound. Each value costs a hundred
	// bytes or more once parsed, so a document of small values ("[0,0,0,...]") takes far more
	// memory than its text: a caller parsing outside input into a tree sets this bound.
	MaxValues int
}

// Kind sorts errors, so a caller can answer each differently.
type Kind int

const (
	// Syntax: not JSON, not UTF-8, or content after the value.
	Syntax Kind = iota
	// Duplicate: an object names one key twice.
	Duplicate
	// Limit: the document's size, its nesting, a string or the number of values beyond Limits.
	Limit
	// Shape: CheckObject was handed well-formed JSON that is not one object.
	Shape
)

// Error says what is wrong and where: Offset is the byte offset in the input of the fault (the
// input's length when it ends too soon), Path the member path (like params.arguments.name or
// items[2]) of the value being read, empty at the top, each key in it clipped.
type Error struct {
	Kind   Kind
	Offset int
	Path   string
	// At is Path as its steps, for a caller that writes paths its own way.
	At  []Segment
	Msg string

	why    reason
	bound  int  // the limit passed, for a Limit error
	object bool // the document's top value is an object
}

// reason is the fault behind an Error, finer than its Kind, for Describe.
type reason int

const (
	rSyntax reason = iota
	rEnd
	rTrailing
	rEncoding
	rSurrogate
	rDuplicate
	rSize
	rDepth
	rString
	rValues
	rShape
)

func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s (at %s, byte %d)", e.Msg, e.Path, e.Offset)
	}
	return fmt.Sprintf("%s (at byte %d)", e.Msg, e.Offset)
}

// Describe says what is wrong as the predicate of a sentence about the document ("<file> names the
// key "a.b" twice: keep one"), so every reader of a named document words its refusals alike.
func (e *Error) Describe() string {
	switch e.why {
	case rEnd:
		if e.object {
			return "is not JSON: it ends before its object closes"
		}
		return "is not JSON: it ends before its value is complete"
	case rTrailing:
		if e.object {
			return "has content after its object: remove everything after the closing }"
		}
		return "has content after its value: remove everything after it"
	case rEncoding:
		return "is not valid UTF-8"
	case rSurrogate:
		return fmt.Sprintf("is not valid UTF-8: %s at byte %d", e.Msg, e.Offset+1)
	case rDuplicate:
		keys := make([]string, 0, len(e.At))
		for _, s := range e.At {
			if s.Index < 0 {
				keys = append(keys, text.Clip(s.Key))
			}
		}
		return fmt.Sprintf("names the key %q twice: keep one", text.Clip(strings.Join(keys, ".")))
	case rSize:
		return fmt.Sprintf("is larger than %d bytes", e.bound)
	case rDepth:
		return e.Msg
	case rString:
		return fmt.Sprintf("holds a string longer than %d bytes%s", e.bound, e.where())
	case rValues:
		return fmt.Sprintf("holds more than %d values", e.bound)
	case rShape:
		return "must hold one JSON object"
	}
	return fmt.Sprintf("is not JSON: %s at byte %d", e.Msg, e.Offset+1)
}

// Describe is err's Describe when err holds an *Error, and its text when it holds none (a reader's
// own error passed through).
func Describe(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Describe()
	}
	return err.Error()
}

func (e *Error) where() string {
	if e.Path == "" {
		return ""
	}
	return " at " + e.Path
}

// Segment is one step of a path: an object key, or an array index when Index is not negative.
type Segment struct {
	Key   string
	Index int
}

// JoinPath writes a path like params.arguments.items[2], each key clipped so a message stays short
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
		b.WriteString(text.Clip(s.Key))
	}
	return b.String()
}

// Parse reads exactly one JSON value from data.
func Parse(data []byte, lim Limits) (any, error) {
	v, _, err := run(data, lim, true, nil)
	return v, err
}

// ParseCount is Parse that also says how many values the document holds (see Limits.MaxValues), so
// a caller can account for the memory the parsed tree takes.
func ParseCount(data []byte, lim Limits) (any, int, error) {
	return run(data, lim, true, nil)
}

// ParseOpaque is Parse, except that the value at each of the given key paths (object keys from the
// top, such as ["params", "arguments"]) is only checked to be well-formed JSON, at any depth, and is
// kept as its text (a json.RawMessage): no key, nesting, string or value rule applies inside it and
// its values are not counted. A reader uses it to read the envelope of a message whose payload broke
// a rule, so it can answer the message with the payload's refusal.
func ParseOpaque(data []byte, lim Limits, paths ...[]string) (any, error) {
	v, _, err := run(data, lim, true, paths)
	return v, err
}

// Check is Parse without building the values: the same refusals at the same places.
func Check(data []byte, lim Limits) error {
	_, _, err := run(data, lim, false, nil)
	return err
}

// CheckObject is Check for a document that must be one JSON object, as every file abcd reads is. A
// document that starts as another kind of value is refused as Shape before the rest is read.
func CheckObject(data []byte, lim Limits) error {
	if lim.MaxBytes > 0 && len(data) > lim.MaxBytes {
		return sizeError(lim.MaxBytes)
	}
	if i := invalidUTF8(data); i >= 0 {
		return &Error{Kind: Syntax, Offset: i, Msg: "the document is not valid UTF-8", why: rEncoding}
	}
	i := 0
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	if i < len(data) && data[i] != '{' && startsValue(data[i]) {
		return &Error{Kind: Shape, Offset: i, Msg: "the document is not one JSON object", why: rShape}
	}
	return Check(data, lim)
}

func startsValue(c byte) bool {
	return c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' || c >= '0' && c <= '9'
}

func sizeError(max int) *Error {
	return &Error{Kind: Limit, Offset: max, Msg: fmt.Sprintf("the document is larger than %d bytes", max), why: rSize, bound: max}
}

// invalidUTF8 is the offset of the first byte that is not part of valid UTF-8, or -1.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

func run(data []byte, lim Limits, build bool, opaque [][]string) (any, int, error) {
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = DefaultMaxDepth
	}
	if lim.MaxBytes > 0 && len(data) > lim.MaxBytes {
		return nil, 0, sizeError(lim.MaxBytes)
	}
	if i := invalidUTF8(data); i >= 0 {
		return nil, 0, &Error{Kind: Syntax, Offset: i, Msg: "the document is not valid UTF-8", why: rEncoding}
	}
	p := &parser{data: data, lim: lim, build: build, opaque: opaque}
	p.skipSpace()
	p.object = p.pos < len(data) && data[p.pos] == '{'
	v, err := p.value(0)
	if err != nil {
		return nil, 0, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, 0, p.fail(Syntax, rTrailing, "invalid character "+quoteChar(p.data[p.pos])+" after top-level value")
	}
	return v, p.values, nil
}

// DecodeFile reads a file abcd keeps as one JSON object of a declared schema version: checked
// within lim first (no repeated key, nothing after it, the bounds), then decoded into T with every
// unknown key refused, then its version (read by version) held to want. file names it in every
// error; the caller checks what the type's own rules say after.
func DecodeFile[T any](file string, data []byte, lim Limits, want int, version func(*T) int) (T, error) {
	var v T
	if err := CheckObject(data, lim); err != nil {
		return v, fmt.Errorf("%s: %s", file, Describe(err))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		// In abcd's words (the path and what fits there), never Go's ("json: unknown field").
		if said := Mismatch(data, &v); said != "" {
			return v, fmt.Errorf("%s: %s", file, said)
		}
		return v, fmt.Errorf("%s: %s", file, text.Clip(err.Error()))
	}
	if got := version(&v); got != want {
		return v, fmt.Errorf(`%s: declares schema_version %d; this abcd reads version %d (add "schema_version": %d)`, file, got, want, want)
	}
	return v, nil
}
