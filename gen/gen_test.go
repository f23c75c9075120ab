package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/ports/app"
)

func workspace(t *testing.T) string {
	t.Helper()
	root, err := WorkspaceRoot(".")
	assert.NilError(t, err)
	return root
}

// generate is what gen writes today. The tests that only read it share one generation (a copy of
// its map each); generateAgain makes another.
func generate(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := generated()
	assert.NilError(t, err)
	return maps.Clone(files)
}

var generated = sync.OnceValues(generateAgain)

func generateAgain() (map[string][]byte, error) {
	root, err := WorkspaceRoot(".")
	if err != nil {
		return nil, err
	}
	ledger, err := ReadLedger(root)
	if err != nil {
		return nil, err
	}
	return Generate(root, ledger)
}

// The drift gate: the committed schemas are exactly what the Go types generate today.
func TestCommittedSchemasMatchTheGoTypes(t *testing.T) {
	problems := Drift(workspace(t), generate(t))
	assert.Assert(t, len(problems) == 0, "schemas drifted:\n%s", strings.Join(problems, "\n"))
}

func TestDriftNamesTheFileAndTheFix(t *testing.T) {
	files := generate(t)
	root := t.TempDir()
	dir := filepath.Join(root, "schemas", contract.Version)
	assert.NilError(t, os.MkdirAll(dir, 0o755))
	for name, data := range files {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	assert.Assert(t, is.Len(Drift(root, files), 0))

	changed := files["status.result.schema.json"]
	changed = []byte(strings.Replace(string(changed), `"minimum": 0`, `"minimum": 1`, 1))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "status.result.schema.json"), changed, 0o644))
	assert.NilError(t, os.Remove(filepath.Join(dir, "version.input.schema.json")))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "old.schema.json"), []byte("{}"), 0o644))

	problems := Drift(root, files)
	assert.DeepEqual(t, problems, []string{
		"schemas/v1/old.schema.json is no longer generated: run `make schemas` to remove it",
		"schemas/v1/status.result.schema.json differs from the Go types: run `make schemas` and commit it",
		"schemas/v1/version.input.schema.json is missing: run `make schemas` and commit it",
	})
}

func TestGenerationIsDeterministic(t *testing.T) {
	a := generate(t)
	b, err := generateAgain()
	assert.NilError(t, err)
	assert.Equal(t, len(a), len(b))
	for name := range a {
		assert.Equal(t, string(a[name]), string(b[name]), name)
	}
}

func TestEveryVerbHasAnInputAndAResultSchema(t *testing.T) {
	files := generate(t)
	var idx contract.Index
	assert.NilError(t, json.Unmarshal(files["index.json"], &idx))
	roles := map[string]map[contract.Role]bool{}
	for _, e := range idx.Schemas {
		assert.Equal(t, e.ID, contract.ID(e.Name))
		_, ok := files[e.File]
		assert.Assert(t, ok, "index lists %s but no file is generated", e.File)
		if e.Verb != "" {
			if roles[e.Verb] == nil {
				roles[e.Verb] = map[contract.Role]bool{}
			}
			roles[e.Verb][e.Role] = true
		}
	}
	for _, v := range app.Table() {
		assert.Assert(t, roles[v.Name][contract.RoleInput], "verb %s has no input schema", v.Name)
		assert.Assert(t, roles[v.Name][contract.RoleResult], "verb %s has no result schema", v.Name)
	}
}

func TestEveryGeneratedSchemaKeepsTheContractRules(t *testing.T) {
	files := generate(t)
	var idx contract.Index
	assert.NilError(t, json.Unmarshal(files["index.json"], &idx))
	for _, e := range idx.Schemas {
		assert.Assert(t, is.Len(Lint(e.Role, files[e.File]), 0), e.Name)
		var s map[string]any
		assert.NilError(t, json.Unmarshal(files[e.File], &s))
		assert.Equal(t, s["$id"], e.ID)
		assert.Equal(t, s["title"], e.Name)
	}
}

func TestLintRefusesEachBrokenRule(t *testing.T) {
	head := `"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://schemas.abcd.dev/v1/x.schema.json"`
	cases := []struct {
		name   string
		role   contract.Role
		schema string
		want   string
	}{
		{"root is a $ref", contract.RoleResult, `{` + head + `,"$ref":"#/$defs/X","$defs":{"X":{"type":"object"}}}`, "root is not type: object"},
		{"input left open", contract.RoleInput, `{` + head + `,"type":"object"}`, "input root does not carry additionalProperties: false"},
		{"a true sub-schema", contract.RoleResult, `{` + head + `,"type":"object","properties":{"v":true}}`, "#/properties/v: boolean sub-schema"},
		{"an empty sub-schema", contract.RoleResult, `{` + head + `,"type":"object","properties":{"v":{}}}`, "#/properties/v: empty sub-schema"},
		{"a $ref out of the file", contract.RoleResult, `{` + head + `,"type":"object","properties":{"v":{"$ref":"other.json"}}}`, "$ref leaves the file"},
		{"null allowed", contract.RoleResult, `{` + head + `,"type":"object","properties":{"v":{"type":["array","null"]}}}`, "#/properties/v: allows null"},
		{"wrong draft", contract.RoleResult, `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://schemas.abcd.dev/v1/x.schema.json","type":"object"}`, "not draft 2020-12"},
		{"foreign $id", contract.RoleResult, `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/x.json","type":"object"}`, "$id is outside"},
		{"pattern cut at a comma", contract.RoleResult, `{` + head + `,"type":"object","properties":{"v":{"type":"string","pattern":"^[a-z]{0"}}}`, "was cut at a comma"},
		{"nested in oneOf", contract.RoleResult, `{` + head + `,"type":"object","properties":{"v":{"oneOf":[{"type":"string"},true]}}}`, "#/properties/v/oneOf/1: boolean sub-schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(Lint(c.role, []byte(c.schema)), "\n")
			assert.Assert(t, is.Contains(got, c.want))
		})
	}
	ok := `{` + head + `,"type":"object","additionalProperties":false,"properties":{"v":{"type":"object","additionalProperties":false}}}`
	assert.Assert(t, is.Len(Lint(contract.RoleInput, []byte(ok)), 0))
}

func TestPublishedSchemaMeaningCannotChangeSilently(t *testing.T) {
	root := workspace(t)
	files := generate(t)
	digest, err := MeaningDigest(files["refusal.schema.json"])
	assert.NilError(t, err)

	_, err = Generate(root, map[string]string{"refusal": digest})
	assert.NilError(t, err)

	_, err = Generate(root, map[string]string{"refusal": strings.Repeat("0", 64)})
	assert.ErrorContains(t, err, "refusal is published in v1 and its meaning changed")
	assert.ErrorContains(t, err, "new version")

	_, err = Generate(root, map[string]string{"withdrawn": digest})
	assert.ErrorContains(t, err, "withdrawn is published in v1 and is no longer generated")
}

func TestMeaningIgnoresAnnotationsButNotConstraints(t *testing.T) {
	base := `{"type":"object","description":"one","properties":{"description":{"type":"string","title":"t"}},"required":["description"]}`
	reworded := `{"type":"object","description":"two","properties":{"description":{"type":"string","title":"u"}},"required":["description"]}`
	tightened := `{"type":"object","description":"one","properties":{"description":{"type":"string","maxLength":3}},"required":["description"]}`
	dropped := `{"type":"object","description":"one","properties":{},"required":["description"]}`
	d := func(s string) string {
		v, err := MeaningDigest([]byte(s))
		assert.NilError(t, err)
		return v
	}
	assert.Equal(t, d(base), d(reworded))
	assert.Assert(t, d(base) != d(tightened))
	// A member named "description" is a property, not an annotation.
	assert.Assert(t, d(base) != d(dropped))
}

func TestLedgerIsStrict(t *testing.T) {
	root := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(root, "gen"), 0o755))
	ledger, err := ReadLedger(root)
	assert.NilError(t, err)
	assert.Equal(t, len(ledger), 0)
	assert.NilError(t, os.WriteFile(filepath.Join(root, ledgerFile), []byte(`{"refusal": 3}`), 0o644))
	_, err = ReadLedger(root)
	assert.ErrorContains(t, err, ledgerFile)
}

// TestNoTagListsValues: a closed list of values comes from the domain's typed values
// (contract.Enumerated, contract.Described, contract.Fields), never from a struct tag, so a list is
// written once and the schema cannot drift from the code that reads or writes the values.
func TestNoTagListsValues(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			for _, part := range strings.Split(f.Tag.Get("jsonschema"), ",") {
				assert.Check(t, !strings.HasPrefix(part, "enum=") && !strings.HasPrefix(part, "const="),
					"%s.%s lists values in its tag (%s): give the values a type (contract.Enumerated) or the struct contract.Fields", typ, f.Name, part)
			}
			walk(f.Type)
		}
	}
	for _, d := range documents() {
		walk(d.typ)
	}
	assert.Check(t, len(seen) > 50, "walked %d struct types", len(seen))
}
