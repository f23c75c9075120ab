package mcp

// Tasks: the io.modelcontextprotocol/tasks extension (SEP-2663) on the 2026-07-28 revision. When a
// tools/call of a long verb (implement_run) declares the extension in its client capabilities, the
// call is answered at once with a task handle (a CreateTaskResult, resultType "task") and the run
// goes on in this process; the client polls tasks/get until the task is terminal, where the
// completed task carries, inline, the very CallToolResult a blocking call would have returned, and
// may stop the run with tasks/cancel, which ends it as Ctrl-C does (every step a route was taking is
// recorded as interrupted, its lane put back). Every other call, and every call of a 2025 client, is
// answered as before.
//
// The tasks live in the server process, bounded in number, and a terminal one is dropped taskKeep
// after it ended. Each belongs to the connection that made it (a stdio connection; the HTTP
// endpoint, whose 2026-07-28 requests carry no session or identity, so there a task's id, drawn from
// crypto/rand, is its only key). A task asked for by another owner is not found. When its owner
// stops serving, each task still working is cancelled and waited for, so no run is left half-way.

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/google/uuid"
)

// tasksExtension names the extension in capabilities.
const tasksExtension = "io.modelcontextprotocol/tasks"

// codeMissingCapability is Missing Required Client Capability.
const codeMissingCapability = -32021

// Task bounds.
const (
	// maxTasks bounds the tasks one server holds, working or kept; a call past it is refused rather
	// than a kept result dropped before its time.
	maxTasks = 32
	// taskKeep is how long a terminal task is kept after it ended.
	taskKeep = 30 * time.Minute
	// taskPollMs is the polling interval suggested: a run's steps take seconds to minutes.
	taskPollMs = 1000
)

type taskStatus string

const (
	taskWorking   taskStatus = "working"
	taskCompleted taskStatus = "completed"
	taskFailed    taskStatus = "failed"
	taskCancelled taskStatus = "cancelled"
)

// task is one task. Its fields after cancel are guarded by the store's lock.
type task struct {
	id      string
	owner   any
	created time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed when its run has returned

	status   taskStatus
	message  string
	updated  time.Time
	ended    time.Time
	stopping string // why it is being cancelled, once it is
	result   json.RawMessage
	err      *rpcError
}

// taskStore holds a server's tasks.
type taskStore struct {
	mu     sync.Mutex
	m      map[string]*task
	now    func() time.Time
	max    int
	keep   time.Duration
	pollMs int64
}

func newTaskStore() *taskStore {
	return &taskStore{m: map[string]*task{}, now: time.Now, max: maxTasks, keep: taskKeep, pollMs: taskPollMs}
}

// taskRun runs a task's call under ctx, telling p its progress, and returns its result or error.
type taskRun func(ctx context.Context, p ports.Progress) (json.RawMessage, *rpcError)

// start makes a task for owner and runs run on a goroutine of its own, under a context that outlives
// the request (base's values, none of its cancellation). scrub cleans each status message. It
// returns the task's first state, or an error when the store is full.
func (st *taskStore) start(base context.Context, owner any, run taskRun, scrub func(string) string) (taskWire, *rpcError) {
	u, err := uuid.NewRandom()
	if err != nil {
		return taskWire{}, newError(codeInternalError, "Internal error: no task id could be drawn")
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(base))
	st.mu.Lock()
	now := st.now()
	st.sweep(now)
	if len(st.m) >= st.max {
		st.mu.Unlock()
		cancel()
		return taskWire{}, newError(codeInternalError, "Server busy: this server holds its most tasks ("+strconv.Itoa(st.max)+
			"), each working or kept for "+st.keep.String()+" after it ended; try again later")
	}
	t := &task{id: u.String(), owner: owner, created: now, cancel: cancel, done: make(chan struct{}), status: taskWorking, updated: now}
	st.m[t.id] = t
	first := st.wire(t, now)
	st.mu.Unlock()
	go func() {
		defer close(t.done)
		defer cancel()
		res, rerr := run(ctx, &taskProgress{st: st, t: t, scrub: scrub})
		st.finish(t, res, rerr)
	}()
	return first, nil
}

// finish records what a task's run came to: its error, failed; cancelled when it was asked to stop
// before it returned; else its result, completed.
func (st *taskStore) finish(t *task, res json.RawMessage, rerr *rpcError) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.now()
	t.updated, t.ended = now, now
	switch {
	case rerr != nil:
		t.status, t.err, t.message = taskFailed, rerr, rerr.Message
	case t.stopping != "":
		t.status = taskCancelled
		if t.message == "" {
			t.message = t.stopping
		}
	default:
		t.status, t.result = taskCompleted, res
	}
}

// note makes msg the task's status message.
func (st *taskStore) note(t *task, msg string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.status != taskWorking {
		return
	}
	t.message, t.updated = msg, st.now()
}

// sweep drops the tasks kept past their time. The caller holds the lock.
func (st *taskStore) sweep(now time.Time) {
	for id, t := range st.m {
		if st.expired(t, now) {
			delete(st.m, id)
		}
	}
}

func (st *taskStore) expired(t *task, now time.Time) bool {
	return !t.ended.IsZero() && now.Sub(t.ended) > st.keep
}

// lookup is owner's task id, as it stands now; false when there is none (never made, another
// owner's, or dropped after its time).
func (st *taskStore) lookup(owner any, id string) (taskWire, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.now()
	t, ok := st.m[id]
	if !ok || t.owner != owner {
		return taskWire{}, false
	}
	if st.expired(t, now) {
		delete(st.m, id)
		return taskWire{}, false
	}
	return st.wire(t, now), true
}

// cancel asks owner's task id to stop; a terminal task is left as it is. False when there is no
// such task.
func (st *taskStore) cancel(owner any, id, why string) bool {
	if _, ok := st.lookup(owner, id); !ok {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if t, ok := st.m[id]; ok && t.status == taskWorking && t.stopping == "" {
		t.stopping = why
		t.cancel()
	}
	return true
}

// stop cancels every task of owner's still working and waits for their runs to return.
func (st *taskStore) stop(owner any, why string) {
	var waits []chan struct{}
	st.mu.Lock()
	for _, t := range st.m {
		if t.owner == owner && t.status == taskWorking {
			if t.stopping == "" {
				t.stopping = why
			}
			t.cancel()
			waits = append(waits, t.done)
		}
	}
	st.mu.Unlock()
	for _, w := range waits {
		<-w
	}
}

// taskWire is a task on the wire: a CreateTaskResult (resultType "task") or a tasks/get result
// (resultType "complete"), with the status's own member.
type taskWire struct {
	TaskID         string          `json:"taskId"`
	Status         taskStatus      `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *rpcError       `json:"error,omitempty"`
	modernFields
}

// wire is t as it stands at now. A working task is kept until it ends (ttlMs null); a terminal one
// until taskKeep after it ended, which is its ttlMs from its creation.
func (st *taskStore) wire(t *task, now time.Time) taskWire {
	w := taskWire{TaskID: t.id, Status: t.status, StatusMessage: t.message, CreatedAt: stamp(t.created),
		LastUpdatedAt: stamp(t.updated), PollIntervalMs: st.pollMs, Result: t.result, Error: t.err}
	if !t.ended.IsZero() {
		ttl := t.ended.Sub(t.created).Milliseconds() + st.keep.Milliseconds()
		w.TTLMs = &ttl
	}
	return w
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// taskProgress keeps a task's status message: the last line of its run's progress, scrubbed.
type taskProgress struct {
	st    *taskStore
	t     *task
	scrub func(string) string
}

var _ ports.Progress = (*taskProgress)(nil)

func (p *taskProgress) Event(ev ports.ProgressEvent) {
	if ev.Text == "" {
		return
	}
	p.st.note(p.t, text.ClipAt(p.scrub(ev.Text), 1000))
}

// taskOwnerKey carries the owner of the tasks a request makes and may see.
type taskOwnerKey struct{}

func withTaskOwner(ctx context.Context, owner any) context.Context {
	return context.WithValue(ctx, taskOwnerKey{}, owner)
}

func taskOwnerOf(ctx context.Context) any { return ctx.Value(taskOwnerKey{}) }

// declaresTasks is whether a 2026-07-28 request's client capabilities declare the extension.
func declaresTasks(m *message) bool {
	meta, ok := m.Meta()
	if !ok {
		return false
	}
	caps, _ := meta[metaClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok = ext[tasksExtension].(map[string]any)
	return ok
}

// startTask answers a tools/call of t, whose input in is decoded, with a task that runs it.
func (s *Server) startTask(ctx context.Context, t *tool, in any) (json.RawMessage, *rpcError) {
	scrub := s.core.Scrubber(ctx).Scrub
	first, rerr := s.tasks.start(ctx, taskOwnerOf(ctx), func(ctx context.Context, p ports.Progress) (json.RawMessage, *rpcError) {
		doc, isError := s.runDecoded(ports.WithProgress(ctx, p), t, in)
		return s.toolResult(doc, isError, true)
	}, scrub)
	if rerr != nil {
		return nil, rerr
	}
	first.modernFields = s.modern(false)
	first.ResultType = "task"
	return s.encodeTask(first)
}

// taskRequest answers tasks/get, tasks/cancel and tasks/update (2026-07-28 only).
func (s *Server) taskRequest(ctx context.Context, m *message) (json.RawMessage, *rpcError) {
	if !declaresTasks(m) {
		return nil, (&rpcError{Code: codeMissingCapability, Message: "Missing required client capability: " + m.Method +
			" is served to a client that declares the " + tasksExtension + " extension in its capabilities",
			Data: map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}}}).
			WithStatus(http.StatusBadRequest)
	}
	id, ok := m.Params["taskId"].(string)
	if !ok {
		return nil, newError(codeInvalidParams, "Invalid params: "+m.Method+" needs params.taskId (a string)")
	}
	owner := taskOwnerOf(ctx)
	notFound := newError(codeInvalidParams, "Task not found: "+text.Clip(id)+" is no task of this connection's, or it ended more than "+
		s.tasks.keep.String()+" ago")
	switch m.Method {
	case "tasks/get":
		w, found := s.tasks.lookup(owner, id)
		if !found {
			return nil, notFound
		}
		w.modernFields = s.modern(false)
		return s.encodeTask(w)
	case "tasks/update":
		// No task of abcd's ever asks for input, so no response can be outstanding: each is ignored.
		if _, ok := m.Params["inputResponses"].(map[string]any); !ok {
			return nil, newError(codeInvalidParams, "Invalid params: tasks/update needs params.inputResponses (an object)")
		}
		if _, found := s.tasks.lookup(owner, id); !found {
			return nil, notFound
		}
	default: // tasks/cancel
		if !s.tasks.cancel(owner, id, "cancelled by tasks/cancel") {
			return nil, notFound
		}
	}
	return s.encodeTask(s.modern(false))
}

func (s *Server) encodeTask(v any) (json.RawMessage, *rpcError) {
	b, err := marshal(v)
	if err != nil {
		return nil, newError(codeInternalError, "Internal error: the task could not be encoded")
	}
	return b, nil
}
