package jsonschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/abcd-dev/abcd/domain/strictjson"
)

// The validator's own cost, for profiling; benchref/ measures it beside santhosh-tekuri's.

func benchSchema(b *testing.B, name string) *Schema {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "schemas", "v1", name))
	if err != nil {
		b.Fatal(err)
	}
	s, err := Compile(data)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkValidateArguments(b *testing.B) {
	s := benchSchema(b, "capture.input.schema.json")
	v, err := strictjson.Parse([]byte(`{"text":"routes resolve with an empty set","severity":"major","source":"ruthless-reviewer","related":["itd-2611300000000001"]}`), strictjson.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if e := s.Validate(v); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkValidateLargeResult(b *testing.B) {
	s := benchSchema(b, "schema_list.result.schema.json")
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "schemas", "v1", "index.json"))
	if err != nil {
		b.Fatal(err)
	}
	var index struct {
		Namespace string `json:"namespace"`
		Schemas   []any  `json:"schemas"`
	}
	if err := json.Unmarshal(data, &index); err != nil {
		b.Fatal(err)
	}
	var entries []any
	for len(entries) < 1000 {
		entries = append(entries, index.Schemas...)
	}
	doc, _ := json.Marshal(map[string]any{"namespace": index.Namespace, "schemas": entries})
	v, err := strictjson.Parse(doc, strictjson.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if e := s.Validate(v); e != nil {
			b.Fatal(e)
		}
	}
}
