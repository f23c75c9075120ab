package cli

import (
	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/oracle"
)

// routeFlag registers --route on a command whose verb dispatches agents, collecting the texts into
// the verb's input; the use case checks them against what the verb dispatches before anything runs.
// It is the one way a command gains the flag, so a verb cannot dispatch an agent without offering
// it; a test holds the table to that.
func routeFlag(cmd *cobra.Command, into *[]string) {
	cmd.Flags().StringArrayVar(into, "route", nil,
		"route an agent this invocation dispatches: "+oracle.RouteGrammar+" (tiers: "+oracle.TierList()+")")
}
