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
