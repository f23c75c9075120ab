package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// SchemaListInput takes nothing.
type SchemaListInput struct{}

// SchemaListResult is the published index.
type SchemaListResult struct {
	Namespace string           `json:"namespace" jsonschema:"format=uri"`
	Schemas   []contract.Entry `json:"schemas"`
}

func schemaListVerb() Verb {
	return declare(Verb{
		Name:       "schema_list",
		Path:       []string{"schema", "list"},
		Summary:    "List every published JSON Schema with its $id and what it describes",
		ReadOnly:   true,
		Idempotent: true,
	}, func(_ context.Context, a *App, _ *SchemaListInput) (SchemaListResult, error) {
		idx, err := a.Schemas.Index()
		if err != nil {
			return SchemaListResult{}, err
		}
		schemas := idx.Schemas
		if schemas == nil {
			schemas = []contract.Entry{}
		}
		return SchemaListResult{Namespace: idx.Namespace, Schemas: schemas}, nil
	})
}

// SchemaShowInput names one schema by its index name, its file name or its $id.
type SchemaShowInput struct {
	Name string `json:"name" jsonschema:"minLength=1,maxLength=256"`
}

// SchemaShowResult carries one schema whole.
type SchemaShowResult struct {
	Name   string      `json:"name"`
	ID     string      `json:"id" jsonschema:"format=uri"`
	Schema SchemaValue `json:"schema"`
}

// SchemaValue is a JSON Schema document, carried verbatim.
type SchemaValue = json.RawMessage

// validSchemaName accepts ^[a-z][a-z0-9_]*(\.[a-z]+)?$ without compiling a regexp at start-up.
func validSchemaName(s string) bool {
	base, suffix, dotted := strings.Cut(s, ".")
	if base == "" || base[0] < 'a' || base[0] > 'z' {
		return false
	}
	for i := 1; i < len(base); i++ {
		c := base[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	if !dotted {
		return true
	}
	if suffix == "" {
		return false
	}
	for i := 0; i < len(suffix); i++ {
		if suffix[i] < 'a' || suffix[i] > 'z' {
			return false
		}
	}
	return true
}

func schemaShowVerb() Verb {
	return declare(Verb{
		Name:       "schema_show",
		Path:       []string{"schema", "show"},
		Summary:    "Print one published JSON Schema",
		ReadOnly:   true,
		Idempotent: true,
	}, func(_ context.Context, a *App, in *SchemaShowInput) (SchemaShowResult, error) {
		name := strings.TrimSuffix(strings.TrimPrefix(in.Name, contract.Namespace), ".schema.json")
		if !validSchemaName(name) {
			return SchemaShowResult{}, refusal.New("schema_name_invalid", "abcd schema show",
				fmt.Sprintf("%q is not a schema name (names look like version.result or refusal)", clip(in.Name)),
				"run `abcd schema list` to see every name")
		}
		data, ok, err := a.Schemas.Schema(name)
		if err != nil {
			return SchemaShowResult{}, err
		}
		if !ok {
			return SchemaShowResult{}, refusal.New("schema_unknown", "abcd schema show",
				fmt.Sprintf("no published schema is named %q", name),
				"run `abcd schema list` to see every name")
		}
		return SchemaShowResult{Name: name, ID: contract.ID(name), Schema: data}, nil
	})
}
