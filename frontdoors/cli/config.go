package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
)

func newConfigCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	cfg := group("config", "The layered configuration: flag, repository, machine, bundled default")
	show := command("config_show", "show [KEY]")
	show.Args = maxArgs(1)
	show.Long = "Show every configuration key in force, its value, the layer that won and every layer that\ndisagreed. With KEY, show that key alone."
	show.RunE = func(cmd *cobra.Command, args []string) error {
		in := &app.ConfigShowInput{}
		if len(args) == 1 {
			in.Key = args[0]
		}
		res, err := a.Run(cmd.Context(), "config_show", in)
		if err != nil {
			return err
		}
		r := res.(app.ConfigShowResult)
		return emit(s, opts, r, func() string { return renderConfig(s, r) })
	}
	cfg.AddCommand(show)
	return cfg
}

func renderConfig(s *IO, r app.ConfigShowResult) string {
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
			fmt.Fprintf(&b, "  %s  (not set)\n", k.Key)
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

// maxArgs refuses more than n positional arguments, naming the usage line.
func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) <= n {
			return nil
		}
		return usageRefusal(cmd, fmt.Sprintf("takes at most %d argument(s), got %d", n, len(args)))
	}
}
