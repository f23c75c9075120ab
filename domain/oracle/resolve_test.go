package oracle

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

var (
	openrouter = Connection{Name: "openrouter"}
	ollama     = Connection{Name: "ollama"}
)

// TestResolvePrecedence walks every combination of the four layers for one agent, the layers
// disagreeing on the tier, in two worlds: one where a routing file is accepted (another agent's row
// keeps each file present when this agent's row is absent), and one where an absent row means an
// absent file, so the bundled proposal applies only when a file exists.
func TestResolvePrecedence(t *testing.T) {
	const (
		flagTier    = Local
		repoTier    = Economy
		machineTier = HostDecides
		bundledTier = Frontier // the proposal's tier for ruthless-reviewer
	)
	for _, filesAlwaysPresent := range []bool{true, false} {
		for mask := range 16 {
			hasFlag, hasRepo, hasMachine, hasBundled := mask&8 != 0, mask&4 != 0, mask&2 != 0, mask&1 != 0
			agent := "scratch-agent" // not in the proposal: the bundled layer has no row for it
			if hasBundled {
				agent = "ruthless-reviewer"
			}
			l := Layers{RepoOrigin: "repo.json", MachineOrigin: "machine.json", Repo: Table{}, Machine: Table{}}
			if filesAlwaysPresent {
				l.Repo["other-agent"] = Row{Tier: Local, FanOut: 1}
				l.RepoPresent, l.MachinePresent = true, true
			}
			if hasRepo {
				l.Repo[agent] = Row{Tier: repoTier, FanOut: 1}
				l.RepoPresent = true
			}
			if hasMachine {
				l.Machine[agent] = Row{Tier: machineTier, FanOut: 1}
				l.MachinePresent = true
			}
			if hasFlag {
				l.Flag = &FlagRoute{Agent: agent, Tier: flagTier, Text: agent + "=local"}
			}
			accepted := l.RepoPresent || l.MachinePresent

			wantSource, wantTier, wantOrigin := SourceNone, HostDecides, ""
			switch {
			case hasRepo:
				wantSource, wantTier, wantOrigin = SourceRepository, repoTier, "repo.json"
			case hasMachine:
				wantSource, wantTier, wantOrigin = SourceMachine, machineTier, "machine.json"
			case hasBundled && accepted:
				wantSource, wantTier, wantOrigin = SourceBundled, bundledTier, BundledOrigin
			}
			wantOverride := ""
			if hasFlag {
				wantSource, wantTier, wantOrigin, wantOverride = SourceFlag, flagTier, "--route", agent+"=local"
			}

			name := fmt.Sprintf("files-always=%v/flag=%v,repo=%v,machine=%v,bundled=%v", filesAlwaysPresent, hasFlag, hasRepo, hasMachine, hasBundled)
			t.Run(name, func(t *testing.T) {
				r, err := Resolve(agent, l, Configured{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if r.Source != wantSource || r.Row.Tier != wantTier || r.Origin != wantOrigin || r.Override != wantOverride {
					t.Errorf("source %s tier %s origin %q override %q; want %s %s %q %q",
						r.Source, r.Row.Tier, r.Origin, r.Override, wantSource, wantTier, wantOrigin, wantOverride)
				}
				if r.Agent != agent || r.Row.FanOut != Ceiling {
					t.Errorf("agent %q fan_out %d; want %q %d", r.Agent, r.Row.FanOut, agent, Ceiling)
				}
			})
		}
	}
}

// TestResolveNothingAccepted: with no routing file and no flag every agent resolves to none, the
// harness at host-decides under the ceiling, and no connection is consulted (AC 1).
func TestResolveNothingAccepted(t *testing.T) {
	c := Configured{
		Names:   []string{"ollama", "openrouter"},
		Serving: map[Tier]Connection{HostDecides: openrouter, Frontier: openrouter},
		Pointed: map[string]Connection{"ruthless-reviewer": ollama},
	}
	for agent := range Proposal() {
		r, err := Resolve(agent, Layers{}, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := Route{Agent: agent, Row: Row{Tier: HostDecides, FanOut: Ceiling}, Connection: Harness(), Source: SourceNone, Settings: Settings{}}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("Resolve(%s) = %+v, want %+v", agent, r, want)
		}
	}
	// The zero Configured configures nothing.
	if r, err := Resolve("intent-auditor", Layers{MachinePresent: true}, Configured{}, nil); err != nil || r.Connection != Harness() || r.Source != SourceBundled {
		t.Errorf("Resolve with no connections = %+v, %v", r, err)
	}
}

// TestResolveFlagAloneAcceptsNothing: a --route overrides the one agent it names and accepts no
// table, so the row it lays over is none's.
func TestResolveFlagAloneAcceptsNothing(t *testing.T) {
	l := Layers{Flag: &FlagRoute{Agent: "intent-auditor", Tier: Economy, Text: "intent-auditor=economy"}}
	r, err := Resolve("intent-auditor", l, Configured{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != SourceFlag || r.Row.Tier != Economy || r.Row.FanOut != Ceiling || r.Override != "intent-auditor=economy" {
		t.Errorf("flag route = %+v", r)
	}
	if r.Connection != Harness() || r.Fallback != "no configured connection serves tier economy; the harness takes the step" {
		t.Errorf("flag route connection %+v fallback %q", r.Connection, r.Fallback)
	}
	other, err := Resolve("security-reviewer", Layers{}, Configured{}, nil)
	if err != nil || other.Source != SourceNone {
		t.Errorf("another agent = %+v, %v; want none", other, err)
	}
}

// TestResolveFlagKeepsTheLowerRow: the flag replaces the tier and lays its settings over the row the
// lower layers give; the fan_out stays the row's.
func TestResolveFlagKeepsTheLowerRow(t *testing.T) {
	l := Layers{
		Repo:        Table{"intent-auditor": {Tier: Economy, FanOut: 1, Settings: Settings{"temperature": `0.2`, "effort": `"low"`}}},
		RepoPresent: true, RepoOrigin: "repo.json",
		Flag: &FlagRoute{Agent: "intent-auditor", Tier: Frontier, Settings: Settings{"effort": `"high"`}, Text: "intent-auditor=frontier?effort=high"},
	}
	r, err := Resolve("intent-auditor", l, Configured{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{"temperature": `0.2`, "effort": `"high"`}
	if r.Row.Tier != Frontier || r.Row.FanOut != 1 || !reflect.DeepEqual(r.Settings, want) {
		t.Errorf("route = %+v; want frontier, fan_out 1, settings %v", r, want)
	}
	if l.Repo["intent-auditor"].Settings["effort"] != `"low"` {
		t.Error("Resolve changed the repository table")
	}
}

func TestResolveLegs(t *testing.T) {
	const noFallback = ""
	machine := func() Configured {
		return Configured{
			Names:   []string{"ollama", "openrouter"},
			Serving: map[Tier]Connection{Economy: openrouter, Local: ollama},
			Pointed: map[string]Connection{"security-reviewer": ollama},
		}
	}
	repo := Table{
		"intent-auditor":    {Tier: Economy, FanOut: 1},
		"ruthless-reviewer": {Tier: Frontier, FanOut: 1},
		"security-reviewer": {Tier: Frontier, FanOut: 1},
	}
	tests := []struct {
		name         string
		agent        string
		repo         Table
		flag         *FlagRoute
		conns        Configured
		wantConn     Connection
		wantFallback string
	}{
		{"a connection serves the tier", "intent-auditor", repo, nil, machine(), openrouter, noFallback},
		{"no connection serves the tier: the harness, with a reason", "ruthless-reviewer", repo, nil, machine(), Harness(),
			"no configured connection serves tier frontier; the harness takes the step"},
		{"no connections at all", "ruthless-reviewer", repo, nil, Configured{}, Harness(),
			"no configured connection serves tier frontier; the harness takes the step"},
		{"a local tier nobody serves", "intent-auditor", Table{"intent-auditor": {Tier: Local}}, nil, Configured{}, Harness(),
			"no configured connection serves tier local; the harness takes the step"},
		{"host-decides goes to the harness without a reason", "intent-auditor", Table{"intent-auditor": {Tier: HostDecides}}, nil,
			Configured{Names: []string{"openrouter"}, Serving: map[Tier]Connection{HostDecides: openrouter}}, Harness(), noFallback},
		{"the machine points the agent at a provider, over serves", "security-reviewer", repo, nil, machine(), ollama, noFallback},
		{"the machine points the agent at a provider, over host-decides", "security-reviewer", Table{"security-reviewer": {Tier: HostDecides}}, nil,
			machine(), ollama, noFallback},
		{"a flag's @connection, over the pointer", "security-reviewer", repo,
			&FlagRoute{Agent: "security-reviewer", Tier: Frontier, Connection: "openrouter", Text: "security-reviewer=frontier@openrouter"},
			machine(), openrouter, noFallback},
		{"a flag without a connection takes the ordinary legs", "ruthless-reviewer", repo,
			&FlagRoute{Agent: "ruthless-reviewer", Tier: Local, Text: "ruthless-reviewer=local"},
			machine(), ollama, noFallback},
		{"a flag at host-decides", "intent-auditor", repo,
			&FlagRoute{Agent: "intent-auditor", Tier: HostDecides, Text: "intent-auditor=host-decides"},
			machine(), Harness(), noFallback},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := Layers{Repo: tc.repo, RepoPresent: true, RepoOrigin: "repo.json", Flag: tc.flag}
			r, err := Resolve(tc.agent, l, tc.conns, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Connection != tc.wantConn || r.Fallback != tc.wantFallback {
				t.Errorf("connection %+v fallback %q; want %+v %q", r.Connection, r.Fallback, tc.wantConn, tc.wantFallback)
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	tests := []struct {
		name      string
		agent     string
		l         Layers
		wantRoute bool // a *RouteError
		wantInMsg []string
	}{
		{"a flag's connection not configured", "intent-auditor",
			Layers{Flag: &FlagRoute{Agent: "intent-auditor", Tier: Frontier, Connection: "groq", Text: "intent-auditor=frontier@groq"}},
			true, []string{`"groq"`, "configure it in $ABCD_HOME/config.json under oracle.api.groq", RouteGrammar}},
		{"a flag's odd connection name is not echoed into the remedy", "intent-auditor",
			Layers{Flag: &FlagRoute{Agent: "intent-auditor", Tier: Frontier, Connection: "a b\u202e", Text: "intent-auditor=frontier@a b\u202e"}},
			true, []string{`"a b\u202e"`, "oracle.api.<name>"}},
		{"a flag with a tier outside the set", "intent-auditor",
			Layers{Flag: &FlagRoute{Agent: "intent-auditor", Tier: "premium", Text: "intent-auditor=premium"}},
			true, []string{TierList()}},
		{"a flag for another agent", "intent-auditor",
			Layers{Flag: &FlagRoute{Agent: "security-reviewer", Tier: Frontier, Text: "security-reviewer=frontier"}},
			false, []string{"security-reviewer", "not intent-auditor"}},
		{"a malformed agent", "Intent Auditor", Layers{}, false, []string{`"Intent Auditor"`}},
		{"a table row with a tier outside the set", "intent-auditor",
			Layers{Repo: Table{"intent-auditor": {Tier: "premium"}}, RepoOrigin: "repo.json"}, false, []string{"repo.json", TierList()}},
		{"merged settings over 16", "intent-auditor",
			Layers{Repo: Table{"intent-auditor": {Tier: Local, Settings: manySettings(10)}},
				Flag: &FlagRoute{Agent: "intent-auditor", Tier: Local, Text: "intent-auditor=local", Settings: Settings{
					"a": `1`, "b": `1`, "c": `1`, "d": `1`, "e": `1`, "f": `1`, "g": `1`}}},
			false, []string{"17 settings"}},
		{"a flag's setting not clean", "intent-auditor",
			Layers{Flag: &FlagRoute{Agent: "intent-auditor", Tier: Local, Text: "x", Settings: Settings{"k": `null`}}},
			false, []string{"settings.k"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(tc.agent, tc.l, Configured{}, nil)
			if err == nil {
				t.Fatalf("Resolve = %+v, want a refusal", r)
			}
			var re *RouteError
			if errors.As(err, &re) != tc.wantRoute {
				t.Errorf("error %T, want a *RouteError: %v", err, tc.wantRoute)
			}
			for _, w := range tc.wantInMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err.Error(), w)
				}
			}
		})
	}
}

// TestResolveSettingsMerge: connection defaults, then the row, then the flag.
func TestResolveSettingsMerge(t *testing.T) {
	var gotConn []Connection
	defaults := func(c Connection) Settings {
		gotConn = append(gotConn, c)
		return Settings{"a": `"default"`, "b": `"default"`, "c": `"default"`}
	}
	conns := Configured{Names: []string{"openrouter"}, Serving: map[Tier]Connection{Economy: openrouter}}
	l := Layers{
		Machine:        Table{"intent-auditor": {Tier: Economy, FanOut: 1, Settings: Settings{"b": `"row"`, "c": `"row"`, "d": `"row"`}}},
		MachinePresent: true, MachineOrigin: "machine.json",
		Flag: &FlagRoute{Agent: "intent-auditor", Tier: Economy, Text: "intent-auditor=economy?c=flag,e=1", Settings: Settings{"c": `"flag"`, "e": `1`}},
	}
	r, err := Resolve("intent-auditor", l, conns, defaults)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{"a": `"default"`, "b": `"row"`, "c": `"flag"`, "d": `"row"`, "e": `1`}
	if !reflect.DeepEqual(r.Settings, want) {
		t.Errorf("settings = %v, want %v", r.Settings, want)
	}
	if !reflect.DeepEqual(gotConn, []Connection{openrouter}) {
		t.Errorf("defaults asked for %v, want the connection that takes the step", gotConn)
	}

	for _, tc := range []struct {
		name     string
		l        Layers
		defaults func(Connection) Settings
		want     Settings
	}{
		{"nothing anywhere", Layers{}, nil, Settings{}},
		{"defaults only", Layers{}, func(Connection) Settings { return Settings{"a": `1`} }, Settings{"a": `1`}},
		{"defaults give nil", Layers{}, func(Connection) Settings { return nil }, Settings{}},
		{"the row over defaults", Layers{Repo: Table{"intent-auditor": {Tier: Local, Settings: Settings{"a": `2`}}}},
			func(Connection) Settings { return Settings{"a": `1`} }, Settings{"a": `2`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve("intent-auditor", tc.l, Configured{}, tc.defaults)
			if err != nil {
				t.Fatal(err)
			}
			if r.Settings == nil || !reflect.DeepEqual(r.Settings, tc.want) {
				t.Errorf("settings = %#v, want %#v", r.Settings, tc.want)
			}
		})
	}
}

// TestResolveClampsUncheckedRows: a row handed in without CheckTable still lands under the ceiling.
func TestResolveClampsUncheckedRows(t *testing.T) {
	for _, fanOut := range []int{-2, 0, 1, 2, 64} {
		l := Layers{Machine: Table{"intent-auditor": {Tier: Local, FanOut: fanOut}}}
		r, err := Resolve("intent-auditor", l, Configured{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Row.FanOut != Ceiling {
			t.Errorf("fan_out %d resolved to %d, want %d", fanOut, r.Row.FanOut, Ceiling)
		}
	}
}

// TestResolveAgentOutsideTheProposal: an accepted table with no row for an agent the proposal does not
// name resolves it to none.
func TestResolveAgentOutsideTheProposal(t *testing.T) {
	r, err := Resolve("scratch-agent", Layers{RepoPresent: true}, Configured{}, nil)
	if err != nil || r.Source != SourceNone || r.Row.Tier != HostDecides || r.Connection != Harness() {
		t.Errorf("Resolve = %+v, %v", r, err)
	}
}

// TestResolveEscalatesBeforeChoosingTheConnection: a failed round asks for the next tier up, and the
// connection and the fallback reason belong to that tier, not to the one the row gave.
func TestResolveEscalatesBeforeChoosingTheConnection(t *testing.T) {
	conns := func() Configured {
		return Configured{Names: []string{"openrouter"}, Serving: map[Tier]Connection{Economy: openrouter}}
	}
	repo := Table{"ruthless-reviewer": {Tier: Local, FanOut: 1}}
	l := Layers{Repo: repo, RepoOrigin: "repo", RepoPresent: true}

	// Round 1 at local: nothing serves it, the harness takes it with local's reason.
	r, err := Resolve("ruthless-reviewer", l, conns(), nil)
	if err != nil || r.Connection != Harness() || !strings.Contains(r.Fallback, "tier local") {
		t.Fatalf("round 1: %+v %v", r, err)
	}
	// Round 2 escalated to economy: the provider serving economy takes it, no fallback.
	l.Escalated = Economy
	r, err = Resolve("ruthless-reviewer", l, conns(), nil)
	if err != nil || r.Row.Tier != Economy || r.Connection != openrouter || r.Fallback != "" {
		t.Fatalf("round 2: %+v %v", r, err)
	}
	// Round 3 escalated to frontier: nothing serves it, and the reason names frontier.
	l.Escalated = Frontier
	r, err = Resolve("ruthless-reviewer", l, conns(), nil)
	if err != nil || r.Row.Tier != Frontier || r.Connection != Harness() || !strings.Contains(r.Fallback, "tier frontier") {
		t.Fatalf("round 3: %+v %v", r, err)
	}
	// With no table accepted, the harness decides whatever a round escalated to.
	r, err = Resolve("ruthless-reviewer", Layers{Escalated: Frontier}, conns(), nil)
	if err != nil || r.Row.Tier != HostDecides || r.Source != SourceNone {
		t.Fatalf("no table: %+v %v", r, err)
	}
}

// An agent the machine sends to a runner keeps it: over a provider pointed at it, over the provider
// serving its tier, with no table accepted, and for an agent no table names (the implementer); a
// --route flag naming a connection is the one thing before it, and a flag naming only a tier keeps
// the runner at that tier.
func TestResolveAnAgentKeepsItsRunner(t *testing.T) {
	cc := Connection{Name: "cc", Runner: true}
	c := Configured{Names: []string{"openrouter"}, RunnerNames: []string{"cc", "cx"},
		Serving: map[Tier]Connection{Economy: openrouter}, Pointed: map[string]Connection{"ruthless-reviewer": openrouter},
		Runners: map[string]Connection{"ruthless-reviewer": {Name: "cc"}, "implementer": {Name: "cc"}}}
	accepted := Layers{RepoPresent: true, Repo: Table{"ruthless-reviewer": {Tier: Economy, FanOut: 1}, "security-reviewer": {Tier: Economy, FanOut: 1}}}
	for _, tc := range []struct {
		name  string
		agent string
		l     Layers
		want  Connection
		tier  Tier
	}{
		{"over the provider pointed at it and the tier's", "ruthless-reviewer", accepted, cc, Economy},
		{"with no table accepted", "ruthless-reviewer", Layers{}, cc, HostDecides},
		{"for the implementer, whom no table names", "implementer", accepted, cc, HostDecides},
		{"a flag's tier keeps the runner", "ruthless-reviewer", func() Layers {
			l := accepted
			l.Flag = &FlagRoute{Agent: "ruthless-reviewer", Tier: Frontier, Text: "ruthless-reviewer=frontier"}
			return l
		}(), cc, Frontier},
		{"a flag's connection comes first", "ruthless-reviewer", func() Layers {
			l := accepted
			l.Flag = &FlagRoute{Agent: "ruthless-reviewer", Tier: Economy, Connection: "openrouter", Text: "ruthless-reviewer=economy@openrouter"}
			return l
		}(), openrouter, Economy},
		{"a flag may name a runner", "security-reviewer", func() Layers {
			l := accepted
			l.Flag = &FlagRoute{Agent: "security-reviewer", Tier: Local, Connection: "cx", Text: "security-reviewer=local@cx"}
			return l
		}(), Connection{Name: "cx", Runner: true}, Local},
		{"another agent is not sent", "security-reviewer", accepted, openrouter, Economy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(tc.agent, tc.l, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Connection != tc.want || r.Row.Tier != tc.tier || r.Fallback != "" {
				t.Errorf("got %+v at %s (fallback %q), want %+v at %s", r.Connection, r.Row.Tier, r.Fallback, tc.want, tc.tier)
			}
		})
	}
}
