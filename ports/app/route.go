package app

import (
	"errors"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// Routes checks an invocation's --route flags against what the verb dispatches and the connections
// this machine has configured. Every front door that offers --route calls it before the verb runs,
// so a refused flag stops the invocation before anything is written.
func (a *App) Routes(verb string, flags []string) (map[string]oracle.FlagRoute, error) {
	v, ok := Lookup(verb)
	if !ok {
		return nil, errors.New("routes: no verb named " + verb)
	}
	conns := a.Connections
	if conns == nil {
		conns = oracle.NoConnections{}
	}
	configured := func(name string) bool { _, ok := conns.Named(name); return ok }
	routes, err := oracle.ParseRoutes(flags, v.Dispatches, configured)
	var re *oracle.RouteError
	if errors.As(err, &re) {
		return nil, refusal.New("route_invalid", "--route "+re.Flag, re.Msg, "the grammar is "+oracle.RouteGrammar+"; tiers are "+oracle.TierList())
	}
	return routes, err
}
