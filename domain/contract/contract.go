// Package contract names the published schema namespace and the index that lists every schema.
package contract

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
	Role      Role   `json:"role"`
	Verb      string `json:"verb,omitempty"`
	Describes string `json:"describes"`
}

// Index is schemas/v1/index.json: every published schema with its $id and what it describes.
type Index struct {
	SchemaVersion int     `json:"schema_version"`
	Namespace     string  `json:"namespace"`
	Schemas       []Entry `json:"schemas"`
}

// Roles lists every role a schema has.
func Roles() []Role { return []Role{RoleInput, RoleResult, RoleDocument} }

func (Role) SchemaEnum() Rule { return Enum(Roles()...) }

// IndexVersion is index.json's schema_version.
const IndexVersion = 1

func (Index) SchemaFields() map[string]Rule {
	return map[string]Rule{"schema_version": Versions(IndexVersion)}
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
	// Enum is the closed list of a string's values, in the order the schema lists them.
	Enum []string
	// Meanings, when given, says what each value of Enum means, one sentence each, in Enum's
	// order: the schema lists each value as a const with its meaning.
	Meanings []string
	// Ints is the closed list of an integer's values (a schema_version, an exit code); a Rule with
	// Ints describes an integer, not a string.
	Ints []int
}

// Described is a value type that checks itself when decoded and describes itself to the schema
// generator.
type Described interface{ SchemaRule() Rule }

// Enumerated is a type whose values are a closed list (tiers, layers, roles): the schema generator
// writes the list as the schema's enum wherever the type is a member. Unlike Described it says
// nothing of how a value is checked when read.
type Enumerated interface{ SchemaEnum() Rule }

// Fields is a struct whose members' rules are not their Go types' own: a member kept as a plain
// string or int whose values the struct's domain closes (a front matter's lifecycle, which depends
// on the family; a file's schema_version). The schema generator writes each named member (by its
// JSON name) from its Rule, so no list is written by hand in a struct tag.
type Fields interface{ SchemaFields() map[string]Rule }

// Enum is the Rule of a closed list of string values of any string type, in their order.
func Enum[T ~string](values ...T) Rule {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return Rule{Enum: out}
}

// Versions is the Rule of a document's schema_version: the versions this build reads and writes.
func Versions(v ...int) Rule { return Rule{Ints: v} }
