package instances

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

var schemaDir = filepath.Join("..", "..", "..", "..", "schemas", "v1")

// allCases is Cases over every published schema, generated once for the tests that read them all.
var allCases = sync.OnceValues(func() ([]Case, error) { return Cases(schemaDir) })

// keywords are the schema keywords the published schemas use: some mutation breaks each.
var keywords = []string{"type", "required", "additionalProperties", "enum", "pattern", "minLength",
	"maxLength", "minimum", "maximum", "minItems", "maxItems", "uniqueItems", "propertyNames", "maxProperties",
	"oneOf", "format"}

// TestCasesAreDeterministic: the instances are a function of the schemas alone, so a verdict that
// differs from ajv's is reproduced by the next run.
func TestCasesAreDeterministic(t *testing.T) {
	a, err := allCases()
	if err != nil {
		t.Fatal(err)
	}
	var b []Case
	if testing.Short() {
		// The inner loop generates again the schemas of the documents abcd reads and writes (front
		// matter, receipts, returns, routing, config: a tenth of the work), not the 96 of the verbs'
		// inputs and results. They go through the same generator and between them break every
		// keyword (checked below), so a generation that is not a function of its schema shows there
		// too; without -short every schema is generated again.
		a = slices.DeleteFunc(slices.Clone(a), func(c Case) bool { return isVerbSchema(c.Schema) })
		files, err := filepath.Glob(filepath.Join(schemaDir, "*.schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(files)
		for _, f := range files {
			if isVerbSchema(filepath.Base(f)) {
				continue
			}
			cases, err := CasesOf(schemaDir, filepath.Base(f))
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, cases...)
		}
		for _, keyword := range keywords {
			if !breaks(b, keyword) {
				t.Errorf("the -short slice breaks no %s: widen it", keyword)
			}
		}
	} else if b, err = Cases(schemaDir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs generated different cases")
	}
}

func isVerbSchema(file string) bool {
	return strings.HasSuffix(file, ".input.schema.json") || strings.HasSuffix(file, ".result.schema.json")
}

// breaks says some case of cases breaks keyword and is refused.
func breaks(cases []Case, keyword string) bool {
	return slices.ContainsFunc(cases, func(c Case) bool {
		_, how, _ := strings.Cut(c.Name, ": ")
		word, _, _ := strings.Cut(how, " ")
		return !c.Ours && word == keyword
	})
}

// TestOursReachesTheIntendedVerdicts: where a mutation was built to pass or to fail, abcd's
// validator says so; and every keyword the published schemas use is broken by some mutation that
// fails (the node side then holds ajv to every verdict).
func TestOursReachesTheIntendedVerdicts(t *testing.T) {
	cases, err := allCases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Intended != nil && *c.Intended != c.Ours {
			t.Errorf("%s %s: built to be %v, abcd says %v (%s): %.200s", c.Schema, c.Name, *c.Intended, c.Ours, c.Why, c.Instance)
		}
	}
	for _, keyword := range keywords {
		if !breaks(cases, keyword) {
			t.Errorf("no mutation that breaks %s fails", keyword)
		}
	}
}
