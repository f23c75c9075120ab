// Command fakecli is the scripted Claude Code the MCP interop tests connect as a runner, so that
// implement_run drives a real run through the SDK clients: runnertest's fake CLI (the one the Go
// end-to-end tests start), playing the script FAKE_CLI_SCRIPT names, with Claude Code's flags in its
// --help as the runner's drift check reads them.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
)

func main() {
	if os.Getenv("FAKE_CLI_HELP") == "" {
		help := "Usage: claude [options]\n  " + strings.Join(claude.Dialect{}.Flags(), " <x>\n  ")
		if err := os.Setenv("FAKE_CLI_HELP", help); err != nil {
			fmt.Fprintln(os.Stderr, "fakecli:", err)
			os.Exit(2)
		}
	}
	runnertest.FakeMain()
	fmt.Fprintln(os.Stderr, "fakecli: "+runnertest.ScriptVar+" names no script; this is a test's scripted runner")
	os.Exit(2)
}
