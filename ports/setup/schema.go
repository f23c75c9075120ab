package setup

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/verb"
)

// SchemaListInput takes nothing.
type SchemaListInput struct{}

// SchemaListResult is the published index.
type SchemaListResult struct {
	Namespace string           `json:"namespace" jsonschema:"format=uri"`
	Schemas   []contract.Entry `json:"schemas"`
}

func SchemaListVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:       "schema_list",
		Path:       []string{"schema", "list"},
		Example:    "abcd schema list",
		Summary:    "List every published JSON Schema with its $id and what it describes",
		ReadOnly:   true,
		Idempotent: true,
	}, schemaList)
}

func schemaList(_ context.Context, a *Deps, _ *SchemaListInput) (SchemaListResult, error) {
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
	Name SchemaName `json:"name"`
}

// SchemaShowResult carries one schema whole.
type SchemaShowResult struct {
	Name   string      `json:"name"`
	ID     string      `json:"id" jsonschema:"format=uri"`
	Schema SchemaValue `json:"schema"`
}

// SchemaValue is a JSON Schema document, carried verbatim.
type SchemaValue = json.RawMessage

func SchemaShowVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:       "schema_show",
		Path:       []string{"schema", "show"},
		Example:    "abcd schema show version.result",
		Summary:    "Print one published JSON Schema",
		ReadOnly:   true,
		Idempotent: true,
	}, schemaShow)
}

func schemaShow(_ context.Context, a *Deps, in *SchemaShowInput) (SchemaShowResult, error) {
	name := string(in.Name)
	data, ok, err := a.Schemas.Schema(name)
	if err != nil {
		return SchemaShowResult{}, err
	}
	if !ok {
		return SchemaShowResult{}, refusal.New(refusal.CodeSchemaUnknown, "",
			fmt.Sprintf("no published schema is named %q", name),
			refusal.Run("schema_list"), " to see every name").On("schema_show", "name")
	}
	return SchemaShowResult{Name: name, ID: contract.ID(name), Schema: data}, nil
}

// SchemaName names one published schema (the schema_show verb's input): its index name
// (version.result), its file name (version.result.schema.json) or its $id. Only the index name is
// kept.
type SchemaName string

// ValidSchemaName reports whether s is an index name: ^[a-z][a-z0-9_]*(\.[a-z]+)?$, checked without
// a regular expression so start-up compiles none.
func ValidSchemaName(s string) bool {
	base, suffix, dotted := strings.Cut(s, ".")
	if base == "" || base[0] < 'a' || base[0] > 'z' {
		return false
	}
	for i := 1; i < len(base); i++ {
		if c := base[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
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

// UnmarshalText strips the namespace and the file suffix and refuses what is then not an index
// name (schema_name_invalid).
func (n *SchemaName) UnmarshalText(b []byte) error {
	name := strings.TrimSuffix(strings.TrimPrefix(string(b), contract.Namespace), ".schema.json")
	if !ValidSchemaName(name) || utf8.RuneCount(b) > maxSchemaName {
		shown := text.Clip(string(b))
		return refusal.New(refusal.CodeSchemaNameInvalid, "", fmt.Sprintf("%q is not a schema name (names look like version.result or refusal)", shown),
			refusal.Run("schema_list"), " to see every name")
	}
	*n = SchemaName(name)
	return nil
}

// maxSchemaName bounds a schema name as given, in characters.
const maxSchemaName = 256

func (SchemaName) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a schema's name (version.result), file name or $id", MinLength: 1, MaxLength: maxSchemaName}
}
