package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/setup"
)

func newStatusCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	return verbCommand(a, s, opts, "status", "status", renderStatus)
}

func runStatus(cmd *cobra.Command, a *app.App, s *IO, opts *options) error {
	res, err := a.Call(cmd.Context(), "status", map[string]any{})
	if err != nil {
		return err
	}
	st := spelled(cmd, res.(setup.StatusResult))
	return emit(s, opts, st, func() string { return renderStatus(s, st) })
}

func renderStatus(s *IO, st setup.StatusResult) string {
	var b strings.Builder
	where := "not a git repository"
	if st.Repository.Git {
		where = "git repository"
	}
	fmt.Fprintf(&b, "%s %s (%s)\n", s.bold("repository:"), st.Repository.Root, where)
	if !st.Record.Present {
		fmt.Fprintf(&b, "%s none yet\n", s.bold("record:"))
	} else {
		fmt.Fprintf(&b, "%s %s\n", s.bold("record:"), text.Count(st.Record.Total, "file", "files"))
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
	renderOracle(&b, s, st.Oracle)
	if len(st.Next) > 0 {
		fmt.Fprintf(&b, "%s\n", s.bold("next:"))
		for _, n := range st.Next {
			fmt.Fprintf(&b, "  %s\n      %s\n", n.Text, n.Why)
		}
	}
	return b.String()
}

func renderOracle(b *strings.Builder, s *IO, o loop.OracleBoard) {
	switch {
	case !o.Readable:
		fmt.Fprintf(b, "%s lines left out: %s\n", s.bold("oracle:"), o.Problem)
		return
	case o.Accepted:
		fmt.Fprintf(b, "%s routing table accepted\n", s.bold("oracle:"))
	default:
		fmt.Fprintf(b, "%s no routing table accepted: every agent goes to the harness at host-decides (abcd ahoy install, in a terminal, offers abcd's proposal)\n", s.bold("oracle:"))
	}
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  AGENT\tREPOSITORY\tMACHINE\tBUNDLED\tROUTE\n")
	var unserved []string
	for _, a := range o.Agents {
		cells := map[string]string{"repository": "-", "machine": "-", "bundled": "-"}
		for _, l := range a.Layers {
			cell := string(l.Tier)
			if l.Wins {
				cell += "*"
			}
			cells[string(l.Layer)] = cell
		}
		via, why := a.Connection, a.Fallback
		if a.Route != "" && a.Route != "host" {
			via, why = a.Route, a.Why
		} else if why != "" && why == oracle.Unserved(a.Tier) {
			// A tier no connection serves (an accepted proposal with no provider) is the expected
			// path: the same sentence for every agent of that tier, said once, below.
			if !slices.Contains(unserved, string(a.Tier)) {
				unserved = append(unserved, string(a.Tier))
			}
			why = ""
		}
		route := fmt.Sprintf("%s via %s", a.Tier, via)
		if why != "" {
			route += " (" + why + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", a.Agent, cells["repository"], cells["machine"], cells["bundled"], route)
	}
	_ = tw.Flush()
	if len(unserved) > 0 {
		fmt.Fprintf(b, "  no configured connection serves %s %s, so your harness takes those steps: the expected path until you connect a provider or a runner (abcd ahoy connect)\n",
			map[bool]string{true: "tier", false: "tiers"}[len(unserved) == 1], strings.Join(unserved, ", "))
	}
}
