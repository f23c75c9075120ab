package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/domain/rules"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/verb"
)

// modulePrefix is the workspace's one module path prefix; Go comments are looked up under it.
const modulePrefix = "github.com/abcd-dev/abcd"

// schemaDoc is one schema to publish.
type schemaDoc struct {
	name      string
	role      contract.Role
	verb      string
	describes string
	typ       reflect.Type
}

// documents lists every published schema: each verb's input and result, then the documents that are
// no single verb's. Run state is private and is not here.
func documents() []schemaDoc {
	var docs []schemaDoc
	for _, v := range app.Table() {
		docs = append(docs,
			schemaDoc{v.Name + ".input", contract.RoleInput, v.Name, "the input of " + cliName(v) + " (MCP inputSchema)", v.InputType()},
			schemaDoc{v.Name + ".result", contract.RoleResult, v.Name, "the result of " + cliName(v) + " --json (MCP outputSchema)", v.ResultType()},
		)
	}
	docs = append(docs,
		schemaDoc{"refusal", contract.RoleDocument, "", "what --json prints instead of a result when a verb refuses, meets contention or faults", reflect.TypeFor[refusal.Document]()},
		schemaDoc{"schema_index", contract.RoleDocument, "", "schemas/v1/index.json: every published schema with its $id", reflect.TypeFor[contract.Index]()},
		schemaDoc{"config", contract.RoleDocument, "", ".abcd/config.json and $ABCD_HOME/config.json: the layered configuration files", reflect.TypeFor[config.File]()},
		schemaDoc{"oracle_routing", contract.RoleDocument, "", ".abcd/config/oracle-routing.json and $ABCD_HOME/oracle-routing.json: per-agent model-tier routing", reflect.TypeFor[oracle.RoutingFile]()},
		schemaDoc{"route_request", contract.RoleDocument, "", "the routing block of a step that hands work to an agent: the tier, bound and layer that decided it", reflect.TypeFor[oracle.RequestRouting]()},
		schemaDoc{"route_receipt", contract.RoleDocument, "", "the route block of a step's receipt: the route asked for, the route that ran, and why they differ", reflect.TypeFor[oracle.Receipt]()},
		schemaDoc{"intent_front_matter", contract.RoleDocument, "", "the front matter of an intent record (itd-<id>-<slug>.md)", reflect.TypeFor[record.IntentFrontMatter]()},
		schemaDoc{"spec_front_matter", contract.RoleDocument, "", "the front matter of a spec record (spc-<id>-<slug>.md)", reflect.TypeFor[record.SpecFrontMatter]()},
		schemaDoc{"issue_front_matter", contract.RoleDocument, "", "the front matter of an issue record (iss-<id>-<slug>.md)", reflect.TypeFor[record.IssueFrontMatter]()},
		schemaDoc{"decision_front_matter", contract.RoleDocument, "", "the front matter of a decision record (dcn-<id>-<slug>.md)", reflect.TypeFor[record.DecisionFrontMatter]()},
		schemaDoc{"implementer_receipt", contract.RoleDocument, "", "the receipt an implementer agent writes at its await's return path", reflect.TypeFor[review.ImplementerReceipt]()},
		schemaDoc{"audit_return", contract.RoleDocument, "", "the intent-auditor's return: one verdict per acceptance criterion", reflect.TypeFor[review.AuditReturn]()},
		schemaDoc{"review_reply", contract.RoleDocument, "", "a reviewer's reply from a provider (its response_format): summary, findings and the verdict word", reflect.TypeFor[review.ReviewReply]()},
		schemaDoc{"fallback_receipt", contract.RoleDocument, "", "a route that did not return: the step went to the host with the same brief", reflect.TypeFor[review.FallbackReceipt]()},
		schemaDoc{"notify_event", contract.RoleDocument, "", "the JSON event build.notify's command reads on its stdin when an implement run finishes, needs the person, stops at its budget or fails", reflect.TypeFor[loop.NotifyEvent]()},
		schemaDoc{"runner_receipt", contract.RoleDocument, "", "what one step on a runner (a headless coding-agent CLI) did: the CLI, the models, the terminal event, the bounds met and the cause of a failure", reflect.TypeFor[runner.Receipt]()},
		schemaDoc{"agent_front_matter", contract.RoleDocument, "", "the front matter of an agent definition (agents/<name>.md)", reflect.TypeFor[roster.FrontMatter]()},
		schemaDoc{"guard_rules", contract.RoleDocument, "", "the guard's rules: the built-in registry and a repository's .abcd/guard.json", reflect.TypeFor[guard.File]()},
		schemaDoc{"guard_allowed", contract.RoleDocument, "", "$ABCD_HOME/guard-allowed.json: the repository guard files the person allowed to weaken the guard on this machine", reflect.TypeFor[guard.AllowFile]()},
		schemaDoc{"rules_file", contract.RoleDocument, "", "the rules' layers: abcd's bundled domains, $ABCD_HOME/rules.json and a repository's .abcd/rules.json", reflect.TypeFor[rules.File]()},
	)
	sort.Slice(docs, func(i, j int) bool { return docs[i].name < docs[j].name })
	return docs
}

func cliName(v verb.Verb) string { return "abcd " + strings.Join(v.Path, " ") }

// scalarSchema is a setting's value: never an object, an array or null.
func scalarSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string", MaxLength: ptr(uint64(256))}, {Type: "number"}, {Type: "boolean"}}}
}

func ptr[T any](v T) *T { return &v }

// ruleSchema is a self-checking value type's schema: what its own check says, and no more.
func ruleSchema(r contract.Rule) *jsonschema.Schema {
	if len(r.Ints) > 0 {
		s := &jsonschema.Schema{Type: "integer", Description: r.Description}
		for _, v := range r.Ints {
			s.Enum = append(s.Enum, v)
		}
		return s
	}
	s := &jsonschema.Schema{Type: "string", Description: r.Description, Pattern: r.Pattern}
	if len(r.Meanings) > 0 {
		if len(r.Meanings) != len(r.Enum) {
			panic(fmt.Sprintf("a rule gives %d meanings for %d values", len(r.Meanings), len(r.Enum)))
		}
		for i, e := range r.Enum {
			s.OneOf = append(s.OneOf, &jsonschema.Schema{Const: e, Description: r.Meanings[i]})
		}
		return s
	}
	if r.MinLength > 0 {
		s.MinLength = ptr(uint64(r.MinLength))
	}
	if r.MaxLength > 0 {
		s.MaxLength = ptr(uint64(r.MaxLength))
	}
	for _, e := range r.Enum {
		s.Enum = append(s.Enum, e)
	}
	return s
}

// newReflector is configured for the contract: everything inlined (no $ref, so no root that is a
// $ref), closed objects, required from the absence of omitempty, descriptions from Go comments.
func newReflector(root string) (*jsonschema.Reflector, error) {
	r := &jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	inner := &jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	r.Mapper = func(t reflect.Type) *jsonschema.Schema {
		if t.Kind() == reflect.String && t.Implements(reflect.TypeFor[contract.Described]()) {
			return ruleSchema(reflect.Zero(t).Interface().(contract.Described).SchemaRule())
		}
		if t.Implements(reflect.TypeFor[contract.Enumerated]()) {
			return ruleSchema(reflect.Zero(t).Interface().(contract.Enumerated).SchemaEnum())
		}
		switch t {
		case reflect.TypeFor[oracle.Scalar]():
			return scalarSchema()
		case reflect.TypeFor[oracle.Settings]():
			return &jsonschema.Schema{Type: "object", MaxProperties: ptr(uint64(16)),
				PropertyNames:        &jsonschema.Schema{Type: "string", Pattern: `^[a-z][a-z0-9_]{0,63}$`},
				AdditionalProperties: scalarSchema()}
		case reflect.TypeFor[oracle.RoutingAgents]():
			row := inner.ReflectFromType(reflect.TypeFor[oracle.Row]())
			row.Version = ""
			return &jsonschema.Schema{Type: "object",
				PropertyNames:        &jsonschema.Schema{Type: "string", Pattern: `^[a-z][a-z0-9-]{0,63}$`},
				AdditionalProperties: row}
		case reflect.TypeFor[config.ProviderTiers]():
			return &jsonschema.Schema{Type: "object",
				PropertyNames:        ruleSchema(contract.Enum(provider.ServedTiers()...)),
				AdditionalProperties: &jsonschema.Schema{Type: "string", MinLength: ptr(uint64(1)), MaxLength: ptr(uint64(200))}}
		case reflect.TypeFor[config.ProviderDefaults]():
			names := []any{}
			for _, n := range config.ProviderSettings() {
				names = append(names, n)
			}
			return &jsonschema.Schema{Type: "object", MaxProperties: ptr(uint64(len(names))),
				PropertyNames:        &jsonschema.Schema{Type: "string", Enum: names},
				AdditionalProperties: scalarSchema()}
		case reflect.TypeFor[config.ValueText]():
			return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "number"}, {Type: "boolean"},
				{Type: "array", MaxItems: ptr(uint64(256)), Items: &jsonschema.Schema{Type: "string", MaxLength: ptr(uint64(200))}}}}
		case reflect.TypeFor[json.RawMessage]():
			return &jsonschema.Schema{Type: "object", Description: "a JSON Schema document (draft 2020-12), verbatim"}
		}
		return nil
	}
	inner.Mapper = r.Mapper
	for _, mod := range []string{"domain", "ports"} {
		if err := withDir(root, func() error { return r.AddGoComments(modulePrefix, mod) }); err != nil {
			return nil, fmt.Errorf("reading Go comments of %s: %w", mod, err)
		}
	}
	inner.CommentMap = r.CommentMap
	return r, nil
}

// applyFields walks a reflected schema beside its Go type and writes every member a struct names in
// its contract.Fields from that member's Rule, keeping the member's description.
func applyFields(s *jsonschema.Schema, t reflect.Type) {
	if s == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		applyFields(s.Items, t.Elem())
	case reflect.Map:
		applyFields(s.AdditionalProperties, t.Elem())
	case reflect.Struct:
		if s.Properties == nil {
			return
		}
		var rules map[string]contract.Rule
		if f, ok := reflect.Zero(t).Interface().(contract.Fields); ok {
			rules = f.SchemaFields()
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				applyFields(s, f.Type)
				continue
			}
			prop, ok := s.Properties.Get(name)
			if !ok {
				continue
			}
			if rule, ok := rules[name]; ok {
				described := ruleSchema(rule)
				if described.Description == "" {
					described.Description = prop.Description
				}
				s.Properties.Set(name, described)
				continue
			}
			applyFields(prop, f.Type)
		}
	}
}

// withDir runs f in dir, because Go comments are keyed by the path they are walked from.
func withDir(dir string, f func() error) error {
	prev, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Chdir(dir); err != nil {
		return err
	}
	defer func() { _ = os.Chdir(prev) }()
	return f()
}

// Generate reflects every document and returns the files of schemas/v1 by name, index.json included.
// It refuses a schema that breaks the contract's rules or changes the meaning of a published one.
func Generate(root string, published map[string]string) (map[string][]byte, error) {
	r, err := newReflector(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	idx := contract.Index{SchemaVersion: 1, Namespace: contract.Namespace, Schemas: []contract.Entry{}}
	var problems []string
	for _, d := range documents() {
		s := r.ReflectFromType(d.typ)
		applyFields(s, d.typ)
		s.ID = jsonschema.ID(contract.ID(d.name))
		s.Title = d.name
		if s.Description == "" {
			s.Description = d.describes
		}
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		data = append(text.EscapeUnseenJSON(data), '\n')
		for _, p := range Lint(d.role, data) {
			problems = append(problems, d.name+": "+p)
		}
		if want, ok := published[d.name]; ok {
			got, err := MeaningDigest(data)
			if err != nil {
				return nil, err
			}
			if got != want {
				problems = append(problems, fmt.Sprintf("%s is published in %s and its meaning changed (ledger %s, now %s): a published schema never changes meaning; revert the type change, or publish the change under a new version",
					d.name, contract.Version, short(want), short(got)))
			}
		}
		out[contract.FileName(d.name)] = data
		idx.Schemas = append(idx.Schemas, contract.Entry{Name: d.name, ID: contract.ID(d.name), File: contract.FileName(d.name), Role: d.role, Verb: d.verb, Describes: d.describes})
	}
	for name := range published {
		if _, ok := out[contract.FileName(name)]; !ok {
			problems = append(problems, fmt.Sprintf("%s is published in %s and is no longer generated: a published schema is never withdrawn from its version", name, contract.Version))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("schemas refused:\n  %s", strings.Join(problems, "\n  "))
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, err
	}
	out["index.json"] = append(data, '\n')
	return out, nil
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// annotations are the keywords that say nothing about which documents validate.
var annotations = map[string]bool{"title": true, "description": true, "examples": true, "$comment": true}

// MeaningDigest hashes a schema with its annotations removed, so a reworded description is not a new
// meaning but a changed type, bound or required member is.
func MeaningDigest(data []byte) (string, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return "", err
	}
	canon, err := json.Marshal(stripAnnotations(v, false))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// stripAnnotations removes annotation keywords; inPropertyMap is true for the children of
// "properties", whose keys are member names and never keywords.
func stripAnnotations(v any, inPropertyMap bool) any {
	switch t := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, child := range t {
			if !inPropertyMap && annotations[k] {
				continue
			}
			m[k] = stripAnnotations(child, !inPropertyMap && (k == "properties" || k == "$defs" || k == "patternProperties"))
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, child := range t {
			s[i] = stripAnnotations(child, false)
		}
		return s
	}
	return v
}

// Lint checks one generated schema against the contract's rules and returns each violation.
func Lint(role contract.Role, data []byte) []string {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return []string{"not a JSON object: " + err.Error()}
	}
	var problems []string
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		problems = append(problems, "$schema is not draft 2020-12")
	}
	if id, _ := root["$id"].(string); !strings.HasPrefix(id, contract.Namespace) {
		problems = append(problems, "$id is outside "+contract.Namespace)
	}
	if root["type"] != "object" {
		problems = append(problems, "root is not type: object")
	}
	if role == contract.RoleInput && root["additionalProperties"] != false {
		problems = append(problems, "input root does not carry additionalProperties: false")
	}
	walkSchema(root, "#", func(path string, s any) {
		switch t := s.(type) {
		case bool:
			if t || !strings.HasSuffix(path, "/additionalProperties") {
				problems = append(problems, path+": boolean sub-schema (give the field a real schema)")
			}
		case map[string]any:
			if len(t) == 0 {
				problems = append(problems, path+": empty sub-schema accepts anything (give the field a real schema)")
			}
			if ref, ok := t["$ref"].(string); ok && !strings.HasPrefix(ref, "#") {
				problems = append(problems, path+": $ref leaves the file: "+ref)
			}
			if p, ok := t["pattern"].(string); ok && strings.Count(p, "{") != strings.Count(p, "}") {
				problems = append(problems, fmt.Sprintf("%s: pattern %q was cut at a comma (struct tags split on commas): write it without one", path, p))
			}
			if typeAllows(t["type"], "null") {
				problems = append(problems, path+": allows null")
			}
		}
	})
	return problems
}

func typeAllows(t any, name string) bool {
	switch v := t.(type) {
	case string:
		return v == name
	case []any:
		for _, e := range v {
			if e == name {
				return true
			}
		}
	}
	return false
}

// subschemaKeys are the keywords whose value is one schema; listKeys hold arrays of schemas;
// mapKeys hold objects of schemas.
var (
	subschemaKeys = []string{"additionalProperties", "items", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems"}
	listKeys      = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	mapKeys       = []string{"properties", "patternProperties", "$defs", "dependentSchemas"}
)

func walkSchema(s any, path string, visit func(string, any)) {
	visit(path, s)
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	for _, k := range subschemaKeys {
		if child, ok := m[k]; ok {
			walkSchema(child, path+"/"+k, visit)
		}
	}
	for _, k := range listKeys {
		if list, ok := m[k].([]any); ok {
			for i, child := range list {
				walkSchema(child, fmt.Sprintf("%s/%s/%d", path, k, i), visit)
			}
		}
	}
	for _, k := range mapKeys {
		if children, ok := m[k].(map[string]any); ok {
			names := make([]string, 0, len(children))
			for n := range children {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				walkSchema(children[n], path+"/"+k+"/"+n, visit)
			}
		}
	}
}

// WorkspaceRoot walks up from dir to the folder holding go.work.
func WorkspaceRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.work above %s", dir)
		}
		d = parent
	}
}
