package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/setup"
)

func newConfigCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	cfg := group("config", "The layered configuration: flag, repository, machine, bundled default")
	show := verbCommand(a, s, opts, "config_show", "show [KEY]", renderConfig, optArg("key"))
	show.Long = "Show every configuration key in force, its value, the layer that won and every layer that\ndisagreed. With KEY, show that key alone."
	cfg.AddCommand(show)
	return cfg
}

func renderConfig(s *IO, r setup.ConfigShowResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", s.bold("files:"))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, f := range r.Files {
		state := "absent"
		if f.Present {
			state = "present"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Layer, state, f.Path)
	}
	_ = tw.Flush()
	fmt.Fprintf(&b, "%s\n", s.bold("keys:"))
	if len(r.Keys) == 0 {
		b.WriteString("  none set\n")
	}
	for _, k := range r.Keys {
		if !k.Set {
			fmt.Fprintf(&b, "  %s  (not set: %s)\n", k.Key, k.Doc)
			continue
		}
		fmt.Fprintf(&b, "  %s = %s  (%s: %s)\n", k.Key, string(k.Value), k.Layer, k.Origin)
		for _, l := range k.Layers[1:] {
			mark := "agrees"
			if !l.Agrees {
				mark = "overridden"
			}
			fmt.Fprintf(&b, "      %s %s = %s  (%s)\n", mark, l.Layer, string(l.Value), l.Origin)
		}
	}
	return b.String()
}
