package instances

import (
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

var schemaDir = filepath.Join("..", "..", "..", "..", "schemas", "v1")

// allCases is Cases over every published schema, generated once for the tests that read them all.
var allCases = sync.OnceValues(func() ([]Case, error) { return Cases(schemaDir) })

// TestCasesAreDeterministic: the instances are a function of the schemas alone, so a verdict that
// differs from ajv's is reproduced by the next run.
func TestCasesAreDeterministic(t *testing.T) {
	a, err := allCases()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Cases(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs generated different cases")
	}
}

// TestOursReachesTheIntendedVerdicts: where a mutation was built to pass or to fail, abcd's
// validator says so; and every keyword the published schemas use is broken by some mutation that
// fails (the node side then holds ajv to every verdict).
func TestOursReachesTheIntendedVerdicts(t *testing.T) {
	cases, err := allCases()
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]bool{}
	for _, c := range cases {
		if c.Intended != nil && *c.Intended != c.Ours {
			t.Errorf("%s %s: built to be %v, abcd says %v (%s): %.200s", c.Schema, c.Name, *c.Intended, c.Ours, c.Why, c.Instance)
		}
		if !c.Ours {
			_, how, _ := strings.Cut(c.Name, ": ")
			word, _, _ := strings.Cut(how, " ")
			broken[word] = true
		}
	}
	for _, keyword := range []string{"type", "required", "additionalProperties", "enum", "pattern", "minLength",
		"maxLength", "minimum", "maximum", "minItems", "maxItems", "uniqueItems", "propertyNames", "maxProperties",
		"oneOf", "format"} {
		if !broken[keyword] {
			t.Errorf("no mutation that breaks %s fails", keyword)
		}
	}
}
