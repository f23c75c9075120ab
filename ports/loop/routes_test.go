package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// rtAgents are the board's lines: the implementer first (no table names it), then the roster.
var rtAgents = append([]string{"implementer"}, apptest.RtRosterAgents...)

// rtStatus runs status over an initialized repository with the two routing files ("" is absent).
func rtStatus(t *testing.T, repo, machine string) (setup.StatusResult, *fake.Diag) {
	t.Helper()
	file := func(path, data string) ports.ConfigFile {
		if data == "" {
			return ports.ConfigFile{Path: path}
		}
		return ports.ConfigFile{Path: path, Present: true, Data: []byte(data)}
	}
	files := ports.ConfigFiles{
		RepoConfig:     ports.ConfigFile{Path: "/work/repo/.abcd/config.json"},
		MachineConfig:  ports.ConfigFile{Path: "/home/ada/.abcd/config.json"},
		RepoRouting:    file(apptest.RtRepoPath, repo),
		MachineRouting: file(apptest.RtMachinePath, machine),
	}
	diag := &fake.Diag{}
	a := &app.App{
		Inspector: fake.Inspector{Facts: ports.RepoFacts{Root: "/work/repo", Git: true, Initialized: true, Records: map[string]int{}}},
		Config:    fake.Config{Files: files},
		Roster:    fake.Roster{R: apptest.RtRoster(t)},
		Diag:      diag,
	}
	res, err := a.Call(context.Background(), "status", map[string]any{})
	assert.NilError(t, err, "status never stops on the routing table")
	return res.(setup.StatusResult), diag
}

func rtAgent(t *testing.T, b loop.OracleBoard, name string) loop.AgentRoute {
	t.Helper()
	for _, a := range b.Agents {
		if a.Agent == name {
			return a
		}
	}
	t.Fatalf("agent %s not on the board: %+v", name, b.Agents)
	return loop.AgentRoute{}
}

func rtNames(b loop.OracleBoard) []string {
	out := []string{}
	for _, a := range b.Agents {
		out = append(out, a.Agent)
	}
	return out
}

func TestBoardWithNoRoutingFile(t *testing.T) {
	st, diag := rtStatus(t, "", "")
	b := st.Oracle
	assert.Check(t, b.Readable)
	assert.Check(t, is.Equal(b.Problem, ""))
	assert.Check(t, !b.Accepted, "no table is accepted without a routing file")
	assert.DeepEqual(t, rtNames(b), rtAgents)
	for _, a := range b.Agents {
		assert.Check(t, is.Equal(a.Source, oracle.SourceNone), a.Agent)
		assert.Check(t, is.Equal(a.Tier, oracle.HostDecides), a.Agent)
		assert.Check(t, is.Equal(a.Connection, "host"), a.Agent)
		assert.Check(t, is.Equal(a.FanOut, 1), a.Agent)
		assert.Check(t, is.Equal(a.Fallback, ""), a.Agent)
		for _, l := range a.Layers {
			assert.Check(t, !l.Wins, "%s: no layer wins when no table is accepted: %+v", a.Agent, a.Layers)
		}
	}
	assert.Check(t, is.Len(diag.Warnings, 0))
	// An initialized repository with no accepted table is not sent back to install: the offer was
	// made, and the board says how to take it up; the next step is the record's.
	assert.Check(t, is.DeepEqual(rtNextCommands(st), []string{}))
}

func TestBoardMachineTableAcceptsTheProposal(t *testing.T) {
	st, _ := rtStatus(t, "", `{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"economy"}}}`)
	b := st.Oracle
	assert.Assert(t, b.Readable, b.Problem)
	assert.Check(t, b.Accepted)
	assert.DeepEqual(t, rtNames(b), rtAgents)

	// The machine row wins over the bundled one.
	rr := rtAgent(t, b, "ruthless-reviewer")
	assert.Check(t, is.Equal(rr.Source, oracle.SourceMachine))
	assert.Check(t, is.Equal(rr.Origin, apptest.RtMachinePath))
	assert.Check(t, is.Equal(rr.Tier, oracle.Economy))
	assert.DeepEqual(t, rr.Layers, []loop.RoutingLayer{
		{Layer: oracle.SourceMachine, Tier: oracle.Economy, Wins: true},
		{Layer: oracle.SourceBundled, Tier: oracle.Proposal()["ruthless-reviewer"].Tier, Wins: false},
	})

	// Agents without a row come from the bundled proposal, which wins for them.
	for _, name := range []string{"intent-auditor", "security-reviewer"} {
		a := rtAgent(t, b, name)
		assert.Check(t, is.Equal(a.Source, oracle.SourceBundled), name)
		assert.Check(t, is.Equal(a.Origin, oracle.BundledOrigin), name)
		assert.Check(t, is.Equal(a.Tier, oracle.Proposal()[name].Tier), name)
		assert.Check(t, is.DeepEqual(a.Layers, []loop.RoutingLayer{{Layer: oracle.SourceBundled, Tier: oracle.Proposal()[name].Tier, Wins: true}}), name)
		// No connection serves frontier here: the harness takes the step, and says why.
		assert.Check(t, is.Equal(a.Connection, "host"), name)
		assert.Check(t, is.Contains(a.Fallback, string(a.Tier)), name)
	}
}

func TestBoardEmptyMachineTableStillAccepts(t *testing.T) {
	st, _ := rtStatus(t, "", `{"schema_version":1,"agents":{}}`)
	assert.Assert(t, st.Oracle.Readable, st.Oracle.Problem)
	assert.Check(t, st.Oracle.Accepted)
	for _, a := range st.Oracle.Agents[1:] {
		assert.Check(t, is.Equal(a.Source, oracle.SourceBundled), a.Agent)
	}
	impl := st.Oracle.Agents[0]
	assert.Check(t, is.Equal(impl.Agent, "implementer"))
	assert.Check(t, is.Equal(impl.Source, oracle.SourceNone), "no table names the implementer")
	assert.Check(t, is.Equal(impl.Route, "host"))
}

func TestBoardRepositoryRowWinsOverMachineRow(t *testing.T) {
	st, _ := rtStatus(t,
		`{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"local"}}}`,
		`{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"economy"},"security-reviewer":{"tier":"host-decides"}}}`)
	b := st.Oracle
	assert.Assert(t, b.Readable, b.Problem)
	assert.Check(t, b.Accepted)

	rr := rtAgent(t, b, "ruthless-reviewer")
	assert.Check(t, is.Equal(rr.Source, oracle.SourceRepository))
	assert.Check(t, is.Equal(rr.Origin, apptest.RtRepoPath))
	assert.Check(t, is.Equal(rr.Tier, oracle.Local))
	assert.DeepEqual(t, rr.Layers, []loop.RoutingLayer{
		{Layer: oracle.SourceRepository, Tier: oracle.Local, Wins: true},
		{Layer: oracle.SourceMachine, Tier: oracle.Economy, Wins: false},
		{Layer: oracle.SourceBundled, Tier: oracle.Frontier, Wins: false},
	})

	sr := rtAgent(t, b, "security-reviewer")
	assert.Check(t, is.Equal(sr.Source, oracle.SourceMachine))
	assert.Check(t, is.Equal(sr.Tier, oracle.HostDecides))
	assert.Check(t, is.Equal(sr.Connection, "host"))
	assert.Check(t, is.Equal(sr.Fallback, ""), "host-decides goes to the harness by choice, not as a fallback")

	assert.Check(t, is.Equal(rtAgent(t, b, "intent-auditor").Source, oracle.SourceBundled))
}

func TestBoardSkipsARowForAnAgentNotInTheRoster(t *testing.T) {
	st, diag := rtStatus(t, "",
		`{"schema_version":1,"agents":{"ghost-writer":{"tier":"bogus","fan_out":-3},"ruthless-reviewer":{"tier":"economy"}}}`)
	b := st.Oracle
	assert.Assert(t, b.Readable, b.Problem)
	assert.DeepEqual(t, rtNames(b), rtAgents)
	assert.Assert(t, is.Len(diag.Warnings, 1), "warnings: %v", diag.Warnings)
	assert.Check(t, is.Contains(diag.Warnings[0], "ghost-writer"))
	assert.Check(t, is.Contains(diag.Warnings[0], apptest.RtMachinePath))
	// The rest of the file applies.
	assert.Check(t, is.Equal(rtAgent(t, b, "ruthless-reviewer").Source, oracle.SourceMachine))
	assert.Check(t, is.Equal(rtAgent(t, b, "ruthless-reviewer").Tier, oracle.Economy))
}

func TestBoardClampsAFanOutAboveTheCeiling(t *testing.T) {
	st, diag := rtStatus(t, `{"schema_version":1,"agents":{"security-reviewer":{"tier":"frontier","fan_out":5}}}`, "")
	b := st.Oracle
	assert.Assert(t, b.Readable, b.Problem)
	sr := rtAgent(t, b, "security-reviewer")
	assert.Check(t, is.Equal(sr.FanOut, oracle.Ceiling))
	assert.Check(t, is.Equal(sr.Source, oracle.SourceRepository))
	assert.Assert(t, is.Len(diag.Warnings, 1), "warnings: %v", diag.Warnings)
	assert.Check(t, is.Contains(diag.Warnings[0], "security-reviewer"))
	assert.Check(t, is.Contains(diag.Warnings[0], "fan_out 5"))
	assert.Check(t, is.Contains(diag.Warnings[0], apptest.RtRepoPath))
}

func TestBoardUnreadableRoutingFile(t *testing.T) {
	cases := []struct {
		name          string
		repo, machine string
		file          string
		problem       []string
	}{
		{"unknown member in a row", "", `{"schema_version":1,"agents":{"ruthless-reviewer":{"tierr":"economy"}}}`,
			apptest.RtMachinePath, []string{`agents.ruthless-reviewer has the unknown field "tierr": its fields are tier, fan_out, settings`}},
		{"unknown member at the top", `{"schema_version":1,"agents":{},"agentz":{}}`, "",
			apptest.RtRepoPath, []string{`the document has the unknown field "agentz": its fields are schema_version, agents`}},
		{"a tier that is a number", `{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":5}}}`, "",
			apptest.RtRepoPath, []string{"agents.ruthless-reviewer.tier must be a string; it is the number 5"}},
		{"a schema_version that is a string", `{"schema_version":"1","agents":{}}`, "",
			apptest.RtRepoPath, []string{`schema_version must be a whole number; it is the string "1"`}},
		{"a fan_out with a fraction", "", `{"schema_version":1,"agents":{"intent-auditor":{"tier":"local","fan_out":1.5}}}`,
			apptest.RtMachinePath, []string{"agents.intent-auditor.fan_out must be a whole number; it is the number 1.5"}},
		{"agents as an array", `{"schema_version":1,"agents":[]}`, "",
			apptest.RtRepoPath, []string{"agents must be an object; it is an array"}},
		{"a setting that is an array", `{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"local","settings":{"t":[1]}}}}`, "",
			apptest.RtRepoPath, []string{"agents.ruthless-reviewer.settings.t: a setting's value must be a string, a number or a boolean"}},
		{"duplicate key in a row", `{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"local","tier":"frontier"}}}`, "",
			apptest.RtRepoPath, []string{"twice"}},
		{"trailing content", "", `{"schema_version":1,"agents":{}} {}`, apptest.RtMachinePath, []string{"after its object"}},
		{"wrong schema_version", `{"schema_version":2,"agents":{}}`, "", apptest.RtRepoPath, []string{"schema_version"}},
		{"bad tier", `{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"ultra"}}}`, "",
			apptest.RtRepoPath, []string{"ruthless-reviewer", "ultra", oracle.TierList()}},
		{"missing tier", "", `{"schema_version":1,"agents":{"intent-auditor":{"fan_out":1}}}`,
			apptest.RtMachinePath, []string{"intent-auditor", "tier"}},
		{"negative fan_out", "", `{"schema_version":1,"agents":{"intent-auditor":{"tier":"local","fan_out":-1}}}`,
			apptest.RtMachinePath, []string{"fan_out"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _ := rtStatus(t, c.repo, c.machine)
			b := st.Oracle
			assert.Check(t, !b.Readable)
			assert.Check(t, !b.Accepted)
			assert.Check(t, b.Agents != nil && len(b.Agents) == 0, "an unreadable board holds no agents: %+v", b.Agents)
			assert.Check(t, is.Contains(b.Problem, c.file), "the problem names the file")
			for _, p := range c.problem {
				assert.Check(t, is.Contains(b.Problem, p))
			}
			// abcd's words, never Go's decoder's.
			said := strings.TrimPrefix(b.Problem, c.file+": ")
			for _, goWords := range []string{"json:", "Go struct", "unmarshal", "oracle."} {
				assert.Check(t, !strings.Contains(said, goWords), "%q in %s", goWords, said)
			}
		})
	}
}

func TestBoardReadFaultLeavesStatusStanding(t *testing.T) {
	guarded := refusal.New("config_file", apptest.RtMachinePath, "is a symbolic link, which abcd does not follow for configuration", "replace the link with the file itself")
	a := &app.App{
		Inspector: fake.Inspector{Facts: ports.RepoFacts{Root: "/work/repo", Git: true, Initialized: true}},
		Config:    fake.Config{Err: guarded},
		Roster:    fake.Roster{R: apptest.RtRoster(t)},
	}
	res, err := a.Call(context.Background(), "status", map[string]any{})
	assert.NilError(t, err)
	b := res.(setup.StatusResult).Oracle
	assert.Check(t, !b.Readable)
	assert.Check(t, is.Contains(b.Problem, apptest.RtMachinePath))
	assert.Check(t, is.Contains(b.Problem, "symbolic link"))
}

// TestStatusSuggestsConfigShowWhenTheBoardIsUnreadable: status still succeeds, and points at the
// command that shows what is in force.
func TestStatusSuggestsConfigShowWhenTheBoardIsUnreadable(t *testing.T) {
	for name, files := range map[string][2]string{
		"unknown member": {"", `{"schema_version":1,"agents":{"ruthless-reviewer":{"tierr":"economy"}}}`},
		"duplicate key":  {`{"schema_version":1,"agents":{},"agents":{}}`, ""},
		"bad tier":       {`{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"ultra"}}}`, ""},
	} {
		t.Run(name, func(t *testing.T) {
			st, _ := rtStatus(t, files[0], files[1])
			assert.Assert(t, !st.Oracle.Readable)
			assert.Check(t, is.Contains(rtNextCommands(st), "run config_show"), "next: %+v", st.Next)
			for _, n := range st.Next {
				assert.Check(t, n.Why != "", "a next action says why")
			}
		})
	}
}

func rtNextCommands(st setup.StatusResult) []string {
	cmds := []string{}
	for _, n := range st.Next {
		cmds = append(cmds, n.String())
	}
	return cmds
}

func TestRoutesOnAVerbThatDispatchesNothing(t *testing.T) {
	a := app.DepsOf[*loop.Deps](context.Background(), &app.App{})
	checked := 0
	for _, v := range app.Table() {
		if len(v.Dispatches) > 0 {
			continue
		}
		checked++
		routes, err := a.Routes(context.Background(), v.Name, nil)
		assert.NilError(t, err, v.Name)
		assert.Check(t, is.Len(routes, 0), v.Name)
		routes, err = a.Routes(context.Background(), v.Name, []oracle.RouteText{})
		assert.NilError(t, err, v.Name)
		assert.Check(t, is.Len(routes, 0), v.Name)

		for _, flag := range []string{"ruthless-reviewer=frontier", "intent-auditor=local@acme", "nobody=bogus"} {
			_, err := a.Routes(context.Background(), v.Name, []oracle.RouteText{oracle.RouteText(flag)})
			r := apptest.AssertRefusal(t, err, "route_invalid")
			assert.Check(t, is.Contains(r.Why, flag), "%s: the refusal quotes the flag", v.Name)
			assert.Check(t, is.Equal(r.Verb+"."+r.Field, v.Name+".routes"), "%s: the refusal names the verb's routes", v.Name)
			assert.Check(t, is.Contains(r.Remedy.String(), oracle.RouteGrammar), "%s: the refusal quotes the grammar", v.Name)
			assert.Check(t, is.Contains(r.Remedy.String(), oracle.TierList()), v.Name)
		}
	}
	assert.Assert(t, checked > 0)

	_, err := a.Routes(context.Background(), "no_such_verb", nil)
	assert.Assert(t, err != nil)
	_, isRefusal := refusal.As(err)
	assert.Check(t, !isRefusal, "an unknown verb is a programming error, not a refusal")
	assert.Check(t, strings.Contains(err.Error(), "no_such_verb"))
}

// rtStatusConfigured is rtStatus with both configuration files ("" is absent) and no routing file.
func rtStatusConfigured(t *testing.T, repoConfig, machineConfig string) setup.StatusResult {
	t.Helper()
	file := func(path, data string) ports.ConfigFile {
		if data == "" {
			return ports.ConfigFile{Path: path}
		}
		return ports.ConfigFile{Path: path, Present: true, Data: []byte(data)}
	}
	a := &app.App{
		Inspector: fake.Inspector{Facts: ports.RepoFacts{Root: "/work/repo", Git: true, Initialized: true, Records: map[string]int{}}},
		Config: fake.Config{Files: ports.ConfigFiles{RepoConfig: file("/work/repo/.abcd/config.json", repoConfig),
			MachineConfig: file("/home/ada/.abcd/config.json", machineConfig), RepoRouting: ports.ConfigFile{Path: apptest.RtRepoPath},
			MachineRouting: ports.ConfigFile{Path: apptest.RtMachinePath}}},
		Roster: fake.Roster{R: apptest.RtRoster(t)},
		Diag:   &fake.Diag{},
	}
	res, err := a.Call(context.Background(), "status", map[string]any{})
	assert.NilError(t, err)
	return res.(setup.StatusResult)
}

// The board shows the route each reviewer really takes: rp when reviews go to RepoPrompt and a
// server is configured; the host, saying why, when no server is; the auditor and the implementer
// keep their own.
func TestBoardShowsRepoPromptForTheReviewers(t *testing.T) {
	st := rtStatusConfigured(t, `{"schema_version":1,"oracle":{"review":"rp"}}`, `{"schema_version":1,"oracle":{"rp":{"url":"http://127.0.0.1:8765/mcp"}}}`)
	assert.Assert(t, st.Oracle.Readable, st.Oracle.Problem)
	for _, name := range []string{"ruthless-reviewer", "security-reviewer"} {
		a := rtAgent(t, st.Oracle, name)
		assert.Check(t, is.Equal(a.Route, "rp"), name)
		assert.Check(t, is.Equal(a.Why, "oracle.review is rp, so reviews go to RepoPrompt"), name)
	}
	for _, name := range []string{"intent-auditor", "implementer"} {
		assert.Check(t, is.Equal(rtAgent(t, st.Oracle, name).Route, "host"), name)
	}

	st = rtStatusConfigured(t, `{"schema_version":1,"oracle":{"review":"rp"}}`, "")
	a := rtAgent(t, st.Oracle, "ruthless-reviewer")
	assert.Check(t, is.Equal(a.Route, "host"))
	assert.Check(t, is.Contains(a.Why, "no RepoPrompt server is configured (oracle.rp.url"))
	assert.Check(t, is.Equal(a.Fallback, a.Why), "the board's line says why the host takes it")
}
