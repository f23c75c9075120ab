package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema"
)

// titleCase is one of the generated titles domain/record keeps with the rule's outcome.
type titleCase struct {
	Title  string `json:"title"`
	Typed  string `json:"typed"`  // the refusal code of the title as typed, "" when taken
	Stored bool   `json:"stored"` // whether a record file may hold it
}

func titleCases(t *testing.T) []titleCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "domain", "record", "testdata", "title-cases.json"))
	assert.NilError(t, err)
	var cases []titleCase
	assert.NilError(t, json.Unmarshal(data, &cases))
	assert.Assert(t, len(cases) > 100)
	return cases
}

// takes reports whether the compiled schema takes doc.
func takes(t *testing.T, s *jsonschema.Schema, doc map[string]any) bool {
	t.Helper()
	data, err := json.Marshal(doc)
	assert.NilError(t, err)
	tree, err := strictjson.Parse(data, strictjson.Limits{MaxDepth: 16})
	assert.NilError(t, err)
	return s.Validate(tree) == nil
}

// TestTitleRuleThroughBothDoors: a title's length is counted in one unit, characters, and one rule
// decides it everywhere. For every generated title the published intent_new input schema, the CLI
// and the MCP server take it or refuse it alike, with the same code; and the published front matter
// schema takes a record file's title exactly when the file check does. (Under -short, every fifth
// case and the boundaries.)
func TestTitleRuleThroughBothDoors(t *testing.T) {
	t.Parallel() // its own world
	input, err := jsonschema.Compile(publishedSchema(t, "intent_new.input"))
	assert.NilError(t, err)
	front, err := jsonschema.Compile(publishedSchema(t, "intent_front_matter"))
	assert.NilError(t, err)
	w := newWorld(t, stateInstalled)
	s := w.serve()
	s.initialize()
	for i, c := range titleCases(t) {
		if testing.Short() && i%5 != 0 && !strings.Contains(c.Title, "éééé") {
			continue
		}
		assert.Check(t, takes(t, input, map[string]any{"title": c.Title}) == (c.Typed == ""),
			"%q: the input schema and the type disagree (type: %q)", c.Title, c.Typed)
		fm := map[string]any{"id": "itd-2611300000000001", "type": "intent", "title": c.Title, "lifecycle": "drafts",
			"kind": "standalone", "severity": "major", "created": "2026-11-30"}
		assert.Check(t, takes(t, front, fm) == c.Stored, "%q: the front matter schema and the file check disagree (file: %v)", c.Title, c.Stored)

		mcpCode := doorCode(t, outcome(t, s.callTool(i+1, "intent_new", map[string]any{"title": c.Title}, false)))
		assert.Check(t, mcpCode == c.Typed, "%q over MCP: %q, want %q", c.Title, mcpCode, c.Typed)
		if strings.ContainsRune(c.Title, 0) {
			continue // a command line cannot carry NUL
		}
		res := w.abcd(-1, "intent", "new", "--json", "--", c.Title)
		cliCode := ""
		if res.code != 0 {
			assert.Check(t, res.code == 2, "%q: exit %d: %s", c.Title, res.code, res.stderr)
			cliCode = refusalCode(t, res.stdout)
		}
		assert.Check(t, cliCode == c.Typed, "%q through the CLI: %q, want %q", c.Title, cliCode, c.Typed)
	}
	s.close()
}

// doorCode is a tool call's refusal code, "" for a result.
func doorCode(t *testing.T, o callOutcome) string {
	t.Helper()
	if !o.isError {
		return ""
	}
	return refusalCode(t, o.doc)
}

func refusalCode(t *testing.T, doc string) string {
	t.Helper()
	var r struct {
		Code string `json:"code"`
	}
	assert.NilError(t, json.Unmarshal([]byte(doc), &r), doc)
	return r.Code
}
