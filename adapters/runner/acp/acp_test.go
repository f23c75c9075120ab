package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/acp"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/adapters/sandbox"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

func TestMain(m *testing.M) {
	sandbox.Helper()
	runnertest.FakeMain()
	os.Exit(m.Run())
}

type world struct {
	t      *testing.T
	dir    string
	work   string
	prompt string
	env    []string
	a      *runner.Adapter
	r      domain.Runner
	dumped string
	doing  []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{t: t, dir: dir, work: filepath.Join(dir, "work"), prompt: filepath.Join(dir, "prompt.md"), dumped: filepath.Join(dir, "seen.jsonl")}
	assert.NilError(t, os.Mkdir(w.work, 0o700))
	assert.NilError(t, os.Mkdir(filepath.Join(w.work, ".git"), 0o700))
	assert.NilError(t, os.WriteFile(w.prompt, []byte("Implement the lane.\n"), 0o600))
	exe, err := os.Executable()
	assert.NilError(t, err)
	w.env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "GEMINI_API_KEY=sk-canary-acp-0123456789", runnertest.GuardBlockVar + "=--force"}
	w.r = domain.Runner{Name: "ag", CLI: domain.ACP, Executable: exe, Args: []string{"--acp"},
		CredentialEnv: []string{"GEMINI_API_KEY"}, PassEnv: []string{runnertest.ACPScriptVar, runnertest.GuardBlockVar}, Concurrency: 1,
		Limits: domain.Limits{WallClock: time.Minute, FirstEvent: 20 * time.Second, Silence: 20 * time.Second, Turns: 50, APIRetries: 2}}
	d := acp.Dialect{Self: exe, Schema: func(name string) ([]byte, bool, error) { return []byte(`{"type":"object"}`), true, nil }}
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{d}, Guard: []string{exe, "guard", "hook"},
		Environ: func() []string { return w.env }, TempDir: dir, Drain: 100 * time.Millisecond, Grace: 200 * time.Millisecond})
	return w
}

// step runs one implementer's step of the fake agent playing steps; what the step told of what the
// agent is doing is in w.doing.
func (w *world) step(policy domain.Policy, steps ...runnertest.ACPStep) domain.Outcome {
	w.t.Helper()
	script, err := runnertest.ACPScript(steps...)
	assert.NilError(w.t, err)
	w.env = append(w.env, runnertest.ACPScriptVar+"="+script)
	o, err := w.a.Step(context.Background(), ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: policy, Limits: w.r.Limits,
		Doing: func(line string) { w.doing = append(w.doing, line) }})
	assert.NilError(w.t, err)
	assert.NilError(w.t, o.Receipt.Check())
	return o
}

func send(v string) runnertest.ACPStep   { return runnertest.ACPStep{Send: json.RawMessage(v)} }
func expect(m string) runnertest.ACPStep { return runnertest.ACPStep{Expect: m} }
func reply(v string) runnertest.ACPStep  { return runnertest.ACPStep{Reply: json.RawMessage(v)} }

// handshake is an agent's side of the handshake, up to abcd's prompt (left unanswered).
func handshake(version int) []runnertest.ACPStep {
	return []runnertest.ACPStep{expect("initialize"), reply(`{"protocolVersion":` + string(rune('0'+version)) + `,"agentCapabilities":{}}`),
		expect("session/new"), reply(`{"sessionId":"sess-acp-1"}`), expect("session/prompt")}
}

func update(u string) runnertest.ACPStep {
	return send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-acp-1","update":` + u + `}}`)
}

func request(id, method, params string) runnertest.ACPStep {
	return send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"sessionId":"sess-acp-1",` + params + `}}`)
}

const options = `"options":[{"optionId":"aa","name":"Always","kind":"allow_always"},{"optionId":"ao","name":"Once","kind":"allow_once"},` +
	`{"optionId":"ro","name":"No","kind":"reject_once"},{"optionId":"ra","name":"Never","kind":"reject_always"}]`

// seen reads what the fake agent was sent, by the id of its request it answered.
func (w *world) seen() (answers map[string]map[string]json.RawMessage, requests []map[string]json.RawMessage) {
	w.t.Helper()
	f, err := os.Open(w.dumped)
	assert.NilError(w.t, err)
	defer f.Close()
	answers = map[string]map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		assert.NilError(w.t, json.Unmarshal(sc.Bytes(), &m))
		if m["method"] != nil {
			requests = append(requests, m)
			continue
		}
		answers[string(m["id"])] = m
	}
	assert.NilError(w.t, sc.Err())
	return answers, requests
}

// The scripted implementer: a force push and a harmless command asked for, writes inside and
// outside its worktree through fs/, echo hi run through terminal/, and its turn ended. abcd rejects
// the force push once and allows the harmless command once (never an "always" option), writes inside
// the worktree only, returns the terminal's output, hands the session its catalog and cwd, and the
// receipt records each question and answer. The step completes on end_turn.
func TestAnImplementerOverACPAsksAndAbcdAnswers(t *testing.T) {
	w := newWorld(t)
	steps := handshake(1)
	steps = append(steps,
		update(`{"sessionUpdate":"plan","entries":[{"content":"Look around","priority":"high","status":"completed"},{"content":"Write   hello.txt","priority":"high","status":"pending"}]}`),
		update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Let me "}}`),
		update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"look, with sk-canary-acp-0123456789."}}`),
		update(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Push","kind":"execute","status":"pending","rawInput":{"command":"git push --force origin main"}}`),
		request("100", "session/request_permission", `"toolCall":{"toolCallId":"c1"},`+options),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed"}`),
		update(`{"sessionUpdate":"tool_call","toolCallId":"c2","title":"List","kind":"execute","status":"pending","rawInput":{"command":"ls -la"}}`),
		request("101", "session/request_permission", `"toolCall":{"toolCallId":"c2"},`+options),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"c2","status":"completed"}`),
		request("102", "fs/write_text_file", `"path":"$CWD/hello.txt","content":"hello from acp\n"`),
		request("103", "fs/write_text_file", `"path":"$CWD/../outside.txt","content":"escaped\n"`),
		request("104", "fs/write_text_file", `"path":"$CWD/.git/config","content":"[core]\n"`),
		request("105", "fs/read_text_file", `"path":"$CWD/hello.txt"`),
		request("106", "fs/read_text_file", `"path":"/etc/hostname"`),
		request("107", "terminal/create", `"command":"echo hi"`),
		request("108", "terminal/wait_for_exit", `"terminalId":"t1"`),
		request("109", "terminal/output", `"terminalId":"t1"`),
		request("110", "terminal/release", `"terminalId":"t1"`),
		request("111", "terminal/create", `"command":"git","args":["push","--force"]`),
		update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done: hello.txt written."}}`),
		runnertest.ACPStep{Dump: w.dumped},
		reply(`{"stopReason":"end_turn"}`),
	)
	o := w.step(domain.PolicyImplement, steps...)
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Receipt)
	assert.Check(t, is.Equal(o.Final, "Done: hello.txt written."))
	assert.Check(t, is.Equal(o.Receipt.TerminalEvent, "session/prompt"))
	assert.Check(t, is.Equal(o.Receipt.TerminalReason, "end_turn"))
	assert.Check(t, is.Equal(o.Receipt.SessionID, "sess-acp-1"))
	assert.Check(t, is.Equal(o.Receipt.CLIVersion, "1.0.0"))
	assert.Check(t, is.Equal(o.Receipt.ToolCalls, 2))

	written, err := os.ReadFile(filepath.Join(w.work, "hello.txt"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(written), "hello from acp\n"))
	_, err = os.Stat(filepath.Join(w.dir, "outside.txt"))
	assert.Check(t, os.IsNotExist(err), "a write outside the worktree was made")
	_, err = os.Stat(filepath.Join(w.work, ".git", "config"))
	assert.Check(t, os.IsNotExist(err), "a write into .git was made")

	answers, requests := w.seen()
	outcome := func(id string) string {
		var r struct {
			Outcome struct{ Outcome, OptionID string } `json:"outcome"`
		}
		assert.NilError(t, json.Unmarshal(answers[id]["result"], &r), "%s", answers[id])
		return r.Outcome.Outcome + ":" + r.Outcome.OptionID
	}
	assert.Check(t, is.Equal(outcome("100"), "selected:ro"), "the force push is rejected once")
	assert.Check(t, is.Equal(outcome("101"), "selected:ao"), "the harmless command is allowed once")
	assert.Check(t, answers["102"]["result"] != nil && answers["102"]["error"] == nil)
	for _, id := range []string{"103", "104", "106", "111"} {
		assert.Check(t, answers[id]["error"] != nil, "request %s was not refused: %s", id, answers[id])
	}
	assert.Check(t, is.Contains(string(answers["105"]["result"]), "hello from acp"))
	var exit struct{ ExitCode *int }
	assert.NilError(t, json.Unmarshal(answers["108"]["result"], &exit))
	assert.Assert(t, exit.ExitCode != nil)
	assert.Check(t, is.Equal(*exit.ExitCode, 0))
	var out struct {
		Output     string
		Truncated  bool
		ExitStatus struct{ ExitCode int }
	}
	assert.NilError(t, json.Unmarshal(answers["109"]["result"], &out))
	assert.Check(t, is.Equal(out.Output, "hi\n"))

	// The handshake: abcd's capabilities, and the session opened in the worktree with abcd's catalog.
	assert.Assert(t, len(requests) >= 3)
	assert.Check(t, is.Contains(string(requests[0]["params"]), `"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}`))
	var opened struct {
		Cwd        string
		McpServers []struct {
			Name, Command string
			Args          []string
		}
	}
	assert.NilError(t, json.Unmarshal(requests[1]["params"], &opened))
	assert.Check(t, is.Equal(opened.Cwd, w.work))
	assert.Assert(t, is.Len(opened.McpServers, 1))
	assert.Check(t, is.Equal(opened.McpServers[0].Name, "abcd"))
	assert.Check(t, is.Contains(strings.Join(opened.McpServers[0].Args, " "), "mcp serve --repo "+w.work+" --tool spec_show"))
	assert.Check(t, is.Contains(string(requests[2]["params"]), "Implement the lane."))

	// The record: each question and answer.
	var asks []string
	for _, a := range o.Receipt.Asks {
		asks = append(asks, a.Method+" "+a.CallID+" "+string(a.Answer)+" "+a.What)
	}
	all := strings.Join(asks, "\n")
	for _, want := range []string{
		"session/request_permission c1 reject_once git push --force origin main",
		"session/request_permission c2 allow_once ls -la",
		"fs/write_text_file  done " + w.work + "/hello.txt",
		"fs/write_text_file  refused " + w.work + "/../outside.txt",
		"fs/write_text_file  refused " + w.work + "/.git/config",
		"fs/read_text_file  refused /etc/hostname",
		"terminal/create t1 allow_once echo hi",
		"terminal/output t1 done",
		"terminal/create  refused git push --force",
	} {
		assert.Check(t, is.Contains(all, want))
	}
	for _, a := range o.Receipt.Asks {
		assert.Check(t, !strings.Contains(a.Why+a.What, "sk-canary"), "a credential reached the receipt")
	}

	// What the agent did, told as it did it, one line each, in order, scrubbed: its plan, what it
	// said, its tool calls, abcd's answers and its turn's end.
	told := strings.Join(w.doing, "\n")
	assert.Check(t, !strings.Contains(told, "sk-canary"), "a credential reached the progress: %s", told)
	want := []string{
		"plan: 1 of 2 done; next: Write hello.txt",
		"says: Let me look, with [",
		"tool call c1 (execute Push) pending",
		"abcd answered session/request_permission c1 git push --force origin main: reject_once",
		"tool call c1 failed",
		"tool call c2 completed",
		"abcd answered fs/write_text_file " + w.work + "/hello.txt: done",
		"abcd answered terminal/create t1 echo hi: allow_once",
		"says: Done: hello.txt written.",
		"the turn ended: end_turn",
	}
	at := 0
	for _, line := range want {
		i := slices.IndexFunc(w.doing[at:], func(l string) bool { return strings.HasPrefix(l, line) })
		if !assert.Check(t, i >= 0, "%q is not told after line %d: %s", line, at, told) {
			break
		}
		at += i + 1
	}
}

// A reviewer's step over ACP only reads: a command or a write it asks for is rejected, and its answer
// is the final message as one JSON object (abcd checks it; the agent does not hold it to a schema).
func TestAReviewerOverACPReadsAndAnswersInJSON(t *testing.T) {
	w := newWorld(t)
	steps := append(handshake(1),
		update(`{"sessionUpdate":"tool_call","toolCallId":"r1","title":"Edit","kind":"edit","status":"pending","rawInput":{"file_path":"$CWD/a.go"}}`),
		request("200", "session/request_permission", `"toolCall":{"toolCallId":"r1"},`+options),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"r1","status":"failed"}`),
		request("201", "terminal/create", `"command":"ls"`),
		update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"{\"verdict\":\"approve\"}"}}`),
		runnertest.ACPStep{Dump: w.dumped},
		reply(`{"stopReason":"end_turn"}`))
	script, err := runnertest.ACPScript(steps...)
	assert.NilError(t, err)
	w.env = append(w.env, runnertest.ACPScriptVar+"="+script)
	o, err := w.a.Step(context.Background(), ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead,
		Limits: w.r.Limits, Schema: []byte(`{"type":"object"}`)})
	assert.NilError(t, err)
	assert.NilError(t, o.Receipt.Check())
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Receipt)
	assert.Check(t, is.Equal(string(o.Structured), `{"verdict":"approve"}`))
	assert.Check(t, !o.Receipt.SchemaEnforced)
	answers, _ := w.seen()
	assert.Check(t, is.Contains(string(answers["200"]["result"]), `"optionId":"ro"`))
	assert.Check(t, answers["201"]["error"] != nil)
}

// Every end but end_turn, and every break of the protocol, falls back with its typed cause: the stop
// reasons, an agent that goes silent, a line that is not a message, an answer to a request abcd never
// made, a protocol abcd does not know, a tool call still open at the end, an error for the prompt.
func TestEveryOtherEndFallsBackWithItsCause(t *testing.T) {
	open := update(`{"sessionUpdate":"tool_call","toolCallId":"o1","title":"Read","kind":"read","status":"in_progress"}`)
	for _, tc := range []struct {
		name  string
		steps []runnertest.ACPStep
		cause domain.Cause
	}{
		{"refusal", append(handshake(1), reply(`{"stopReason":"refusal"}`)), domain.CauseRefusal},
		{"max_tokens", append(handshake(1), reply(`{"stopReason":"max_tokens"}`)), domain.CauseMaxTokens},
		{"max_turn_requests", append(handshake(1), reply(`{"stopReason":"max_turn_requests"}`)), domain.CauseMaxTurns},
		{"cancelled", append(handshake(1), reply(`{"stopReason":"cancelled"}`)), domain.CauseCancelled},
		{"an unknown stop reason", append(handshake(1), reply(`{"stopReason":"done_i_think"}`)), domain.CauseCLIError},
		{"silent", append(handshake(1), runnertest.ACPStep{Hang: true}), domain.CauseSilence},
		{"a malformed line", append(handshake(1), runnertest.ACPStep{Raw: `{"jsonrpc":"2.0","method":"session/update"`}), domain.CauseBadLine},
		{"text", append(handshake(1), runnertest.ACPStep{Raw: `Loading model...`}), domain.CauseBadLine},
		{"a key twice", append(handshake(1), runnertest.ACPStep{Raw: `{"jsonrpc":"2.0","jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`}), domain.CauseBadLine},
		{"an unknown response id", append(handshake(1), runnertest.ACPStep{Raw: `{"jsonrpc":"2.0","id":99,"result":{"stopReason":"end_turn"}}`}), domain.CauseBadLine},
		{"an answer twice", append(handshake(1), runnertest.ACPStep{Raw: `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`}), domain.CauseBadLine},
		{"another protocol", []runnertest.ACPStep{expect("initialize"), reply(`{"protocolVersion":2}`)}, domain.CauseVersion},
		{"an open tool call", append(handshake(1), open, reply(`{"stopReason":"end_turn"}`)), domain.CauseOpenToolCall},
		{"an error for the prompt", append(handshake(1), runnertest.ACPStep{ReplyError: "Authentication required"}), domain.CauseAuth},
		{"an exit before the end", append(handshake(1), runnertest.ACPStep{Exit: new(int)}), domain.CauseNoTerminal},
		{"success before the session", []runnertest.ACPStep{expect("initialize"), runnertest.ACPStep{Raw: `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`}}, domain.CauseBadLine},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.r.Limits.Silence = 1500 * time.Millisecond
			o := w.step(domain.PolicyImplement, tc.steps...)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Failed))
			assert.Check(t, is.Equal(o.Receipt.Cause, tc.cause), "%s", o.Receipt.Detail)
			assert.Check(t, is.Equal(o.Final, ""))
		})
	}
}

// authMethods is an initialize answer listing a login of the agent's own, an env_var method whose
// variable the runner does not pass, and one whose variable it passes (GEMINI_API_KEY, the runner's
// credential).
const authMethods = `{"protocolVersion":1,"authMethods":[{"id":"login","name":"Log in"},` +
	`{"type":"env_var","id":"other-key","name":"Other","vars":[{"name":"OTHER_API_KEY"}]},` +
	`{"type":"env_var","id":"gemini-key","name":"Gemini key","vars":[{"name":"GEMINI_API_KEY"},{"name":"GEMINI_ORG","optional":true}]}]}`

// An agent that answers session/new auth_required is authenticated with the one method whose
// variables the runner passes, and session/new is asked again; the step completes.
func TestAnAgentAskingForAuthenticationIsAuthenticatedWithTheRunnersKey(t *testing.T) {
	w := newWorld(t)
	o := w.step(domain.PolicyImplement, expect("initialize"), reply(authMethods),
		expect("session/new"), runnertest.ACPStep{ReplyError: "Authentication required"},
		expect("authenticate"), reply(`{}`),
		expect("session/new"), reply(`{"sessionId":"sess-acp-1"}`), expect("session/prompt"),
		update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done."}}`),
		runnertest.ACPStep{Dump: w.dumped}, reply(`{"stopReason":"end_turn"}`))
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Receipt)
	assert.Check(t, is.Equal(o.Final, "Done."))
	_, requests := w.seen()
	var methods []string
	for _, r := range requests {
		var m string
		assert.NilError(t, json.Unmarshal(r["method"], &m))
		methods = append(methods, m)
		if m == "authenticate" {
			assert.Check(t, is.Equal(string(r["params"]), `{"methodId":"gemini-key"}`))
		}
	}
	assert.Check(t, is.DeepEqual(methods, []string{"initialize", "session/new", "authenticate", "session/new", "session/prompt"}))
	assert.Check(t, is.Contains(strings.Join(w.doing, "\n"), "authenticated with the agent's method gemini-key"))
	assert.Check(t, !strings.Contains(strings.Join(w.doing, "\n"), "sk-canary-acp"), "no key in the progress")
}

// An agent that needs authentication and offers no method abcd may use, or refuses the one abcd
// chose, or asks again after it, fails with the cause auth, saying which.
func TestAnAgentAbcdCannotAuthenticateFallsBackWithTheCauseAuth(t *testing.T) {
	for _, tc := range []struct {
		name   string
		steps  []runnertest.ACPStep
		detail string
	}{
		{"only logins", []runnertest.ACPStep{expect("initialize"),
			reply(`{"protocolVersion":1,"authMethods":[{"id":"login","name":"Log in"},{"type":"terminal","id":"tty","name":"Terminal","args":["--login"]},` +
				`{"type":"env_var","id":"other-key","name":"Other","vars":[{"name":"OTHER_API_KEY"},{"name":"GEMINI_API_KEY"}]}]}`),
			expect("session/new"), runnertest.ACPStep{ReplyError: "Authentication required"}, runnertest.ACPStep{Hang: true}},
			"offers only login (the agent's own login); tty (an interactive login); other-key (needs OTHER_API_KEY, GEMINI_API_KEY, which the runner does not pass)"},
		{"no method", []runnertest.ACPStep{expect("initialize"), reply(`{"protocolVersion":1}`),
			expect("session/new"), runnertest.ACPStep{ReplyError: "Authentication required"}, runnertest.ACPStep{Hang: true}},
			"offers no method"},
		{"authenticate refused", []runnertest.ACPStep{expect("initialize"), reply(authMethods),
			expect("session/new"), runnertest.ACPStep{ReplyError: "Authentication required"},
			expect("authenticate"), runnertest.ACPStep{ReplyError: "invalid key"}, runnertest.ACPStep{Hang: true}},
			"answered authenticate with its method gemini-key with an error (-32000): invalid key"},
		{"asked again", []runnertest.ACPStep{expect("initialize"), reply(authMethods),
			expect("session/new"), runnertest.ACPStep{ReplyError: "Authentication required"},
			expect("authenticate"), reply(`{}`), expect("session/new"), runnertest.ACPStep{ReplyError: "Authentication required"},
			runnertest.ACPStep{Hang: true}},
			"answered session/new with an error (-32000): Authentication required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			o := w.step(domain.PolicyImplement, tc.steps...)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Failed))
			assert.Check(t, is.Equal(o.Receipt.Cause, domain.CauseAuth), "%s", o.Receipt.Detail)
			assert.Check(t, is.Contains(o.Receipt.Detail, tc.detail))
			assert.Check(t, !strings.Contains(o.Receipt.Detail, "sk-canary-acp"))
		})
	}
}

// Gemini CLI's ways, met: a file it reads that does not exist is ACP's resource_not_found (it writes
// a new file only on that answer), and a shell call that carries no raw input is judged by its title,
// the only place it names its command.
func TestAMissingFileIsNotFoundAndACommandNamedInTheTitleIsJudged(t *testing.T) {
	w := newWorld(t)
	o := w.step(domain.PolicyImplement, append(handshake(1),
		request("300", "fs/read_text_file", `"path":"$CWD/new.txt"`),
		update(`{"sessionUpdate":"tool_call","toolCallId":"g1","title":"git push --force origin main","kind":"execute","status":"pending"}`),
		request("301", "session/request_permission", `"toolCall":{"toolCallId":"g1","title":"git push --force origin main","kind":"execute"},`+options),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"g1","status":"failed"}`),
		update(`{"sessionUpdate":"tool_call","toolCallId":"g2","title":"ls -la","kind":"execute","status":"pending"}`),
		request("302", "session/request_permission", `"toolCall":{"toolCallId":"g2","title":"ls -la","kind":"execute"},`+options),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"g2","status":"completed"}`),
		update(`{"sessionUpdate":"tool_call","toolCallId":"g3","title":"","kind":"execute","status":"pending","rawInput":{}}`),
		request("303", "session/request_permission", `"toolCall":{"toolCallId":"g3","title":"ls","kind":"execute"},`+options),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"g3","status":"failed"}`),
		// Asked about before any update announced them: the allowed one is opened by the answer
		// and closed by its update; the rejected one never began, and needs no update.
		request("304", "session/request_permission", `"toolCall":{"toolCallId":"u1","title":"Write","kind":"edit","locations":[{"path":"$CWD/a.txt"}]},`+options),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"u1","status":"completed"}`),
		request("305", "session/request_permission", `"toolCall":{"toolCallId":"u2","title":"git push --force","kind":"execute"},`+options),
		// codex-acp asks first and announces the call after abcd's allow: not a second opening.
		request("306", "session/request_permission", `"toolCall":{"toolCallId":"u3","title":"ls","kind":"execute","rawInput":{"command":["ls"]}},`+options),
		update(`{"sessionUpdate":"tool_call","toolCallId":"u3","title":"ls","kind":"execute","status":"in_progress","rawInput":{"command":["ls","-l"]}}`),
		update(`{"sessionUpdate":"tool_call_update","toolCallId":"u3","status":"completed"}`),
		runnertest.ACPStep{Dump: w.dumped}, reply(`{"stopReason":"end_turn"}`))...)
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Receipt)
	answers, _ := w.seen()
	var e struct{ Code int }
	assert.NilError(t, json.Unmarshal(answers["300"]["error"], &e), "%s", answers["300"])
	assert.Check(t, is.Equal(e.Code, -32002))
	assert.Check(t, is.Contains(string(answers["300"]["error"]), "Resource not found"))
	assert.Check(t, is.Contains(string(answers["301"]["result"]), `"optionId":"ro"`), "the force push named in the title is rejected")
	assert.Check(t, is.Contains(string(answers["302"]["result"]), `"optionId":"ao"`), "ls named in the title is allowed")
	assert.Check(t, is.Contains(string(answers["303"]["result"]), `"optionId":"ro"`), "raw input naming no command is not read past")
	assert.Check(t, is.Contains(string(answers["304"]["result"]), `"optionId":"ao"`))
	assert.Check(t, is.Contains(string(answers["305"]["result"]), `"optionId":"ro"`))
	assert.Check(t, is.Contains(string(answers["306"]["result"]), `"optionId":"ao"`))
	assert.Check(t, is.Equal(o.Receipt.ToolCalls, 5), "g1, g2, g3, u1 and u3")
	var asks []string
	for _, a := range o.Receipt.Asks {
		asks = append(asks, string(a.Answer)+" "+a.What)
	}
	assert.Check(t, is.Contains(strings.Join(asks, "\n"), "reject_once git push --force origin main"))
}
