//go:build unix

package main

// implement_run over MCP as a task (the io.modelcontextprotocol/tasks extension), for a 2026-07-28
// client that declares it: the same runner-driven run as TestImplementRunTakesASpecToItsEndOnARunner,
// its tools/call answered at once with a task the client polls to the run's result, and a run
// stopped by tasks/cancel as Ctrl-C stops one.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/ports/loop"
)

// taskWire is what tools/call and tasks/get answer with.
type taskWire struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result struct {
		ResultType    string `json:"resultType"`
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
		Result        *struct {
			ResultType        string                  `json:"resultType"`
			StructuredContent loop.ImplementRunResult `json:"structuredContent"`
			IsError           bool                    `json:"isError"`
		} `json:"result"`
	} `json:"result"`
	Error any `json:"error"`
}

// taskRequest is a 2026-07-28 request declaring the tasks extension.
func taskRequest(id int, method string, params map[string]any) map[string]any {
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}
}

// pollTask asks tasks/get for id until until says stop or the task is terminal; it returns the last
// answer and every status message seen.
func pollTask(t *testing.T, m *mcpSession, id string, until func(taskWire) bool) (taskWire, []string) {
	t.Helper()
	var seen []string
	deadline := time.Now().Add(60 * time.Second)
	for n := 100; ; n++ {
		m.send(t, taskRequest(n, "tasks/get", map[string]any{"taskId": id}))
		var r taskWire
		m.next(t, &r)
		assert.Assert(t, r.Error == nil && r.Method == "", "%s", m.lines.Text())
		assert.Check(t, is.Equal(r.Result.ResultType, "complete"))
		if msg := r.Result.StatusMessage; msg != "" && (len(seen) == 0 || seen[len(seen)-1] != msg) {
			seen = append(seen, msg)
		}
		if r.Result.Status != "working" || until(r) {
			return r, seen
		}
		assert.Assert(t, time.Now().Before(deadline), "still working: %v", seen)
		time.Sleep(50 * time.Millisecond)
	}
}

func startTask(t *testing.T, m *mcpSession, spec string) string {
	t.Helper()
	m.send(t, taskRequest(1, "tools/call", map[string]any{"name": "implement_run", "arguments": map[string]any{"spec": spec}}))
	var created taskWire
	m.next(t, &created)
	assert.Assert(t, created.Error == nil, "%s", m.lines.Text())
	assert.Check(t, is.Equal(created.Result.ResultType, "task"))
	assert.Check(t, is.Equal(created.Result.Status, "working"))
	return created.Result.TaskID
}

func TestImplementRunOverMCPRunsAsATask(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.\n2. Part two of the work.")
	w.play(t, w.agents(t)...)
	m := startMCP(t, w.c.dir, w.env())
	id := startTask(t, m, w.spec)
	done, seen := pollTask(t, m, id, func(taskWire) bool { return false })
	assert.Assert(t, is.Equal(done.Result.Status, "completed"), "%s", m.lines.Text())
	assert.Assert(t, done.Result.Result != nil)
	assert.Check(t, is.Equal(done.Result.Result.ResultType, "complete"), "the blocking call's CallToolResult")
	assert.Check(t, !done.Result.Result.IsError)
	assert.Check(t, is.Equal(done.Result.Result.StructuredContent.Ended, loop.EndedFinished))
	assert.Check(t, is.Equal(done.Result.Result.StructuredContent.Routed, 7), "two implementers, four reviews, one audit: %+v", done.Result.Result.StructuredContent)
	assert.Check(t, len(seen) > 0, "the status message says what the run does")
	all := strings.Join(append(seen, done.Result.StatusMessage), "\n")
	assert.Check(t, !strings.Contains(all, rnCanary), "the canary leaked into a status message")
	m.close(t)
	assert.Check(t, !m.lines.Scan(), "nothing after the last answer (no progress notification for a task): %q", m.lines.Text())
}

// tasks/cancel stops the run as Ctrl-C does: the step the runner was taking is recorded as
// interrupted, its lane put back, and the same run goes on with the same command.
func TestTasksCancelStopsTheRunAsCtrlCDoes(t *testing.T) {
	if testing.Short() {
		t.Skip("a run a case: in make test, not under -short")
	}
	w := newRunnerWorld(t, "1. Part one of the work.")
	impl := "You run headless, as runner cc"
	w.play(t, runnertest.Directive{Out: rnInit}, runnertest.Directive{When: []string{impl}, Write: "HALF", Content: "half\n"},
		runnertest.Directive{Hang: true})
	m := startMCP(t, w.c.dir, w.env())
	id := startTask(t, m, w.spec)
	running, _ := pollTask(t, m, id, func(r taskWire) bool { return strings.Contains(r.Result.StatusMessage, "runner cc is running") })
	assert.Assert(t, is.Equal(running.Result.Status, "working"), "the run ended before it was cancelled: %+v", running.Result)

	m.send(t, taskRequest(2, "tasks/cancel", map[string]any{"taskId": id}))
	var ack taskWire
	m.next(t, &ack)
	assert.Assert(t, ack.Error == nil, "%s", m.lines.Text())
	assert.Check(t, is.Equal(ack.Result.ResultType, "complete"))
	end, _ := pollTask(t, m, id, func(taskWire) bool { return false })
	assert.Check(t, is.Equal(end.Result.Status, "cancelled"))
	assert.Check(t, end.Result.Result == nil)
	assert.Check(t, is.Contains(end.Result.StatusMessage, "interrupted; the same command goes on with it"))

	// The lane is put back: its worktree holds nothing of the interrupted step.
	var lanes []string
	for _, l := range strings.Split(w.c.git(t, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok && p != w.c.dir {
			lanes = append(lanes, p)
		}
	}
	assert.Assert(t, is.Len(lanes, 1))
	wt := teamClone{name: w.c.name, dir: lanes[0], home: w.c.home}
	assert.Check(t, is.Equal(wt.git(t, "status", "--porcelain"), ""), "the lane is put back")
	m.close(t)

	w.play(t, w.agents(t)...)
	again := w.abcd(t, "implement", "run", w.spec, "--json")
	assert.Check(t, is.Equal(again.ExitCode, 0), "%s", again.Stderr())
	var out loop.ImplementRunResult
	decodeOne(t, again.Stdout(), &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%s", again.Stderr())
	assert.Check(t, is.Contains(again.Stderr(), "interrupted before, goes to runner cc again"))
}
