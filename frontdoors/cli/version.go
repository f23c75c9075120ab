package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/setup"
)

func newVersionCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	return verbCommand(a, s, opts, "version", "version", func(_ *IO, v setup.VersionResult) string {
		commit := v.Commit
		if commit == "" {
			commit = "unknown"
		}
		return fmt.Sprintf("abcd %s (commit %s, %s)\nschemas: %s\n", v.Version, commit, v.Go, v.SchemaNamespace)
	})
}
