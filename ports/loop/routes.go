package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// routing is the routing family, read and checked: the tables each file contributes and what was
// reported while the rest applied.
type routing struct {
	layers  oracle.Layers
	notices []oracle.Notice
	agents  []string
}

// loadRouting reads both routing files strictly and checks their rows against the roster. A file
// that cannot be read, or a row that breaks a rule, refuses; a row for an agent not in the roster is
// a notice and is skipped.
func (a *Deps) loadRouting(files ports.ConfigFiles) (routing, error) {
	ros, err := a.Roster.Roster()
	if err != nil {
		return routing{}, err
	}
	known := func(name string) bool { _, ok := ros.Get(name); return ok }
	r := routing{agents: ros.Names()}
	for _, f := range []struct {
		file    ports.ConfigFile
		table   *oracle.Table
		origin  *string
		present *bool
	}{
		{files.RepoRouting, &r.layers.Repo, &r.layers.RepoOrigin, &r.layers.RepoPresent},
		{files.MachineRouting, &r.layers.Machine, &r.layers.MachineOrigin, &r.layers.MachinePresent},
	} {
		if !f.file.Present {
			continue
		}
		rf, err := decodeRouting(f.file)
		if err != nil {
			return routing{}, err
		}
		table, notices, err := oracle.CheckTable(f.file.Path, rf, known)
		if err != nil {
			var re *oracle.RowError
			if errors.As(err, &re) {
				field := re.Field
				if re.Agent != "" {
					field = "agents." + re.Agent + "." + re.Field
				}
				return routing{}, refusal.New(refusal.CodeRoutingInvalid, re.Origin, field+" "+re.Msg, "fix the row, or remove it to use the lower layers")
			}
			return routing{}, err
		}
		*f.table, *f.origin, *f.present = table, f.file.Path, true
		r.notices = append(r.notices, notices...)
	}
	return r, nil
}

// decodeRouting decodes a routing file strictly: the shared strict check (one object, no key twice at
// any depth, nothing trailing, bounded), then no unknown member at any level.
func decodeRouting(f ports.ConfigFile) (oracle.RoutingFile, error) {
	if err := config.CheckStrict(f.Path, f.Data); err != nil {
		return oracle.RoutingFile{}, core.ConfigRefusal(err)
	}
	var rf oracle.RoutingFile
	dec := json.NewDecoder(bytes.NewReader(f.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rf); err != nil {
		why := strictjson.Mismatch(f.Data, &oracle.RoutingFile{})
		if why == "" {
			why = text.Clip(err.Error())
		}
		return oracle.RoutingFile{}, refusal.New(refusal.CodeRoutingInvalid, f.Path, "does not match the routing file's shape: "+why,
			refusal.Run("schema_show", refusal.With("name", "oracle_routing")), " for the shape")
	}
	if rf.Agents == nil {
		rf.Agents = oracle.RoutingAgents{}
	}
	return rf, nil
}

// OracleBoard is bare abcd's oracle section: whether a table is accepted and each agent's route.
type OracleBoard struct {
	// Readable is false when a routing file could not be read; Problem then says why and the board
	// holds no agents.
	Readable bool         `json:"readable"`
	Problem  string       `json:"problem"`
	Accepted bool         `json:"accepted"`
	Agents   []AgentRoute `json:"agents"`
}

// AgentRoute is one agent's route and every layer's tier.
type AgentRoute struct {
	Agent      string         `json:"agent"`
	Tier       oracle.Tier    `json:"tier"`
	FanOut     int            `json:"fan_out" jsonschema:"minimum=1"`
	Source     oracle.Source  `json:"source"`
	Origin     string         `json:"origin"`
	Connection string         `json:"connection"`
	Fallback   string         `json:"fallback"`
	Layers     []RoutingLayer `json:"layers"`
	// Route is who takes the agent's steps (host, rp, a runner's or a provider's name) and Why says
	// why, in the one order a step is routed by: a --route flag, the agent's runner, RepoPrompt for a
	// reviewer, the provider for its tier, the host.
	Route string `json:"route,omitempty"`
	Why   string `json:"why,omitempty"`
}

// RoutingLayer is one layer's tier for an agent; Wins marks the one in force.
type RoutingLayer struct {
	Layer oracle.Source `json:"layer"`
	Tier  oracle.Tier   `json:"tier"`
	Wins  bool          `json:"wins"`
}

// OracleBoard resolves every roster agent the way a step would (routeOf), so the board shows the
// route a step takes. A routing file that cannot be read empties the board and says why; it never
// stops status.
func (a *Deps) OracleBoard(ctx context.Context) OracleBoard {
	board := OracleBoard{Agents: []AgentRoute{}}
	files, err := a.Config.ReadConfig(ctx)
	var r routing
	if err == nil {
		r, err = a.loadRouting(files)
	}
	if err != nil {
		board.Problem = core.ProblemText(err)
		return board
	}
	var conns ports.Connections
	if err == nil {
		conns, err = a.LoadConnections(ctx)
	}
	if err != nil {
		board.Problem = core.ProblemText(err)
		return board
	}
	reviewRoute, rpServer := "", false
	if _, stack, err := a.LoadConfig(ctx); err == nil {
		if v, err := config.Get[string](stack, "oracle.review"); err == nil {
			reviewRoute = v.V
		}
		if v, err := config.Get[string](stack, "oracle.rp.url"); err == nil && v.V != "" {
			rpServer = true
		}
	}
	if _, ok := a.Validators["rp"]; ok {
		rpServer = true
	}
	board.Readable = true
	board.Accepted = r.layers.RepoPresent || r.layers.MachinePresent
	a.warnNotices(r.notices)
	proposal := oracle.Proposal()
	// The implementer, whom no routing table names, goes first: its steps go to the host unless the
	// machine sends it to a runner.
	for _, agent := range append([]string{loop.RoleImplementer}, r.agents...) {
		route, err := a.routeOf(agent, r, conns, nil, "")
		if err != nil {
			board = OracleBoard{Agents: []AgentRoute{}, Problem: core.ProblemText(err)}
			return board
		}
		kind := loop.AwaitReview
		switch agent {
		case loop.RoleImplementer:
			kind, route.Row, route.Source, route.Origin = loop.AwaitImplement, oracle.Row{Tier: oracle.HostDecides, FanOut: 1}, oracle.SourceNone, ""
			if !route.Connection.Runner {
				route.Connection, route.Fallback = oracle.Harness(), ""
			}
		case loop.RoleAuditor:
			kind = loop.AwaitAudit
		}
		tg := targetOf(agent, kind, route, false, reviewRoute)
		if tg.kind == toRP && !rpServer {
			// A step asked of rp with no server to call falls back to the host (absent): say so.
			tg = target{toHost, oracle.HarnessName, "oracle.review is rp, but no RepoPrompt server is configured (oracle.rp.url in the machine's config.json), so the host takes reviews"}
			route.Fallback = tg.why
		}
		ar := AgentRoute{Agent: agent, Tier: route.Row.Tier, FanOut: route.Row.FanOut, Source: route.Source,
			Origin: route.Origin, Connection: route.Connection.Name, Fallback: route.Fallback, Layers: []RoutingLayer{}, Route: tg.name, Why: tg.why}
		for _, l := range []struct {
			src   oracle.Source
			table map[string]oracle.Row
		}{{oracle.SourceRepository, r.layers.Repo}, {oracle.SourceMachine, r.layers.Machine}, {oracle.SourceBundled, proposal}} {
			if row, ok := l.table[agent]; ok {
				ar.Layers = append(ar.Layers, RoutingLayer{Layer: l.src, Tier: row.Tier, Wins: l.src == route.Source})
			}
		}
		board.Agents = append(board.Agents, ar)
	}
	return board
}

// routeOf is the one place a step's route is decided, for the status board and every step the
// loop opens: the routing layers, the invocation's flag for the agent (nil for none), the tier a
// failed round escalated to ("" for none), and this machine's connections.
func (a *Deps) routeOf(agent string, r routing, conns ports.Connections, flag *oracle.FlagRoute, escalated oracle.Tier) (oracle.Route, error) {
	layers := r.layers
	layers.Flag = flag
	layers.Escalated = escalated
	route, err := oracle.Resolve(agent, layers, conns.Configured(), conns.Defaults)
	if err != nil {
		var re *oracle.RouteError
		if errors.As(err, &re) {
			return oracle.Route{}, refusal.New(refusal.CodeRouteInvalid, agent, fmt.Sprintf("the route %q %s", re.Flag, re.Msg), "the grammar is "+oracle.RouteGrammar+"; tiers are "+oracle.TierList())
		}
		return oracle.Route{}, refusal.New(refusal.CodeRouteInvalid, agent, err.Error(), "fix the routing table or the route given for it")
	}
	return route, nil
}

// connectionsOf is the machine's connections a configuration stack configures: its providers, or
// the static set a test wires. A provider block that breaks a rule refuses, naming its key.
func (a *Deps) connectionsOf(stack *config.Stack) (ports.Connections, error) {
	if a.Connections != nil {
		return a.Connections, nil
	}
	p, r, err := core.MachineRoutes(stack)
	if err != nil {
		return nil, err
	}
	return core.MachineConns{Providers: p, Runners: r}, nil
}

// Routes checks an invocation's route flags against what the verb dispatches and the connections
// this machine has configured. Every verb that dispatches agents calls it before anything is
// written, so a refused route stops the invocation with nothing done.
func (a *Deps) Routes(ctx context.Context, verb string, flags []oracle.RouteText) (map[string]oracle.FlagRoute, error) {
	v, ok := a.Verb(verb)
	if !ok {
		return nil, errors.New("routes: no verb named " + verb)
	}
	return a.routesFor(ctx, verb, v.Dispatches, flags)
}

// routesFor is Routes for an invocation that dispatches fewer agents than its verb may (abcd review
// --role): a flag for an agent it does not dispatch is refused, never ignored.
func (a *Deps) routesFor(ctx context.Context, verb string, dispatches []string, flags []oracle.RouteText) (map[string]oracle.FlagRoute, error) {
	var conns oracle.Configured
	if len(flags) > 0 && a.Config != nil {
		c, err := a.LoadConnections(ctx)
		if err != nil {
			return nil, err
		}
		conns = c.Configured()
	}
	configured := func(name string) bool { _, ok := conns.Named(name); return ok }
	routes, err := oracle.ParseRoutes(oracle.Texts(flags), dispatches, configured)
	var re *oracle.RouteError
	if errors.As(err, &re) {
		return nil, refusal.New(refusal.CodeRouteInvalid, "", fmt.Sprintf("%q %s", re.Flag, re.Msg),
			"the grammar is "+oracle.RouteGrammar+"; tiers are "+oracle.TierList()).On(verb, "routes")
	}
	return routes, err
}

func (a *Deps) warnNotices(notices []oracle.Notice) {
	if a.Diag == nil {
		return
	}
	for _, n := range notices {
		a.Diag.Warn(n.String())
	}
}

// targetKind is who takes a step: the host, or a route beside it.
type targetKind string

const (
	toHost     targetKind = "host"
	toRunner   targetKind = "runner"
	toRP       targetKind = "rp"
	toProvider targetKind = "provider"
)

// target is who takes a step, and why, in words a board and a receipt show.
type target struct {
	kind targetKind
	name string // the route's name: host, rp, a runner's or a provider's
	why  string
}

// targetOf decides who takes a step, in the one order every consumer reads: a --route flag naming a
// connection (a runner or a provider); the runner the machine sends the role to (a role routed to a
// runner keeps it); RepoPrompt, for a reviewer, when oracle.review is rp; the provider the routing
// resolved the step's tier to; else the host. flagConn says a --route flag named the connection.
func targetOf(role string, kind loop.AwaitKind, route oracle.Route, flagConn bool, reviewRoute string) target {
	conn := route.Connection
	switch {
	case flagConn && !conn.Harness && conn.Runner:
		return target{toRunner, conn.Name, fmt.Sprintf("the --route flag %s names runner %s", route.Override, conn.Name)}
	case flagConn && !conn.Harness:
		return target{toProvider, conn.Name, fmt.Sprintf("the --route flag %s names provider %s", route.Override, conn.Name)}
	case conn.Runner:
		return target{toRunner, conn.Name, fmt.Sprintf("oracle.roles.%s.runner sends it to runner %s", role, conn.Name)}
	case kind == loop.AwaitReview && reviewRoute == "rp":
		return target{toRP, "rp", "oracle.review is rp, so reviews go to RepoPrompt"}
	case !conn.Harness && conn.Name != "":
		return target{toProvider, conn.Name, fmt.Sprintf("provider %s serves it at tier %s", conn.Name, route.Row.Tier)}
	}
	why := "the host takes it: no route beside the host is configured for it"
	if route.Fallback != "" {
		why = route.Fallback
	}
	return target{toHost, oracle.HarnessName, why}
}
