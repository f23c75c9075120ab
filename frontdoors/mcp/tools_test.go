package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
)

type listedTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
		IdempotentHint  *bool `json:"idempotentHint"`
		OpenWorldHint   *bool `json:"openWorldHint"`
	} `json:"annotations"`
}

func listTools(t *testing.T, s *Server) []listedTool {
	t.Helper()
	replies := exchange(t, s, initializeLine(1, Legacy20251125), request(2, "tools/list", nil))
	var res struct {
		Tools []listedTool `json:"tools"`
	}
	r := byID(t, replies, "2")
	dec := json.NewDecoder(bytes.NewReader(r.Result))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(&res), r.line)
	return res.Tools
}

func compactJSON(t *testing.T, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	assert.NilError(t, json.Compact(&buf, data))
	return buf.String()
}

// TestToolsAreTheVerbTable: one tool per verb, nothing withheld, each carrying its verb's summary,
// the published input and result schemas (same $ids, same keywords) and annotations true to the verb.
func TestToolsAreTheVerbTable(t *testing.T) {
	a := testApp(t)
	s, log := newServer(t, a)
	assert.Check(t, is.Len(s.Withheld(), 0), "withheld: %v", s.Withheld())
	assert.Check(t, is.Equal(log.String(), ""))

	tools := listTools(t, s)
	verbs := app.Table()
	assert.Assert(t, is.Len(tools, len(verbs)))
	for i, v := range verbs {
		tl := tools[i]
		assert.Check(t, is.Equal(tl.Name, v.Name))
		assert.Check(t, is.Equal(tl.Description, v.Summary))
		assert.Check(t, is.Equal(tl.Title, "abcd "+strings.Join(v.Path, " ")))
		for _, sc := range []struct {
			got  json.RawMessage
			name string
		}{{tl.InputSchema, v.Name + ".input"}, {tl.OutputSchema, v.Name + ".result"}} {
			published, ok, err := a.Schemas.Schema(sc.name)
			assert.NilError(t, err)
			assert.Assert(t, ok, sc.name)
			assert.Check(t, is.Equal(string(sc.got), compactJSON(t, published)), "%s is served as published", sc.name)
			var doc struct {
				ID   string `json:"$id"`
				Type string `json:"type"`
			}
			assert.NilError(t, json.Unmarshal(sc.got, &doc))
			assert.Check(t, is.Equal(doc.ID, contract.ID(sc.name)))
			assert.Check(t, is.Equal(doc.Type, "object"))
		}
		an := tl.Annotations
		assert.Assert(t, an.ReadOnlyHint != nil && an.DestructiveHint != nil && an.IdempotentHint != nil && an.OpenWorldHint != nil,
			"every hint is explicit (absent means destructive and open-world): %s", v.Name)
		assert.Check(t, is.Equal(*an.ReadOnlyHint, v.ReadOnly), v.Name)
		assert.Check(t, is.Equal(*an.DestructiveHint, v.Destructive), v.Name)
		assert.Check(t, is.Equal(*an.IdempotentHint, v.Idempotent), v.Name)
		assert.Check(t, is.Equal(*an.OpenWorldHint, v.OpenWorld), v.Name)
		if v.ReadOnly {
			assert.Check(t, !v.Destructive, "a read-only verb cannot be destructive: %s", v.Name)
		}
	}
}

// TestToolsListIsDeterministic: the same bytes every time and from every server, names in order,
// so a client's prompt cache holds.
func TestToolsListIsDeterministic(t *testing.T) {
	first := exchange(t, mustServer(t), initializeLine(1, Legacy20251125), request(2, "tools/list", nil))
	want := byID(t, first, "2").line
	for range 5 {
		got := exchange(t, mustServer(t), initializeLine(1, Legacy20251125), request(2, "tools/list", nil))
		assert.Check(t, is.Equal(byID(t, got, "2").line, want))
	}
	var names []string
	for _, tl := range listTools(t, mustServer(t)) {
		names = append(names, tl.Name)
	}
	assert.Check(t, slices.IsSorted(names), "%v", names)
	for _, n := range names {
		assert.Check(t, validToolName(n), n)
	}
}

func mustServer(t *testing.T) *Server {
	s, _ := newServer(t, testApp(t))
	return s
}

// TestServedSchemasAreClientSafe guards the ways Go servers have broken clients with their
// schemas: a root that is not type object, a $ref root, and `true` or unconstrained sub-schemas.
func TestServedSchemasAreClientSafe(t *testing.T) {
	for _, tl := range listTools(t, mustServer(t)) {
		for _, doc := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
			v, err := strictjson.Parse(doc, strictjson.Limits{})
			assert.NilError(t, err)
			assert.Check(t, is.Equal(LintToolSchema(v), ""), tl.Name)
			assert.Check(t, !bytes.Contains(doc, []byte(":true")) || !hasTrueSchema(v), "%s has a true sub-schema", tl.Name)
		}
	}
}

func hasTrueSchema(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if b, ok := e.(bool); ok && b && (k == "additionalProperties" || k == "items" || k == "not") {
				return true
			}
			if k == "properties" {
				for _, p := range e.(map[string]any) {
					if b, ok := p.(bool); ok && b {
						return true
					}
				}
			}
			if hasTrueSchema(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasTrueSchema(e) {
				return true
			}
		}
	}
	return false
}

func TestLintToolSchemaRefusesWhatBreaksClients(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"$ref":"#/$defs/x","$defs":{"x":{"type":"object"}}}`, "the root is a $ref"},
		{`{"type":"array","items":{"type":"string"}}`, `the root is not "type": "object"`},
		{`{"properties":{}}`, `the root is not "type": "object"`},
		{`{"type":"object","properties":{"any":true}}`, "#/properties/any is the schema true"},
		{`{"type":"object","properties":{"any":{}}}`, "#/properties/any constrains nothing"},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"description":"x"}}}}`, "#/properties/a/items constrains nothing"},
		{`{"type":"object","additionalProperties":true}`, "#/additionalProperties is the schema true"},
		{`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},true]}}}`, "#/properties/v/oneOf/1 is the schema true"},
	} {
		v, err := strictjson.Parse([]byte(c.doc), strictjson.Limits{})
		assert.NilError(t, err)
		assert.Check(t, is.Contains(LintToolSchema(v), c.want), c.doc)
	}
	ok, _ := strictjson.Parse([]byte(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`), strictjson.Limits{})
	assert.Check(t, is.Equal(LintToolSchema(ok), ""))
}

// TestAVerbWithABrokenSchemaIsWithheld: a verb whose schema is missing or would break clients is not
// served, and the server says so on its log; the other verbs are served.
func TestAVerbWithABrokenSchemaIsWithheld(t *testing.T) {
	for _, c := range []struct {
		name, schema, doc, want string
	}{
		{"missing", "version.input", "", "no published schema version.input"},
		{"true sub-schema", "version.result", `{"type":"object","properties":{"x":true}}`, "is the schema true"},
		{"wrong $id", "version.result", `{"$id":"https://schemas.abcd.dev/v1/status.result.schema.json","type":"object"}`, "has $id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := testApp(t)
			sch := a.Schemas.(fake.Schemas)
			files := map[string][]byte{}
			for k, v := range sch.Files {
				files[k] = v
			}
			if c.doc == "" {
				delete(files, c.schema)
			} else {
				files[c.schema] = []byte(c.doc)
			}
			baseline, _ := newServer(t, testApp(t))
			a.Schemas = fake.Schemas{Idx: sch.Idx, Files: files}
			s, log := newServer(t, a)
			assert.Assert(t, slices.Contains(baseline.Tools(), "version"))
			assert.Check(t, is.Len(s.Withheld(), len(baseline.Withheld())+1))
			assert.Check(t, !slices.Contains(s.Tools(), "version"))
			assert.Check(t, is.Len(s.Tools(), len(baseline.Tools())-1))
			assert.Check(t, is.Contains(log.String(), "tool version is not served"))
			assert.Check(t, is.Contains(log.String(), c.want))
			replies := exchange(t, s, initializeLine(1, Legacy20251125), request(2, "tools/call", map[string]any{"name": "version", "arguments": map[string]any{}}))
			r := byID(t, replies, "2")
			assert.Assert(t, r.Error != nil)
			assert.Check(t, is.Equal(r.Error.Code, codeInvalidParams))
		})
	}
}

// TestResourcesAreThePublishedSchemas: every published schema is a read-only resource whose text is
// the published file.
func TestResourcesAreThePublishedSchemas(t *testing.T) {
	a := testApp(t)
	s, _ := newServer(t, a)
	replies := exchange(t, s, initializeLine(1, Legacy20251125), request(2, "resources/list", nil),
		request(3, "resources/read", map[string]any{"uri": "abcd://schemas/v1/refusal.schema.json"}),
		request(4, "resources/read", map[string]any{"uri": "abcd://schemas/v1/nope.schema.json"}),
		request(5, "resources/templates/list", nil))
	var list struct {
		Resources []struct {
			URI, Name, MimeType string
		} `json:"resources"`
	}
	assert.NilError(t, json.Unmarshal(byID(t, replies, "2").Result, &list))
	idx, _ := a.Schemas.Index()
	assert.Check(t, is.Len(list.Resources, len(idx.Schemas)))
	var read struct {
		Contents []struct{ URI, MimeType, Text string } `json:"contents"`
	}
	assert.NilError(t, json.Unmarshal(byID(t, replies, "3").Result, &read))
	want, _, _ := a.Schemas.Schema("refusal")
	assert.Assert(t, is.Len(read.Contents, 1))
	assert.Check(t, is.Equal(read.Contents[0].Text, string(want)))
	assert.Check(t, is.Equal(read.Contents[0].MimeType, "application/schema+json"))
	missing := byID(t, replies, "4")
	assert.Assert(t, missing.Error != nil)
	assert.Check(t, is.Equal(missing.Error.Code, codeResourceNotFound), "2025 revisions use -32002")
	assert.Check(t, is.Equal(string(byID(t, replies, "5").Result), `{"resourceTemplates":[]}`))

	modern := exchange(t, s, request(6, "resources/read", modernParams(map[string]any{"uri": "abcd://schemas/v1/nope.schema.json"})))
	assert.Check(t, is.Equal(byID(t, modern, "6").Error.Code, codeInvalidParams), "2026-07-28 uses -32602")
}
