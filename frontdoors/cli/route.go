package cli

import "github.com/abcd-dev/abcd/domain/oracle"

// routeFlag is --route on a command whose verb dispatches agents, filling the verb's routes; the
// use case checks them against what the verb dispatches before anything runs. It is the one way a
// command gains the flag, so a verb cannot dispatch an agent without offering it; a test holds the
// table to that.
func routeFlag() field {
	return listFlag("routes", "route", "route an agent this invocation dispatches: "+oracle.RouteGrammar+" (tiers: "+oracle.TierList()+")")
}
