package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/google/uuid"
)

// Endpoint is the path of the MCP endpoint.
const Endpoint = "/mcp"

// HTTP bounds.
const (
	// maxHTTPInFlight bounds the requests parsed and served at once. A request takes its slot only
	// once its body is read, so clients slow to send cannot hold every slot.
	maxHTTPInFlight = 32
	// maxSessions bounds the legacy sessions one server holds. When they are all taken, a new one is
	// refused (503) rather than one in use ended: a session is only ever dropped after sessionIdle
	// without a request, or when its client ends it.
	maxSessions = 256
	sessionIdle = 30 * time.Minute
	// bodyReadTimeout bounds reading one request's body.
	bodyReadTimeout = 10 * time.Second
	// shutdownGrace is how long a stop waits for answers to go out before it closes connections.
	shutdownGrace = 5 * time.Second
)

// LoopbackError says why a bind address is refused.
type LoopbackError struct{ Addr, Why string }

func (e *LoopbackError) Error() string { return fmt.Sprintf("%s: %s", e.Addr, e.Why) }

// ParseLoopbackAddr checks a --http address: host:port where host is localhost, an IPv4 address
// in 127.0.0.0/8 written as four decimal numbers, or [::1], and port is 0 to 65535 in decimal digits
// (0 picks a free one), as docs/mcp.md says; nothing else, so no spelling the resolver or the IP
// parser would also take ("+80", "0080", [::ffff:127.0.0.1], [127.0.0.1]) reaches the listener. It
// returns the address to listen on; localhost becomes 127.0.0.1, so no name lookup can move the
// listener off loopback.
func ParseLoopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", &LoopbackError{addr, "is not host:port"}
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 || strings.Trim(port, "0123456789") != "" || len(port) > 1 && port[0] == '0' {
		return "", &LoopbackError{addr, "the port is not a number from 0 to 65535, in decimal digits"}
	}
	bracketed := strings.HasPrefix(addr, "[")
	switch ip := net.ParseIP(host); {
	case strings.EqualFold(host, "localhost") && !bracketed:
		host = "127.0.0.1"
	case host == "::1" && bracketed:
	case ip != nil && !bracketed && !strings.Contains(host, ":") && ip.To4() != nil && ip.To4()[0] == 127:
	default:
		return "", &LoopbackError{addr, "is not a loopback address abcd serves on (127.0.0.1 or another 127.x.y.z, [::1] or localhost); abcd serves MCP over HTTP on loopback only"}
	}
	return net.JoinHostPort(host, strconv.Itoa(p)), nil
}

// ServeHTTP serves Streamable HTTP at Endpoint on ln, a loopback listener, until ctx ends. Then it
// stops accepting, cancels the calls in progress (each handler's context ends, so a verb running
// sees it), lets their answers go out for a few seconds, closes what is still open, waits for every
// handler to return and returns nil. It returns an error only when serving failed.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return &LoopbackError{ln.Addr().String(), "is not a loopback TCP address"}
	}
	base, stop := context.WithCancel(ctx)
	defer stop()
	h := s.endpoint(tcp)
	srv := &http.Server{
		Handler:           h,
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: 10 * time.Second,
		// No ReadTimeout: the handler bounds reading the body (bodyReadTimeout) and then lifts the
		// deadline, as net/http cancels a request's context when a read of its connection times out,
		// which would cut off a call that runs longer than the deadline.
		WriteTimeout:   callTimeout + 30*time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       log.New(logWriter{s}, "", 0),
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		stop()
		h.active.wait()
		s.tasks.stop(h, "cancelled: the server stopped")
		return err
	case <-ctx.Done():
	}
	stop() // the handlers' contexts end: running verbs stop, waiting requests give up
	// The tasks' runs stop as at Ctrl-C, and are waited for while the answers go out.
	tasksStopped := make(chan struct{})
	go func() {
		defer close(tasksStopped)
		s.tasks.stop(h, "cancelled: the server stopped")
	}()
	grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(grace); err != nil {
		s.logf("stopping: closing the connections still open after %s", shutdownGrace)
		_ = srv.Close()
	}
	err := <-done
	h.active.wait()
	<-tasksStopped
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// activity counts the handlers running, so a stop can wait for the last one.
type activity struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond
}

func (a *activity) enter() {
	a.mu.Lock()
	a.n++
	a.mu.Unlock()
}

func (a *activity) leave() {
	a.mu.Lock()
	if a.n--; a.n == 0 && a.idle != nil {
		a.idle.Broadcast()
	}
	a.mu.Unlock()
}

func (a *activity) wait() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.idle == nil {
		a.idle = sync.NewCond(&a.mu)
	}
	for a.n > 0 {
		a.idle.Wait()
	}
}

type logWriter struct{ s *Server }

func (w logWriter) Write(p []byte) (int, error) {
	w.s.logf("%s", strings.TrimSpace(string(p)))
	return len(p), nil
}

// HTTPHandler is the MCP endpoint for a server listening at addr. Host and Origin must name that
// listener (127.0.0.1, localhost or [::1] with its port), which defeats DNS rebinding.
func (s *Server) HTTPHandler(addr *net.TCPAddr) http.Handler { return s.endpoint(addr) }

func (s *Server) endpoint(addr *net.TCPAddr) *httpEndpoint {
	port := strconv.Itoa(addr.Port)
	hosts := map[string]bool{
		"127.0.0.1:" + port:                      true,
		"localhost:" + port:                      true,
		"[::1]:" + port:                          true,
		net.JoinHostPort(addr.IP.String(), port): true,
	}
	return &httpEndpoint{s: s, hosts: hosts, sessions: newSessionTable(), slots: make(chan struct{}, maxHTTPInFlight),
		bodyTimeout: bodyReadTimeout}
}

type httpEndpoint struct {
	s        *Server
	hosts    map[string]bool
	sessions *sessionTable
	slots    chan struct{}
	// bodyTimeout bounds reading a request's body, and waiting for the memory to hold it.
	bodyTimeout time.Duration
	active      activity
}

func (h *httpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.active.enter()
	defer h.active.leave()
	// Whatever of the body is read, here or by net/http after the handler, is read in bounded time.
	// Errors are ignored: a connection without deadlines (not one net/http serves) is read unbounded.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	if !h.hosts[strings.ToLower(r.Host)] {
		h.fail(w, http.StatusForbidden, nil, newError(codeInvalidRequest, "Forbidden: the Host header does not name this loopback server"))
		return
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		// Two Origin headers are never a browser's: refused whatever each says, so no check reads
		// one while another part of the stack reads the other.
		if len(origins) > 1 || !h.originAllowed(origins[0]) {
			h.fail(w, http.StatusForbidden, nil, newError(codeInvalidRequest, "Forbidden: the Origin is not this loopback server"))
			return
		}
	}
	if r.URL.Path != Endpoint {
		h.fail(w, http.StatusNotFound, nil, newError(codeInvalidRequest, "Not Found: the MCP endpoint is "+Endpoint))
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r, rc)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		h.fail(w, http.StatusMethodNotAllowed, nil, newError(codeInvalidRequest,
			"Method Not Allowed: POST a JSON-RPC message; this server offers no standalone event stream"))
	}
}

func (h *httpEndpoint) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Path != "" && u.Path != "/" || u.User != nil {
		return false
	}
	return h.hosts[strings.ToLower(u.Host)]
}

func (h *httpEndpoint) post(w http.ResponseWriter, r *http.Request, rc *http.ResponseController) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		h.fail(w, http.StatusUnsupportedMediaType, nil, newError(codeInvalidRequest, "Unsupported Media Type: send Content-Type: application/json"))
		return
	}
	if !acceptsJSON(r.Header.Values("Accept")) {
		h.fail(w, http.StatusNotAcceptable, nil, newError(codeInvalidRequest, "Not Acceptable: the Accept header must allow application/json"))
		return
	}
	body, ch, status, rerr := h.readBody(w, r)
	defer ch.release()
	if rerr != nil {
		h.fail(w, status, nil, rerr)
		return
	}
	// The body is read: lift the deadline, so the call is not cut off when it passes.
	_ = rc.SetReadDeadline(time.Time{})
	// Only now does the request take a slot, for parsing and running.
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-r.Context().Done():
		// The client went away, or the server is stopping: nothing ran.
		h.fail(w, http.StatusServiceUnavailable, nil, newError(codeInternalError, "Server stopping: the request ended before it ran"))
		return
	}
	size := len(body)
	m, id, perr := parseMessage(body)
	if perr != nil {
		h.fail(w, statusOf(perr, http.StatusBadRequest), id, perr)
		return
	}
	ch.shrink(parsedCost(size, m.Values))
	if m.Response {
		w.WriteHeader(http.StatusAccepted) // this server sends no requests; a response is dropped
		return
	}
	hdr := readHeaders(r)
	e, cerr := h.s.classify(m, hdr)
	if cerr != nil {
		h.fail(w, statusOf(cerr, http.StatusBadRequest), m.ID, cerr)
		return
	}
	if m.IsNotification() {
		h.notification(w, r, m, e)
		return
	}
	if isNotificationMethod(m.Method) {
		h.fail(w, http.StatusNotFound, m.ID, newError(codeMethodNotFound, "Method not found: "+text.Clip(m.Method)+" is a notification; send it without an id"))
		return
	}
	switch e {
	case eraInitialize:
		h.initialize(w, m)
	case eraLegacy:
		h.legacy(w, r, hdr, m)
	case eraModern:
		res, derr := h.s.dispatch(withTaskOwner(r.Context(), h), m, eraModern, "")
		status := http.StatusOK
		if derr != nil {
			status = statusOf(derr, http.StatusOK)
		}
		h.reply(w, status, outbound{ID: m.ID, Result: res, Error: derr})
	}
}

// legacy answers a request of the 2025 era, within its session where it has one.
func (h *httpEndpoint) legacy(w http.ResponseWriter, r *http.Request, hdr *httpHeaders, m *message) {
	sess, status, serr := h.session(r, hdr, m.Method == "ping")
	if serr != nil {
		h.fail(w, status, m.ID, serr)
		return
	}
	version := Legacy20251125
	if sess != nil {
		version, _ = sess.get()
	}
	ctx := r.Context()
	if sess != nil && m.Method == "tools/call" {
		// The session's notifications/cancelled for this id ends the call, as over stdio.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		if key := idKey(m.ID); sess.calls.add(key, cancel) {
			defer sess.calls.remove(key)
		}
	}
	res, derr := h.s.dispatch(ctx, m, eraLegacy, version)
	h.reply(w, http.StatusOK, outbound{ID: m.ID, Result: res, Error: derr})
}

// initialize answers initialize with a new session, or says why none can be made.
func (h *httpEndpoint) initialize(w http.ResponseWriter, m *message) {
	version, res, ierr := h.s.initialize(m)
	if ierr != nil {
		h.fail(w, http.StatusBadRequest, m.ID, ierr)
		return
	}
	id, serr := h.sessions.create(version)
	if errors.Is(serr, errSessionsFull) {
		w.Header().Set("Retry-After", "60")
		h.fail(w, http.StatusServiceUnavailable, m.ID, newError(codeInternalError, fmt.Sprintf(
			"Server busy: all %d sessions are in use (a session ends when its client sends DELETE, or after %s without a request); "+
				"try again later, or use protocol version %s, which needs no session", h.sessions.max, h.sessions.idle, Modern)))
		return
	}
	if serr != nil {
		h.fail(w, http.StatusServiceUnavailable, m.ID, newError(codeInternalError, "Internal error: no session could be created"))
		return
	}
	w.Header().Set("Mcp-Session-Id", id)
	h.reply(w, http.StatusOK, outbound{ID: m.ID, Result: res})
}

// readBody reads a request's body, of at most MaxMessageBytes, within bodyTimeout. The memory it
// takes is charged to the server's budget as the bytes arrive, never on a length only declared: a
// client that announces a large body and sends nothing holds nothing another request waits for.
// The caller releases the charge when it is done with the message.
func (h *httpEndpoint) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *charge, int, *rpcError) {
	ch := &charge{b: h.s.budget}
	tooLarge := newError(codeInvalidRequest, "Invalid Request: the message is larger than 16 MiB")
	if r.ContentLength > MaxMessageBytes {
		return nil, ch, http.StatusRequestEntityTooLarge, tooLarge
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.bodyTimeout)
	defer cancel()
	// limit is the most the buffer grows to: the declared length, or one byte past the maximum so
	// MaxBytesReader can say the body is too large.
	limit := MaxMessageBytes + 1
	if r.ContentLength >= 0 {
		limit = int(r.ContentLength)
	}
	in := http.MaxBytesReader(w, r.Body, MaxMessageBytes)
	buf := make([]byte, 0, min(limit, freeMessageBytes))
	var err error
	for r.ContentLength < 0 || len(buf) < limit {
		if len(buf) == cap(buf) {
			// The buffer doubles only once it is full: what is charged is at most twice what came.
			grown := min(2*cap(buf), limit)
			if ch.to(ctx, messageCost(grown)) != nil {
				return nil, ch, http.StatusServiceUnavailable, newError(codeInternalError,
					"Server busy: too many large messages are being served; send this one again shortly")
			}
			buf = append(make([]byte, 0, grown), buf...)
		}
		var n int
		n, err = in.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			err = nil
			if r.ContentLength >= 0 && len(buf) < limit {
				err = io.ErrUnexpectedEOF
			}
			break
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooBig):
			return nil, ch, http.StatusRequestEntityTooLarge, tooLarge
		case errors.As(err, &ne) && ne.Timeout():
			return nil, ch, http.StatusRequestTimeout, newError(codeInvalidRequest,
				fmt.Sprintf("Request Timeout: the body was not read within %s", h.bodyTimeout))
		}
		return nil, ch, http.StatusBadRequest, newError(codeParseError, "Parse error: the body could not be read")
	}
	return buf, ch, 0, nil
}

// session finds the legacy session a request belongs to. Outside a session only ping is served.
func (h *httpEndpoint) session(r *http.Request, hdr *httpHeaders, optional bool) (*session, int, *rpcError) {
	ids := r.Header.Values("Mcp-Session-Id")
	if len(ids) == 0 {
		if optional {
			return nil, 0, nil
		}
		return nil, http.StatusBadRequest, newError(codeInvalidRequest,
			"Bad Request: an Mcp-Session-Id header is required; send initialize first (or use 2026-07-28 with _meta on every request)")
	}
	sess := h.sessions.get(strings.TrimSpace(ids[0]))
	if sess == nil {
		return nil, http.StatusNotFound, newError(codeInvalidRequest, "Session not found: it ended or never existed; send initialize to start a new one")
	}
	version, _ := sess.get()
	if hdr.hasProtocolVersion && hdr.protocolVersion != version {
		return nil, http.StatusBadRequest, newError(codeInvalidRequest, fmt.Sprintf(
			"Bad Request: MCP-Protocol-Version %s is not the version this session negotiated (%s)", text.Clip(hdr.protocolVersion), version))
	}
	return sess, 0, nil
}

func (h *httpEndpoint) notification(w http.ResponseWriter, r *http.Request, m *message, e era) {
	if e == eraLegacy {
		sess, status, serr := h.session(r, readHeaders(r), false)
		if serr != nil {
			h.fail(w, status, nil, serr)
			return
		}
		switch m.Method {
		case "notifications/initialized":
			sess.mu.Lock()
			sess.initialized = true
			sess.mu.Unlock()
		case "notifications/cancelled":
			if key, ok := idFromParam(m.Params["requestId"]); ok {
				sess.calls.cancel(key)
			}
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

func (h *httpEndpoint) delete(w http.ResponseWriter, r *http.Request) {
	ids := r.Header.Values("Mcp-Session-Id")
	if len(ids) == 0 {
		h.fail(w, http.StatusBadRequest, nil, newError(codeInvalidRequest, "Bad Request: DELETE ends a session named by Mcp-Session-Id"))
		return
	}
	if !h.sessions.remove(strings.TrimSpace(ids[0])) {
		h.fail(w, http.StatusNotFound, nil, newError(codeInvalidRequest, "Session not found"))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *httpEndpoint) fail(w http.ResponseWriter, status int, id []byte, e *rpcError) {
	h.reply(w, status, outbound{ID: id, Error: e})
}

func (h *httpEndpoint) reply(w http.ResponseWriter, status int, o outbound) {
	data := encodeOutbound(o)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func statusOf(e *rpcError, fallback int) int {
	if e.Status != 0 {
		return e.Status
	}
	return fallback
}

func readHeaders(r *http.Request) *httpHeaders {
	get := func(name string) (string, bool) {
		vals := r.Header.Values(name)
		if len(vals) == 0 {
			return "", false
		}
		return strings.Trim(vals[0], " \t"), true
	}
	h := &httpHeaders{}
	h.protocolVersion, h.hasProtocolVersion = get("MCP-Protocol-Version")
	h.method, h.hasMethod = get("Mcp-Method")
	h.name, h.hasName = get("Mcp-Name")
	return h
}

// acceptsJSON reads Accept headers: absent means anything; otherwise a range must admit
// application/json with a non-zero quality.
func acceptsJSON(values []string) bool {
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err != nil || f == 0 {
					continue
				}
			}
			if mt == "application/json" || mt == "application/*" || mt == "*/*" {
				return true
			}
		}
	}
	return false
}

// decodeHeaderValue reads an Mcp-Name or Mcp-Param value: plain visible ASCII, or the base64
// sentinel =?base64?...?= around UTF-8.
func decodeHeaderValue(v string) (string, bool) {
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if inner, ok = strings.CutSuffix(inner, "?="); !ok {
			return "", false
		}
		b, err := base64.StdEncoding.DecodeString(inner)
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return "", false
		}
	}
	return v, true
}

// sessionTable holds the legacy sessions of the HTTP transport: bounded in number, dropped after
// sessionIdle without a request. When full, a new session is refused: opening sessions never ends
// one in use.
type sessionTable struct {
	mu   sync.Mutex
	m    map[string]*session
	now  func() time.Time
	max  int
	idle time.Duration
}

type session struct {
	legacyState
	last  time.Time
	calls sessionCalls
}

// sessionCalls are a session's tools/call requests running, by id, so that the session's
// notifications/cancelled can end one. A request's POST is answered with what its call came to: the
// interrupted refusal when the cancellation came before its write, its result when the write was
// made first.
type sessionCalls struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
}

// add records a running call; false when a call with the same id already runs (the first keeps it).
func (c *sessionCalls) add(key string, cancel context.CancelFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, running := c.m[key]; running {
		return false
	}
	if c.m == nil {
		c.m = map[string]context.CancelFunc{}
	}
	c.m[key] = cancel
	return true
}

func (c *sessionCalls) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}

func (c *sessionCalls) cancel(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cancel, ok := c.m[key]; ok {
		cancel()
	}
}

func newSessionTable() *sessionTable {
	return &sessionTable{m: map[string]*session{}, now: time.Now, max: maxSessions, idle: sessionIdle}
}

// create opens a session. Its id is a version 4 UUID drawn from crypto/rand: globally unique and
// unguessable, as the specification asks of a session id, and visible ASCII only.
func (t *sessionTable) create(version string) (string, error) {
	u, err := uuid.NewRandom()
	if err != nil {
		return "", err
	}
	id := u.String()
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.m) >= t.max {
		for k, s := range t.m {
			if now.Sub(s.last) > t.idle {
				delete(t.m, k)
			}
		}
	}
	if len(t.m) >= t.max {
		return "", errSessionsFull
	}
	s := &session{last: now}
	s.version = version
	t.m[id] = s
	return id, nil
}

// errSessionsFull is a new session refused because every one is in use.
var errSessionsFull = errors.New("every session is in use")

func (t *sessionTable) get(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[id]
	if !ok {
		return nil
	}
	now := t.now()
	if now.Sub(s.last) > t.idle {
		delete(t.m, id)
		return nil
	}
	s.last = now
	return s
}

func (t *sessionTable) remove(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.m[id]
	delete(t.m, id)
	return ok
}
