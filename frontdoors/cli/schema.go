package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/setup"
)

func newSchemaCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	schema := group("schema", "The published JSON Schemas every other tool reads")
	list := verbCommand(a, s, opts, "schema_list", "list", renderSchemaList)
	show := verbCommand(a, s, opts, "schema_show", "show NAME", func(_ *IO, sh setup.SchemaShowResult) string { return string(sh.Schema) }, arg("name"))
	show.Long = "Print one published JSON Schema. NAME is a name from `abcd schema list`, its file name or its $id."
	show.ValidArgsFunction = func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		idx, err := a.Schemas.Index()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		names := make([]string, 0, len(idx.Schemas))
		for _, e := range idx.Schemas {
			names = append(names, e.Name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	schema.AddCommand(list, show)
	return schema
}

func renderSchemaList(s *IO, l setup.SchemaListResult) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "NAME\tROLE\tDESCRIBES\n")
	for _, e := range l.Schemas {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Role, e.Describes)
	}
	_ = tw.Flush()
	// Bold the laid-out header line whole: escapes inside cells would count as width.
	header, rest, _ := strings.Cut(b.String(), "\n")
	b.Reset()
	b.WriteString(s.bold(header) + "\n" + rest)
	fmt.Fprintf(&b, "\n$id of each: %s<name>.schema.json\n", l.Namespace)
	return b.String()
}
