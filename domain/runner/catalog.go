package runner

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/text"
)

// A step may hand the CLI MCP servers of abcd's choosing (abcd's own read verbs, say): the catalog of
// tools the CLI may call is request-scoped (built for this step, from what the caller names) and
// bounded, and a catalog past a bound is refused, with a typed error naming the bound, before the CLI
// is started. Only those refusals are CatalogErrors: any other error met while building the catalog
// is returned as it is, never rewritten as a refusal.

// Catalog bounds.
const (
	MaxCatalogTools      = 128       // tools across every server
	MaxToolNameBytes     = 512       // a tool's qualified name (mcp__<server>__<tool>)
	MaxDefinitionBytes   = 256 << 10 // one tool's definition, as JSON
	MaxCatalogBytes      = 2 << 20   // every definition together
	MaxAllowedArgvBytes  = 8 << 10   // the argument that lists the allowed tools
	maxServerCommandArgs = 32
)

// Bound names the rule a catalog broke.
type Bound string

const (
	BoundToolCount       Bound = "tool_count"
	BoundName            Bound = "name"
	BoundNamespace       Bound = "namespace"
	BoundNameBytes       Bound = "name_bytes"
	BoundDefinitionBytes Bound = "definition_bytes"
	BoundTotalBytes      Bound = "total_bytes"
	BoundArgvBytes       Bound = "argv_bytes"
)

// Bounds lists every bound, in the order they are checked.
func Bounds() []Bound {
	return []Bound{BoundToolCount, BoundNamespace, BoundName, BoundNameBytes, BoundDefinitionBytes, BoundTotalBytes, BoundArgvBytes}
}

// CatalogError is a catalog refused for one bound.
type CatalogError struct {
	Bound  Bound
	Detail string
}

func (e *CatalogError) Error() string {
	return "tool catalog refused (" + string(e.Bound) + "): " + e.Detail
}

func refuse(b Bound, format string, args ...any) *CatalogError {
	return &CatalogError{Bound: b, Detail: fmt.Sprintf(format, args...)}
}

// MCPServer is one MCP server a step hands the CLI: started by the CLI over stdio with Command and
// Args (Command an absolute path), and the tools of it the CLI may call.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Tools   []MCPTool
}

// MCPTool is one tool as the server lists it: its name, description and input schema (any value that
// encodes as JSON).
type MCPTool struct {
	Name        string
	Description string
	InputSchema any
}

// Catalog is a checked catalog: the servers and, for each tool, its qualified name and definition.
type Catalog struct {
	Servers []CatalogServer
	// Allowed lists every tool's qualified name, in order; AllowedArg is them joined by commas, the
	// argument a CLI takes them in.
	Allowed    []string
	AllowedArg string
	Bytes      int
}

// CatalogServer is one server of a checked catalog.
type CatalogServer struct {
	Name    string
	Command string
	Args    []string
	Tools   []CatalogTool
}

// CatalogTool is one tool of a checked catalog.
type CatalogTool struct {
	Name       string
	Qualified  string
	Definition []byte
}

var (
	namespacePattern = pattern.New(`^[A-Za-z0-9][A-Za-z0-9-]{0,63}$`)
	toolNamePattern  = pattern.New(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
)

// Qualified is the name a CLI calls a server's tool by: mcp__<server>__<tool>. A namespace holds no
// underscore, so the name reads back one way.
func Qualified(server, tool string) string { return "mcp__" + server + "__" + tool }

// BuildCatalog checks servers against every bound and returns the catalog. A bound broken is a
// *CatalogError; an error encoding a tool's input schema is returned as it is.
func BuildCatalog(servers []MCPServer) (Catalog, error) {
	var c Catalog
	count := 0
	for _, s := range servers {
		count += len(s.Tools)
	}
	if count > MaxCatalogTools {
		return Catalog{}, refuse(BoundToolCount, "the catalog holds %d tools, over the limit of %d", count, MaxCatalogTools)
	}
	seenServer := map[string]bool{}
	for _, s := range servers {
		if !namespacePattern.MatchString(s.Name) || seenServer[s.Name] {
			return Catalog{}, refuse(BoundNamespace, "server name %q is not a namespace (1 to 64 of A-Z, a-z, 0-9 and -, no underscore) or is given twice", text.Clip(s.Name))
		}
		seenServer[s.Name] = true
		if !path.IsAbs(s.Command) || path.Clean(s.Command) != s.Command || len(s.Args) > maxServerCommandArgs {
			return Catalog{}, refuse(BoundNamespace, "server %s is not started by an absolute, clean command with at most %d arguments", s.Name, maxServerCommandArgs)
		}
		cs := CatalogServer{Name: s.Name, Command: s.Command, Args: append([]string(nil), s.Args...)}
		seenTool := map[string]bool{}
		for _, t := range s.Tools {
			q := Qualified(s.Name, t.Name)
			if len(q) > MaxToolNameBytes {
				return Catalog{}, refuse(BoundNameBytes, "tool %s of server %s is named in %d bytes, over the limit of %d", text.Clip(t.Name), s.Name, len(q), MaxToolNameBytes)
			}
			if !toolNamePattern.MatchString(t.Name) || seenTool[t.Name] {
				return Catalog{}, refuse(BoundName, "tool name %q of server %s is not a tool's name (A-Z, a-z, 0-9, _, . and -) or is given twice", text.Clip(t.Name), s.Name)
			}
			seenTool[t.Name] = true
			def, err := json.Marshal(struct {
				Name        string `json:"name"`
				Description string `json:"description,omitempty"`
				InputSchema any    `json:"inputSchema"`
			}{t.Name, t.Description, t.InputSchema})
			if err != nil {
				return Catalog{}, fmt.Errorf("encoding tool %s of server %s: %w", t.Name, s.Name, err)
			}
			if len(def) > MaxDefinitionBytes {
				return Catalog{}, refuse(BoundDefinitionBytes, "tool %s's definition is %d bytes, over the limit of %d", q, len(def), MaxDefinitionBytes)
			}
			c.Bytes += len(def)
			if c.Bytes > MaxCatalogBytes {
				return Catalog{}, refuse(BoundTotalBytes, "the catalog's definitions pass %d bytes, the limit", MaxCatalogBytes)
			}
			cs.Tools = append(cs.Tools, CatalogTool{Name: t.Name, Qualified: q, Definition: def})
			c.Allowed = append(c.Allowed, q)
		}
		c.Servers = append(c.Servers, cs)
	}
	c.AllowedArg = strings.Join(c.Allowed, ",")
	if len(c.AllowedArg) > MaxAllowedArgvBytes {
		return Catalog{}, refuse(BoundArgvBytes, "the list of allowed tools is %d bytes, over the limit of %d", len(c.AllowedArg), MaxAllowedArgvBytes)
	}
	return c, nil
}
