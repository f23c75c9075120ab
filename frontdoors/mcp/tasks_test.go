package mcp

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports"
)

// taskParams are a 2026-07-28 request's params whose client capabilities declare the tasks
// extension.
func taskParams(extra map[string]any) map[string]any {
	p := modernParams(extra)
	meta := p["_meta"].(map[string]any)
	meta[metaClientCapabilities] = map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}
	return p
}

// wireTask is a task as the client reads it.
type wireTask struct {
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Error          *rpcError       `json:"error"`
	ResultType     string          `json:"resultType"`
	RequestState   any             `json:"requestState"`
}

func decodeTask(t *testing.T, raw json.RawMessage) wireTask {
	t.Helper()
	var w wireTask
	assert.NilError(t, json.Unmarshal(raw, &w), string(raw))
	return w
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// clock is a store's clock a test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testStore(c *clock) *taskStore {
	st := newTaskStore()
	st.now = c.now
	return st
}

// heldRun is a task's run that says a line of progress, then waits until it is released or
// cancelled, and returns what it was given.
type heldRun struct {
	release chan struct{}
	said    chan struct{}
	result  json.RawMessage
	err     *rpcError
	line    string
}

func newHeldRun(line string) *heldRun {
	return &heldRun{release: make(chan struct{}), said: make(chan struct{}), result: json.RawMessage(`{"content":[]}`), line: line}
}

func (h *heldRun) run(ctx context.Context, p ports.Progress) (json.RawMessage, *rpcError) {
	p.Event(ports.ProgressEvent{Kind: "did", Text: h.line})
	close(h.said)
	select {
	case <-h.release:
	case <-ctx.Done():
		p.Event(ports.ProgressEvent{Kind: "done", Text: "run r-1: interrupted; the same command goes on with it"})
	}
	return h.result, h.err
}

// await polls owner's task id until it is terminal.
func await(t *testing.T, st *taskStore, owner any, id string) taskWire {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		w, ok := st.lookup(owner, id)
		assert.Assert(t, ok, "the task is there while it is kept")
		if w.Status != taskWorking {
			return w
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s not terminal within 10s", id)
	return taskWire{}
}

func TestTaskStoreRunsATaskToItsResult(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	st := testStore(c)
	h := newHeldRun("lane-1: the key sk-canary-0123456789abcdef went by")
	scrub := func(s string) string { return strings.ReplaceAll(s, "sk-canary-0123456789abcdef", "[key]") }
	first, rerr := st.start(context.Background(), "conn", h.run, scrub)
	assert.Assert(t, rerr == nil)
	assert.Check(t, uuidV4.MatchString(first.TaskID), first.TaskID)
	assert.Check(t, is.Equal(first.Status, taskWorking))
	assert.Check(t, first.TTLMs == nil, "a working task is kept until it ends")
	assert.Check(t, is.Equal(first.CreatedAt, "2026-12-01T12:00:00.000Z"))
	<-h.said
	c.add(time.Second)
	w, ok := st.lookup("conn", first.TaskID)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(w.StatusMessage, "lane-1: the key [key] went by"), "the status message is the last line, scrubbed")
	assert.Check(t, is.Equal(w.Status, taskWorking))
	assert.Check(t, w.Result == nil && w.Error == nil)
	c.add(time.Minute)
	close(h.release)
	w = await(t, st, "conn", first.TaskID)
	assert.Check(t, is.Equal(w.Status, taskCompleted))
	assert.Check(t, is.Equal(string(w.Result), `{"content":[]}`))
	assert.Assert(t, w.TTLMs != nil)
	assert.Check(t, is.Equal(*w.TTLMs, (time.Minute+time.Second+taskKeep).Milliseconds()), "kept taskKeep after it ended, counted from its creation")
	assert.Check(t, is.Equal(w.LastUpdatedAt, "2026-12-01T12:01:01.000Z"))
}

func TestTaskStoreCancelsAndFails(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	st := testStore(c)
	t.Run("cancel stops the run; the task is cancelled with the run's last word", func(t *testing.T) {
		h := newHeldRun("working")
		first, rerr := st.start(context.Background(), "conn", h.run, strings.Clone)
		assert.Assert(t, rerr == nil)
		<-h.said
		assert.Check(t, !st.cancel("another", first.TaskID, "x"), "another owner cannot cancel it")
		w, _ := st.lookup("conn", first.TaskID)
		assert.Check(t, is.Equal(w.Status, taskWorking))
		assert.Check(t, st.cancel("conn", first.TaskID, "cancelled by tasks/cancel"))
		w = await(t, st, "conn", first.TaskID)
		assert.Check(t, is.Equal(w.Status, taskCancelled))
		assert.Check(t, w.Result == nil, "a cancelled task carries no result")
		assert.Check(t, is.Equal(w.StatusMessage, "run r-1: interrupted; the same command goes on with it"))
		assert.Check(t, st.cancel("conn", first.TaskID, "again"), "cancelling a terminal task is acknowledged")
		w, _ = st.lookup("conn", first.TaskID)
		assert.Check(t, is.Equal(w.Status, taskCancelled), "and changes nothing")
	})
	t.Run("a JSON-RPC error fails the task", func(t *testing.T) {
		h := newHeldRun("working")
		h.err = newError(codeInternalError, "Internal error: the result could not be encoded")
		first, rerr := st.start(context.Background(), "conn", h.run, strings.Clone)
		assert.Assert(t, rerr == nil)
		close(h.release)
		w := await(t, st, "conn", first.TaskID)
		assert.Check(t, is.Equal(w.Status, taskFailed))
		assert.Assert(t, w.Error != nil)
		assert.Check(t, is.Equal(w.Error.Code, codeInternalError))
		assert.Check(t, is.Equal(w.StatusMessage, h.err.Message))
	})
	t.Run("stop cancels the owner's tasks and waits for them, and no other's", func(t *testing.T) {
		mine, theirs := newHeldRun("mine"), newHeldRun("theirs")
		a, _ := st.start(context.Background(), "stdio", mine.run, strings.Clone)
		b, _ := st.start(context.Background(), "http", theirs.run, strings.Clone)
		<-mine.said
		<-theirs.said
		st.stop("stdio", "cancelled: the client's connection ended")
		w, _ := st.lookup("stdio", a.TaskID)
		assert.Check(t, is.Equal(w.Status, taskCancelled), "terminal when stop returns")
		w, _ = st.lookup("http", b.TaskID)
		assert.Check(t, is.Equal(w.Status, taskWorking))
		close(theirs.release)
		await(t, st, "http", b.TaskID)
	})
}

func TestTaskStoreIsBoundedAndForgetsAfterItsTime(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	st := testStore(c)
	st.max = 2
	one, two := newHeldRun("one"), newHeldRun("two")
	a, rerr := st.start(context.Background(), "conn", one.run, strings.Clone)
	assert.Assert(t, rerr == nil)
	b, rerr := st.start(context.Background(), "conn", two.run, strings.Clone)
	assert.Assert(t, rerr == nil)
	assert.Check(t, a.TaskID != b.TaskID)
	_, rerr = st.start(context.Background(), "conn", newHeldRun("three").run, strings.Clone)
	assert.Assert(t, rerr != nil, "the third is refused while two are held")
	assert.Check(t, is.Contains(rerr.Message, "Server busy"))

	close(one.release)
	await(t, st, "conn", a.TaskID)
	c.add(taskKeep)
	_, rerr = st.start(context.Background(), "conn", newHeldRun("three").run, strings.Clone)
	assert.Assert(t, rerr != nil, "a terminal task is kept for all of taskKeep: still full")
	_, ok := st.lookup("conn", a.TaskID)
	assert.Check(t, ok, "not dropped before its time")

	c.add(time.Millisecond)
	_, ok = st.lookup("conn", a.TaskID)
	assert.Check(t, !ok, "dropped past its time")
	three := newHeldRun("three")
	cTask, rerr := st.start(context.Background(), "conn", three.run, strings.Clone)
	assert.Assert(t, rerr == nil, "room again")
	close(two.release)
	close(three.release)
	await(t, st, "conn", b.TaskID)
	await(t, st, "conn", cTask.TaskID)
}

// TestImplementRunIsATaskForAClientThatDeclaresTheExtension drives implement_run over stdio: a
// 2026-07-28 call declaring the extension gets a task, polled to the very result a blocking call
// gets; the tasks methods refuse what the extension says they refuse.
func TestImplementRunIsATaskForAClientThatDeclaresTheExtension(t *testing.T) {
	s, _ := newServer(t, testApp(t))
	s.tasks.pollMs = 10
	ls := startLive(t, s)
	call := func(id int, method string, params map[string]any) reply {
		t.Helper()
		ls.send(request(id, method, params))
		r, err := ls.next(10 * time.Second)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(string(r.ID), strconv.Itoa(id)), r.line)
		return r
	}
	args := map[string]any{"name": "implement_run", "arguments": map[string]any{"spec": "first"}}
	blocking := call(1, "tools/call", modernParams(args))
	assert.Assert(t, blocking.Result != nil, blocking.line)
	assert.Check(t, !strings.Contains(blocking.line, "taskId"), "without the extension the call blocks")

	created := call(2, "tools/call", taskParams(args))
	assert.Assert(t, created.Result != nil, created.line)
	ct := decodeTask(t, created.Result)
	assert.Check(t, is.Equal(ct.ResultType, "task"))
	assert.Check(t, is.Equal(ct.Status, "working"))
	assert.Check(t, uuidV4.MatchString(ct.TaskID))
	assert.Check(t, ct.TTLMs == nil && strings.Contains(created.line, `"ttlMs":null`))
	assert.Check(t, is.Equal(ct.PollIntervalMs, int64(10)))
	assert.Check(t, ct.RequestState == nil)

	var done wireTask
	for i := 3; ; i++ {
		r := call(i, "tasks/get", taskParams(map[string]any{"taskId": ct.TaskID}))
		assert.Assert(t, r.Result != nil, r.line)
		done = decodeTask(t, r.Result)
		assert.Check(t, is.Equal(done.ResultType, "complete"))
		if done.Status != "working" {
			break
		}
		assert.Assert(t, i < 500, "still working after 500 polls")
		time.Sleep(10 * time.Millisecond)
	}
	assert.Check(t, is.Equal(done.Status, "completed"))
	assert.Check(t, is.Equal(string(done.Result), string(blocking.Result)), "the result inline is the blocking call's")

	other := call(1000, "tools/call", taskParams(map[string]any{"name": "status", "arguments": map[string]any{}}))
	assert.Check(t, !strings.Contains(other.line, "taskId"), "a tool that is not long answers at once: %s", other.line)

	for _, tc := range []struct {
		name   string
		method string
		params map[string]any
		code   int
		msg    string
	}{
		{"unknown id", "tasks/get", taskParams(map[string]any{"taskId": "6f1c1c3e-0000-4000-8000-000000000000"}), codeInvalidParams, "Task not found"},
		{"no id", "tasks/get", taskParams(nil), codeInvalidParams, "params.taskId"},
		{"unknown id to cancel", "tasks/cancel", taskParams(map[string]any{"taskId": "nope"}), codeInvalidParams, "Task not found"},
		{"update without responses", "tasks/update", taskParams(map[string]any{"taskId": ct.TaskID}), codeInvalidParams, "inputResponses"},
		{"no extension", "tasks/get", modernParams(map[string]any{"taskId": ct.TaskID}), codeMissingCapability, "Missing required client capability"},
		{"removed in the extension", "tasks/result", taskParams(map[string]any{"taskId": ct.TaskID}), codeMethodNotFound, "Method not found"},
		{"never served", "tasks/list", taskParams(nil), codeMethodNotFound, "Method not found"},
	} {
		r := call(2000, tc.method, tc.params)
		assert.Assert(t, r.Error != nil, "%s: %s", tc.name, r.line)
		assert.Check(t, is.Equal(r.Error.Code, tc.code), tc.name)
		assert.Check(t, is.Contains(r.Error.Message, tc.msg), tc.name)
		if tc.code == codeMissingCapability {
			assert.Check(t, is.Equal(string(r.Error.Data), `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`))
		}
	}
	for _, method := range []string{"tasks/cancel", "tasks/update"} {
		p := taskParams(map[string]any{"taskId": ct.TaskID, "inputResponses": map[string]any{"k": map[string]any{"action": "accept"}}})
		r := call(3000, method, p)
		assert.Assert(t, r.Result != nil, r.line)
		assert.Check(t, is.Equal(decodeTask(t, r.Result).ResultType, "complete"), "%s is acknowledged (terminal task: idempotent)", method)
		assert.Check(t, !strings.Contains(r.line, "taskId"), "an empty acknowledgement")
	}
}

// A 2025 client keeps today's behaviour: no extension advertised, implement_run blocks and answers
// with its CallToolResult, and the tasks methods are not found.
func TestA2025ClientGetsTheBlockingCall(t *testing.T) {
	s, _ := newServer(t, testApp(t))
	replies := exchange(t, s,
		initializeLine(1, Legacy20251125),
		notification("notifications/initialized", nil),
		request(2, "tools/call", map[string]any{"name": "implement_run", "arguments": map[string]any{"spec": "first"},
			"_meta": map[string]any{"progressToken": "p"}}),
		request(3, "tasks/get", map[string]any{"taskId": "x"}))
	init := byID(t, replies, "1")
	assert.Check(t, !strings.Contains(init.line, "extensions"), "the handshake advertises no extension: %s", init.line)
	r := byID(t, replies, "2")
	assert.Assert(t, r.Result != nil, r.line)
	assert.Check(t, !strings.Contains(r.line, "taskId") && !strings.Contains(r.line, "resultType"))
	assert.Check(t, decodeToolResult(t, r).Content[0].Text != "")
	g := byID(t, replies, "3")
	assert.Assert(t, g.Error != nil)
	assert.Check(t, is.Equal(g.Error.Code, codeMethodNotFound))
}

// Over HTTP each poll is a request of its own: the task is found by its id alone, its Mcp-Name
// header must name it, and a task of another connection is not found. tasks/cancel stops a run.
func TestTasksOverHTTP(t *testing.T) {
	s, _ := newServer(t, testApp(t))
	srv := httptest.NewUnstartedServer(nil)
	ep := s.HTTPHandler(srv.Listener.Addr().(*net.TCPAddr))
	srv.Config.Handler = ep
	srv.Start()
	t.Cleanup(srv.Close)
	h := &httpHarness{t: t, url: srv.URL + Endpoint, host: strings.TrimPrefix(srv.URL, "http://")}

	held := newHeldRun("lane-1 implementer: cc takes the step (round 0)")
	first, rerr := s.tasks.start(context.Background(), ep, held.run, strings.Clone)
	assert.Assert(t, rerr == nil)
	<-held.said
	get := func(id string, headers map[string]string) httpReply {
		return h.post(request(1, "tasks/get", taskParams(map[string]any{"taskId": id})), headers)
	}
	r := get(first.TaskID, modernHeaders("tasks/get", first.TaskID))
	assert.Assert(t, is.Equal(r.status, http.StatusOK), r.body)
	w := decodeTask(t, r.message.Result)
	assert.Check(t, is.Equal(w.Status, "working"))
	assert.Check(t, is.Equal(w.StatusMessage, "lane-1 implementer: cc takes the step (round 0)"))

	r = get(first.TaskID, modernHeaders("tasks/get", "another-task"))
	assert.Check(t, is.Equal(r.status, http.StatusBadRequest), r.body)
	assert.Check(t, is.Equal(r.message.Error.Code, codeHeaderMismatch))
	r = get(first.TaskID, modernHeaders("tasks/get", ""))
	assert.Check(t, is.Equal(r.status, http.StatusBadRequest), "Mcp-Name is required: %s", r.body)

	stdioOnly, _ := s.tasks.start(context.Background(), "a stdio connection", newHeldRun("x").run, strings.Clone)
	r = get(stdioOnly.TaskID, modernHeaders("tasks/get", stdioOnly.TaskID))
	assert.Check(t, r.message.Error != nil && r.message.Error.Code == codeInvalidParams, "another connection's task is not found: %s", r.body)
	s.tasks.stop("a stdio connection", "test over")

	r = h.post(request(2, "tasks/cancel", taskParams(map[string]any{"taskId": first.TaskID})), modernHeaders("tasks/cancel", first.TaskID))
	assert.Assert(t, is.Equal(r.status, http.StatusOK), r.body)
	assert.Check(t, is.Equal(r.body, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"abcd","title":"abcd","version":"1.2.3"}}}}`+"\n"))
	end := await(t, s.tasks, ep, first.TaskID)
	assert.Check(t, is.Equal(end.Status, taskCancelled))

	r = h.post(request(3, "tasks/get", modernParams(map[string]any{"taskId": first.TaskID})), modernHeaders("tasks/get", first.TaskID))
	assert.Check(t, is.Equal(r.status, http.StatusBadRequest), r.body)
	assert.Check(t, is.Equal(r.message.Error.Code, codeMissingCapability))
}
