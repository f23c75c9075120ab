package main

// The ACP runner end to end, through the built binary with the sandbox on: a scripted ACP agent (this
// test binary, started again by abcd; see runnertest.ACPScriptVar) is connected with ahoy connect
// --cli acp, whose proving call is one ACP session, and takes a spec's implementer step under
// implement run, abcd its client. The agent runs inside the fence, which hides /tmp: its script is
// handed to it inline, and what it saw of abcd it writes into its worktree, which abcd commits.

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/loop"
)

// acpWorld is a runner world whose implementer is an ACP agent connected through the binary, every
// runner inside the sandbox; the reviewers and the auditor stay on the fake Claude Code (rv).
type acpWorld struct {
	runnerWorld
	exe string
}

// acpSeen is the file the agent writes what abcd sent it to, in its worktree (committed with its work).
const acpSeen = "ACP-SEEN.jsonl"

// acpCatalog is the file the agent writes what abcd's catalog answered it to, in its worktree.
const acpCatalog = "ACP-CATALOG.jsonl"

func newACPWorld(t *testing.T) acpWorld {
	t.Helper()
	// The sandbox gives each step a /tmp of its own: the repository and the home live outside it.
	w := acpWorld{runnerWorld: newRunnerWorldAt(t, outsideTmp(t), "1. Part one of the work.")}
	exe, err := os.Executable()
	assert.NilError(t, err)
	w.exe = exe
	// The implementer is the ACP runner's, connected below; every runner runs inside the sandbox.
	w.editMachine(t, func(m map[string]any) {
		o := m["oracle"].(map[string]any)
		delete(o["roles"].(map[string]any), "implementer")
		for _, b := range o["runner"].(map[string]any) {
			delete(b.(map[string]any), "sandbox")
		}
	})
	return w
}

func (w acpWorld) editMachine(t *testing.T, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(w.c.home, ".abcd", "config.json")
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	var m map[string]any
	assert.NilError(t, json.Unmarshal(data, &m))
	edit(m)
	data, err = json.Marshal(m)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(path, data, 0o600))
}

// run runs abcd with the ACP agent's script and the reviewers' (each inline: the fence hides /tmp).
func (w acpWorld) run(t *testing.T, steps []runnertest.ACPStep, args ...string) *icmd.Result {
	t.Helper()
	script, err := runnertest.ACPScript(steps...)
	assert.NilError(t, err)
	const answer = "You run headless: how you answer"
	agents := w.agents(t)
	reviewers := []runnertest.Directive{{SessionStart: "claude"}, agents[0]}
	for _, d := range agents {
		if len(d.When) > 0 && d.When[0] == answer {
			reviewers = append(reviewers, d)
		}
	}
	var b strings.Builder
	for _, d := range reviewers {
		line, err := json.Marshal(d)
		assert.NilError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	env := append(w.env(), runnertest.ScriptVar+"="+runnertest.InlinePrefix+b.String(), runnertest.ACPScriptVar+"="+script)
	return icmd.RunCmd(icmd.Command(binary, args...), icmd.Dir(w.c.dir), icmd.WithEnv(env...))
}

// connect connects the ACP agent as runner ac, the implementer, through the binary: its proving call
// is one ACP session the agent ends on end_turn.
func (w acpWorld) connect(t *testing.T) {
	t.Helper()
	prove := append(acpHandshake(), acpText("OK"), acpReply(`{"stopReason":"end_turn"}`))
	res := w.run(t, prove, "ahoy", "connect", "--runner", "ac", "--cli", "acp", "--executable", w.exe, "--arg", "--acp",
		"--credential-env", "ANTHROPIC_API_KEY", "--pass-env", runnertest.ACPScriptVar, "--role", "implementer", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	assert.Check(t, !strings.Contains(res.Stdout()+res.Stderr(), rnCanary), "the canary leaked")
}

func acpSend(v string) runnertest.ACPStep   { return runnertest.ACPStep{Send: json.RawMessage(v)} }
func acpExpect(m string) runnertest.ACPStep { return runnertest.ACPStep{Expect: m} }
func acpReply(v string) runnertest.ACPStep  { return runnertest.ACPStep{Reply: json.RawMessage(v)} }

func acpHandshake() []runnertest.ACPStep {
	return []runnertest.ACPStep{acpExpect("initialize"), acpReply(`{"protocolVersion":1,"agentCapabilities":{}}`),
		acpExpect("session/new"), acpReply(`{"sessionId":"sess-e2e"}`), acpExpect("session/prompt")}
}

func acpUpdate(u string) runnertest.ACPStep {
	return acpSend(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-e2e","update":` + u + `}}`)
}

func acpText(s string) runnertest.ACPStep {
	b, _ := json.Marshal(s) // a string always marshals
	return acpUpdate(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + string(b) + `}}`)
}

func acpRequest(id, method, params string) runnertest.ACPStep {
	return acpSend(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"sessionId":"sess-e2e",` + params + `}}`)
}

const acpOptions = `"options":[{"optionId":"aa","name":"Always","kind":"allow_always"},{"optionId":"ao","name":"Once","kind":"allow_once"},` +
	`{"optionId":"ro","name":"No","kind":"reject_once"},{"optionId":"ra","name":"Never","kind":"reject_always"}]`

// The done-when through the binary, the sandbox on: the ACP agent, connected with ahoy
// connect, is the implementer; it asks to run a force push and a harmless command, writes inside and
// outside its worktree through fs/, runs echo hi through terminal/ and ends its turn. Its step is
// committed by abcd; the force push is rejected and the harmless command allowed once; the outside
// write is refused; the terminal's output is returned; the session is handed abcd's catalog; the
// record holds each question and answer.
func TestAnACPAgentImplementsThroughTheBinaryInsideTheSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole run on runners inside the sandbox: in make test, not under -short")
	}
	w := newACPWorld(t)
	w.connect(t)
	var machine struct {
		Oracle struct {
			Runner map[string]map[string]any
			Roles  map[string]map[string]any
		}
	}
	data, err := os.ReadFile(filepath.Join(w.c.home, ".abcd", "config.json"))
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, &machine))
	block := machine.Oracle.Runner["ac"]
	assert.Check(t, is.Equal(block["cli"], "acp"))
	assert.Check(t, is.DeepEqual(block["args"], []any{"--acp"}))
	assert.Check(t, is.Equal(block["version"], "1.0.0"), "the version recorded is the protocol's")
	assert.Check(t, is.Equal(block["sandbox"], nil), "the runner runs inside the sandbox")
	assert.Check(t, is.Equal(machine.Oracle.Roles["implementer"]["runner"], "ac"))

	steps := append(acpHandshake(),
		acpText("Let me look."),
		acpUpdate(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Push","kind":"execute","status":"pending","rawInput":{"command":"git push --force origin main"}}`),
		acpRequest("100", "session/request_permission", `"toolCall":{"toolCallId":"c1"},`+acpOptions),
		acpUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed"}`),
		acpUpdate(`{"sessionUpdate":"tool_call","toolCallId":"c2","title":"List","kind":"execute","status":"pending","rawInput":{"command":"ls -la"}}`),
		acpRequest("101", "session/request_permission", `"toolCall":{"toolCallId":"c2"},`+acpOptions),
		acpUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"c2","status":"completed"}`),
		acpRequest("102", "fs/write_text_file", `"path":"$CWD/DONE-1","content":"one\n"`),
		acpRequest("103", "fs/write_text_file", `"path":"$CWD/../outside.txt","content":"escaped\n"`),
		acpRequest("104", "terminal/create", `"command":"echo hi"`),
		acpRequest("105", "terminal/wait_for_exit", `"terminalId":"t1"`),
		acpRequest("106", "terminal/output", `"terminalId":"t1"`),
		acpRequest("107", "terminal/release", `"terminalId":"t1"`),
		acpText("Do the part\n\nWrote the part's file."),
		runnertest.ACPStep{Catalog: []json.RawMessage{json.RawMessage(`{"name":"spec_show","arguments":{"ref":"` + w.spec + `"}}`),
			json.RawMessage(`{"name":"implement_status","arguments":{}}`)}, CatalogOut: acpCatalog},
		runnertest.ACPStep{Dump: acpSeen},
		acpReply(`{"stopReason":"end_turn"}`),
	)
	res := w.run(t, steps, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	if !assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%s", res.Stderr()) {
		story := w.c.cmd(binary, "implement", "record", "--run", out.Run.Run, "--json")
		t.Fatalf("the run did not finish; its record: %s", story.Stdout())
	}
	assert.Check(t, is.Len(out.Run.Unfenced, 0), "every step ran inside the fence: %v", out.Run.Unfenced)
	assert.Check(t, !strings.Contains(res.Stdout()+res.Stderr(), rnCanary), "the canary leaked")
	// What the agent did reached implement run's progress as it did it, one line each.
	for _, want := range []string{"abcd: lane-1 implementer: ac: says: Let me look.\n",
		"abcd: lane-1 implementer: ac: tool call c1 (execute Push) pending\n",
		"abcd: lane-1 implementer: ac: abcd answered session/request_permission c1 git push --force origin main: reject_once\n",
		"abcd: lane-1 implementer: ac: abcd answered terminal/create t1 echo hi: allow_once\n",
		"abcd: lane-1 implementer: ac: the turn ended: end_turn\n"} {
		assert.Check(t, is.Contains(res.Stderr(), want))
	}

	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Assert(t, is.Len(story.Implementations, 1))
	im := story.Implementations[0]
	rc := im.Runner
	assert.Assert(t, rc != nil, "%+v", im)
	assert.Check(t, is.Equal(im.Receipt.ConnectionUsed, "ac"))
	assert.Check(t, is.Equal(rc.Outcome, runner.Completed))
	assert.Check(t, is.Equal(rc.TerminalReason, "end_turn"))
	assert.Check(t, is.Equal(rc.SessionID, "sess-e2e"))
	assert.Assert(t, rc.Sandbox != nil)
	assert.Check(t, is.Equal(rc.Sandbox.Kind, runner.SandboxLinux))
	assert.Assert(t, is.Len(im.Commits, 1))
	msg := w.c.git(t, "log", "-1", "--format=%s%n%b", im.Commits[0])
	assert.Check(t, strings.HasPrefix(msg, "Do the part\nWrote the part's file."), msg)
	assert.Check(t, is.Contains(msg, "Abcd-Runner: ac (acp 1.0.0)"))
	branch := out.Run.Lanes[0].Branch
	assert.Check(t, is.Equal(w.c.git(t, "show", branch+":DONE-1"), "one"))

	// What the agent was sent, as it wrote it into its worktree and abcd committed it: first the
	// session, opened in the lane's worktree (gone now the run is over) and handed abcd's catalog.
	answers, requests := acpMessages(t, w.c.git(t, "show", branch+":"+acpSeen))
	assert.Assert(t, len(requests) >= 3)
	var opened struct {
		Cwd        string
		McpServers []struct {
			Name, Command string
			Args          []string
		}
	}
	assert.NilError(t, json.Unmarshal(requests[1]["params"], &opened))
	work := opened.Cwd
	assert.Check(t, is.Equal(work, filepath.Join(w.c.dir, ".abcd-lanes", out.Run.Run, "lane-1")))
	assert.Assert(t, is.Len(opened.McpServers, 1))
	assert.Check(t, is.Equal(opened.McpServers[0].Name, "abcd"))
	assert.Check(t, is.Equal(opened.McpServers[0].Command, binary))
	assert.Check(t, is.Contains(strings.Join(opened.McpServers[0].Args, " "), "mcp serve --repo "+work+" --tool spec_show"))
	// The catalog, started by the agent inside its fence as an agent starts it: the record's read verbs
	// alone, which read the lane's worktree and answer there; no verb of the run's state, which the
	// fence hides.
	catalog := strings.Split(w.c.git(t, "show", branch+":"+acpCatalog), "\n")
	assert.Assert(t, is.Len(catalog, 4), "%s", catalog)
	var listed struct {
		Result struct{ Tools []struct{ Name string } }
	}
	assert.NilError(t, json.Unmarshal([]byte(catalog[1]), &listed))
	var names []string
	for _, tool := range listed.Result.Tools {
		names = append(names, tool.Name)
	}
	assert.Check(t, is.DeepEqual(names, []string{"decision_show", "intent_show", "issue_show", "spec_show"}))
	var shown struct {
		Result struct {
			IsError           bool
			StructuredContent struct{ Steps []struct{ Text string } }
		}
	}
	assert.NilError(t, json.Unmarshal([]byte(catalog[2]), &shown))
	assert.Check(t, !shown.Result.IsError, catalog[2])
	assert.Check(t, is.Len(shown.Result.StructuredContent.Steps, 1), catalog[2])
	assert.Check(t, is.Contains(catalog[3], "implement_status"), "a verb outside the catalog is not served: %s", catalog[3])
	assert.Check(t, !strings.Contains(catalog[3], `"runs"`), catalog[3])
	_, err = os.Stat(filepath.Join(filepath.Dir(work), "outside.txt"))
	assert.Check(t, os.IsNotExist(err), "a write outside the worktree was made")

	// The record: each question and answer, in order.
	var asks []string
	for _, a := range rc.Asks {
		asks = append(asks, a.Method+" "+a.CallID+" "+string(a.Answer)+" "+a.What)
	}
	all := strings.Join(asks, "\n")
	for _, want := range []string{
		"session/request_permission c1 reject_once git push --force origin main",
		"session/request_permission c2 allow_once ls -la",
		"fs/write_text_file  done " + work + "/DONE-1",
		"fs/write_text_file  refused " + work + "/../outside.txt",
		"terminal/create t1 allow_once echo hi",
		"terminal/output t1 done",
		"terminal/release t1 done",
	} {
		assert.Check(t, is.Contains(all, want))
	}

	// abcd's answers.
	outcome := func(id string) string {
		var r struct {
			Outcome struct{ Outcome, OptionID string } `json:"outcome"`
		}
		assert.NilError(t, json.Unmarshal(answers[id]["result"], &r), "%s", answers[id])
		return r.Outcome.Outcome + ":" + r.Outcome.OptionID
	}
	assert.Check(t, is.Equal(outcome("100"), "selected:ro"), "the force push is rejected once")
	assert.Check(t, is.Equal(outcome("101"), "selected:ao"), "the harmless command is allowed once")
	assert.Check(t, answers["102"]["result"] != nil && answers["102"]["error"] == nil, "%s", answers["102"])
	assert.Check(t, answers["103"]["error"] != nil, "the outside write was not refused: %s", answers["103"])
	var exit struct{ ExitCode *int }
	assert.NilError(t, json.Unmarshal(answers["105"]["result"], &exit), "%s", answers["105"])
	assert.Check(t, exit.ExitCode != nil && *exit.ExitCode == 0, "%s", answers["105"])
	var output struct{ Output string }
	assert.NilError(t, json.Unmarshal(answers["106"]["result"], &output), "%s", answers["106"])
	assert.Check(t, is.Equal(output.Output, "hi\n"), "the terminal ran inside the fence and its output came back")
}

// acpMessages reads what the agent was sent: abcd's answers by the id of the agent's request, and
// abcd's own requests in order.
func acpMessages(t *testing.T, seen string) (answers map[string]map[string]json.RawMessage, requests []map[string]json.RawMessage) {
	t.Helper()
	answers = map[string]map[string]json.RawMessage{}
	sc := bufio.NewScanner(strings.NewReader(seen))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		assert.NilError(t, json.Unmarshal(sc.Bytes(), &m))
		if m["method"] != nil {
			requests = append(requests, m)
			continue
		}
		answers[string(m["id"])] = m
	}
	assert.NilError(t, sc.Err())
	return answers, requests
}

// An ACP implementer that refuses, writes a line that is no message, or goes silent falls back to
// the host with its typed cause, through the binary with the sandbox on, and the record says so.
func TestAnACPImplementersFailureFallsBackWithItsCause(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole run a case, inside the sandbox: in make test, not under -short")
	}
	for _, tc := range []struct {
		name  string
		steps []runnertest.ACPStep
		cause runner.Cause
	}{
		{"refusal", append(acpHandshake(), acpRequest("100", "fs/write_text_file", `"path":"$CWD/DONE-1","content":"one\n"`),
			acpReply(`{"stopReason":"refusal"}`)), runner.CauseRefusal},
		{"a malformed line", append(acpHandshake(), runnertest.ACPStep{Raw: `{"jsonrpc":"2.0","method":"session/update"`}), runner.CauseBadLine},
		{"silent", append(acpHandshake(), runnertest.ACPStep{Hang: true}), runner.CauseSilence},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newACPWorld(t)
			w.connect(t)
			w.editMachine(t, func(m map[string]any) {
				b := m["oracle"].(map[string]any)["runner"].(map[string]any)["ac"].(map[string]any)
				b["limits"] = map[string]any{"wall_clock_s": 60, "first_event_s": 30, "silence_s": 2}
			})
			res := w.run(t, tc.steps, "implement", "run", w.spec, "--json")
			res.Assert(t, icmd.Expected{ExitCode: 0})
			var out loop.ImplementRunResult
			decodeOne(t, res.Stdout(), &out)
			assert.Check(t, is.Equal(out.Ended, loop.EndedHost), "%+v", out)
			assert.Check(t, is.Equal(out.FellBack, 1))
			var story loop.ImplementRecordResult
			w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
			assert.Assert(t, is.Len(story.Fallbacks, 1))
			f := story.Fallbacks[0]
			assert.Check(t, is.Equal(f.Asked, "ac"))
			assert.Check(t, is.Equal(f.Ran, "host"))
			assert.Check(t, is.Equal(f.Cause, tc.cause), "%+v", f)
			assert.Assert(t, f.Runner != nil)
			assert.Check(t, f.Runner.Sandbox != nil && f.Runner.Sandbox.Kind == runner.SandboxLinux, "%+v", f.Runner.Sandbox)
			// The lane's worktree is as the step found it.
			ln := out.Run.Lanes[0]
			wt := teamClone{name: w.c.name, dir: ln.Worktree, home: w.c.home}
			assert.Check(t, is.Equal(wt.git(t, "status", "--porcelain"), ""))
			assert.Check(t, is.Equal(wt.git(t, "rev-parse", "HEAD"), ln.Start))
			if tc.cause == runner.CauseRefusal {
				// What it wrote through abcd before it refused is kept on a branch of its own.
				assert.Check(t, is.Contains(f.Detail, "kept on branch abcd/"+out.Run.Run+"/attempts/"), f.Detail)
			}
		})
	}
}
