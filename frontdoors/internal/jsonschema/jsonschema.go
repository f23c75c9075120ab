// Package jsonschema checks a value parsed by strictjson against a JSON Schema (draft 2020-12), for
// the subset of keywords abcd's published schemas use and a little more. It fails closed: a schema
// naming a keyword this package does not implement does not compile, so no constraint is ever
// skipped silently. Annotations (title, description, default, examples, $comment, x-*) are read and
// ignored; format is checked for the formats it names below and otherwise treated as an annotation,
// as 2020-12 prescribes.
package jsonschema

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/abcd-dev/abcd/domain/strictjson"
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
