package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/verb"
)

// tool is one verb served as an MCP tool.
type tool struct {
	verb verb.Verb
	def  json.RawMessage // the Tool object as tools/list lists it
}

// toolDef is the Tool object: name, title, description, both schemas and the annotations. Every
// annotation is written out, true or false, because an absent hint means destructive and open-world.
type toolDef struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  toolAnnotations `json:"annotations"`
}

type toolAnnotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// Withheld is a verb the server does not serve, and why. A verb is withheld rather than served with
// a schema that is missing or breaks clients.
type Withheld struct {
	Verb   string
	Reason string
}

// buildTools makes one tool per verb, in name order, from the verb table and the published schemas
// read through the catalog port. A verb whose schemas are missing or break a rule MCP clients
// depend on is withheld and reported.
func buildTools(verbs []verb.Verb, cat ports.SchemaCatalog) ([]*tool, []Withheld) {
	verbs = slices.Clone(verbs)
	slices.SortFunc(verbs, func(a, b verb.Verb) int { return strings.Compare(a.Name, b.Name) })
	var tools []*tool
	var withheld []Withheld
	for _, v := range verbs {
		t, err := buildTool(v, cat)
		if err != nil {
			withheld = append(withheld, Withheld{Verb: v.Name, Reason: err.Error()})
			continue
		}
		tools = append(tools, t)
	}
	return tools, withheld
}

func buildTool(v verb.Verb, cat ports.SchemaCatalog) (*tool, error) {
	if !validToolName(v.Name) {
		return nil, fmt.Errorf("the name %q is not plain [a-z0-9_] of 1 to 64 characters", v.Name)
	}
	inDoc, err := loadSchema(cat, v.Name+".input")
	if err != nil {
		return nil, err
	}
	outDoc, err := loadSchema(cat, v.Name+".result")
	if err != nil {
		return nil, err
	}
	def, err := marshal(toolDef{
		Name:         v.Name,
		Title:        "abcd " + strings.Join(v.Path, " "),
		Description:  v.Summary,
		InputSchema:  inDoc,
		OutputSchema: outDoc,
		Annotations: toolAnnotations{
			ReadOnlyHint:    v.ReadOnly,
			DestructiveHint: v.Destructive,
			IdempotentHint:  v.Idempotent,
			OpenWorldHint:   v.OpenWorld,
		},
	})
	if err != nil {
		return nil, err
	}
	return &tool{verb: v, def: def}, nil
}

func validToolName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// loadSchema reads a published schema and checks it as a tool schema. The document is served
// compacted, otherwise as published: the same $id, $schema and keywords.
func loadSchema(cat ports.SchemaCatalog, name string) (json.RawMessage, error) {
	data, ok, err := cat.Schema(name)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	if !ok {
		return nil, fmt.Errorf("no published schema %s", name)
	}
	doc, err := strictjson.Parse(data, strictjson.Limits{MaxDepth: 128})
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	if problem := LintToolSchema(doc); problem != "" {
		return nil, fmt.Errorf("schema %s: %s", name, problem)
	}
	if id, _ := doc.(map[string]any)["$id"].(string); id != "" && id != contract.ID(name) {
		return nil, fmt.Errorf("schema %s has $id %s, want %s", name, id, contract.ID(name))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// LintToolSchema returns what makes a schema unfit to serve as an inputSchema or outputSchema, or ""
// when nothing does. The rules are the ways Go MCP servers have broken clients: a root that is not
// type object (MCP requires it of inputSchema; clients assume it of outputSchema), a root that is a
// $ref, and a sub-schema that constrains nothing (`true`, or an object with no type, enum, const,
// reference or composition), which clients and models cannot use.
func LintToolSchema(doc any) string {
	root, ok := doc.(map[string]any)
	if !ok {
		return "the root is not a schema object"
	}
	if _, ok := root["$ref"]; ok {
		return "the root is a $ref; clients need type object at the root"
	}
	if t, _ := root["type"].(string); t != "object" {
		return `the root is not "type": "object"`
	}
	return lintSub(root, "#", true)
}

var constraining = []string{"type", "enum", "const", "$ref", "oneOf", "anyOf", "allOf", "not"}

func lintSub(v any, at string, top bool) string {
	switch x := v.(type) {
	case bool:
		if x {
			return at + " is the schema true, which accepts anything"
		}
		return ""
	case map[string]any:
		if !top && !slices.ContainsFunc(constraining, func(k string) bool { _, ok := x[k]; return ok }) {
			return at + " constrains nothing (no type, enum, const, $ref or composition)"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			val := x[k]
			where := at + "/" + k
			switch k {
			case "properties", "patternProperties", "$defs":
				if m, ok := val.(map[string]any); ok {
					names := make([]string, 0, len(m))
					for n := range m {
						names = append(names, n)
					}
					slices.Sort(names)
					for _, n := range names {
						if p := lintSub(m[n], where+"/"+n, false); p != "" {
							return p
						}
					}
				}
			case "items", "additionalProperties", "not", "propertyNames":
				if p := lintSub(val, where, false); p != "" {
					return p
				}
			case "allOf", "anyOf", "oneOf":
				if arr, ok := val.([]any); ok {
					for i, e := range arr {
						if p := lintSub(e, fmt.Sprintf("%s/%d", where, i), false); p != "" {
							return p
						}
					}
				}
			}
		}
		return ""
	}
	return at + " is not a schema"
}

// resource is one published schema served as an MCP resource, read-only.
type resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
	schemaName  string
}

// resourceURIPrefix names the schemas as resources. The $id each schema carries names no host a
// client must reach, so the resources use abcd's own scheme rather than the $id's https.
const resourceURIPrefix = "abcd://schemas/v1/"

const schemaMimeType = "application/schema+json"

func buildResources(cat ports.SchemaCatalog) ([]resource, error) {
	idx, err := cat.Index()
	if err != nil {
		return nil, err
	}
	out := make([]resource, 0, len(idx.Schemas))
	for _, e := range idx.Schemas {
		out = append(out, resource{
			URI:         resourceURIPrefix + e.File,
			Name:        e.Name,
			Title:       "abcd schema " + e.Name,
			Description: e.Describes + " ($id " + e.ID + ")",
			MimeType:    schemaMimeType,
			schemaName:  e.Name,
		})
	}
	slices.SortFunc(out, func(a, b resource) int { return strings.Compare(a.URI, b.URI) })
	return out, nil
}
