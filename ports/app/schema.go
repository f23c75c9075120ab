package app

import (
	"context"
	"encoding/json"
	"fmt"

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
	}, schemaList)
}

func schemaList(_ context.Context, a *App, _ *SchemaListInput) (SchemaListResult, error) {
	idx, err := a.Schemas.Index()
	if err != nil {
		return SchemaListResult{}, err
	}
	schemas := idx.Schemas
	if schemas == nil {
		schemas = []contract.Entry{}
	}
	return SchemaListResult{Namespace: idx.Namespace, Schemas: schemas}, nil
}

// SchemaShowInput names one schema by its index name, its file name or its $id.
type SchemaShowInput struct {
	Name contract.SchemaName `json:"name"`
}

// SchemaShowResult carries one schema whole.
type SchemaShowResult struct {
	Name   string      `json:"name"`
	ID     string      `json:"id" jsonschema:"format=uri"`
	Schema SchemaValue `json:"schema"`
}

// SchemaValue is a JSON Schema document, carried verbatim.
type SchemaValue = json.RawMessage

func schemaShowVerb() Verb {
	return declare(Verb{
		Name:       "schema_show",
		Path:       []string{"schema", "show"},
		Summary:    "Print one published JSON Schema",
		ReadOnly:   true,
		Idempotent: true,
	}, schemaShow)
}

func schemaShow(_ context.Context, a *App, in *SchemaShowInput) (SchemaShowResult, error) {
	name := string(in.Name)
	data, ok, err := a.Schemas.Schema(name)
	if err != nil {
		return SchemaShowResult{}, err
	}
	if !ok {
		return SchemaShowResult{}, refusal.New("schema_unknown", "",
			fmt.Sprintf("no published schema is named %q", name),
			refusal.Run("schema_list"), " to see every name").On("schema_show", "name")
	}
	return SchemaShowResult{Name: name, ID: contract.ID(name), Schema: data}, nil
}
