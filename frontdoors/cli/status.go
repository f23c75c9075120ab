package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
)

func newStatusCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	cmd := command("status", "status")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runStatus(cmd.Context(), a, s, opts) }
	return cmd
}

func runStatus(ctx context.Context, a *app.App, s *IO, opts *options) error {
	res, err := a.Run(ctx, "status", &app.StatusInput{})
	if err != nil {
		return err
	}
	st := res.(app.StatusResult)
	return emit(s, opts, st, func() string { return renderStatus(s, st) })
}

func renderStatus(s *IO, st app.StatusResult) string {
	var b strings.Builder
	where := "not a git repository"
	if st.Repository.Git {
		where = "git repository"
	}
	fmt.Fprintf(&b, "%s %s (%s)\n", s.bold("repository:"), st.Repository.Root, where)
	if !st.Record.Present {
		fmt.Fprintf(&b, "%s none yet\n", s.bold("record:"))
	} else {
		fmt.Fprintf(&b, "%s %d files\n", s.bold("record:"), st.Record.Total)
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for _, f := range st.Record.Folders {
			life := f.Lifecycle
			if life == "" {
				life = "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\n", f.Family, life, f.Count)
		}
		_ = tw.Flush()
	}
	fmt.Fprintf(&b, "%s\n", s.bold("config:"))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, c := range st.Config {
		state := "absent"
		if c.Present {
			state = "present"
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", c.Layer, c.Kind, state, c.Path)
	}
	_ = tw.Flush()
	if len(st.Next) > 0 {
		fmt.Fprintf(&b, "%s\n", s.bold("next:"))
		for _, n := range st.Next {
			fmt.Fprintf(&b, "  %s\n      %s\n", n.Command, n.Why)
		}
	}
	return b.String()
}
