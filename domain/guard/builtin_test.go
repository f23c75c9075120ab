package guard

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestBuiltinDecodes(t *testing.T) {
	f, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Rules) < 30 {
		t.Fatalf("%d built-in rules, want at least 30", len(f.Rules))
	}
	if _, err := Compile(f, nil); err != nil {
		t.Fatal(err)
	}
}

// TestDocsListEveryRule holds docs/guard.md to the registry: every built-in rule is documented with
// its tier.
func TestDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile("../../docs/guard.md")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Builtin()
	for _, r := range f.Rules {
		row := "| `" + r.ID + "` | " + string(r.Tier)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/guard.md has no row %q", row)
		}
	}
}

// TestBuiltinLiteralMatchesTheJSON: builtin_gen.go is builtin.json, decoded strictly. After editing
// the JSON, run go generate ./domain/guard/.
func TestBuiltinLiteralMatchesTheJSON(t *testing.T) {
	data, err := os.ReadFile("builtin.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode("builtin.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, builtinLiteral()) {
		t.Fatal("builtin_gen.go differs from builtin.json: run go generate ./domain/guard/")
	}
}
