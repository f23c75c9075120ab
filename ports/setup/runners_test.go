package setup_test

import (
	"context"
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/ports/app"
	loopuc "github.com/abcd-dev/abcd/ports/loop"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func newRunnerWorld(t *testing.T, machine string) (*provWorld, *fake.Runners) {
	t.Helper()
	w := newProvWorld(t, machine, "")
	rs := &fake.Runners{Found: "/usr/local/bin/claude", Report: ports.RunnerReport{Version: "2.1.332", Flags: []string{"--print", "--verbose"}, ModelReported: "claude-x"}}
	w.a.Runners = rs
	return w, rs
}

func TestConnectARunnerChecksItThenWritesItsBlock(t *testing.T) {
	w, rs := newRunnerWorld(t, `{"schema_version":1,"oracle":{"review":"host"}}`)
	res, err := w.call(t, "ahoy_connect", map[string]any{"runner": "cc", "cli": "claude", "credential_env": []any{"ANTHROPIC_API_KEY"},
		"pass_env": []any{"ANTHROPIC_BASE_URL"}, "tiers": []any{"frontier=claude-opus-4-5"}, "model": "claude-haiku-4-5"})
	assert.NilError(t, err)
	got := res.(setup.AhoyConnectResult)
	assert.Check(t, is.Equal(got.Name, "cc"))
	assert.Check(t, is.Equal(got.Credential, setup.CredentialEnv))
	assert.Check(t, is.DeepEqual(got.Tiers, []string{"frontier=claude-opus-4-5"}))
	assert.Check(t, is.Equal(got.ModelReported, "claude-x"))
	assert.Check(t, is.DeepEqual(got.Runner, &setup.RunnerConnected{CLI: runner.Claude, Executable: "/usr/local/bin/claude", Version: "2.1.332",
		Flags: []string{"--print", "--verbose"}, CredentialEnv: []string{"ANTHROPIC_API_KEY"}, PassEnv: []string{"ANTHROPIC_BASE_URL"}, Sandbox: runner.SandboxLinux}))
	assert.Check(t, is.Equal(got.Next.File.Key, "oracle.roles.<agent>.runner"))
	assert.Check(t, is.Contains(got.Next.String(), "to drive a spec's steps through it"), got.Next.String())
	assert.Check(t, got.Next.Run != nil && got.Next.Run.Verb == "implement_run", "the step is data the door spells")
	assert.Assert(t, is.Len(rs.Checked, 1))
	c := rs.Checked[0]
	assert.Check(t, c.Prove, "connect makes one proving call")
	assert.Check(t, is.Equal(c.Model, "claude-haiku-4-5"))
	assert.Check(t, is.DeepEqual(c.Runner.CredentialEnv, []string{"ANTHROPIC_API_KEY"}))
	// The proving call runs inside the sandbox, writing nothing and kept from $ABCD_HOME and abcd's
	// local state, so connect proves the sandbox as it proves the CLI.
	assert.Assert(t, c.Sandbox != nil && !c.Sandbox.Off, "%+v", c.Sandbox)
	assert.Check(t, is.Equal(c.Sandbox.Role, ports.SandboxRoleConnect))
	assert.Check(t, is.Len(c.Sandbox.Write, 0))
	assert.Check(t, is.Contains(c.Sandbox.Hide, path.Dir(w.setup.MachinePath("config.json"))))

	var doc map[string]any
	assert.NilError(t, json.Unmarshal(w.setup.Machine["config.json"], &doc))
	o := doc["oracle"].(map[string]any)
	assert.Check(t, is.Equal(o["review"], "host"), "the rest of the file stays")
	assert.Check(t, is.DeepEqual(o["runner"], map[string]any{"cc": map[string]any{"cli": "claude", "executable": "/usr/local/bin/claude", "version": "2.1.332",
		"tiers": map[string]any{"frontier": "claude-opus-4-5"}, "credential_env": []any{"ANTHROPIC_API_KEY"}, "pass_env": []any{"ANTHROPIC_BASE_URL"}}}))
	_, hasAPI := o["api"]
	assert.Check(t, !hasAPI, "no empty provider object is left")

	// The block reads back, and the roles can send an agent to it.
	_, runners, err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).LoadRoutes(context.Background())
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(runners.Names(), []string{"cc"}))

	// Connected twice: refused, nothing written.
	before := string(w.setup.Machine["config.json"])
	_, err = w.call(t, "ahoy_connect", map[string]any{"runner": "cc", "cli": "codex"})
	assert.Check(t, is.Equal(refusalCode(t, err), "runner_exists"))
	assert.Check(t, is.Equal(string(w.setup.Machine["config.json"]), before))

	// Disconnected: the block and the roles pointing at it go.
	w.setup.Machine["config.json"] = []byte(strings.Replace(before, `"review": "host"`, `"review": "host", "roles": {"implementer": {"runner": "cc", "model": "claude-x"}, "ruthless-reviewer": {"runner": "cc"}}`, 1))
	res, err = w.call(t, "ahoy_disconnect", map[string]any{"name": "cc"})
	assert.NilError(t, err)
	dis := res.(setup.AhoyDisconnectResult)
	assert.Check(t, dis.Removed)
	assert.Check(t, is.DeepEqual(dis.RolesRemoved, []string{"implementer", "ruthless-reviewer"}))
	assert.NilError(t, json.Unmarshal(w.setup.Machine["config.json"], &doc))
	assert.Check(t, is.DeepEqual(doc["oracle"], map[string]any{"review": "host"}))
}

func TestAFailedCheckWritesNothingAndNamesWhatDrifted(t *testing.T) {
	for _, c := range []struct {
		f    *runner.Failure
		want string
	}{
		{runner.Failf(runner.CauseFlags, "Claude Code 2.1.400 --help does not offer --permission-prompts, which abcd passes"), "--permission-prompts"},
		{runner.Failf(runner.CauseVersion, "Claude Code is 2.3.0, outside the versions abcd knows (>= 2.1.328, < 2.2.0)"), "2.3.0"},
		{runner.Failf(runner.CauseAuth, "Claude Code ended with result success, API status 401"), "401"},
	} {
		w, rs := newRunnerWorld(t, "")
		rs.Report.Failure = c.f
		_, err := w.call(t, "ahoy_connect", map[string]any{"runner": "cc", "cli": "claude"})
		r, ok := refusal.As(err)
		assert.Assert(t, ok, "%v", err)
		assert.Check(t, is.Equal(r.Code, refusal.CodeRunnerUnverified))
		assert.Check(t, is.Contains(r.Why, c.want))
		assert.Check(t, is.Contains(r.Why, "nothing was written"))
		_, written := w.setup.Machine["config.json"]
		assert.Check(t, !written, "nothing was written")
	}
}

// The remedy of a failed check is the command the person ran, whole: following it connects the same
// runner, with the same model, tiers, variables and roles.
func TestAFailedChecksRemedyIsTheWholeCommand(t *testing.T) {
	w, rs := newRunnerWorld(t, "")
	rs.Report.Failure = runner.Failf(runner.CauseAuth, "Claude Code ended with result success, API status 401")
	_, err := w.call(t, "ahoy_connect", map[string]any{"runner": "cc", "cli": "claude", "executable": "/opt/claude/bin/claude",
		"model": "claude-x", "tiers": []any{"frontier=claude-x"}, "credential_env": []any{"ANTHROPIC_API_KEY"},
		"pass_env": []any{"HTTPS_PROXY"}, "roles": []any{"security-reviewer", "implementer"}})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	var run *refusal.Invocation
	for _, p := range r.Remedy {
		if p.Run != nil {
			run = p.Run
		}
	}
	assert.Assert(t, run != nil, "%+v", r.Remedy)
	got := map[string]any{}
	for _, a := range run.Args {
		got[a.Name] = a.Value
	}
	assert.DeepEqual(t, got, map[string]any{"runner": "cc", "cli": "claude", "executable": "/opt/claude/bin/claude",
		"model": "claude-x", "tiers": []string{"frontier=claude-x"}, "credential_env": []string{"ANTHROPIC_API_KEY"},
		"pass_env": []string{"HTTPS_PROXY"}, "roles": []string{"implementer", "security-reviewer"}})
}

func TestConnectRefusesBadRunnerInput(t *testing.T) {
	const provider = `{"schema_version":1,"oracle":{"api":{"cc":{"base_url":"http://127.0.0.1:1/v1","models":["m"]}}}}`
	for _, c := range []struct {
		machine string
		in      map[string]any
		code    string
	}{
		{"", map[string]any{}, "connect_target"},
		{"", map[string]any{"name": "p", "runner": "cc", "cli": "claude"}, "connect_target"},
		{"", map[string]any{"runner": "cc"}, "cli_missing"},
		{"", map[string]any{"runner": "cc", "cli": "cursor"}, "cli_invalid"},
		{"", map[string]any{"runner": "cc", "cli": "opencode"}, "runner_unsupported"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "base_url": "https://x.example/v1"}, "connect_mixed"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "key_env": "X"}, "connect_mixed"},
		{"", map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "m", "cli": "claude"}, "connect_mixed"},
		{"", map[string]any{"name": "p"}, "provider_incomplete"},
		{"", map[string]any{"runner": "Bad Name", "cli": "claude"}, "runner_name_invalid"},
		{"", map[string]any{"runner": "rp", "cli": "claude"}, "runner_name_invalid"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "executable": "claude"}, "executable_invalid"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "credential_env": []any{"sk-ant-123"}}, "env_name_invalid"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "pass_env": []any{"CLAUDECODE"}}, "env_name_invalid"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "pass_env": []any{"LD_PRELOAD"}}, "env_name_invalid"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "credential_env": []any{"A"}, "pass_env": []any{"A"}}, "env_twice"},
		{"", map[string]any{"runner": "cc", "cli": "claude", "tiers": []any{"local=a", "local=b"}}, "tier_twice"},
		{provider, map[string]any{"runner": "cc", "cli": "claude"}, "name_taken"},
	} {
		w, rs := newRunnerWorld(t, c.machine)
		_, err := w.call(t, "ahoy_connect", c.in)
		assert.Check(t, is.Equal(refusalCode(t, err), c.code), "%v", c.in)
		assert.Check(t, is.Len(rs.Checked, 0), "nothing was checked: %v", c.in)
		assert.Check(t, is.Equal(string(w.setup.Machine["config.json"]), c.machine), "nothing was written")
		assert.Check(t, !strings.Contains(err.Error(), "sk-ant-123"), "a value that looks like a key is never echoed")
	}
	// A provider may not take a runner's name either.
	w, _ := newRunnerWorld(t, `{"schema_version":1,"oracle":{"runner":{"cc":{"cli":"claude","executable":"/bin/claude"}}}}`)
	_, err := w.call(t, "ahoy_connect", map[string]any{"name": "cc", "base_url": "https://x.example/v1", "model": "m"})
	assert.Check(t, is.Equal(refusalCode(t, err), "name_taken"))
}

func TestThePreflightRefusesADriftedRunnerBeforeAnyLane(t *testing.T) {
	w, rs := newRunnerWorld(t, `{"schema_version":1,"oracle":{"runner":{"cc":{"cli":"claude","executable":"/bin/claude","version":"2.1.332","pass_env":["X_BASE"]}}}}`)
	assert.NilError(t, app.DepsOf[*loopuc.Deps](context.Background(), w.a).PreflightRunners(context.Background(), "cc"))
	assert.Assert(t, is.Len(rs.Checked, 1))
	assert.Check(t, !rs.Checked[0].Prove, "the preflight makes no call")
	assert.Check(t, is.DeepEqual(rs.Checked[0].Runner.PassEnv, []string{"X_BASE"}))
	rs.Report.Failure = runner.Failf(runner.CauseFlags, "Claude Code 2.1.400 --help does not offer --tools, which abcd passes")
	err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).PreflightRunners(context.Background(), "cc")
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRunnerDrifted))
	assert.Check(t, is.Contains(r.Why, "does not offer --tools"))
	assert.Check(t, is.Contains(r.Why, "no lane was started"))
	assert.Check(t, is.Contains(r.Remedy.String(), "install a Claude Code version abcd knows (>= 2.1.328, < 2.2.0)"))
	err = app.DepsOf[*loopuc.Deps](context.Background(), w.a).PreflightRunners(context.Background(), "nope")
	assert.Check(t, is.Equal(refusalCode(t, err), "runner_unknown"))
}

// With roles, ahoy connect --runner sends those agents to the runner in the same write as its block,
// says which agents it takes, and leaves every other role as it was.
func TestConnectARunnerWithRolesSendsThemInTheSameWrite(t *testing.T) {
	const machine = `{"schema_version":1,"oracle":{"api":{"p":{"base_url":"https://x.example/v1","models":["m"]}},` +
		`"runner":{"rv":{"cli":"codex","executable":"/bin/codex"}},` +
		`"roles":{"ruthless-reviewer":{"connection":"p"},"intent-auditor":{"runner":"rv"}}}}`
	w, rs := newRunnerWorld(t, machine)
	res, err := w.call(t, "ahoy_connect", map[string]any{"runner": "cc", "cli": "claude",
		"roles": []any{"security-reviewer", "implementer", "security-reviewer"}})
	assert.NilError(t, err)
	got := res.(setup.AhoyConnectResult)
	assert.Check(t, is.DeepEqual(got.Routed, []string{"implementer", "security-reviewer"}), "each once, in the loop's order")
	assert.Check(t, is.Contains(got.Next.String(), "steps of implementer, security-reviewer now go to cc"), got.Next.String())
	assert.Check(t, got.Next.Run != nil && got.Next.Run.Verb == "implement_run")
	assert.Check(t, is.Len(rs.Checked, 1))

	var doc map[string]any
	assert.NilError(t, json.Unmarshal(w.setup.Machine["config.json"], &doc))
	o := doc["oracle"].(map[string]any)
	assert.Check(t, is.DeepEqual(o["roles"], map[string]any{
		"implementer":       map[string]any{"runner": "cc"},
		"security-reviewer": map[string]any{"runner": "cc"},
		"ruthless-reviewer": map[string]any{"connection": "p"},
		"intent-auditor":    map[string]any{"runner": "rv"},
	}))
	assert.Check(t, o["runner"].(map[string]any)["cc"] != nil, "the block is in the same file")
	// The file reads back, and routing sends the agents where it says.
	_, runners, err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).LoadRoutes(context.Background())
	assert.NilError(t, err)
	role, ok := runners.Sent("implementer")
	assert.Check(t, ok && role.Runner == "cc", "%+v", role)

	// Disconnected: its roles go with it, the others stay.
	res, err = w.call(t, "ahoy_disconnect", map[string]any{"name": "cc"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(res.(setup.AhoyDisconnectResult).RolesRemoved, []string{"implementer", "security-reviewer"}))
}

// An agent the machine sends elsewhere (another runner, a provider), or a name that is not one of the
// loop's agents, is refused before the CLI is checked, and the machine file is left as it was.
func TestConnectRefusesARoleRoutedElsewhere(t *testing.T) {
	const machine = `{"schema_version":1,"oracle":{"api":{"p":{"base_url":"https://x.example/v1","models":["m"]}},` +
		`"runner":{"rv":{"cli":"codex","executable":"/bin/codex"}},` +
		`"roles":{"ruthless-reviewer":{"connection":"p"},"intent-auditor":{"runner":"rv"}}}}`
	for _, c := range []struct {
		in        map[string]any
		code      string
		why, fix  string
		fixRunner string
	}{
		{map[string]any{"runner": "cc", "cli": "claude", "roles": []any{"implementer", "intent-auditor"}}, "role_routed",
			"intent-auditor is already sent to runner rv (oracle.roles.intent-auditor.runner in " + provMachine + ")", "remove oracle.roles.intent-auditor.runner from " + provMachine, "rv"},
		{map[string]any{"runner": "cc", "cli": "claude", "roles": []any{"ruthless-reviewer"}}, "role_routed",
			"ruthless-reviewer is already sent to provider p (oracle.roles.ruthless-reviewer.connection in " + provMachine + ")", "remove oracle.roles.ruthless-reviewer.connection", "p"},
		{map[string]any{"runner": "cc", "cli": "claude", "roles": []any{"driver"}}, "agent_unknown",
			`"driver" is not one of the build loop's agents`, "name implementer, ruthless-reviewer, security-reviewer or intent-auditor", ""},
		{map[string]any{"runner": "cc", "cli": "claude", "roles": []any{"implementer", "implementer", "implementer", "implementer", "implementer"}}, "input_invalid", "", "", ""},
		{map[string]any{"name": "q", "base_url": "https://y.example/v1", "model": "m", "roles": []any{"implementer"}}, "connect_mixed",
			"a provider takes no roles", "oracle.roles.<agent>.connection in " + provMachine, ""},
	} {
		w, rs := newRunnerWorld(t, machine)
		before := string(w.setup.Machine["config.json"])
		_, err := w.call(t, "ahoy_connect", c.in)
		r, ok := refusal.As(err)
		assert.Assert(t, ok, "%v", err)
		assert.Check(t, is.Equal(string(r.Code), c.code), "%v: %v", c.in, err)
		assert.Check(t, is.Contains(r.Why, c.why), "%v", c.in)
		assert.Check(t, is.Contains(r.Remedy.String(), c.fix), "%v", c.in)
		if c.fixRunner != "" {
			runs := r.Remedy.Runs()
			assert.Check(t, is.Len(runs, 1))
			assert.Check(t, is.Equal(runs[0].Verb, "ahoy_disconnect"))
			assert.Check(t, is.DeepEqual(runs[0].Args, []refusal.Arg{refusal.With("name", c.fixRunner)}))
		}
		assert.Check(t, is.Len(rs.Checked, 0), "the CLI was not checked: %v", c.in)
		assert.Check(t, is.Equal(string(w.setup.Machine["config.json"]), before), "nothing was written: %v", c.in)
	}
}

// racingRunners is a CLI check during which another abcd sends the implementer to its own runner.
type racingRunners struct {
	*fake.Runners
	w *provWorld
}

func (r racingRunners) Check(ctx context.Context, req ports.RunnerCheck) (ports.RunnerReport, error) {
	r.w.setup.Machine["config.json"] = []byte(`{"schema_version":1,"oracle":{"runner":{"zz":{"cli":"codex","executable":"/bin/codex"}},"roles":{"implementer":{"runner":"zz"}}}}`)
	return r.Runners.Check(ctx, req)
}

// The roles are checked again under the machine file's lock: an agent another abcd routed while the
// CLI was being checked is refused, and that abcd's file is left as it wrote it.
func TestConnectChecksTheRolesAgainUnderTheLock(t *testing.T) {
	w, rs := newRunnerWorld(t, "")
	w.a.Runners = racingRunners{rs, w}
	_, err := w.call(t, "ahoy_connect", map[string]any{"runner": "cc", "cli": "claude", "roles": []any{"implementer"}})
	assert.Check(t, is.Equal(refusalCode(t, err), "role_routed"))
	assert.Check(t, is.Len(rs.Checked, 1))
	assert.Check(t, is.Equal(string(w.setup.Machine["config.json"]), `{"schema_version":1,"oracle":{"runner":{"zz":{"cli":"codex","executable":"/bin/codex"}},"roles":{"implementer":{"runner":"zz"}}}}`))
}

// A runner connected with its sandbox off proves itself unconfined, its block says so, and every step
// it takes runs unconfined.
func TestConnectARunnerWithItsSandboxOff(t *testing.T) {
	w, rs := newRunnerWorld(t, `{"schema_version":1}`)
	res, err := w.call(t, "ahoy_connect", map[string]any{"runner": "cc", "cli": "claude", "sandbox": "off"})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.(setup.AhoyConnectResult).Runner.Sandbox, runner.SandboxOff))
	assert.Assert(t, is.Len(rs.Checked, 1))
	assert.Check(t, rs.Checked[0].Sandbox != nil && rs.Checked[0].Sandbox.Off)
	var doc map[string]any
	assert.NilError(t, json.Unmarshal(w.setup.Machine["config.json"], &doc))
	assert.Check(t, is.Equal(doc["oracle"].(map[string]any)["runner"].(map[string]any)["cc"].(map[string]any)["sandbox"], "off"))
	_, runners, err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).LoadRoutes(context.Background())
	assert.NilError(t, err)
	r, ok := runners.Runner("cc")
	assert.Assert(t, ok)
	assert.Check(t, r.SandboxOff)
	before := w.setup.Machine["config.json"]
	_, err = w.call(t, "ahoy_connect", map[string]any{"runner": "cd", "cli": "claude", "sandbox": "sometimes"})
	r2, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r2.Code, refusal.CodeSandboxInvalid))
	assert.Check(t, is.DeepEqual(w.setup.Machine["config.json"], before), "nothing written")
}
