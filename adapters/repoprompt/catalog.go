package repoprompt

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// CatalogBound names the bound of the tool catalog a refusal is for, so each is its own refusal.
type CatalogBound int

const (
	BoundTools      CatalogBound = iota + 1 // more tools than CatalogLimits.Tools
	BoundName                               // a name longer than CatalogLimits.NameBytes
	BoundDefinition                         // a definition larger than CatalogLimits.Definition
	BoundCatalog                            // every page together larger than CatalogLimits.Catalog
	BoundPages                              // more pages than CatalogLimits.Pages
)

// catalogFault refuses a catalog beyond one of its bounds: the server's catalog is one abcd does not
// use, so the review goes to the host as refused.
func catalogFault(b CatalogBound, format string, args ...any) *Fault {
	f := faultf(review.Refused, format, args...)
	f.Bound = b
	return f
}

// listTools reads the whole catalog, page by page, within its bounds: the number of pages and
// tools, each name's and each definition's size, and every page's bytes together. A tool needs a
// name; the rest of a definition is read only for the tool a review calls.
func (s *Session) listTools(ctx context.Context) *Fault {
	lim := s.c.cfg.Catalog
	used := 0
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > lim.Pages {
			return catalogFault(BoundPages, "the server's tool catalog runs past %d pages, more than abcd reads", lim.Pages)
		}
		left := lim.Catalog - used
		res, f := s.exchange(ctx, "tools/list", mcpwire.ListToolsParams{Cursor: cursor}, left, func(int) *Fault {
			return catalogFault(BoundCatalog, "the server's tool catalog is larger than the %d bytes abcd reads", lim.Catalog)
		})
		if f != nil {
			return f
		}
		used += s.lastBodyBytes
		tools, ok := res["tools"].([]any)
		if !ok {
			return fault(review.Unparsable, "the server's tools/list answer has no tools array")
		}
		for _, raw := range tools {
			def, ok := raw.(map[string]any)
			if !ok {
				return fault(review.Unparsable, "a tool in the server's catalog is not an object")
			}
			name, ok := def["name"].(string)
			if !ok || name == "" {
				return fault(review.Unparsable, "a tool in the server's catalog has no name")
			}
			if len(name) > lim.NameBytes {
				return catalogFault(BoundName, "the server's catalog names a tool in %d bytes, more than the %d abcd reads", len(name), lim.NameBytes)
			}
			if enc, err := json.Marshal(def); err != nil || len(enc) > lim.Definition {
				return catalogFault(BoundDefinition, "a tool's definition in the server's catalog is more than the %d bytes abcd reads", lim.Definition)
			}
			if len(s.tools) == lim.Tools {
				return catalogFault(BoundTools, "the server's catalog lists more than the %d tools abcd reads", lim.Tools)
			}
			s.tools = append(s.tools, Tool{Name: name, def: def})
		}
		next, present := res["nextCursor"]
		if !present {
			return nil
		}
		c, ok := next.(string)
		if !ok {
			return fault(review.Unparsable, "the server's tools/list answer has a nextCursor that is not a string")
		}
		if c == "" {
			return nil
		}
		if seen[c] {
			return fault(review.Unparsable, "the server's tool catalog pages back to a page it already gave")
		}
		seen[c] = true
		cursor = c
	}
}

// reviewArguments checks the configured tool before any call, and makes its arguments: the request
// as message, and new_chat true when the tool declares it. A tool the server does not offer, one
// that takes no message (or a message that is not a string), or one that requires an argument abcd
// does not send is refused here. abcd names no model, whatever the tool offers.
func (s *Session) reviewArguments(message string) (map[string]any, *Fault) {
	name := s.c.cfg.Tool
	var found []Tool
	for _, t := range s.tools {
		if t.Name == name {
			found = append(found, t)
		}
	}
	tw := toolWord(name)
	switch len(found) {
	case 0:
		return nil, faultf(review.Refused, "the server offers no %s (it lists %s); set oracle.rp.tool to the tool that takes a review", tw, count(len(s.tools), "tool"))
	case 1:
	default:
		return nil, faultf(review.Unparsable, "the server's catalog lists the %s more than once", tw)
	}
	schema, ok := found[0].def["inputSchema"].(map[string]any)
	if !ok {
		return nil, faultf(review.Unparsable, "the server's %s has no input schema object", tw)
	}
	if typ, present := schema["type"]; present && typ != "object" {
		return nil, faultf(review.Unparsable, "the server's %s has an input schema that is not an object's", tw)
	}
	props := map[string]any{}
	if raw, present := schema["properties"]; present {
		if props, ok = raw.(map[string]any); !ok {
			return nil, faultf(review.Unparsable, "the server's %s has input properties that are not an object", tw)
		}
	}
	msg, takesMessage := props["message"]
	if !takesMessage {
		return nil, faultf(review.Refused, "the server's %s takes no message argument, so it cannot take a review", tw)
	}
	if ms, ok := msg.(map[string]any); ok {
		if typ, present := ms["type"]; present && !allowsString(typ) {
			return nil, faultf(review.Refused, "the server's %s takes a message that is not a string", tw)
		}
	}
	_, newChat := props["new_chat"]
	if raw, present := schema["required"]; present {
		req, ok := raw.([]any)
		if !ok {
			return nil, faultf(review.Unparsable, "the server's %s lists its required arguments in something other than an array", tw)
		}
		for _, r := range req {
			arg, ok := r.(string)
			if !ok {
				return nil, faultf(review.Unparsable, "the server's %s names a required argument that is not a string", tw)
			}
			if arg != "message" && !(arg == "new_chat" && newChat) {
				return nil, faultf(review.Refused, "the server's %s requires an argument abcd does not send (%s)", tw, s.c.scrubClip(arg))
			}
		}
	}
	args := map[string]any{"message": message}
	if newChat {
		args["new_chat"] = true
	}
	return args, nil
}

func allowsString(typ any) bool {
	switch t := typ.(type) {
	case string:
		return t == "string"
	case []any:
		for _, x := range t {
			if x == "string" {
				return true
			}
		}
	}
	return false
}

// count says n things in words: "no tools", "1 tool", "3 tools".
func count(n int, thing string) string {
	switch n {
	case 0:
		return "no " + thing + "s"
	case 1:
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
