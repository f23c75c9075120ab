// Package jsonschema checks a value parsed by strictjson against a JSON Schema (draft 2020-12), for
// the subset of keywords abcd's published schemas use and a little more. It fails closed: a schema
// naming a keyword this package does not implement does not compile, so no constraint is ever
// skipped silently. Annotations (title, description, default, examples, $comment, x-*) are read and
// ignored; format is checked for the formats it names below and otherwise treated as an annotation,
// as 2020-12 prescribes.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// Dialect is the one $schema this package accepts; a schema without $schema is read as it.
const Dialect = "https://json-schema.org/draft/2020-12/schema"

// Schema is a compiled schema.
type Schema struct {
	root *node
}

// node is one (sub)schema. A boolean schema has only always set.
type node struct {
	always *bool // true or false schema

	types    []string
	enum     []any
	constant *any
	hasConst bool

	properties    map[string]*node
	propNames     []string // sorted, for deterministic reports
	required      []string
	additional    *node // nil: anything allowed
	patternProps  []patternProp
	propertyNames *node
	minProperties int
	maxProperties int // -1: unbounded

	items       *node
	minItems    int
	maxItems    int // -1
	uniqueItems bool

	minLength int
	maxLength int // -1
	pattern   *regexp.Regexp
	format    string

	minimum, maximum       *float64
	exclMinimum, exclMaxim *float64
	multipleOf             *float64

	allOf, anyOf, oneOf []*node
	not                 *node

	ref     string
	defs    map[string]*node
	rootRef *node // the document root, for $ref resolution
}

type patternProp struct {
	re   *regexp.Regexp
	node *node
}

// Compile reads a schema document. The document is parsed strictly (no key twice, UTF-8).
func Compile(doc []byte) (*Schema, error) {
	v, err := strictjson.Parse(doc, strictjson.Limits{MaxDepth: 128})
	if err != nil {
		return nil, fmt.Errorf("schema is not strict JSON: %w", err)
	}
	return CompileValue(v)
}

// CompileValue compiles a schema already parsed.
func CompileValue(v any) (*Schema, error) {
	c := &compiler{}
	root, err := c.compile(v, "#", true)
	if err != nil {
		return nil, err
	}
	for _, n := range c.nodes {
		n.rootRef = root
	}
	for _, n := range c.nodes {
		if n.ref != "" {
			if _, err := root.resolve(n.ref); err != nil {
				return nil, err
			}
		}
	}
	return &Schema{root: root}, nil
}

type compiler struct {
	nodes []*node
}

// annotations are keywords that constrain nothing.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$anchor": true,
	"contentEncoding": true, "contentMediaType": true,
}

func (c *compiler) compile(v any, at string, top bool) (*node, error) {
	n := &node{maxProperties: -1, maxItems: -1, maxLength: -1}
	c.nodes = append(c.nodes, n)
	if b, ok := v.(bool); ok {
		n.always = &b
		return n, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema is an object or a boolean", at)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if err := c.keyword(n, k, obj[k], at+"/"+k, top); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// keywordGroup compiles the keywords of one kind into n; handled is false for a keyword not its own.
type keywordGroup func(n *node, k string, val any, where string) (handled bool, err error)

// keyword compiles one keyword into n. A keyword no group knows is refused, so a constraint is never
// skipped silently.
func (c *compiler) keyword(n *node, k string, val any, where string, top bool) error {
	for _, group := range []keywordGroup{c.objectKeyword, c.arrayKeyword, stringKeyword, numberKeyword, c.applicator} {
		if handled, err := group(n, k, val, where); handled || err != nil {
			return err
		}
	}
	var err error
	switch {
	case k == "$schema":
		if s, ok := val.(string); !ok || strings.TrimSuffix(s, "#") != Dialect {
			return fmt.Errorf("%s: dialect %v is not supported (only %s)", where, val, Dialect)
		}
	case k == "$id" && !top:
		return fmt.Errorf("%s: an embedded $id is not supported", where)
	case annotations[k] || strings.HasPrefix(k, "x-"):
	case k == "type":
		n.types, err = typeList(val, where)
	case k == "enum":
		arr, ok := val.([]any)
		if !ok || len(arr) == 0 {
			return fmt.Errorf("%s: enum is a non-empty array", where)
		}
		n.enum = arr
	case k == "const":
		cv := val
		n.constant, n.hasConst = &cv, true
	case k == "$ref":
		s, ok := val.(string)
		if !ok || !strings.HasPrefix(s, "#/$defs/") {
			return fmt.Errorf("%s: only local references of the form #/$defs/<name> are supported, got %v", where, val)
		}
		n.ref = s
	case k == "$defs" && top:
		n.defs, err = c.schemaMap(val, where, "$defs")
	default:
		return fmt.Errorf("%s: keyword %q is not supported by this validator, so it cannot be enforced", where, k)
	}
	return err
}

// schemaMap compiles an object of named schemas ($defs, properties).
func (c *compiler) schemaMap(val any, where, keyword string) (map[string]*node, error) {
	m, ok := val.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s is an object", where, keyword)
	}
	out := make(map[string]*node, len(m))
	for name, sub := range m {
		s, err := c.compile(sub, where+"/"+name, false)
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

// objectKeyword compiles what constrains an object's members.
func (c *compiler) objectKeyword(n *node, k string, val any, where string) (handled bool, err error) {
	switch k {
	case "properties":
		if n.properties, err = c.schemaMap(val, where, k); err == nil {
			n.propNames = slices.Sorted(maps.Keys(n.properties))
		}
	case "required":
		n.required, err = stringList(val, where)
	case "additionalProperties":
		n.additional, err = c.compile(val, where, false)
	case "patternProperties":
		err = c.patternProperties(n, val, where)
	case "propertyNames":
		n.propertyNames, err = c.compile(val, where, false)
	case "minProperties":
		n.minProperties, err = count(val, where)
	case "maxProperties":
		n.maxProperties, err = count(val, where)
	default:
		return false, nil
	}
	return true, err
}

func (c *compiler) patternProperties(n *node, val any, where string) error {
	props, ok := val.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: patternProperties is an object", where)
	}
	for _, p := range slices.Sorted(maps.Keys(props)) {
		re, err := regexp.Compile(p)
		if err != nil {
			return fmt.Errorf("%s: pattern %q: %w", where, p, err)
		}
		sub, err := c.compile(props[p], where+"/"+p, false)
		if err != nil {
			return err
		}
		n.patternProps = append(n.patternProps, patternProp{re, sub})
	}
	return nil
}

// arrayKeyword compiles what constrains an array's items.
func (c *compiler) arrayKeyword(n *node, k string, val any, where string) (handled bool, err error) {
	switch k {
	case "items":
		n.items, err = c.compile(val, where, false)
	case "minItems":
		n.minItems, err = count(val, where)
	case "maxItems":
		n.maxItems, err = count(val, where)
	case "uniqueItems":
		b, ok := val.(bool)
		if !ok {
			return true, fmt.Errorf("%s: uniqueItems is a boolean", where)
		}
		n.uniqueItems = b
	default:
		return false, nil
	}
	return true, err
}

// stringKeyword compiles what constrains a string: its length in characters, its pattern and format.
func stringKeyword(n *node, k string, val any, where string) (handled bool, err error) {
	switch k {
	case "minLength":
		n.minLength, err = count(val, where)
	case "maxLength":
		n.maxLength, err = count(val, where)
	case "pattern", "format":
		s, ok := val.(string)
		if !ok {
			return true, fmt.Errorf("%s: %s is a string", where, k)
		}
		if k == "format" {
			n.format = s
		} else if n.pattern, err = regexp.Compile(s); err != nil {
			return true, fmt.Errorf("%s: pattern %q cannot be checked here: %w", where, s, err)
		}
	default:
		return false, nil
	}
	return true, err
}

// numberKeyword compiles what bounds a number.
func numberKeyword(n *node, k string, val any, where string) (handled bool, err error) {
	switch k {
	case "minimum":
		n.minimum, err = number(val, where)
	case "maximum":
		n.maximum, err = number(val, where)
	case "exclusiveMinimum":
		n.exclMinimum, err = number(val, where)
	case "exclusiveMaximum":
		n.exclMaxim, err = number(val, where)
	case "multipleOf":
		if n.multipleOf, err = number(val, where); err == nil && *n.multipleOf <= 0 {
			err = fmt.Errorf("%s: multipleOf is greater than 0", where)
		}
	default:
		return false, nil
	}
	return true, err
}

// applicator compiles the keywords that apply subschemas to the same value: allOf, anyOf, oneOf
// and not.
func (c *compiler) applicator(n *node, k string, val any, where string) (handled bool, err error) {
	if k == "not" {
		n.not, err = c.compile(val, where, false)
		return true, err
	}
	if k != "allOf" && k != "anyOf" && k != "oneOf" {
		return false, nil
	}
	arr, ok := val.([]any)
	if !ok || len(arr) == 0 {
		return true, fmt.Errorf("%s: %s is a non-empty array of schemas", where, k)
	}
	subs := make([]*node, 0, len(arr))
	for i, sub := range arr {
		s, err := c.compile(sub, fmt.Sprintf("%s/%d", where, i), false)
		if err != nil {
			return true, err
		}
		subs = append(subs, s)
	}
	switch k {
	case "allOf":
		n.allOf = subs
	case "anyOf":
		n.anyOf = subs
	default:
		n.oneOf = subs
	}
	return true, nil
}

func (n *node) resolve(ref string) (*node, error) {
	name := strings.TrimPrefix(ref, "#/$defs/")
	if n.rootRef != nil && n.rootRef.defs != nil {
		if d, ok := n.rootRef.defs[name]; ok {
			return d, nil
		}
	}
	if n.defs != nil {
		if d, ok := n.defs[name]; ok {
			return d, nil
		}
	}
	return nil, fmt.Errorf("reference %s names no entry in $defs", ref)
}

var knownTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

func typeList(v any, where string) ([]string, error) {
	switch t := v.(type) {
	case string:
		if !knownTypes[t] {
			return nil, fmt.Errorf("%s: unknown type %q", where, t)
		}
		return []string{t}, nil
	case []any:
		out, err := stringList(t, where)
		for _, s := range out {
			if !knownTypes[s] {
				return nil, fmt.Errorf("%s: unknown type %q", where, s)
			}
		}
		return out, err
	}
	return nil, fmt.Errorf("%s: type is a string or an array of strings", where)
}

func stringList(v any, where string) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an array of strings", where)
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s: want an array of strings", where)
		}
		out = append(out, s)
	}
	return out, nil
}

func count(v any, where string) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: want a non-negative integer", where)
	}
	n, err := strconv.Atoi(string(num))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: want a non-negative integer", where)
	}
	return n, nil
}

func number(v any, where string) (*float64, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: want a number", where)
	}
	f, err := num.Float64()
	if err != nil {
		return nil, fmt.Errorf("%s: want a number", where)
	}
	return &f, nil
}

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
