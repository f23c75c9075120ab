package cli

import (
	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/ports/app"
)

// routeFlag registers --route on a command whose verb dispatches agents, and returns the checked
// routes for the run function to hand on. It is the one way a command gains the flag, so a verb
// cannot dispatch an agent without offering it; a test holds the table to that.
func routeFlag(a *app.App, cmd *cobra.Command, verb string) func() (map[string]oracle.FlagRoute, error) {
	var texts []string
	cmd.Flags().StringArrayVar(&texts, "route", nil,
		"route an agent this invocation dispatches: "+oracle.RouteGrammar+" (tiers: "+oracle.TierList()+")")
	return func() (map[string]oracle.FlagRoute, error) { return a.Routes(verb, texts) }
}
