//go:build unix

package main

// ahoy connect --runner --role through both front doors, with the fake Claude Code (this test binary,
// see TestMain) answering the preflight and the proving call: the set-up the README shows, in which
// each runner is connected with the agents it takes, and nothing is edited by hand.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
)

const rolesCanary = "sk-ant-canary-roles-5a1f0e9d3c7b"

// rolesWorld is a sandbox whose fake CLI answers a proving call.
type rolesWorld struct {
	sandbox
	cli, script string
}

func newRolesWorld(t *testing.T) rolesWorld {
	t.Helper()
	s := newSandbox(t, true)
	assert.NilError(t, os.Chmod(s.abcdHome, 0o700))
	exe, err := os.Executable()
	assert.NilError(t, err)
	w := rolesWorld{sandbox: s, cli: realPath(t, exe), script: filepath.Join(s.home, "script.jsonl")}
	lines := []string{
		`{"session_start":"claude"}`,
		`{"out":"{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"sess-1\",\"tools\":[],\"model\":\"claude-x\",\"permissionMode\":\"dontAsk\",\"claude_code_version\":\"2.1.332\"}"}`,
		`{"out":"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"OK\",\"num_turns\":1,\"usage\":{\"input_tokens\":5,\"output_tokens\":1},\"permission_denials\":[],\"session_id\":\"sess-1\"}"}`,
	}
	assert.NilError(t, os.WriteFile(w.script, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return w
}

func (w rolesWorld) env() []string {
	help := "Usage: claude [options]\n  " + strings.Join(claude.Dialect{}.Flags(), " <x>\n  ")
	// The runners run inside abcd's sandbox, which hides /tmp where the script is written: the fake
	// is handed the script itself. A script that cannot be read is handed by its path, and the fake
	// says it cannot read it.
	script := w.script
	if data, err := os.ReadFile(w.script); err == nil {
		script = runnertest.InlinePrefix + string(data)
	}
	return append(w.sandbox.env(), "PATH="+os.Getenv("PATH"), runnertest.ScriptVar+"="+script, "FAKE_CLI_HELP="+help, "ANTHROPIC_API_KEY="+rolesCanary)
}

func (w rolesWorld) run(args ...string) *icmd.Result {
	return icmd.RunCmd(icmd.Command(binary, args...), icmd.Dir(w.root), icmd.WithEnv(w.env()...))
}

// connect is ahoy connect --runner name with the fake CLI and the given roles.
func (w rolesWorld) connect(name string, roles ...string) []string {
	args := []string{"ahoy", "connect", "--runner", name, "--cli", "claude", "--executable", w.cli,
		"--credential-env", "ANTHROPIC_API_KEY", "--pass-env", runnertest.ScriptVar, "--pass-env", "FAKE_CLI_HELP"}
	for _, r := range roles {
		args = append(args, "--role", r)
	}
	return args
}

func (w rolesWorld) machine(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(w.abcdHome, "config.json"))
	assert.NilError(t, err)
	return string(data)
}

// The README's set-up on the command line: the implementer's runner, then the reviewers', each with
// its roles in the same write; the board routes them; a role already sent elsewhere is refused with
// nothing written; disconnecting a runner takes its roles with it.
func TestConnectRunnersWithTheirRolesOnTheCommandLine(t *testing.T) {
	w := newRolesWorld(t)
	res := w.run(w.connect("cc", "implementer")...)
	res.Assert(t, icmd.Success)
	out := strings.ReplaceAll(w.placeholders(res.Stdout()), w.cli, "<CLI>")
	golden.Assert(t, out, "connect-runner-roles.golden")

	res = w.run(append(w.connect("rv", "ruthless-reviewer", "security-reviewer", "intent-auditor"), "--json")...)
	res.Assert(t, icmd.Success)
	var got setup.AhoyConnectResult
	decodeOne(t, res.Stdout(), &got)
	assert.Check(t, is.DeepEqual(got.Routed, []string{"ruthless-reviewer", "security-reviewer", "intent-auditor"}))
	assert.Check(t, got.Next.Run != nil && got.Next.Run.Verb == "implement_run", "%+v", got.Next)
	assert.Check(t, is.Contains(got.Next.Text, "abcd implement run <spec>"), got.Next.Text)

	var doc struct {
		Oracle struct {
			Roles map[string]map[string]string `json:"roles"`
		} `json:"oracle"`
	}
	assert.NilError(t, json.Unmarshal([]byte(w.machine(t)), &doc))
	assert.Check(t, is.DeepEqual(doc.Oracle.Roles, map[string]map[string]string{"implementer": {"runner": "cc"},
		"ruthless-reviewer": {"runner": "rv"}, "security-reviewer": {"runner": "rv"}, "intent-auditor": {"runner": "rv"}}))

	// The board says where each agent's steps go.
	var st setup.StatusResult
	decodeOne(t, w.run("status", "--json").Stdout(), &st)
	routes := map[string]string{}
	for _, ag := range st.Oracle.Agents {
		routes[ag.Agent] = ag.Route
	}
	assert.Check(t, is.DeepEqual(routes, map[string]string{"implementer": "cc", "ruthless-reviewer": "rv", "security-reviewer": "rv", "intent-auditor": "rv"}))

	// A role already sent to another runner: refused, exit 2, the remedy named, the file unchanged.
	before := w.machine(t)
	res = w.run(w.connect("cx", "implementer")...)
	res.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(res.Stderr(), "implementer is already sent to runner cc"))
	assert.Check(t, is.Contains(res.Stderr(), "abcd ahoy disconnect cc"))
	assert.Check(t, is.Equal(w.machine(t), before), "nothing was written")
	// An agent the loop does not have: refused the same way.
	res = w.run(w.connect("cx", "driver")...)
	res.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(res.Stderr(), `"driver" is not one of the build loop's agents`))
	assert.Check(t, is.Equal(w.machine(t), before), "nothing was written")

	// Disconnected: the runner's roles go with its block.
	var dis setup.AhoyDisconnectResult
	decodeOne(t, w.run("ahoy", "disconnect", "rv", "--json").Stdout(), &dis)
	assert.Check(t, is.DeepEqual(dis.RolesRemoved, []string{"intent-auditor", "ruthless-reviewer", "security-reviewer"}))
	assert.Check(t, !strings.Contains(w.machine(t)+res.Stdout()+res.Stderr(), rolesCanary), "the canary leaked")
}

// The same over MCP: ahoy_connect with roles routes them, and a role routed elsewhere is a refusal
// (isError, role_routed) that writes nothing.
func TestConnectRunnersWithTheirRolesOverMCP(t *testing.T) {
	w := newRolesWorld(t)
	m := startMCP(t, w.root, w.env())
	type reply struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
		Error any `json:"error"`
	}
	call := func(id int, method string, params any) reply {
		t.Helper()
		m.send(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		var r reply
		m.next(t, &r)
		assert.Check(t, r.Error == nil, "%s", m.lines.Text())
		return r
	}
	m.initialize(t)
	args := func(name string, roles ...string) map[string]any {
		return map[string]any{"runner": name, "cli": "claude", "executable": w.cli, "credential_env": []string{"ANTHROPIC_API_KEY"},
			"pass_env": []string{runnertest.ScriptVar, "FAKE_CLI_HELP"}, "roles": roles}
	}
	r := call(2, "tools/call", map[string]any{"name": "ahoy_connect", "arguments": args("cc", "implementer")})
	assert.Assert(t, !r.Result.IsError, "%s", r.Result.StructuredContent)
	var got setup.AhoyConnectResult
	assert.NilError(t, json.Unmarshal(r.Result.StructuredContent, &got))
	assert.Check(t, is.DeepEqual(got.Routed, []string{"implementer"}))
	assert.Check(t, got.Next.Run != nil && got.Next.Run.Verb == "implement_run")

	before := w.machine(t)
	r = call(3, "tools/call", map[string]any{"name": "ahoy_connect", "arguments": args("rv", "ruthless-reviewer", "implementer")})
	assert.Assert(t, r.Result.IsError && len(r.Result.Content) == 1, "%+v", r.Result)
	var doc refusal.Document
	assert.NilError(t, json.Unmarshal([]byte(r.Result.Content[0].Text), &doc))
	assert.Check(t, is.Equal(doc.Code, refusal.CodeRoleRouted), "%s", r.Result.Content[0].Text)
	assert.Check(t, is.Equal(doc.ExitCode, 2))
	assert.Check(t, is.Contains(doc.Remedy, `ahoy_disconnect`), doc.Remedy)
	assert.Check(t, is.Contains(doc.Why, "implementer is already sent to runner cc"))
	assert.Check(t, is.Equal(w.machine(t), before), "nothing was written")
	assert.Check(t, !strings.Contains(r.Result.Content[0].Text+m.stderr.String(), rolesCanary))
	m.close(t)
}

// The README's three commands, as a new user types them in a repository with a spec and a definition
// of done: the implementer's runner, the reviewers' runner, then implement run takes the spec to a
// finished, audited run with every step on the runners and nothing edited by hand.
func TestTheReadmesThreeCommandsRunASpec(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole run on runners: without -short")
	}
	w := newRolesWorld(t)
	run := func(exit int, v any, name string, args ...string) {
		t.Helper()
		// The environment is made for each command: it hands the fake the script as it now stands.
		env := append(w.env(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=ada", "GIT_AUTHOR_EMAIL=ada@team.invalid",
			"GIT_COMMITTER_NAME=ada", "GIT_COMMITTER_EMAIL=ada@team.invalid")
		res := icmd.RunCmd(icmd.Command(name, args...), icmd.Dir(w.root), icmd.WithEnv(env...))
		res.Assert(t, icmd.Expected{ExitCode: exit})
		if v != nil {
			decodeOne(t, res.Stdout(), v)
		}
	}
	run(0, nil, "git", "commit", "-q", "--allow-empty", "-m", "base")
	run(0, nil, binary, "ahoy", "install", "--yes")
	assert.NilError(t, os.WriteFile(filepath.Join(w.root, ".abcd", "config.json"),
		fmt.Appendf(nil, `{"schema_version": 1, "setup_version": %d, "build": {"dod": "test -f DONE-1 || test -f DONE-2"}}`+"\n", setup.SetupVersion), 0o644))
	var it record.RecordCreated
	run(0, &it, binary, "intent", "new", "Faster cold start", "--json")
	recEditSection(t, w.sandbox, it.Record.Path, "Press Release", "abcd starts fast.")
	recEditSection(t, w.sandbox, it.Record.Path, "Acceptance Criteria", "- ac-1: Given a binary, when I run it, then it answers quickly.")
	var plan record.IntentPlanResult
	run(0, &plan, binary, "intent", "plan", it.Record.ID, "--json")
	recEditSection(t, w.sandbox, plan.Spec.Path, "Steps", "1. Part one of the work.\n2. Part two of the work.")
	run(0, nil, "git", "add", "-A")
	run(0, nil, "git", "commit", "-q", "-m", "the record")

	// Every role's part, told apart by its prompt: each lane's implementer writes its file.
	result := func(final string, structured any) string {
		ev := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": final, "num_turns": 1,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 2}, "permission_denials": []any{}, "session_id": "sess-1"}
		if structured != nil {
			ev["structured_output"] = structured
		}
		b, err := json.Marshal(ev)
		assert.NilError(t, err)
		return string(b)
	}
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	script := []runnertest.Directive{
		{SessionStart: "claude"},
		{Out: `{"type":"system","subtype":"init","cwd":"/w","session_id":"sess-1","tools":["Read","Edit","Bash"],"model":"claude-x","permissionMode":"dontAsk","claude_code_version":"2.1.332"}`},
		{When: []string{impl, "Part one"}, Write: "DONE-1", Content: "one\n"},
		{When: []string{impl, "Part two"}, Write: "DONE-2", Content: "two\n"},
		{When: []string{impl}, Out: result("Do the part\n\nWrote the part's file.", nil)},
		{When: []string{answer, "# ruthless-reviewer:"}, Out: result("", map[string]any{"summary": "Read it.", "verdict": "SHIP", "findings": []any{}})},
		{When: []string{answer, "# security-reviewer:"}, Out: result("", map[string]any{"summary": "Safe.", "verdict": "APPROVE", "findings": []any{}})},
		{When: []string{answer, "# intent-auditor:"}, Out: result("", map[string]any{"schema_version": 1, "intent": it.Record.ID, "summary": "Met.",
			"verdicts": []any{map[string]any{"criterion": "ac-1", "verdict": "MET", "evidence": "DONE-1 and DONE-2 stand.", "concerns": ""}}})},
		// ahoy connect's proving call.
		{When: []string{"Reply with the single word OK"}, Out: result("OK", nil)},
	}
	written, err := runnertest.Script(w.home, script...)
	assert.NilError(t, err)
	assert.NilError(t, os.Rename(written, w.script))

	// The three commands.
	run(0, nil, binary, w.connect("cc", "implementer")...)
	run(0, nil, binary, w.connect("rv", "ruthless-reviewer", "security-reviewer", "intent-auditor")...)
	var out loop.ImplementRunResult
	run(0, &out, binary, "implement", "run", plan.Spec.ID, "--json")
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
	assert.Check(t, out.Run.Finished)
	assert.Check(t, is.Equal(out.Routed, 7), "two implementers, four reviews, one audit")
	if !assert.Check(t, is.Equal(out.FellBack, 0)) {
		var story loop.ImplementRecordResult
		run(0, &story, binary, "implement", "record", "--run", out.Run.Run, "--json")
		t.Fatalf("the fallbacks: %+v", story.Fallbacks)
	}
	// The integration holds both lanes' work, committed by abcd.
	integrations := 0
	for _, ln := range out.Run.Lanes {
		if ln.Integration {
			integrations++
			res := icmd.RunCmd(icmd.Command("git", "ls-tree", "--name-only", ln.Head), icmd.Dir(w.root), icmd.WithEnv(w.env()...))
			res.Assert(t, icmd.Success)
			assert.Check(t, is.Contains(res.Stdout(), "DONE-1\n"))
			assert.Check(t, is.Contains(res.Stdout(), "DONE-2\n"))
		}
	}
	assert.Check(t, is.Equal(integrations, 1))
}
