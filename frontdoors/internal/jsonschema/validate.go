package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// Error is the first way a value fails its schema: Path locates the value (empty for the root; like
// name or steps[2].status), Msg says what is wrong.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Validate checks v, as strictjson.Parse returns it, and reports the first failure in a
// deterministic order.
func (s *Schema) Validate(v any) *Error {
	return s.root.check(v, nil, 0)
}

const maxRefDepth = 64

func (n *node) check(v any, path *location, refDepth int) *Error {
	if n.always != nil {
		if *n.always {
			return nil
		}
		return &Error{path.String(), "is not allowed here"}
	}
	if n.ref != "" {
		if refDepth > maxRefDepth {
			return &Error{path.String(), "nests references too deeply"}
		}
		target, err := n.resolve(n.ref)
		if err != nil {
			return &Error{path.String(), err.Error()}
		}
		if e := target.check(v, path, refDepth+1); e != nil {
			return e
		}
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return isType(v, t) }) {
		return &Error{path.String(), fmt.Sprintf("must be %s, got %s", typePhrase(n.types), kindOf(v))}
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return equal(e, v) }) {
		return &Error{path.String(), "must be one of " + enumPhrase(n.enum)}
	}
	if n.hasConst && !equal(*n.constant, v) {
		return &Error{path.String(), "must be " + compact(*n.constant)}
	}
	switch x := v.(type) {
	case map[string]any:
		if e := n.checkObject(x, path, refDepth); e != nil {
			return e
		}
	case []any:
		if e := n.checkArray(x, path, refDepth); e != nil {
			return e
		}
	case string:
		if e := n.checkString(x, path); e != nil {
			return e
		}
	case json.Number:
		if e := n.checkNumber(x, path); e != nil {
			return e
		}
	}
	for _, sub := range n.allOf {
		if e := sub.check(v, path, refDepth); e != nil {
			return e
		}
	}
	if n.anyOf != nil && !slices.ContainsFunc(n.anyOf, func(s *node) bool { return s.check(v, path, refDepth) == nil }) {
		return &Error{path.String(), "matches none of the allowed shapes"}
	}
	if n.oneOf != nil {
		matched := 0
		for _, sub := range n.oneOf {
			if sub.check(v, path, refDepth) == nil {
				matched++
			}
		}
		if matched != 1 {
			if matched == 0 {
				return &Error{path.String(), "matches none of the allowed shapes"}
			}
			return &Error{path.String(), "matches more than one of the allowed shapes"}
		}
	}
	if n.not != nil && n.not.check(v, path, refDepth) == nil {
		return &Error{path.String(), "has a shape that is not allowed"}
	}
	return nil
}

func (n *node) checkObject(obj map[string]any, path *location, refDepth int) *Error {
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			return &Error{path.String(), fmt.Sprintf("the required field %q is missing", r)}
		}
	}
	if len(obj) < n.minProperties {
		return &Error{path.String(), fmt.Sprintf("must have at least %d fields", n.minProperties)}
	}
	if n.maxProperties >= 0 && len(obj) > n.maxProperties {
		return &Error{path.String(), fmt.Sprintf("must have at most %d fields", n.maxProperties)}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		sub := path.key(k)
		if n.propertyNames != nil {
			if e := n.propertyNames.check(k, sub, refDepth); e != nil {
				return &Error{sub.String(), "is not an allowed field name: " + e.Msg}
			}
		}
		matched := false
		if p, ok := n.properties[k]; ok {
			matched = true
			if e := p.check(obj[k], sub, refDepth); e != nil {
				return e
			}
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(k) {
				matched = true
				if e := pp.node.check(obj[k], sub, refDepth); e != nil {
					return e
				}
			}
		}
		if !matched && n.additional != nil {
			if n.additional.always != nil && !*n.additional.always {
				return &Error{path.String(), fmt.Sprintf("the field %q is not one this input takes (takes: %s)", text.Clip(k), fieldList(n.propNames))}
			}
			if e := n.additional.check(obj[k], sub, refDepth); e != nil {
				return e
			}
		}
	}
	return nil
}

func fieldList(names []string) string {
	if len(names) == 0 {
		return "no fields"
	}
	return strings.Join(names, ", ")
}

func (n *node) checkArray(arr []any, path *location, refDepth int) *Error {
	if len(arr) < n.minItems {
		return &Error{path.String(), fmt.Sprintf("must have at least %d items", n.minItems)}
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		return &Error{path.String(), fmt.Sprintf("must have at most %d items", n.maxItems)}
	}
	if n.items != nil {
		for i, e := range arr {
			if err := n.items.check(e, path.index(i), refDepth); err != nil {
				return err
			}
		}
	}
	if n.uniqueItems {
		for i := range arr {
			for j := i + 1; j < len(arr); j++ {
				if equal(arr[i], arr[j]) {
					return &Error{path.String(), fmt.Sprintf("items %d and %d are the same; each must be unique", i, j)}
				}
			}
		}
	}
	return nil
}

func (n *node) checkString(s string, path *location) *Error {
	if n.minLength > 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if l < n.minLength {
			if n.minLength == 1 {
				return &Error{path.String(), "must not be empty"}
			}
			return &Error{path.String(), fmt.Sprintf("must be at least %d characters", n.minLength)}
		}
		if n.maxLength >= 0 && l > n.maxLength {
			return &Error{path.String(), fmt.Sprintf("must be at most %d characters, got %d", n.maxLength, l)}
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return &Error{path.String(), fmt.Sprintf("must match the pattern %s", n.pattern.String())}
	}
	if n.format != "" {
		if msg := checkFormat(n.format, s); msg != "" {
			return &Error{path.String(), msg}
		}
	}
	return nil
}

// checkFormat asserts the formats abcd's schemas use (see format.go); any other format name is an
// annotation.
func checkFormat(format, s string) string {
	switch format {
	case "uri":
		if !isURI(s) {
			return "must be an absolute URI"
		}
	case "date-time":
		if !isDateTime(s) {
			return "must be an RFC 3339 date-time"
		}
	case "date":
		if !isDate(s) {
			return "must be a date (YYYY-MM-DD)"
		}
	}
	return ""
}

func (n *node) checkNumber(num json.Number, path *location) *Error {
	f, err := num.Float64()
	if err != nil {
		return &Error{path.String(), "is not a number this server can read"}
	}
	if n.minimum != nil && f < *n.minimum {
		return &Error{path.String(), fmt.Sprintf("must be at least %s", fmtNum(*n.minimum))}
	}
	if n.maximum != nil && f > *n.maximum {
		return &Error{path.String(), fmt.Sprintf("must be at most %s", fmtNum(*n.maximum))}
	}
	if n.exclMinimum != nil && f <= *n.exclMinimum {
		return &Error{path.String(), fmt.Sprintf("must be greater than %s", fmtNum(*n.exclMinimum))}
	}
	if n.exclMaxim != nil && f >= *n.exclMaxim {
		return &Error{path.String(), fmt.Sprintf("must be less than %s", fmtNum(*n.exclMaxim))}
	}
	if n.multipleOf != nil {
		q := f / *n.multipleOf
		if math.Abs(q-math.Round(q)) > 1e-9 {
			return &Error{path.String(), fmt.Sprintf("must be a multiple of %s", fmtNum(*n.multipleOf))}
		}
	}
	return nil
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// location is where a value sits in the instance, as a chain of steps from the root (nil). It is
// written out only when a check fails: building the path string for every value would cost the
// path's length per value, and a key may be a megabyte long.
type location struct {
	parent *location
	name   string
	idx    int // an array index; -1 for an object member
}

func (l *location) key(k string) *location { return &location{parent: l, name: k, idx: -1} }
func (l *location) index(i int) *location  { return &location{parent: l, idx: i} }

// String is the path like steps[2].status, empty for the root, each key clipped.
func (l *location) String() string {
	var segs []strictjson.Segment
	for at := l; at != nil; at = at.parent {
		segs = append(segs, strictjson.Segment{Key: at.name, Index: at.idx})
	}
	slices.Reverse(segs)
	return strictjson.JoinPath(segs)
}

func isType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		num, ok := v.(json.Number)
		if !ok {
			return false
		}
		if !strings.ContainsAny(string(num), ".eE") {
			return true
		}
		f, err := num.Float64()
		return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
	}
	return false
}

func kindOf(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case json.Number:
		if isType(x, "integer") {
			return "an integer"
		}
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

func typePhrase(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "object", "array", "integer":
			words[i] = "an " + t
		case "null":
			words[i] = "null"
		default:
			words[i] = "a " + t
		}
	}
	return strings.Join(words, " or ")
}

func enumPhrase(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = compact(v)
	}
	return strings.Join(parts, ", ")
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// equal is JSON equality: numbers compare by value, objects by members, arrays in order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, ex := x.Float64()
		fy, ey := y.Float64()
		return ex == nil && ey == nil && fx == fy
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}
