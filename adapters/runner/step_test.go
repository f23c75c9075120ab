package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/gemini"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/adapters/sandbox"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

func TestMain(m *testing.M) {
	sandbox.Helper() // the fence's helper is the test binary, as it is abcd in abcd's main
	runnertest.FakeMain()
	os.Exit(m.Run())
}

// canary is a credential the fake CLI is given: nothing abcd returns may hold it.
const canary = "sk-ant-canary-5f1e0c2a9b7d4e3f"

// Claude Code's lines, as 2.1.x writes them.
const (
	initLine   = `{"type":"system","subtype":"init","cwd":"/w","session_id":"sess-1","tools":["Read"],"model":"claude-x","permissionMode":"dontAsk","claude_code_version":"2.1.332"}`
	textLine   = `{"type":"assistant","message":{"id":"msg_1","model":"claude-x","content":[{"type":"text","text":"working"}]},"session_id":"sess-1","parent_tool_use_id":null}`
	toolLine   = `{"type":"assistant","message":{"id":"msg_2","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"session_id":"sess-1"}`
	resultLine = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt","is_error":false}]},"session_id":"sess-1"}`
	success    = `{"subtype":"success","is_error":false,"result":"All done.","num_turns":2,"total_cost_usd":0.0123,"usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":5,"cache_creation_input_tokens":7},"modelUsage":{"claude-x":{"costUSD":0.0123}},"permission_denials":[],"terminal_reason":"completed","api_error_status":null,"session_id":"sess-1","type":"result"}`
)

func result(subtype string, isError bool, status int, reason string) string {
	st := "null"
	if status != 0 {
		st = strconv.Itoa(status)
	}
	return `{"type":"result","subtype":"` + subtype + `","is_error":` + strconv.FormatBool(isError) + `,"result":"it went wrong","api_error_status":` + st +
		`,"terminal_reason":"` + reason + `","session_id":"sess-1","num_turns":1,"errors":["the step failed"]}`
}

type world struct {
	t      *testing.T
	dir    string
	work   string
	prompt string
	env    []string
	a      *runner.Adapter
	r      domain.Runner
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{t: t, dir: dir, work: filepath.Join(dir, "work"), prompt: filepath.Join(dir, "prompt.md")}
	assert.NilError(t, os.Mkdir(w.work, 0o700))
	assert.NilError(t, os.WriteFile(w.prompt, []byte("Implement the lane.\nSecret-free prompt.\n"), 0o600))
	exe, err := os.Executable()
	assert.NilError(t, err)
	w.env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "ANTHROPIC_API_KEY=" + canary, "OTHER_SECRET=sk-other-0123456789",
		"CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=cli", "LD_PRELOAD=/nonexistent.so", "FORCE_COLOR=1", "TERM=xterm"}
	w.r = domain.Runner{Name: "cc", CLI: domain.Claude, Executable: exe, Version: "2.1.332",
		CredentialEnv: []string{"ANTHROPIC_API_KEY"}, PassEnv: []string{runnertest.ScriptVar, "FAKE_CLI_VERSION", "FAKE_CLI_HELP"},
		Concurrency: 1, Limits: fastLimits()}
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}}, Guard: w.guard(),
		Environ: func() []string { return w.env }, TempDir: dir, Drain: 100 * time.Millisecond, Grace: 200 * time.Millisecond})
	return w
}

// guard is the guard hook the world's steps name: the test binary, which answers as abcd's guard
// hook when started so (runnertest's fake guard).
func (w *world) guard() []string {
	w.t.Helper()
	exe, err := os.Executable()
	assert.NilError(w.t, err)
	return []string{exe, "guard", "hook"}
}

func fastLimits() domain.Limits {
	return domain.Limits{WallClock: 20 * time.Second, FirstEvent: 10 * time.Second, Silence: 10 * time.Second, Turns: 50, APIRetries: 2}
}

// script points the fake at a script of these directives, played by a CLI that loads abcd's settings
// and runs its start-up hook as the real one does.
func (w *world) script(ds ...runnertest.Directive) {
	w.t.Helper()
	w.bare(append([]runnertest.Directive{{SessionStart: string(w.r.CLI)}}, ds...)...)
}

// bare points the fake at a script of these directives alone: a CLI that ignores abcd's settings
// (unless the script loads them itself).
func (w *world) bare(ds ...runnertest.Directive) {
	w.t.Helper()
	path, err := runnertest.Script(w.dir, ds...)
	assert.NilError(w.t, err)
	w.setEnv(runnertest.ScriptVar, path)
}

func (w *world) setEnv(k, v string) {
	for i, kv := range w.env {
		if strings.HasPrefix(kv, k+"=") {
			w.env[i] = k + "=" + v
			return
		}
	}
	w.env = append(w.env, k+"="+v)
}

func (w *world) step(ctx context.Context, mods ...func(*ports.RunnerStep)) domain.Outcome {
	w.t.Helper()
	req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead, Limits: w.r.Limits}
	for _, m := range mods {
		m(&req)
	}
	o, err := w.a.Step(ctx, req)
	assert.NilError(w.t, err)
	assertClean(w.t, o)
	assert.NilError(w.t, o.Receipt.Check())
	return o
}

// assertClean: the canary credential is in nothing the step returned.
func assertClean(t *testing.T, o domain.Outcome) {
	t.Helper()
	b, err := json.Marshal(o)
	assert.NilError(t, err)
	assert.Check(t, !strings.Contains(string(b), canary), "the canary leaked: %s", b)
	assert.Check(t, !strings.Contains(string(b), "sk-ant-canary"), "part of the canary leaked: %s", b)
}

func lines(ls ...string) []runnertest.Directive { return runnertest.Lines(ls...) }

func TestASuccessfulStepCompletesOnTheResultAlone(t *testing.T) {
	w := newWorld(t)
	// The fake exits on its own right after the result; a drain longer than any loaded machine's
	// delay lets it, so its own exit code is what is recorded (the drain ends at its exit).
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}}, Guard: w.guard(),
		Environ: func() []string { return w.env }, TempDir: w.dir, Drain: time.Minute, Grace: 200 * time.Millisecond})
	w.script(append(lines(initLine, textLine, toolLine, resultLine, `{"type":"brand_new_event","x":1}`, success), runnertest.Directive{Exit: 1})...)
	o := w.step(context.Background())
	r := o.Receipt
	assert.Check(t, is.Equal(r.Outcome, domain.Completed))
	assert.Check(t, o.Failure == nil)
	assert.Check(t, is.Equal(o.Final, "All done."))
	assert.Check(t, is.Equal(r.TerminalEvent, "result"))
	assert.Check(t, is.Equal(r.TerminalReason, "success"))
	assert.Check(t, is.Equal(r.SessionID, "sess-1"))
	assert.Check(t, is.DeepEqual(r.ModelsReported, []string{"claude-x"}))
	assert.Check(t, is.Equal(r.ExitCode, 1), "the exit code is recorded beside the outcome, never deciding it")
	assert.Check(t, is.Equal(r.ToolCalls, 1))
	assert.Check(t, is.Equal(r.UnknownEvents, 1), "an unknown event is counted, not fatal")
	assert.Check(t, is.Equal(r.Turns, 2))
	assert.Check(t, r.CostReported && r.CostUSD == 0.0123)
	assert.Check(t, is.Equal(r.CostSource, domain.CostReported))
	assert.Check(t, is.DeepEqual(r.Usage, domain.Usage{Input: 100, Output: 20, CachedInput: 5, CacheWrite: 7, Reported: true}))
	assert.Check(t, is.Equal(r.CLIVersion, "2.1.332"))
	assert.Check(t, is.Equal(r.Runner, "cc"))
}

func TestTheCLIGetsTheAllowlistTheFlagsAndThePromptOnStdin(t *testing.T) {
	w := newWorld(t)
	dump := filepath.Join(w.dir, "dump.json")
	w.script(append([]runnertest.Directive{{Dump: dump}}, lines(initLine, success)...)...)
	o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Model = "claude-y" })
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed))
	var d runnertest.Dump
	data, err := os.ReadFile(dump)
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, &d))
	assert.Check(t, is.Equal(d.Stdin, "Implement the lane.\nSecret-free prompt.\n"))
	assert.Check(t, is.Equal(d.Dir, w.work))
	var names []string
	for _, kv := range d.Env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	assert.Check(t, is.DeepEqual(names, []string{runner.MarkVar, "ANTHROPIC_API_KEY", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CODE_MAX_RETRIES",
		"CLAUDE_CONFIG_DIR", "DISABLE_AUTOUPDATER", "FAKE_CLI_SCRIPT", "GIT_EDITOR", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "HOME", "NO_COLOR", "PAGER", "PATH", "TERM",
		"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"}),
		"only the allowlist reaches the CLI, and the step's mark")
	assert.Check(t, is.Contains(d.Env, "TERM=dumb"))
	assert.Check(t, is.Contains(d.Env, "CLAUDE_CODE_MAX_RETRIES=2"))
	assert.Check(t, is.Contains(d.Args, "--model=claude-y"))
	assert.Check(t, is.Contains(d.Args, "--strict-mcp-config"))
	assert.Check(t, is.Contains(d.Args, "--tools=Read,Grep,Glob"))
	assert.Check(t, is.Contains(d.Args, "--permission-mode=dontAsk"))
	for _, a := range d.Args {
		assert.Check(t, !strings.Contains(a, "Secret-free"), "the prompt is never in argv")
	}
}

func TestTheImplementerEditsAndEveryCommandPassesTheGuard(t *testing.T) {
	w := newWorld(t)
	dump := filepath.Join(w.dir, "dump.json")
	settings := filepath.Join(w.dir, "settings-copy.json")
	w.script(append([]runnertest.Directive{{Dump: dump}}, lines(initLine, success)...)...)
	w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = domain.PolicyImplement })
	var d runnertest.Dump
	data, err := os.ReadFile(dump)
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, &d))
	assert.Check(t, is.Contains(d.Args, "--tools=Read,Grep,Glob,Edit,Write,NotebookEdit,Bash"))
	assert.Check(t, is.Contains(d.Args, "--permission-mode=acceptEdits"))
	assert.Check(t, is.Contains(d.Args, "--allowedTools=Bash"))
	_ = settings
	var set string
	for _, a := range d.Args {
		if v, ok := strings.CutPrefix(a, "--settings="); ok {
			set = v
		}
	}
	assert.Check(t, set != "")
	_, err = os.Stat(set)
	assert.Check(t, errors.Is(err, os.ErrNotExist), "the step's private files are removed after it")
}

func TestEveryFailureHasItsCause(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole table takes a few seconds")
	}
	big := runnertest.Directive{Pad: domain.MaxLineBytes + 10}
	for _, c := range []struct {
		name   string
		script []runnertest.Directive
		limits func(*domain.Limits)
		schema bool
		cause  domain.Cause
	}{
		{"auth in the result", lines(initLine, result("success", true, 401, "api_error")), nil, false, domain.CauseAuth},
		{"auth on the first retry", lines(initLine, `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"error_status":401,"error":"authentication_failed"}`), nil, false, domain.CauseAuth},
		{"rate limit in the result", lines(initLine, result("success", true, 429, "api_error")), nil, false, domain.CauseRateLimit},
		{"rate limit past the retries", lines(initLine, retry(429), retry(429), retry(429)), nil, false, domain.CauseRateLimit},
		{"model", lines(initLine, result("success", true, 404, "api_error")), nil, false, domain.CauseModel},
		{"api error", lines(initLine, result("success", true, 500, "api_error")), nil, false, domain.CauseAPIError},
		{"api retries", lines(initLine, retry(529), retry(529), retry(529)), nil, false, domain.CauseAPIRetries},
		{"max turns, the CLI's", lines(initLine, result("error_max_turns", true, 0, "max_turns")), nil, false, domain.CauseMaxTurns},
		{"max turns, abcd's count", lines(initLine, textLine, toolLine, resultLine), func(l *domain.Limits) { l.Turns = 1 }, false, domain.CauseMaxTurns},
		{"budget", lines(initLine, result("error_max_budget_usd", true, 0, "")), nil, false, domain.CauseBudget},
		{"cli error", lines(initLine, result("error_during_execution", true, 0, "")), nil, false, domain.CauseCLIError},
		{"a subtype abcd does not know", lines(initLine, result("error_new_kind", true, 0, "")), nil, false, domain.CauseCLIError},
		{"success that is an error", lines(initLine, result("success", true, 0, "")), nil, false, domain.CauseCLIError},
		{"schema retries", lines(initLine, result("error_max_structured_output_retries", true, 0, "structured_output_retry_exhausted")), nil, true, domain.CauseSchema},
		{"an answer that is not JSON", lines(initLine, success), nil, true, domain.CauseSchema},
		{"no terminal event", lines(initLine, textLine), nil, false, domain.CauseNoTerminal},
		{"no terminal event, exit 0", append(lines(initLine, textLine), runnertest.Directive{ExitZero: true}), nil, false, domain.CauseNoTerminal},
		{"killed mid-stream", append(lines(initLine, textLine), runnertest.Directive{Signal: "KILL"}), nil, false, domain.CauseNoTerminal},
		{"a truncated line", []runnertest.Directive{{Out: initLine}, {Raw: `{"type":"assistant","message":{"id":"m`}}, nil, false, domain.CauseBadLine},
		{"a line that is not JSON", lines(initLine, "Loading configuration...", success), nil, false, domain.CauseBadLine},
		{"an ANSI escape", lines("\x1b[?2004h"+initLine, success), nil, false, domain.CauseBadLine},
		{"an array", lines(initLine, `[{"type":"result"}]`), nil, false, domain.CauseBadLine},
		{"a key twice", lines(initLine, `{"type":"assistant","type":"result","subtype":"success","is_error":false}`), nil, false, domain.CauseBadLine},
		{"an empty line", []runnertest.Directive{{Out: initLine}, {Raw: "\n"}, {Out: success}}, nil, false, domain.CauseBadLine},
		{"a result without is_error", lines(initLine, `{"type":"result","subtype":"success","result":"x"}`), nil, false, domain.CauseBadLine},
		{"two terminal events", lines(initLine, success, success), nil, false, domain.CauseSecondTerminal},
		{"a line over its bound", []runnertest.Directive{{Out: initLine}, big}, nil, false, domain.CauseLineTooLong},
		{"an open tool call", lines(initLine, toolLine, success), nil, false, domain.CauseOpenToolCall},
		{"a conflicting tool call id", lines(initLine, toolLine, strings.Replace(toolLine, `"ls"`, `"rm -rf ~"`, 1)), nil, false, domain.CauseToolCallConflict},
		{"a result for no call", lines(initLine, resultLine), nil, false, domain.CauseToolCallConflict},
		{"silent before its first event", []runnertest.Directive{{Hang: true}}, func(l *domain.Limits) { l.FirstEvent = 300 * time.Millisecond }, false, domain.CauseFirstEvent},
		{"silent mid-stream", append(lines(initLine), runnertest.Directive{Hang: true}), func(l *domain.Limits) { l.Silence = 300 * time.Millisecond }, false, domain.CauseSilence},
		{"talking past the wall clock", chatter(100), func(l *domain.Limits) { l.WallClock = 600 * time.Millisecond }, false, domain.CauseWallClock},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			w.script(c.script...)
			lim := fastLimits()
			if c.limits != nil {
				c.limits(&lim)
			}
			o := w.step(context.Background(), func(r *ports.RunnerStep) {
				r.Limits = lim
				if c.schema {
					r.Schema = []byte(`{"type":"object"}`)
				}
			})
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Failed))
			assert.Assert(t, o.Failure != nil)
			assert.Check(t, is.Equal(o.Failure.Cause, c.cause), o.Failure.Detail)
			assert.Check(t, is.Equal(string(o.Receipt.Reason), string(c.cause.Reason())))
			assert.Check(t, is.Equal(o.Final, ""), "a failed step answers nothing")
			assert.Check(t, o.Structured == nil)
		})
	}
}

func retry(status int) string {
	return `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":5,"error_status":` + strconv.Itoa(status) + `,"error":"overloaded"}`
}

// chatter is an event every 50 ms, n times.
func chatter(n int) []runnertest.Directive {
	ds := lines(initLine)
	for i := 0; i < n; i++ {
		ds = append(ds, runnertest.Directive{Out: `{"type":"system","subtype":"status","n":` + strconv.Itoa(i) + `}`}, runnertest.Directive{SleepMS: 50})
	}
	return ds
}

func TestARepeatedToolCallIsIgnored(t *testing.T) {
	w := newWorld(t)
	w.script(lines(initLine, toolLine, toolLine, resultLine, resultLine, success)...)
	o := w.step(context.Background())
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
	assert.Check(t, is.Equal(o.Receipt.ToolCalls, 1))
}

func TestAStreamOverItsBoundFails(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB through a pipe")
	}
	w := newWorld(t)
	w.script(runnertest.Directive{Out: initLine}, runnertest.Directive{Lines: domain.MaxStreamBytes>>20 + 1})
	o := w.step(context.Background())
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseStreamTooLong))
}

func TestTheStepBeforeTheCLIStarts(t *testing.T) {
	w := newWorld(t)
	w.script(lines(initLine, success)...)
	notExec := filepath.Join(w.dir, "not-exec")
	assert.NilError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o600))
	badFormat := filepath.Join(w.dir, "bad-format")
	assert.NilError(t, os.WriteFile(badFormat, []byte("not a program"), 0o700))
	fifo := filepath.Join(w.dir, "fifo")
	mkfifo(t, fifo)
	link := filepath.Join(w.dir, "link.md")
	assert.NilError(t, os.Symlink(w.prompt, link))
	for _, c := range []struct {
		name  string
		mod   func(*ports.RunnerStep)
		cause domain.Cause
	}{
		{"opencode", func(r *ports.RunnerStep) { r.Runner.CLI = domain.OpenCode }, domain.CauseUnsupported},
		{"a CLI this build does not drive", func(r *ports.RunnerStep) { r.Runner.CLI = domain.Gemini }, domain.CauseUnsupported},
		{"no executable", func(r *ports.RunnerStep) { r.Runner.Executable = filepath.Join(w.dir, "missing") }, domain.CauseExecutable},
		{"a folder", func(r *ports.RunnerStep) { r.Runner.Executable = w.dir }, domain.CauseExecutable},
		{"not executable", func(r *ports.RunnerStep) { r.Runner.Executable = notExec }, domain.CauseExecutable},
		{"a relative path", func(r *ports.RunnerStep) { r.Runner.Executable = "claude" }, domain.CauseExecutable},
		{"cannot be started", func(r *ports.RunnerStep) { r.Runner.Executable = badFormat }, domain.CauseSpawn},
		{"no prompt", func(r *ports.RunnerStep) { r.PromptFile = filepath.Join(w.dir, "none.md") }, domain.CausePrompt},
		{"a FIFO prompt", func(r *ports.RunnerStep) { r.PromptFile = fifo }, domain.CausePrompt},
		{"a linked prompt", func(r *ports.RunnerStep) { r.PromptFile = link }, domain.CausePrompt},
		{"a credential unset", func(r *ports.RunnerStep) { r.Runner.CredentialEnv = []string{"ANTHROPIC_API_KEY", "NOT_SET_ANYWHERE"} }, domain.CauseCredentials},
		{"a catalog past a bound", func(r *ports.RunnerStep) {
			r.MCP = []domain.MCPServer{{Name: "ab_cd", Command: "/usr/local/bin/abcd"}}
		}, domain.CauseCatalog},
		{"the implementer with no guard", func(r *ports.RunnerStep) { r.Policy = domain.PolicyImplement }, domain.CauseFlags},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := w.a
			if c.name == "the implementer with no guard" {
				a = runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}}, Environ: func() []string { return w.env }})
			}
			req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead, Limits: w.r.Limits}
			c.mod(&req)
			o, err := a.Step(context.Background(), req)
			assert.NilError(t, err)
			assert.Assert(t, o.Failure != nil)
			assert.Check(t, is.Equal(o.Failure.Cause, c.cause), o.Failure.Detail)
			assert.NilError(t, o.Receipt.Check())
			assertClean(t, o)
		})
	}
}

func TestAnUnexpectedCatalogErrorIsNotACause(t *testing.T) {
	w := newWorld(t)
	req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead, Limits: w.r.Limits,
		MCP: []domain.MCPServer{{Name: "abcd", Command: "/usr/local/bin/abcd", Tools: []domain.MCPTool{{Name: "x", InputSchema: make(chan int)}}}}}
	_, err := w.a.Step(context.Background(), req)
	assert.Assert(t, err != nil, "an encoding fault is returned as it is")
	var ce *domain.CatalogError
	assert.Check(t, !errors.As(err, &ce))
}

func TestInterruptedEndsTheGroup(t *testing.T) {
	w := newWorld(t)
	pidfile, ignoring := filepath.Join(w.dir, "grandchild.pid"), filepath.Join(w.dir, "ignoring")
	w.script(append([]runnertest.Directive{{Grandchild: pidfile}, {IgnoreTerm: true}, {Write: ignoring, Content: "SIGTERM\n"}},
		append(lines(initLine), runnertest.Directive{Hang: true})...)...)
	ctx, cancel := context.WithCancel(context.Background())
	var pgid int
	go func() {
		// Interrupted once the CLI ignores SIGTERM, however slowly a loaded machine gets it there.
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(ignoring); err == nil {
				break
			}
		}
		cancel()
	}()
	o := w.step(ctx, func(r *ports.RunnerStep) { r.Started = func(id int) { pgid = id } })
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseInterrupted))
	assert.Check(t, is.Equal(o.Receipt.Signal, "SIGKILL"), "the CLI ignored SIGTERM, so SIGKILL ended it")
	assert.Check(t, pgid > 0)
	assertGone(t, pidfile, pgid)
}

func TestNoProcessOutlivesACompletedStep(t *testing.T) {
	w := newWorld(t)
	pidfile := filepath.Join(w.dir, "grandchild.pid")
	// The CLI leaves a grandchild that ignores SIGTERM, prints its result, and lingers.
	w.script(append([]runnertest.Directive{{Grandchild: pidfile}, {IgnoreTerm: true}}, append(lines(initLine, success), runnertest.Directive{Hang: true})...)...)
	var pgid int
	o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Started = func(id int) { pgid = id } })
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "a slow exit does not turn success into a timeout")
	assertGone(t, pidfile, pgid)
}

// assertGone: the grandchild and every process of the group are gone (dead: an orphan's zombie
// waits for init to reap it, and holds nothing).
func assertGone(t *testing.T, pidfile string, pgid int) {
	t.Helper()
	data, err := os.ReadFile(pidfile)
	assert.NilError(t, err)
	pid, err := strconv.Atoi(string(data))
	assert.NilError(t, err)
	deadline := time.Now().Add(5 * time.Second)
	for {
		alive := live(pid)
		group := liveInGroup(pgid)
		if !alive && len(group) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the step, grandchild %d alive %v, group %d holds %v", pid, alive, pgid, group)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stat reads a process's state and process group from /proc.
func stat(pid string) (state byte, pgrp int, ok bool) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0, 0, false
	}
	f := strings.Fields(s[i+2:]) // state ppid pgrp ...
	if len(f) < 3 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(f[2])
	return f[0][0], g, err == nil
}

func live(pid int) bool {
	state, _, ok := stat(strconv.Itoa(pid))
	return ok && state != 'Z' && state != 'X'
}

func liveInGroup(pgid int) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if state, g, ok := stat(e.Name()); ok && g == pgid && state != 'Z' && state != 'X' {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestTheCanaryIsScrubbedFromEverythingTheCLISays(t *testing.T) {
	w := newWorld(t)
	echo := strings.ReplaceAll(success, "All done.", "the key is "+canary+" and Bearer "+canary)
	w.script(lines(strings.Replace(initLine, "sess-1", "sess-"+canary, 1), strings.Replace(textLine, "claude-x", canary, 1), echo)...)
	o := w.step(context.Background())
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed))
	assert.Check(t, is.Contains(o.Final, "[key]"))
	// On the failure path too: the CLI's stderr and its error words.
	w.script(runnertest.Directive{Out: initLine}, runnertest.Directive{Out: result("error_during_execution", true, 0, "")[:0] + strings.Replace(result("error_during_execution", true, 0, ""), "the step failed", "bad key "+canary, 1)})
	o = w.step(context.Background())
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseCLIError))
	assert.Check(t, is.Contains(o.Failure.Detail, "[key]"))
	// A credential abcd holds beside the runner's (a provider's key) is scrubbed as well.
	w.script(lines(initLine, strings.ReplaceAll(success, "All done.", "sk-other-0123456789"))...)
	o = w.step(context.Background(), func(r *ports.RunnerStep) { r.Scrub = []string{"sk-other-0123456789"} })
	assert.Check(t, !strings.Contains(o.Final, "sk-other"))
}

// A URL carrying its credentials in what the CLI says (http://user:pw@host) loses its password in a
// failure's detail, on the receipt and the failure alike, though no credential abcd holds is it.
func TestAURLsPasswordIsScrubbedFromAFailuresDetail(t *testing.T) {
	w := newWorld(t)
	const url, scrubbed = "http://user:pw@10.1.2.3/x", "user:[key]@10.1.2.3"
	for name, script := range map[string][]runnertest.Directive{
		"in the result's error": {{Out: initLine}, {Out: strings.Replace(result("error_during_execution", true, 0, ""), "the step failed", "could not reach "+url, 1)}},
		"in an API error note":  {{Out: initLine}, {Out: `{"type":"assistant","message":{"id":"m1","model":"claude-x","content":[]},"error":"proxy ` + url + ` refused","session_id":"sess-1"}`}, {Exit: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			w.script(script...)
			o := w.step(context.Background())
			assert.Assert(t, o.Failure != nil)
			for _, detail := range []string{o.Failure.Detail, o.Receipt.Detail} {
				assert.Check(t, !strings.Contains(detail, "pw"), detail)
				assert.Check(t, is.Contains(detail, scrubbed))
			}
		})
	}
}

func TestGeminiIsRefusedAFolderCarryingItsConfiguration(t *testing.T) {
	w := newWorld(t)
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{gemini.Dialect{}}, Guard: w.guard(),
		Environ: func() []string { return w.env }, TempDir: w.dir})
	w.r.CLI = domain.Gemini
	assert.NilError(t, os.Mkdir(filepath.Join(w.work, ".gemini"), 0o700))
	w.script(lines(`{"type":"init","session_id":"s","model":"gemini-x"}`, `{"type":"result","status":"success"}`)...)
	o := w.step(context.Background())
	assert.Assert(t, o.Failure != nil)
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseRepoConfig))
	assert.Check(t, is.Equal(o.Receipt.ExitCode, -1), "the CLI was never started")

	// Plan mode offers no MCP tool: a reviewer's catalog is refused, not dropped.
	assert.NilError(t, os.Remove(filepath.Join(w.work, ".gemini")))
	o = w.step(context.Background(), func(r *ports.RunnerStep) {
		r.MCP = []domain.MCPServer{{Name: "abcd", Command: "/usr/local/bin/abcd", Tools: []domain.MCPTool{{Name: "status", InputSchema: map[string]any{}}}}}
	})
	assert.Assert(t, o.Failure != nil)
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseCatalog))
}

func TestMoreToolCallsThanAStepMayHold(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 4,097 tool calls")
	}
	w := newWorld(t)
	ds := lines(initLine)
	for i := 0; i <= domain.MaxToolCalls; i++ {
		id := "toolu_" + strconv.Itoa(i)
		ds = append(ds, runnertest.Directive{Out: `{"type":"assistant","message":{"id":"msg_1","model":"claude-x","content":[{"type":"tool_use","id":"` + id + `","name":"Read","input":{}}]}}`},
			runnertest.Directive{Out: `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"x"}]}}`})
	}
	w.script(append(ds, runnertest.Directive{Out: success})...)
	o := w.step(context.Background())
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseToolCallLimit))
}
