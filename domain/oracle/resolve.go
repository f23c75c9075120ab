package oracle

import (
	"fmt"
	"maps"
	"slices"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/text"
)

// Source is the layer a route's row came from.
type Source string

const (
	SourceFlag       Source = "flag"       // an invocation's --route
	SourceRepository Source = "repository" // .abcd/config/oracle-routing.json
	SourceMachine    Source = "machine"    // $ABCD_HOME/oracle-routing.json
	SourceBundled    Source = "bundled"    // the bundled proposal, once a table is accepted
	SourceNone       Source = "none"       // no table accepted and no flag: the harness decides
)

// Sources lists every source, highest precedence first.
func Sources() []Source {
	return []Source{SourceFlag, SourceRepository, SourceMachine, SourceBundled, SourceNone}
}

func (Source) SchemaEnum() contract.Rule { return contract.Enum(Sources()...) }

// Tables lists the sources that are routing tables (a row comes from one), highest precedence
// first: what a status board's layers name.
func Tables() []Source { return []Source{SourceRepository, SourceMachine, SourceBundled} }

// Layers is everything Resolve reads, already read and checked by the caller: the invocation's flag
// for this agent (nil when none), and the repository's and machine's accepted tables (from
// CheckTable) with their origins. A layer is present when its file exists, even with no rows; a
// Table holding rows counts as present whatever its flag says.
type Layers struct {
	Flag           *FlagRoute
	Repo, Machine  Table
	RepoOrigin     string
	MachineOrigin  string
	RepoPresent    bool
	MachinePresent bool
	// Escalated, when valid, is the tier a later round asks for after a failed one: it replaces the
	// tier the row and the flag give before the connection is chosen, so the connection (and the
	// fallback reason when none serves it) belong to the tier actually asked for.
	Escalated Tier
}

// accepted reports whether a routing table is accepted, so the bundled proposal applies.
func (l Layers) accepted() bool {
	return l.RepoPresent || l.MachinePresent || len(l.Repo) > 0 || len(l.Machine) > 0
}

// Connection is where a step can run: a configured provider, or the person's own harness.
type Connection struct {
	Name    string `json:"name"`
	Harness bool   `json:"harness"` // true: the person's own agent harness
	// Runner is true for a runner: a headless coding-agent CLI the machine configures
	// (oracle.runner.<name>), which takes the step in the lane's worktree.
	Runner bool `json:"runner,omitempty"`
}

// HarnessName is the name the harness connection carries on requests and receipts; it is the
// value oracle.review already uses for the harness.
const HarnessName = "host"

// Harness is the person's own agent harness, the route every step takes by default.
func Harness() Connection { return Connection{Name: HarnessName, Harness: true} }

// Configured is what the machine has configured, as Resolve reads it: data the caller gathers from
// the machine's connections (the ports.Connections port), so routing never dials and a test hands it
// a provider that is "reachable" without a socket. The zero value configures nothing: every step
// goes to the harness.
type Configured struct {
	// Names are the configured connections.
	Names []string
	// Serving is, per tier, the configured connection that serves it.
	Serving map[Tier]Connection
	// Pointed is, per agent, the provider the machine points it at (oracle.roles.<agent>.connection).
	Pointed map[string]Connection
	// RunnerNames are the configured runners; Runners is, per agent, the runner the machine sends it
	// to (oracle.roles.<agent>.runner). An agent sent to a runner keeps it over every connection but
	// a --route flag's.
	RunnerNames []string
	Runners     map[string]Connection
}

// Named returns the configured connection of that name: a provider, or a runner.
func (c Configured) Named(name string) (Connection, bool) {
	if slices.Contains(c.Names, name) {
		return Connection{Name: name}, true
	}
	if slices.Contains(c.RunnerNames, name) {
		return Connection{Name: name, Runner: true}, true
	}
	return Connection{}, false
}

// Route is one agent's resolved route: the row that won, the connection that takes the step, and why.
type Route struct {
	Agent      string
	Row        Row        // the winning row; FanOut is always between 1 and Ceiling
	Connection Connection // where the step goes
	// Fallback is the reason, as a sentence, when the harness takes a step a connection was wanted
	// for; "" otherwise.
	Fallback string
	Source   Source
	Origin   string   // the file the row came from, BundledOrigin, "--route", or "" for none
	Override string   // the --route text verbatim when a flag applied
	Settings Settings // merged: connection defaults < row < flag; never nil
}

// Resolve gives one agent's route from the layers and the machine's connections. It never writes and
// never reaches a network.
//
// The row: the flag's agent over the repository's row over the machine's row over the bundled
// proposal, the proposal only once a table is accepted (l.RepoPresent or l.MachinePresent). With no
// table and no flag the agent resolves to SourceNone: the harness at host-decides under the ceiling,
// and no connection is consulted. A flag replaces the tier of the row the lower layers give and lays
// its settings over that row's.
//
// The connection, first that applies: the flag's @connection (c.Named; an error when it is not
// configured); the runner the machine sends the agent to (c.Runners), even with no table accepted,
// since the machine asked for it by name; the harness when no table is accepted; the provider the
// machine points the agent at (c.Pointed); the harness for
// host-decides; a connection that serves the tier (c.Serving); else the harness, with a Fallback
// reason naming the tier.
//
// Settings merge defaults(connection) < row < flag; defaults may be nil. The merged map obeys the row
// rules (at most 16, clean keys and values) or Resolve refuses.
func Resolve(agent string, l Layers, c Configured, defaults func(Connection) Settings) (Route, error) {
	if !agentPattern.MatchString(agent) {
		return Route{}, fmt.Errorf("agent %s is not an agent name: resolve a roster agent", echo(agent))
	}
	r := Route{Agent: agent}
	if row, ok := l.Repo[agent]; ok {
		r.Row, r.Source, r.Origin = row, SourceRepository, l.RepoOrigin
	} else if row, ok := l.Machine[agent]; ok {
		r.Row, r.Source, r.Origin = row, SourceMachine, l.MachineOrigin
	} else if row, ok := Proposal()[agent]; ok && l.accepted() {
		r.Row, r.Source, r.Origin = row, SourceBundled, BundledOrigin
	} else {
		// No table accepted, or an agent the proposal does not name: the harness decides.
		r.Row, r.Source = Row{Tier: HostDecides, FanOut: Ceiling}, SourceNone
	}
	if !r.Row.Tier.Valid() {
		return Route{}, fmt.Errorf("%s: agent %s has tier %s, not one of %s: check the table with CheckTable before resolving",
			r.Origin, agent, echo(string(r.Row.Tier)), TierList())
	}
	if r.Row.FanOut <= 0 || r.Row.FanOut > Ceiling {
		r.Row.FanOut = Ceiling
	}
	r.Row.Settings = maps.Clone(r.Row.Settings)

	var flagSettings Settings
	if f := l.Flag; f != nil {
		if f.Agent != agent {
			return Route{}, fmt.Errorf("the --route flag %s is for agent %s, not %s: pass each agent its own flag",
				echo(f.Text), echo(f.Agent), agent)
		}
		if !f.Tier.Valid() {
			return Route{}, &RouteError{Flag: text.Clip(f.Text), Msg: fmt.Sprintf("tier %s is not one of %s", echo(string(f.Tier)), TierList())}
		}
		r.Row.Tier, r.Source, r.Origin, r.Override = f.Tier, SourceFlag, "--route", f.Text
		flagSettings = f.Settings
	}

	if l.Escalated.Valid() && l.Escalated != r.Row.Tier && r.Source != SourceNone {
		r.Row.Tier = l.Escalated
	}

	runner, sent := c.Runners[agent]
	switch {
	case l.Flag != nil && l.Flag.Connection != "":
		conn, ok := c.Named(l.Flag.Connection)
		if !ok {
			return Route{}, &RouteError{Flag: text.Clip(l.Flag.Text), Msg: notConfigured(l.Flag.Connection)}
		}
		r.Connection = conn
	case sent:
		runner.Runner = true
		r.Connection = runner
	case r.Source == SourceNone:
		r.Connection = Harness()
	default:
		if conn, ok := c.Pointed[agent]; ok {
			r.Connection = conn
		} else if r.Row.Tier == HostDecides {
			r.Connection = Harness()
		} else if conn, ok := c.Serving[r.Row.Tier]; ok {
			r.Connection = conn
		} else {
			r.Connection = Harness()
			r.Fallback = Unserved(r.Row.Tier)
		}
	}

	merged := Settings{}
	if defaults != nil {
		maps.Copy(merged, defaults(r.Connection))
	}
	maps.Copy(merged, r.Row.Settings)
	maps.Copy(merged, flagSettings)
	if field, msg := checkSettings(merged); msg != "" {
		return Route{}, fmt.Errorf("agent %s: the merged %s (connection %s, then the row, then the flag) %s",
			agent, field, echo(r.Connection.Name), msg)
	}
	r.Settings = merged
	return r, nil
}

// Unserved is the fallback of an agent whose tier no configured connection serves: the harness takes
// its steps. With a routing table accepted and no provider connected, it is the expected path.
func Unserved(tier Tier) string {
	return fmt.Sprintf("no configured connection serves tier %s; the harness takes the step", tier)
}

// notConfigured is the refusal for a connection this machine has not configured, with its remedy.
func notConfigured(conn string) string {
	name := "<name>"
	if connPattern.MatchString(conn) {
		name = conn
	}
	return fmt.Sprintf("connection %s is not configured on this machine: configure it in $ABCD_HOME/config.json under oracle.api.%s (a provider) or oracle.runner.%s (a runner)",
		echo(conn), name, name)
}
