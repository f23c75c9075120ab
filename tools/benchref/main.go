// Command benchref is the reference MCP server make bench measures abcd against: the same tool list
// (one tool per verb, with abcd's published input and output schemas and annotations) and the same
// version result, served over stdio by the official Go SDK. It is a separate module that the
// product never imports; build it with GOWORK=off.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// VersionResult is the document abcd version --json prints.
type VersionResult struct {
	Version         string `json:"version"`
	Commit          string `json:"commit"`
	Go              string `json:"go"`
	SchemaNamespace string `json:"schema_namespace"`
}

type entry struct {
	Name string `json:"name"`
	File string `json:"file"`
	Role string `json:"role"`
	Verb string `json:"verb"`
}

// verbInfo mirrors what abcd's verb table says of each tool, for the same annotations.
type verbInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Annotations struct {
		ReadOnlyHint    bool `json:"readOnlyHint"`
		DestructiveHint bool `json:"destructiveHint"`
		IdempotentHint  bool `json:"idempotentHint"`
		OpenWorldHint   bool `json:"openWorldHint"`
	} `json:"annotations"`
}

func main() {
	schemas := flag.String("schemas", "schemas/v1", "abcd's published schemas folder")
	toolsFile := flag.String("tools", "", "abcd's tools/list tools, as JSON, for titles, descriptions and annotations")
	flag.Parse()
	if err := run(*schemas, *toolsFile); err != nil {
		fmt.Fprintln(os.Stderr, "benchref:", err)
		os.Exit(1)
	}
}

func run(dir, toolsFile string) error {
	var index struct {
		Schemas []entry `json:"schemas"`
	}
	if err := readJSON(filepath.Join(dir, "index.json"), &index); err != nil {
		return err
	}
	var infos []verbInfo
	if toolsFile != "" {
		if err := readJSON(toolsFile, &infos); err != nil {
			return err
		}
	}
	info := func(name string) verbInfo {
		i := slices.IndexFunc(infos, func(v verbInfo) bool { return v.Name == name })
		if i < 0 {
			return verbInfo{Name: name, Description: name}
		}
		return infos[i]
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "benchref", Version: "1.0.0"}, nil)
	var verbs []string
	for _, e := range index.Schemas {
		if e.Role == "input" {
			verbs = append(verbs, e.Verb)
		}
	}
	slices.Sort(verbs)
	for _, verb := range verbs {
		in, err := schemaOf(dir, verb+".input")
		if err != nil {
			return err
		}
		out, err := schemaOf(dir, verb+".result")
		if err != nil {
			return err
		}
		vi := info(verb)
		tool := &mcp.Tool{Name: verb, Title: vi.Title, Description: vi.Description, InputSchema: in, OutputSchema: out,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: vi.Annotations.ReadOnlyHint, DestructiveHint: &vi.Annotations.DestructiveHint,
				IdempotentHint: vi.Annotations.IdempotentHint, OpenWorldHint: &vi.Annotations.OpenWorldHint}}
		if verb == "version" {
			// The one tool the bench calls: input and output validated by the SDK, as abcd validates them.
			mcp.AddTool(server, tool, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, VersionResult, error) {
				return nil, VersionResult{Version: "bench", Commit: "", Go: runtime.Version(), SchemaNamespace: "https://schemas.abcd.dev/v1/"}, nil
			})
			continue
		}
		server.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("not served by the reference")
		})
	}
	return server.Run(context.Background(), &mcp.StdioTransport{})
}

func schemaOf(dir, name string) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := readJSON(filepath.Join(dir, name+".schema.json"), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
