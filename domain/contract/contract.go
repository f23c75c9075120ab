// Package contract names the published schema namespace and the index that lists every schema.
package contract

import (
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// Namespace is the base of every published $id. It names no host a consumer must reach: an $id is a
// name, and the files ship inside the binary (abcd schema show) and in the repository's schemas/.
// A published version never changes meaning; a breaking change is a new version with a new base.
const Namespace = "https://schemas.abcd.dev/v1/"

// Version is the published schema version these types generate.
const Version = "v1"

// Role says what a schema describes.
type Role string

const (
	RoleInput    Role = "input"    // a verb's input (MCP inputSchema)
	RoleResult   Role = "result"   // a verb's result (what --json prints; MCP outputSchema)
	RoleDocument Role = "document" // a file or document that is not one verb's (refusal, config, receipts, front matter)
)

// Entry is one schema in the index.
type Entry struct {
	Name      string `json:"name" jsonschema:"pattern=^[a-z][a-z0-9_]*(\\.[a-z]+)?$"`
	ID        string `json:"id" jsonschema:"format=uri"`
	File      string `json:"file"`
	Role      Role   `json:"role" jsonschema:"enum=input,enum=result,enum=document"`
	Verb      string `json:"verb,omitempty"`
	Describes string `json:"describes"`
}

// Index is schemas/v1/index.json: every published schema with its $id and what it describes.
type Index struct {
	SchemaVersion int     `json:"schema_version" jsonschema:"enum=1"`
	Namespace     string  `json:"namespace"`
	Schemas       []Entry `json:"schemas"`
}

// ID is the $id of the schema with this name.
func ID(name string) string { return Namespace + FileName(name) }

// FileName is the file a schema with this name is written to.
func FileName(name string) string { return name + ".schema.json" }

// Rule is what a self-checking string type tells the schema generator about its values. The type's
// own check (run when a front door decodes input into it) is the rule; the schema says no more than
// that check, so no door refuses a value another door would take.
type Rule struct {
	Description string
	MinLength   int
	MaxLength   int
	// Pattern is a regular expression valid in both RE2 and ECMA-262, or "".
	Pattern string
	Enum    []string
}

// Described is a value type that checks itself when decoded and describes itself to the schema
// generator.
type Described interface{ SchemaRule() Rule }

// SchemaName names one published schema: its index name (version.result), its file name
// (version.result.schema.json) or its $id. Only the index name is kept.
type SchemaName string

// ValidName reports whether s is an index name: ^[a-z][a-z0-9_]*(\.[a-z]+)?$, checked without a
// regular expression so start-up compiles none.
func ValidName(s string) bool {
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
	name := strings.TrimSuffix(strings.TrimPrefix(string(b), Namespace), ".schema.json")
	if !ValidName(name) {
		shown := text.Clip(string(b))
		return refusal.New("schema_name_invalid", "", fmt.Sprintf("%q is not a schema name (names look like version.result or refusal)", shown),
			refusal.Run("schema_list"), " to see every name")
	}
	*n = SchemaName(name)
	return nil
}

func (SchemaName) SchemaRule() Rule {
	return Rule{Description: "a schema's name (version.result), file name or $id", MinLength: 1, MaxLength: 256}
}
