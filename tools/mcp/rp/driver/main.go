// Command driver runs abcd's RepoPrompt client (adapters/repoprompt) against one MCP server, for
// the official MCP conformance suite's client scenarios (tools/mcp/rp/conformance.test.mjs): the
// suite starts a server, appends its URL to this command and names the scenario in
// MCP_CONFORMANCE_SCENARIO. The driver opens one session as a review does (initialize,
// notifications/initialized, tools/list), calls every tool listed with arguments drawn from its
// input schema (a tools_call or sse-retry scenario lists the tools it wants called), and ends the
// session with DELETE. It exits 1 with the fault when the session does not come through.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/abcd-dev/abcd/adapters/repoprompt"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: driver [--no-calls] <server URL>")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	calls := os.Getenv("MCP_CONFORMANCE_SCENARIO") != "initialize"
	ctx := context.Background()
	c := repoprompt.New(repoprompt.Config{URL: url, Version: "conformance", CallTimeout: time.Minute})
	s, f := c.Open(ctx)
	if f != nil {
		fmt.Fprintln(os.Stderr, "open:", f)
		os.Exit(1)
	}
	fmt.Printf("session at revision %s lists %d tools\n", s.Version(), len(s.Tools()))
	code := 0
	if calls {
		code = callEach(ctx, s)
	}
	s.Close(ctx) // the session ends with DELETE, called or not, before the exit code is given
	os.Exit(code)
}

// callEach calls every tool the session lists; 1 at the first that fails.
func callEach(ctx context.Context, s *repoprompt.Session) int {
	for _, name := range s.Tools() {
		schema, _ := s.InputSchema(name)
		res, f := s.Call(ctx, name, sampleArguments(schema))
		if f != nil {
			fmt.Fprintf(os.Stderr, "call %s: %v\n", name, f)
			return 1
		}
		fmt.Printf("%s: isError %v: %s\n", name, res.IsError, res.Text)
	}
	return 0
}

// sampleArguments fills every property a schema declares with a value of its type.
func sampleArguments(schema map[string]any) map[string]any {
	args := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		switch ps["type"] {
		case "number", "integer":
			args[name] = len(args) + 1
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "abcd"
		}
	}
	return args
}
