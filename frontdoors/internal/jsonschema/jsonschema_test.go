package jsonschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/strictjson"
)

func mustCompile(t *testing.T, doc string) *Schema {
	t.Helper()
	s, err := Compile([]byte(doc))
	assert.NilError(t, err)
	return s
}

func check(t *testing.T, s *Schema, instance string) *Error {
	t.Helper()
	v, err := strictjson.Parse([]byte(instance), strictjson.Limits{})
	assert.NilError(t, err)
	return s.Validate(v)
}

// TestEveryPublishedSchemaCompiles: the validator can enforce every schema abcd publishes, so no
// tool's input is ever checked against a schema with a keyword skipped.
func TestEveryPublishedSchemaCompiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "schemas", "v1", "*.schema.json"))
	assert.NilError(t, err)
	assert.Assert(t, len(files) > 10, "found %d schemas", len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		_, err = Compile(data)
		assert.Check(t, err, "%s", filepath.Base(f))
	}
}

func TestObjectKeywords(t *testing.T) {
	s := mustCompile(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"properties":{"name":{"type":"string","minLength":1,"maxLength":5},"yes":{"type":"boolean"}},
		"required":["name"],"additionalProperties":false}`)
	cases := []struct{ in, path, msg string }{
		{`{"name":"ab"}`, "", ""},
		{`{"name":"ab","yes":true}`, "", ""},
		{`[]`, "", "must be an object, got an array"},
		{`{}`, "", `the required field "name" is missing`},
		{`{"name":""}`, "name", "must not be empty"},
		{`{"name":"héllo!"}`, "name", "must be at most 5 characters, got 6"},
		{`{"name":"héllo"}`, "", ""}, // five characters, six bytes
		{`{"name":5}`, "name", "must be a string, got an integer"},
		{`{"name":"a","yes":"true"}`, "yes", "must be a boolean, got a string"},
		{`{"name":"a","extra":1}`, "", `the field "extra" is not one this input takes (takes: name, yes)`},
		{`{"name":"a","yes":null}`, "yes", "must be a boolean, got null"},
	}
	for _, c := range cases {
		e := check(t, s, c.in)
		if c.msg == "" {
			assert.Check(t, e == nil, "%s: %v", c.in, e)
			continue
		}
		if assert.Check(t, e != nil, "%s: want %q", c.in, c.msg) {
			assert.Check(t, is.Equal(e.Path, c.path), c.in)
			assert.Check(t, is.Equal(e.Msg, c.msg), c.in)
		}
	}
}

func TestNumbersArraysAndComposition(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{
		"n":{"type":"integer","minimum":0,"maximum":10},
		"x":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5},
		"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"minItems":1,"maxItems":2,"uniqueItems":true},
		"v":{"oneOf":[{"type":"string","maxLength":3},{"type":"number"},{"type":"boolean"}]},
		"e":{"enum":["a",1]},
		"c":{"const":{"k":[1]}},
		"r":{"$ref":"#/$defs/ref"},
		"u":{"type":"string","format":"uri"}
	},"$defs":{"ref":{"type":"string","enum":["x"]}}}`)
	cases := []struct{ in, path, msg string }{
		{`{"n":3,"x":1.5,"tags":["a"],"v":"abc","e":1.0,"c":{"k":[1.0]},"r":"x","u":"https://x.example/a"}`, "", ""},
		{`{"n":3.0}`, "", ""},
		{`{"n":3.5}`, "n", "must be an integer, got a number"},
		{`{"n":-1}`, "n", "must be at least 0"},
		{`{"n":11}`, "n", "must be at most 10"},
		{`{"x":0}`, "x", "must be greater than 0"},
		{`{"x":0.7}`, "x", "must be a multiple of 0.5"},
		{`{"tags":[]}`, "tags", "must have at least 1 items"},
		{`{"tags":["a","b","c"]}`, "tags", "must have at most 2 items"},
		{`{"tags":["a","a"]}`, "tags", "items 0 and 1 are the same; each must be unique"},
		{`{"tags":["A"]}`, "tags[0]", "must match the pattern ^[a-z]+$"},
		{`{"v":"abcd"}`, "v", "matches none of the allowed shapes"},
		{`{"v":null}`, "v", "matches none of the allowed shapes"},
		{`{"e":"b"}`, "e", `must be one of "a", 1`},
		{`{"c":{"k":[2]}}`, "c", `must be {"k":[1]}`},
		{`{"r":"y"}`, "r", `must be one of "x"`},
		{`{"u":"not a uri"}`, "u", "must be an absolute URI"},
	}
	for _, c := range cases {
		e := check(t, s, c.in)
		if c.msg == "" {
			assert.Check(t, e == nil, "%s: %v", c.in, e)
			continue
		}
		if assert.Check(t, e != nil, "%s: want %q", c.in, c.msg) {
			assert.Check(t, is.Equal(e.Path, c.path), c.in)
			assert.Check(t, is.Equal(e.Msg, c.msg), c.in)
		}
	}
}

// TestUnsupportedKeywordsDoNotCompile: fail closed. A keyword the validator cannot enforce refuses
// the schema rather than letting input through unchecked.
func TestUnsupportedKeywordsDoNotCompile(t *testing.T) {
	for _, doc := range []string{
		`{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}`,
		`{"type":"object","properties":{"a":{"prefixItems":[{"type":"string"}]}}}`,
		`{"type":"object","unevaluatedProperties":false}`,
		`{"type":"object","dependentRequired":{"a":["b"]}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
		`{"type":"object","properties":{"a":{"$ref":"https://elsewhere.example/s.json"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`,
		`{"type":"object","properties":{"a":{"pattern":"(?=lookahead)"}}}`,
		`{"type":"thing"}`,
		`{"type":"object","minLength":-1}`,
		`{"type":"object","type":"string"}`,
		`[]`,
	} {
		_, err := Compile([]byte(doc))
		assert.Check(t, err != nil, "compiled: %s", doc)
	}
}

func TestAnnotationsAndVendorKeywordsAreIgnored(t *testing.T) {
	s := mustCompile(t, `{"$id":"https://schemas.abcd.dev/v1/x.schema.json","title":"x","description":"d","$comment":"c",
		"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A","default":"z","examples":["q"]}}}`)
	assert.Check(t, check(t, s, `{"a":"b"}`) == nil)
}

func TestPropertyNames(t *testing.T) {
	s := mustCompile(t, `{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"additionalProperties":{"type":"integer"}}`)
	assert.Check(t, check(t, s, `{"ab":1}`) == nil)
	e := check(t, s, `{"aB":1}`)
	assert.Assert(t, e != nil)
	assert.Check(t, is.Equal(e.Error(), "aB: is not an allowed field name: must match the pattern ^[a-z]+$"))
}

func TestBooleanSchemas(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"never":false,"any":true}}`)
	assert.Check(t, check(t, s, `{"any":[1,{}]}`) == nil)
	e := check(t, s, `{"never":1}`)
	assert.Assert(t, e != nil)
	assert.Check(t, is.Equal(e.Error(), "never: is not allowed here"))
}

func TestErrorsAreDeterministic(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}}}`)
	for range 20 {
		e := check(t, s, `{"c":1,"b":1,"a":1}`)
		assert.Assert(t, e != nil)
		assert.Check(t, is.Equal(e.Path, "a"))
	}
	assert.Check(t, strings.Contains(check(t, s, `{"b":true}`).Error(), "b: must be a string, got a boolean"))
}

// TestPathsAreWrittenOnlyOnFailure: a value's path is formatted only when it fails, with each key
// clipped, so a 1 MiB key over 20,000 array items costs neither 20 GiB of path strings nor a 1 MiB
// error.
func TestPathsAreWrittenOnlyOnFailure(t *testing.T) {
	s := mustCompile(t, `{"type":"object","additionalProperties":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}`)
	key := strings.Repeat("k", 1<<20)
	items := make([]any, 20_000)
	for i := range items {
		items[i] = map[string]any{"n": json.Number("1")}
	}
	items[len(items)-1] = map[string]any{"n": "one"}
	e := s.Validate(map[string]any{key: items})
	assert.Assert(t, e != nil)
	assert.Check(t, is.Equal(e.Path, strings.Repeat("k", 80)+"…[19999].n"))
	assert.Check(t, is.Equal(e.Msg, "must be an integer, got a string"))
}
