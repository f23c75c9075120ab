package jsonschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

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
