package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
)

func newVersionCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	cmd := command("version", "version")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		res, err := a.Run(cmd.Context(), "version", &app.VersionInput{})
		if err != nil {
			return err
		}
		v := res.(app.VersionResult)
		return emit(s, opts, v, func() string {
			commit := v.Commit
			if commit == "" {
				commit = "unknown"
			}
			return fmt.Sprintf("abcd %s (commit %s, %s)\nschemas: %s\n", v.Version, commit, v.Go, v.SchemaNamespace)
		})
	}
	return cmd
}
