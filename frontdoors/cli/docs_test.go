package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
)

// docsPage reads one page of the project's docs/ folder.
func docsPage(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	assert.NilError(t, err)
	return string(data)
}

// The reference pages name every verb, so a verb cannot ship that a person reading the docs would
// never find: docs/cli.md has its command and its verb name, docs/mcp.md its tool.
func TestDocsNameEveryVerb(t *testing.T) {
	cliPage, mcpPage := docsPage(t, "cli.md"), docsPage(t, "mcp.md")
	for _, v := range app.Table() {
		command := "`abcd " + strings.Join(v.Path, " ")
		if !strings.Contains(cliPage, command+"`") && !strings.Contains(cliPage, command+" ") {
			t.Errorf("docs/cli.md does not show the command %s` (verb %s)", command, v.Name)
		}
		if !strings.Contains(cliPage, "`"+v.Name+"`") {
			t.Errorf("docs/cli.md does not name the verb `%s`", v.Name)
		}
		if !strings.Contains(mcpPage, "`"+v.Name+"`") {
			t.Errorf("docs/mcp.md does not name the tool `%s`", v.Name)
		}
	}
}

// Every command of the tree a person can type, verbs or not (the hook, the server, completion), is
// on docs/cli.md.
func TestDocsNameEveryCommand(t *testing.T) {
	cliPage := docsPage(t, "cli.md")
	root := NewRoot(newApp(ports.RepoFacts{}), &IO{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			if sub.Runnable() {
				path := strings.TrimSpace(strings.TrimPrefix(sub.CommandPath(), root.Name()))
				if !strings.Contains(cliPage, "`abcd "+path) {
					t.Errorf("docs/cli.md does not show `abcd %s`", path)
				}
			}
			walk(sub)
		}
	}
	walk(root)
}
