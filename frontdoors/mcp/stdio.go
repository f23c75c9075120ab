package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// maxInFlight bounds the requests of one stdio connection that run at once; reading waits while
// that many are running.
const maxInFlight = 16

// idPrefixBytes is how much of an over-long message is kept to find its id.
const idPrefixBytes = 4 << 10

// stdioConn is one stdio connection: its handshake state, its writer and its requests in flight.
type stdioConn struct {
	s      *Server
	legacy legacyState

	outMu   sync.Mutex
	out     io.Writer
	outErr  error
	flight  sync.WaitGroup
	slots   chan struct{}
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
	c := &stdioConn{s: s, out: out, slots: make(chan struct{}, maxInFlight), running: map[string]*inflight{}}
	ctx, cancel := context.WithCancel(ctx)
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
				} else {
					c.handle(ctx, rd.line)
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
	if readErr != nil {
		return readErr
	}
	return c.failed()
}

// readLine reads one line of at most limit bytes (the newline excluded). A longer line is read to
// its end and dropped, and reported with its first bytes. The reader's buffer stays small: a line is
// gathered in its own slice, which is released after it has been handled.
func readLine(r *bufio.Reader, limit int) (line, prefix []byte, tooLong bool, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(chunk) > limit+1: // +1: the newline itself
			tooLong = true
			prefix = append(line, chunk...)
			if len(prefix) > idPrefixBytes {
				prefix = prefix[:idPrefixBytes]
			}
			prefix = append([]byte(nil), prefix...)
			line = nil
		default:
			line = append(line, chunk...)
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e != nil {
			err = e
		}
		break
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, prefix, tooLong, err
}

// handle reads one line and answers it. The handshake and notifications are handled in order, as
// they change what later messages mean; other requests run concurrently.
func (c *stdioConn) handle(ctx context.Context, line []byte) {
	m, id, perr := parseMessage(line)
	if perr != nil {
		c.write(outbound{ID: id, Error: perr})
		return
	}
	if m.response {
		c.s.logf("ignoring a response (id %s): this server sends no requests", m.id)
		return
	}
	e, cerr := c.s.classify(m, nil)
	if m.isNotification() {
		if cerr == nil {
			c.notification(m, e)
		}
		return
	}
	if cerr != nil {
		c.write(outbound{ID: m.id, Error: cerr})
		return
	}
	if isNotificationMethod(m.method) {
		c.write(outbound{ID: m.id, Error: newError(codeMethodNotFound,
			"Method not found: "+clip(m.method)+" is a notification; send it without an id")})
		return
	}
	var version string
	switch e {
	case eraInitialize:
		c.write(c.initialize(m))
		return
	case eraLegacy:
		v, _ := c.legacy.get()
		if v == "" && m.method != "ping" {
			if !c.s.knownMethod(m.method) {
				c.write(outbound{ID: m.id, Error: c.s.methodNotFound(m.method, false)})
				return
			}
			c.write(outbound{ID: m.id, Error: newError(codeInvalidParams, "Invalid params: the request has no _meta "+
				metaProtocolVersion+"; a 2026-07-28 client carries it (and "+metaClientCapabilities+
				") on every request, a 2025 client sends initialize first")})
			return
		}
		version = v
	}
	key := idKey(m.id)
	c.cancels.Lock()
	if _, busy := c.running[key]; busy {
		c.cancels.Unlock()
		c.write(outbound{ID: m.id, Error: newError(codeInvalidRequest, "Invalid Request: a request with this id is still in flight")})
		return
	}
	callCtx, cancel := context.WithCancel(ctx)
	f := &inflight{cancel: cancel}
	c.running[key] = f
	c.cancels.Unlock()

	c.slots <- struct{}{}
	c.flight.Add(1)
	go func() {
		defer c.flight.Done()
		defer func() { <-c.slots }()
		result, rerr := c.s.dispatch(callCtx, m, e, version)
		cancel()
		c.cancels.Lock()
		delete(c.running, key)
		dropped := f.cancelled
		c.cancels.Unlock()
		if dropped {
			return // a cancelled request gets no response
		}
		c.write(outbound{ID: m.id, Result: result, Error: rerr})
	}()
}

func (c *stdioConn) initialize(m *message) outbound {
	c.legacy.mu.Lock()
	defer c.legacy.mu.Unlock()
	if c.legacy.version != "" {
		return outbound{ID: m.id, Error: newError(codeInvalidRequest, "Invalid Request: this connection is already initialized ("+c.legacy.version+")")}
	}
	version, res, err := c.s.initialize(m)
	if err != nil {
		return outbound{ID: m.id, Error: err}
	}
	c.legacy.version = version
	return outbound{ID: m.id, Result: res}
}

// notification applies a notification; none is ever answered.
func (c *stdioConn) notification(m *message, e era) {
	switch m.method {
	case "notifications/initialized":
		if e == eraLegacy {
			c.legacy.mu.Lock()
			c.legacy.initialized = c.legacy.version != ""
			c.legacy.mu.Unlock()
		}
	case "notifications/cancelled":
		key, ok := idFromParam(m.params["requestId"])
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

func (c *stdioConn) write(o outbound) {
	data := encodeOutbound(o)
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.outErr != nil {
		return
	}
	if _, err := c.out.Write(data); err != nil {
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
	case "initialize", "ping", "server/discover", "tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list":
		return true
	}
	return false
}
