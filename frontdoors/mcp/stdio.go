package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// maxInFlight bounds the tool calls of one stdio connection that run at once. A call read while
// that many run waits for its turn without holding up reading: a ping is answered and a
// notifications/cancelled is read meanwhile.
const maxInFlight = 16

// maxQueued bounds the tool calls of one stdio connection that run or wait to run; reading waits
// while that many are held.
const maxQueued = 256

// stdioGCPercent is the collector's target while serving stdio (GOGC): the heap may grow a quarter
// past what is live before a collection.
const stdioGCPercent = 25

// idPrefixBytes is how much of an over-long message is kept to find its id.
const idPrefixBytes = 4 << 10

// stdioConn is one stdio connection: its handshake state, its writer and its requests in flight.
type stdioConn struct {
	s      *Server
	legacy legacyState

	outMu   sync.Mutex
	out     io.Writer
	outErr  error
	buf     []byte // the response being written, kept for the next (see keepBytes)
	flight  sync.WaitGroup
	slots   chan struct{} // calls running
	queued  chan struct{} // calls running or waiting for a slot
	cancels sync.Mutex
	running map[string]*inflight
}

type inflight struct {
	cancel    context.CancelFunc
	cancelled bool
}

// ServeStdio serves one client over a newline-delimited stream: it reads messages from in until it
// ends and writes only protocol messages to out, one per line. Requests run concurrently (up to a
// bound) and their responses may come in any order; when in ends, the requests already read are
// answered before ServeStdio returns. When ctx ends (Ctrl-C), the requests in flight are cancelled
// and ServeStdio returns without waiting for more input. It returns nil at the end of input or of
// ctx, or the error that stopped reading or writing.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	// A stdio server lives as long as its harness and holds little (about a megabyte of tools,
	// schemas and connection state): the collector runs at a quarter of the heap, not at its double
	// (and not only past Go's 4 MB floor), so a long session stays near the memory it started with.
	defer debug.SetGCPercent(debug.SetGCPercent(stdioGCPercent))
	c := &stdioConn{s: s, out: out, slots: make(chan struct{}, maxInFlight), queued: make(chan struct{}, maxQueued), running: map[string]*inflight{}}
	ctx, cancel := context.WithCancel(withTaskOwner(ctx, c))
	defer cancel()
	type read struct {
		line, prefix []byte
		tooLong      bool
		err          error
	}
	lines := make(chan read)
	next := make(chan struct{})
	// The reader runs apart, so a stop is not held up by a read that may never return.
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, prefix, tooLong, err := readLine(r, MaxMessageBytes)
			select {
			case lines <- read{line, prefix, tooLong, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			select {
			case <-next:
			case <-ctx.Done():
				return
			}
		}
	}()
	var readErr error
	for stop := false; !stop; {
		select {
		case <-ctx.Done():
			stop = true
			continue
		case rd := <-lines:
			if len(bytes.TrimSpace(rd.line)) > 0 || rd.tooLong {
				if rd.tooLong {
					c.write(outbound{ID: recoverIDFromPrefix(rd.prefix), Error: newError(codeInvalidRequest,
						"Invalid Request: the message is longer than the 16 MiB a line may hold")})
				} else if !c.handle(ctx, rd.line) {
					stop = true // ctx ended while the message waited for memory or a place in the queue
					continue
				}
			}
			if rd.err != nil {
				if !errors.Is(rd.err, io.EOF) {
					readErr = rd.err
				}
				stop = true
				continue
			}
			if c.failed() != nil {
				stop = true
				continue
			}
			next <- struct{}{}
		}
	}
	c.flight.Wait()
	// Nobody is left to poll this connection's tasks: each still working stops as at Ctrl-C.
	s.tasks.stop(c, "cancelled: the client's connection ended")
	if readErr != nil {
		return readErr
	}
	return c.failed()
}

// readLine reads one line of at most limit bytes (the newline excluded). A longer line is read to
// its end and dropped, and reported with its first bytes. The reader's buffer stays small: a line is
// gathered in its own slices, which are released after it has been handled. A line longer than the
// buffer is kept as the buffer's copies and joined once at its end, so a 16 MiB line is copied twice,
// not once per growth of one slice (about five times, with a heap to match).
func readLine(r *bufio.Reader, limit int) (line, prefix []byte, tooLong bool, err error) {
	var parts [][]byte // the line's earlier pieces, when it is longer than the buffer
	size := 0
	for {
		chunk, e := r.ReadSlice('\n')
		switch {
		case tooLong:
		case size+len(chunk) > limit+1: // +1: the newline itself
			tooLong = true
			for _, p := range append(parts, chunk) {
				prefix = append(prefix, p[:min(len(p), idPrefixBytes-len(prefix))]...)
			}
			parts = nil
		case errors.Is(e, bufio.ErrBufferFull) || len(parts) > 0:
			parts = append(parts, append([]byte(nil), chunk...))
			size += len(chunk)
		default:
			line = append([]byte(nil), chunk...)
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		if e != nil {
			err = e
		}
		break
	}
	if parts != nil {
		line = make([]byte, 0, size)
		for _, p := range parts {
			line = append(line, p...)
		}
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, prefix, tooLong, err
}

// handle reads one line and answers it. The handshake, notifications and the requests the server
// answers from what it holds (ping, the lists) are handled in order, as they come; a tool call runs
// apart, so reading goes on while it runs or waits for its turn. handle returns false when ctx ended
// while the message waited for memory or for a place in the queue.
func (c *stdioConn) handle(ctx context.Context, line []byte) bool {
	ch := &charge{b: c.s.budget}
	if ch.to(ctx, messageCost(len(line))) != nil {
		return false
	}
	handedOff := false
	defer func() {
		if !handedOff {
			ch.release()
		}
	}()
	m, id, perr := parseMessage(line)
	if perr != nil {
		c.write(outbound{ID: id, Error: perr})
		return true
	}
	ch.shrink(parsedCost(len(line), m.Values))
	if m.Response {
		c.s.logf("ignoring a response (id %s): this server sends no requests", m.ID)
		return true
	}
	e, cerr := c.s.classify(m, nil)
	if m.IsNotification() {
		if cerr == nil {
			c.notification(m, e)
		}
		return true
	}
	if cerr != nil {
		c.write(outbound{ID: m.ID, Error: cerr})
		return true
	}
	version, answered := c.admit(m, e)
	if answered {
		return true
	}
	key := idKey(m.ID)
	c.cancels.Lock()
	_, busy := c.running[key]
	c.cancels.Unlock()
	if busy {
		c.write(outbound{ID: m.ID, Error: newError(codeInvalidRequest, "Invalid Request: a request with this id is still in flight")})
		return true
	}
	if m.Method != "tools/call" {
		// Answered from what the server holds, at once: no verb runs, so no slot is needed.
		result, rerr := c.s.dispatch(ctx, m, e, version)
		c.write(outbound{ID: m.ID, Result: result, Error: rerr})
		return true
	}
	handedOff = c.start(ctx, m, e, version, key, ch)
	return handedOff
}

// admit answers what a request of this era is not let through with (a notification method sent with
// an id, initialize, a 2025 request before initialize), and otherwise gives the protocol version the
// connection speaks ("" for the stateless era).
func (c *stdioConn) admit(m *message, e era) (version string, answered bool) {
	if isNotificationMethod(m.Method) {
		c.write(outbound{ID: m.ID, Error: newError(codeMethodNotFound,
			"Method not found: "+text.Clip(m.Method)+" is a notification; send it without an id")})
		return "", true
	}
	switch e {
	case eraInitialize:
		c.write(c.initialize(m))
		return "", true
	case eraLegacy:
		v, _ := c.legacy.get()
		if v != "" || m.Method == "ping" {
			return v, false
		}
		if !c.s.knownMethod(m.Method) {
			c.write(outbound{ID: m.ID, Error: c.s.methodNotFound(m.Method, false)})
			return "", true
		}
		c.write(outbound{ID: m.ID, Error: newError(codeInvalidParams, "Invalid params: the request has no _meta "+
			metaProtocolVersion+"; a 2026-07-28 client carries it (and "+metaClientCapabilities+
			") on every request, a 2025 client sends initialize first")})
		return "", true
	}
	return "", false
}

// completion is set by a tools/call whose verb returned its result, so a cancellation that came too
// late to stop it does not hide what it did.
type completion struct{ completed atomic.Bool }

type completionKey struct{}

// completed marks ctx's call as finished by its verb, when its door asked to know.
func completed(ctx context.Context) {
	if c, ok := ctx.Value(completionKey{}).(*completion); ok {
		c.completed.Store(true)
	}
}

// start queues a tools/call and runs it on a goroutine of its own, which answers it (unless it is
// cancelled) and releases its charge. It returns false, having started nothing, when ctx ends while
// the queue is full.
func (c *stdioConn) start(ctx context.Context, m *message, e era, version, key string, ch *charge) bool {
	select {
	case c.queued <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	// Only the reader adds to running, so the id checked before is still free.
	callCtx, cancel := context.WithCancel(ctx)
	done := &completion{}
	callCtx = context.WithValue(callCtx, completionKey{}, done)
	callCtx = withNotifier(callCtx, c.notify)
	f := &inflight{cancel: cancel}
	c.cancels.Lock()
	c.running[key] = f
	c.cancels.Unlock()

	c.flight.Add(1)
	go func() {
		defer c.flight.Done()
		defer func() { <-c.queued }()
		defer ch.release()
		result, rerr := c.run(callCtx, m, e, version)
		cancel()
		c.cancels.Lock()
		delete(c.running, key)
		dropped := f.cancelled && !done.completed.Load()
		c.cancels.Unlock()
		if dropped {
			// A cancelled request gets no response. One whose verb finished anyway (its write made
			// before the cancellation reached it) is answered: what it wrote stands, and the client
			// is told so rather than left to guess and call again.
			return
		}
		c.write(outbound{ID: m.ID, Result: result, Error: rerr})
	}()
	return true
}

// run waits for a slot, giving up when ctx ends (a notifications/cancelled, or the server
// stopping), and dispatches the call.
func (c *stdioConn) run(ctx context.Context, m *message, e era, version string) (json.RawMessage, *rpcError) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, newError(codeInternalError, "Internal error: the request ended before it ran ("+ctx.Err().Error()+")")
	}
	defer func() { <-c.slots }()
	return c.s.dispatch(ctx, m, e, version)
}

func (c *stdioConn) initialize(m *message) outbound {
	c.legacy.mu.Lock()
	defer c.legacy.mu.Unlock()
	if c.legacy.version != "" {
		return outbound{ID: m.ID, Error: newError(codeInvalidRequest, "Invalid Request: this connection is already initialized ("+c.legacy.version+")")}
	}
	version, res, err := c.s.initialize(m)
	if err != nil {
		return outbound{ID: m.ID, Error: err}
	}
	c.legacy.version = version
	return outbound{ID: m.ID, Result: res}
}

// notification applies a notification; none is ever answered.
func (c *stdioConn) notification(m *message, e era) {
	switch m.Method {
	case "notifications/initialized":
		if e == eraLegacy {
			c.legacy.mu.Lock()
			c.legacy.initialized = c.legacy.version != ""
			c.legacy.mu.Unlock()
		}
	case "notifications/cancelled":
		key, ok := idFromParam(m.Params["requestId"])
		if !ok {
			return
		}
		c.cancels.Lock()
		if f, found := c.running[key]; found {
			f.cancelled = true
			f.cancel()
		}
		c.cancels.Unlock()
	}
}

// keepBytes bounds the buffer a connection keeps for its next response: the tool list fits in it,
// and a rarer larger response is written from a buffer let go afterwards, so a long session's
// memory stays where its first responses put it.
const keepBytes = 1 << 20

// write encodes a response into the connection's one buffer and writes it: no allocation the size of
// each response (the tool list is some 90 KB), so a long session makes little garbage.
func (c *stdioConn) write(o outbound) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.outErr != nil {
		return
	}
	c.buf = mcpwire.AppendOutbound(c.buf[:0], o)
	if _, err := c.out.Write(c.buf); err != nil {
		c.outErr = err
	}
	if cap(c.buf) > keepBytes {
		c.buf = nil
	}
}

// notify writes a notification (a long call's progress) between the responses.
func (c *stdioConn) notify(method string, params any) {
	b, err := mcpwire.EncodeRequest(mcpwire.Request{Method: method, Params: params})
	if err != nil {
		c.s.logf("a %s notification could not be encoded: %v", method, err)
		return
	}
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.outErr != nil {
		return
	}
	if _, err := c.out.Write(append(b, '\n')); err != nil {
		c.outErr = err
	}
}

func (c *stdioConn) failed() error {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	return c.outErr
}

func isNotificationMethod(method string) bool {
	return len(method) > len("notifications/") && method[:len("notifications/")] == "notifications/"
}

// knownMethod is a request method either era serves.
func (s *Server) knownMethod(method string) bool {
	switch method {
	case "initialize", "ping", "server/discover", "tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list", "prompts/list", "prompts/get",
		"tasks/get", "tasks/update", "tasks/cancel":
		return true
	}
	return false
}
