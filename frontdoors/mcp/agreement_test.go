package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema/instances"
	"github.com/abcd-dev/abcd/ports/app"
)

// inputCases are the generated cases of every verb's published inputSchema, made once for the test
// and the fuzz target's seeds.
var inputCases = sync.OnceValues(func() ([]instances.Case, error) {
	return instances.CasesOf(filepath.Join("..", "..", "schemas", "v1"), "*.input.schema.json")
})

// TestTypedDecodeKeepsTheInputSchema: over every verb's generated input cases (a valid instance and
// mutations that break each keyword of its published inputSchema), the typed decode the verb runs
// takes no instance the schema refuses.
func TestTypedDecodeKeepsTheInputSchema(t *testing.T) {
	t.Parallel() // reads only
	cases, err := inputCases()
	assert.NilError(t, err)
	n := 0
	for _, c := range cases {
		name, ok := strings.CutSuffix(c.Schema, ".input.schema.json")
		if !ok {
			continue
		}
		v, ok := app.Lookup(name)
		assert.Assert(t, ok, "no verb %s", name)
		tree, err := strictjson.Parse([]byte(c.Instance), strictjson.Limits{})
		assert.NilError(t, err)
		args, isObject := tree.(map[string]any)
		if !isObject {
			continue // not a tool call's arguments: the wire refuses it before any decode
		}
		n++
		_, decodeErr := v.Decode(args)
		if decodeErr == nil && !c.Ours {
			t.Errorf("%s %s: the typed decode takes what the schema refuses (%s): %.200s", name, c.Name, c.Why, c.Instance)
		}
		if decodeErr != nil && c.Ours {
			t.Logf("%s %s: the type refuses what the schema takes: %v", name, c.Name, decodeErr)
		}
	}
	assert.Assert(t, n > 500, "only %d input cases", n)
	t.Logf("%d input cases", n)
}

// FuzzTypedDecodeKeepsTheInputSchema searches past the generated cases: for any arguments to any
// verb, what the typed decode takes, the published inputSchema takes. (make fuzz runs it longer.)
func FuzzTypedDecodeKeepsTheInputSchema(f *testing.F) {
	verbs := app.Table()
	schemas := map[string]*jsonschema.Schema{}
	for _, v := range verbs {
		s, err := jsonschema.Compile(publishedInput(f, v.Name))
		if err != nil {
			f.Fatal(err)
		}
		schemas[v.Name] = s
	}
	cases, err := inputCases()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		if name, ok := strings.CutSuffix(c.Schema, ".input.schema.json"); ok && c.Ours {
			for i, v := range verbs {
				if v.Name == name {
					f.Add(uint8(i), []byte(c.Instance))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tree, err := strictjson.Parse(data, strictjson.Limits{MaxDepth: 16})
		args, isObject := tree.(map[string]any)
		if err != nil || !isObject {
			return
		}
		v := verbs[int(which)%len(verbs)]
		if _, err := v.Decode(args); err != nil {
			return
		}
		if e := schemas[v.Name].Validate(args); e != nil {
			t.Fatalf("%s: the typed decode takes what the schema refuses (%v): %s", v.Name, e, data)
		}
	})
}

func publishedInput(f *testing.F, verb string) []byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "schemas", "v1", verb+".input.schema.json"))
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// TestFoundGapsLiveOnTheTypes: the inputs the search found that the typed decode took and the
// schema refused, while the MCP door's runtime check was their only line (the CLI took them). Each
// rule now lives on its type, so both doors refuse them with the type's own code.
func TestFoundGapsLiveOnTheTypes(t *testing.T) {
	for _, c := range []struct {
		verb string
		args map[string]any
		code string
	}{
		{"schema_show", map[string]any{"name": strings.Repeat("a", 257)}, "schema_name_invalid"},
		{"ahoy_connect", map[string]any{"name": "p", "base_url": "HTTPS://example.com/v1", "model": "m"}, "base_url_invalid"},
	} {
		v, _ := app.Lookup(c.verb)
		_, err := v.Decode(c.args)
		r, ok := refusal.As(err)
		assert.Check(t, ok && string(r.Code) == c.code, "%s %v: %v", c.verb, c.args, err)
		s, err := jsonschema.Compile(publishedSchema(t, c.verb+".input"))
		assert.NilError(t, err)
		assert.Check(t, s.Validate(c.args) != nil, "%s %v: the schema takes it", c.verb, c.args)
	}
}
