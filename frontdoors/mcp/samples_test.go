package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/ports/verb"
)

// explicitSamples are inputs for verbs whose interesting cases a generator cannot guess: each verb
// is exercised with these and with the minimal input its schema implies. A verb needs an entry here
// only when its input has a required field the generator cannot fill (a pattern, say).
var explicitSamples = map[string][]string{
	"schema_show":  {`{"name":"refusal"}`, `{"name":"https://schemas.abcd.dev/v1/status.result.schema.json"}`, `{"name":"no_such_schema"}`},
	"config_show":  {`{"key":"no.such.key"}`},
	"ahoy_install": {`{"yes":true}`},
	"intent_audit": {`{"intent":"first","base":"HEAD~1"}`},
	// The loop state has a run of the spec under way: a second one is started only on purpose.
	"implement_start": {`{"spec":"first","again":true}`},
	// A record file's path, the shape lint names: the merged state's second record under one id, and
	// one no record has, refused as missing.
	"record_renumber": {`{"file":"` + mergedTwin + `"}`, `{"file":".abcd/work/issues/open/iss-2611300000000009-none.md"}`},
	// Every session file of the repository's sessions on the machine (the loop state holds one).
	"history_capture": {`{"all":true}`},
	// Allowing a weaker guard file is refused at both doors (no person at a terminal); withdrawing
	// an allow needs no one and answers.
	"guard_allow": {`{"revoke":true}`},
}

// The end-to-end merged state holds an issue in both its folders and a second issue under its id,
// these.
const (
	mergedID   = "iss-2611300000000099"
	mergedTwin = ".abcd/work/issues/open/" + mergedID + "-twin-of-it.md"
)

// refSamples are slug fragments of the records the end-to-end repositories hold: an intent
// ("First intent"), an issue ("Something noticed") and a decision ("A ruling").
var refSamples = []string{"first", "something", "ruling"}

// samplesFor is every input a verb is exercised with: the minimal input its published schema
// implies; that input with each field named in extra (and each reference field) set to each of its
// values, so calls reach the records and runs the test repositories hold; then its explicit samples.
func samplesFor(t testing.TB, v verb.Verb, inputSchema []byte, extra map[string][]any) []map[string]any {
	t.Helper()
	doc, err := strictjson.Parse(inputSchema, strictjson.Limits{})
	assert.NilError(t, err)
	values := map[string][]any{}
	for _, field := range []string{"ref", "intent", "spec"} {
		for _, r := range refSamples {
			values[field] = append(values[field], r)
		}
	}
	for k, vs := range extra {
		values[k] = append(values[k], vs...)
	}
	var out []map[string]any
	if minimal, ok := generate(doc.(map[string]any)); ok {
		out = append(out, minimal.(map[string]any))
		props, _ := doc.(map[string]any)["properties"].(map[string]any)
		fields := make([]string, 0, len(values))
		for f := range values {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		for _, field := range fields {
			if _, ok := props[field]; !ok {
				continue
			}
			for _, val := range values[field] {
				m := map[string]any{}
				for k, v := range minimal.(map[string]any) {
					m[k] = v
				}
				m[field] = val
				out = append(out, m)
			}
		}
	}
	for _, s := range explicitSamples[v.Name] {
		var m map[string]any
		assert.NilError(t, json.Unmarshal([]byte(s), &m), "sample for %s", v.Name)
		out = append(out, m)
	}
	assert.Assert(t, len(out) > 0, "verb %s has a required input field no generator can fill: add an input for it to explicitSamples in frontdoors/mcp/samples_test.go", v.Name)
	return out
}

// generate makes the smallest value a schema accepts, or false when it cannot tell what that is.
func generate(schema map[string]any) (any, bool) {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0], true
	}
	if c, ok := schema["const"]; ok {
		return c, true
	}
	if one, ok := schema["oneOf"].([]any); ok && len(one) > 0 {
		if sub, ok := one[0].(map[string]any); ok {
			return generate(sub)
		}
	}
	t, _ := schema["type"].(string)
	switch t {
	case "object":
		obj := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		req, _ := schema["required"].([]any)
		for _, r := range req {
			name := r.(string)
			sub, ok := props[name].(map[string]any)
			if !ok {
				return nil, false
			}
			v, ok := generate(sub)
			if !ok {
				return nil, false
			}
			obj[name] = v
		}
		return obj, true
	case "string":

		if _, hasFormat := schema["format"]; hasFormat {
			return nil, false
		}
		n := 1
		if ml, ok := schema["minLength"].(json.Number); ok {
			if v, err := ml.Int64(); err == nil && v > 1 {
				n = int(v)
			}
		}
		v := strings.Repeat("a", n)
		if p, hasPattern := schema["pattern"].(string); hasPattern {
			// A pattern the plain string does not match is one the generator cannot satisfy.
			if re, err := regexp.Compile(p); err != nil || !re.MatchString(v) {
				return nil, false
			}
		}
		return v, true
	case "integer", "number":
		if m, ok := schema["minimum"].(json.Number); ok {
			return m, true
		}
		return json.Number("1"), true
	case "boolean":
		return false, true
	case "array":
		if mi, ok := schema["minItems"].(json.Number); ok && mi != "0" {
			items, ok := schema["items"].(map[string]any)
			if !ok {
				return nil, false
			}
			v, ok := generate(items)
			if !ok {
				return nil, false
			}
			n, _ := mi.Int64()
			arr := make([]any, n)
			for i := range arr {
				arr[i] = v
			}
			return arr, true
		}
		return []any{}, true
	}
	return nil, false
}

// wrongTypeValues are values of every JSON type but the ones a property schema allows.
func wrongTypeValues(prop map[string]any) []any {
	all := map[string]any{
		"string": "x", "integer": json.Number("7"), "boolean": true, "object": map[string]any{"k": "v"},
		"array": []any{"x"}, "null": nil,
	}
	var allowed []string
	switch t := prop["type"].(type) {
	case string:
		allowed = []string{t}
	case []any:
		for _, e := range t {
			allowed = append(allowed, fmt.Sprint(e))
		}
	default:
		return nil
	}
	if slices.Contains(allowed, "number") {
		allowed = append(allowed, "integer")
	}
	names := []string{"string", "integer", "boolean", "object", "array", "null"}
	var out []any
	for _, n := range names {
		if !slices.Contains(allowed, n) {
			out = append(out, all[n])
		}
	}
	return out
}
