package repoprompt

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// The bounds a session's answers are read with.
const (
	// maxSetupAnswer bounds the initialize answer and a notification's or an error's body.
	maxSetupAnswer = 1 << 20
	// maxErrorBody is how much of an error status's body is read for its JSON-RPC message.
	maxErrorBody = 64 << 10
	// defaultRetry is how long to wait before resuming a stream whose server named no retry time.
	defaultRetry = time.Second
	// maxRetry caps the wait a server's retry field may ask for.
	maxRetry = 30 * time.Second
)

// answerLimits read every message a server sends: nesting and value counts bounded; strings are
// bounded by the body's own bound (a review's answer is one string of up to 8 MiB).
var answerLimits = strictjson.Limits{MaxDepth: mcpwire.MaxDepth, MaxValues: mcpwire.MaxMessageValues}

// The causes a session's own bounds end its contexts with, told apart from the caller's.
var (
	errSetupBound = errors.New("the set-up bound passed")
	errCallBound  = errors.New("the call bound passed")
)

// Session is one MCP session with the server: opened by Open (initialize, initialized, tools/list),
// used by Call, ended by Close (DELETE).
type Session struct {
	c         *Client
	http      *http.Client
	tr        *http.Transport
	sessionID string
	version   string
	nextID    int64
	tools     []Tool
	closed    bool
	// lastBodyBytes is what the last exchange's answer took of its bound, over every stream read.
	lastBodyBytes int
}

// Tool is one tool the server lists: its name and its definition as parsed.
type Tool struct {
	Name string
	def  map[string]any
}

// CallResult is a tool result: its text blocks joined, how many there were, and isError.
type CallResult struct {
	Text       string
	TextBlocks int
	IsError    bool
}

// Open connects and sets a session up within the set-up bound: initialize (offering the newest
// revision abcd speaks, going on only in one it speaks), notifications/initialized, and the whole
// tool catalog, read within its bounds.
func (c *Client) Open(ctx context.Context) (*Session, *Fault) {
	if c.fault != nil {
		return nil, c.fault
	}
	hc, tr := newHTTP(c.cfg)
	s := &Session{c: c, http: hc, tr: tr, nextID: 1}
	setup, cancel := context.WithTimeoutCause(ctx, c.cfg.SetupTimeout, errSetupBound)
	defer cancel()
	if f := s.setup(setup); f != nil {
		f = s.bounded(ctx, setup, errSetupBound, f, "setting the session up", c.cfg.SetupTimeout)
		s.Close(ctx)
		return nil, f
	}
	return s, nil
}

// Tools names the tools the server listed, in its order.
func (s *Session) Tools() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name
	}
	return names
}

// InputSchema is the input schema of the tool the server listed under name.
func (s *Session) InputSchema(name string) (map[string]any, bool) {
	for _, t := range s.tools {
		if t.Name == name {
			schema, ok := t.def["inputSchema"].(map[string]any)
			return schema, ok
		}
	}
	return nil, false
}

// Version is the revision the session speaks.
func (s *Session) Version() string { return s.version }

func (s *Session) setup(ctx context.Context) *Fault {
	res, f := s.exchange(ctx, "initialize", mcpwire.InitializeParams{
		ProtocolVersion: mcpwire.Offer(),
		Capabilities:    map[string]any{},
		ClientInfo:      mcpwire.Implementation{Name: "abcd", Version: s.c.cfg.Version},
	}, maxSetupAnswer, func(int) *Fault {
		return faultf(review.Unparsable, "the server's initialize answer is larger than the %d bytes abcd reads", maxSetupAnswer)
	})
	if f != nil {
		return f
	}
	v, ok := res["protocolVersion"].(string)
	if !ok {
		return fault(review.Unparsable, "the server's initialize answer names no protocol version")
	}
	if !mcpwire.Accept(v) {
		return faultf(review.Refused, "the server speaks MCP revision %q; abcd speaks %s and %s", s.c.scrubClip(v), mcpwire.Legacy20251125, mcpwire.Legacy20250618)
	}
	if caps, present := res["capabilities"]; present {
		if _, ok := caps.(map[string]any); !ok {
			return fault(review.Unparsable, "the server's initialize answer has capabilities that are not an object")
		}
	}
	s.version = v
	if f := s.notify(ctx, "notifications/initialized"); f != nil {
		return f
	}
	return s.listTools(ctx)
}

// Call calls one tool within the call bound. The answer's text is bounded by MaxAnswer; isError is
// reported, not judged.
func (s *Session) Call(ctx context.Context, name string, args map[string]any) (CallResult, *Fault) {
	cfg := s.c.cfg
	call, cancel := context.WithTimeoutCause(ctx, cfg.CallTimeout, errCallBound)
	defer cancel()
	// JSON may spell a byte of text in six (\u0000): an answer of MaxAnswer bytes always fits.
	wire := 6*cfg.MaxAnswer + 1<<20
	res, f := s.exchange(call, "tools/call", mcpwire.CallToolParams{Name: name, Arguments: args}, wire, func(int) *Fault {
		return faultf(review.Invalid, "the answer is more than the %d bytes abcd reads for an answer of at most %d", wire, cfg.MaxAnswer)
	})
	if f != nil {
		return CallResult{}, s.bounded(ctx, call, errCallBound, f, "answering", cfg.CallTimeout)
	}
	return s.c.readCallResult(res)
}

func (c *Client) readCallResult(res map[string]any) (CallResult, *Fault) {
	var out CallResult
	if v, present := res["isError"]; present {
		b, ok := v.(bool)
		if !ok {
			return out, fault(review.Unparsable, "the tool result's isError is not a boolean")
		}
		out.IsError = b
	}
	blocks, ok := res["content"].([]any)
	if !ok {
		return out, fault(review.Unparsable, "the tool result has no content array")
	}
	var text []byte
	for _, b := range blocks {
		obj, ok := b.(map[string]any)
		if !ok {
			return out, fault(review.Unparsable, "a content block of the tool result is not an object")
		}
		typ, ok := obj["type"].(string)
		if !ok {
			return out, fault(review.Unparsable, "a content block of the tool result has no type")
		}
		if typ != "text" {
			continue // images, audio, resources: a review's answer is its text
		}
		t, ok := obj["text"].(string)
		if !ok {
			return out, fault(review.Unparsable, "a text block of the tool result has no text")
		}
		// Blocks join on a line break, unless the one before ends with one.
		if len(text) > 0 && text[len(text)-1] != '\n' && t != "" {
			text = append(text, '\n')
		}
		text = append(text, t...)
		out.TextBlocks++
		if len(text) > c.cfg.MaxAnswer {
			return out, faultf(review.Invalid, "the answer's text is more than %d bytes, larger than a return may be", c.cfg.MaxAnswer)
		}
	}
	out.Text = string(text)
	return out, nil
}

// Close ends the session with a DELETE, bounded by the close bound and sent even when ctx has ended
// (an interrupted review still tells the server it is over). Its answer does not matter: a 405 says
// the server keeps sessions to itself.
func (s *Session) Close(ctx context.Context) {
	if s.closed {
		return
	}
	s.closed = true
	defer s.tr.CloseIdleConnections()
	if s.sessionID == "" {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.c.cfg.CloseTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodDelete, s.c.endpoint.String(), nil)
	if err != nil {
		return
	}
	s.headers(req)
	resp, err := s.http.Do(req)
	if err != nil {
		return
	}
	discard(resp)
}

// bounded says why a phase ended when a context did: the caller's context ended (the person
// interrupted the step, or the host's deadline is shorter than the route's) or the phase's own
// bound passed. Otherwise the fault stands.
func (s *Session) bounded(parent, phase context.Context, cause error, f *Fault, doing string, bound time.Duration) *Fault {
	if err := parent.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return faultf(review.Interrupted, "the step's own deadline ended while the route was %s, before the route's bound", doing)
		}
		return faultf(review.Interrupted, "the step was interrupted while the route was %s", doing)
	}
	if errors.Is(context.Cause(phase), cause) {
		return faultf(review.Timeout, "the server took longer than %s %s", bound, doing)
	}
	return f
}

// headers sets what every request after initialize carries.
func (s *Session) headers(req *http.Request) {
	if s.sessionID != "" {
		req.Header.Set(mcpwire.HeaderSessionID, s.sessionID)
	}
	if s.version != "" {
		req.Header.Set(mcpwire.HeaderProtocolVersion, s.version)
	}
}

func (s *Session) post(ctx context.Context, body []byte) (*http.Response, *Fault) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fault(review.Failed, "the request could not be made")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	s.headers(req)
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, transportFault(err)
	}
	return resp, nil
}

// transportFault says in abcd's words why a request got no answer. The error's own text names the
// address, so it is never quoted.
func transportFault(err error) *Fault {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.Is(err, errRedirect):
		return fault(review.Refused, "the server answered with a redirect, which abcd never follows")
	case errors.Is(err, errNotLoopback):
		return fault(review.Unreachable, "the server's host name resolves to no loopback address, and abcd dials loopback only")
	case errors.As(err, &dnsErr):
		return fault(review.Unreachable, "the server's host name could not be resolved")
	case errors.Is(err, syscall.ECONNREFUSED):
		return fault(review.Unreachable, "the connection was refused: is RepoPrompt's MCP server running at the configured address?")
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority), errors.As(err, &hostnameErr), errors.As(err, &recordErr):
		return fault(review.Unreachable, "the TLS handshake with the server failed")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return fault(review.Unreachable, "the server closed the connection before it answered")
	}
	return fault(review.Unreachable, "the connection to the server failed")
}

// statusFault reads a status that is not an answer: the server's JSON-RPC error, when it sent one, is
// shown as a scrubbed excerpt.
func (s *Session) statusFault(resp *http.Response, what string) *Fault {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	excerpt := ""
	if m, _, perr := mcpwire.ParseMessage(body, answerLimits); perr == nil {
		if _, rerr, _ := m.Reply(); rerr != nil {
			excerpt = s.c.excerpt(rerr.Message)
		}
	}
	code := resp.StatusCode
	switch {
	case code == http.StatusNotFound && s.sessionID != "":
		return faultf(review.Refused, "the server no longer knows this session (HTTP 404 to %s)", what)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return faultf(review.Refused, "the server asks for authorization (HTTP %d to %s), which abcd does not send%s", code, what, excerpt)
	case code >= 300 && code < 400:
		return faultf(review.Refused, "the server answered %s with a redirect (HTTP %d), which abcd never follows", what, code)
	}
	return faultf(review.Refused, "the server answered %s with HTTP %d%s", what, code, excerpt)
}

// exchange sends one request and reads its response within limit bytes (tooBig says why beyond),
// from a JSON body or an event stream, and returns the result or the fault.
func (s *Session) exchange(ctx context.Context, method string, params any, limit int, tooBig func(int) *Fault) (map[string]any, *Fault) {
	id := strconv.FormatInt(s.nextID, 10)
	s.nextID++
	body, err := mcpwire.EncodeRequest(mcpwire.Request{ID: json.RawMessage(id), Method: method, Params: params})
	if err != nil {
		return nil, faultf(review.Failed, "the %s request could not be encoded", method)
	}
	resp, f := s.post(ctx, body)
	if f != nil {
		return nil, f
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return nil, faultf(review.Unparsable, "the server answered %s with HTTP %d and no response", method, resp.StatusCode)
		}
		return nil, s.statusFault(resp, method)
	}
	if method == "initialize" {
		if ids := resp.Header.Values(mcpwire.HeaderSessionID); len(ids) > 0 {
			if !validSessionID(ids[0]) || len(ids) > 1 {
				return nil, fault(review.Unparsable, "the server's session id is not one visible-ASCII value")
			}
			s.sessionID = ids[0]
		}
	}
	b := &budget{left: int64(limit)}
	var msg *mcpwire.Message
	switch mediaType(resp) {
	case "application/json":
		data, err := io.ReadAll(&counting{r: resp.Body, b: b})
		if err != nil {
			if errors.Is(err, errTooBig) {
				return nil, tooBig(limit)
			}
			return nil, fault(review.Unreachable, "the server closed the connection before its answer was whole")
		}
		m, f := parseAnswer(data, method)
		if f != nil {
			return nil, f
		}
		if !m.Response || string(m.ID) != id {
			return nil, faultf(review.Unparsable, "the server's answer to %s is not the response to it", method)
		}
		msg = m
	case "text/event-stream":
		m, f := s.stream(ctx, resp.Body, id, method, b, limit, tooBig)
		if f != nil {
			return nil, f
		}
		msg = m
	default:
		return nil, faultf(review.Unparsable, "the server answered %s with content that is neither JSON nor an event stream", method)
	}
	s.lastBodyBytes = limit - int(b.left)
	res, rerr, problem := msg.Reply()
	if problem != "" {
		return nil, faultf(review.Unparsable, "the server's answer to %s is malformed: %s", method, problem)
	}
	if rerr != nil {
		return nil, faultf(review.Refused, "the server answered %s with error %d%s", method, rerr.Code, s.c.excerpt(rerr.Message))
	}
	return res, nil
}

func parseAnswer(data []byte, method string) (*mcpwire.Message, *Fault) {
	m, _, perr := mcpwire.ParseMessage(data, answerLimits)
	if perr != nil {
		return nil, faultf(review.Unparsable, "the server's answer to %s is not a JSON-RPC message", method)
	}
	return m, nil
}

func mediaType(resp *http.Response) string {
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}

// validSessionID: the specification's visible ASCII (0x21 to 0x7E), bounded.
func validSessionID(id string) bool {
	if id == "" || len(id) > 1024 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// notify sends a notification; the server accepts it with 202 (any 2xx will do).
func (s *Session) notify(ctx context.Context, method string) *Fault {
	body, err := mcpwire.EncodeRequest(mcpwire.Request{Method: method})
	if err != nil {
		return faultf(review.Failed, "the %s notification could not be encoded", method)
	}
	resp, f := s.post(ctx, body)
	if f != nil {
		return f
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return s.statusFault(resp, method)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxSetupAnswer))
	return nil
}

// stream reads an event stream until the response to id arrives. Notifications are let pass; a
// request from the server is answered (ping with an empty result, anything else with method not
// found). A stream the server closes before the answer is resumed with GET and Last-Event-ID, after
// the retry time it named, when it gave its events ids; every stream read for one answer draws on
// the same byte budget.
func (s *Session) stream(ctx context.Context, body io.ReadCloser, id, method string, b *budget, limit int, tooBig func(int) *Fault) (*mcpwire.Message, *Fault) {
	lastID, retry := "", defaultRetry
	for resumes := 0; ; resumes++ {
		rd := newSSEReader(&counting{r: body, b: b})
		msg, f := s.events(ctx, rd, id, method)
		_ = body.Close() // what the stream said is read: closing it can change nothing
		if f != nil {
			if f == errStreamTooBig {
				return nil, tooBig(limit)
			}
			return nil, f
		}
		if msg != nil {
			return msg, nil
		}
		if rd.lastID != "" {
			lastID = rd.lastID
		}
		if rd.hasRetry {
			retry = min(rd.retry, maxRetry)
		}
		if lastID == "" {
			return nil, faultf(review.Unreachable, "the server closed the event stream of %s before it answered, and gave it no event ids to resume it by", method)
		}
		if resumes >= s.c.cfg.MaxResumes {
			return nil, faultf(review.Unreachable, "the server closed the event stream of %s before it answered, %d times", method, resumes+1)
		}
		select {
		case <-ctx.Done():
			return nil, fault(review.Unreachable, "the wait to resume the event stream ended")
		case <-time.After(retry):
		}
		next, f := s.resume(ctx, lastID, method)
		if f != nil {
			return nil, f
		}
		body = next
	}
}

// errStreamTooBig marks a stream beyond its budget, for stream to say in its caller's words.
var errStreamTooBig = &Fault{Reason: review.Invalid, Detail: "the stream is larger than its bound"}

// events reads one stream: the response to id, or nil when the stream ended without it.
func (s *Session) events(ctx context.Context, rd *sseReader, id, method string) (*mcpwire.Message, *Fault) {
	for {
		ev, err := rd.next()
		if err != nil {
			if errors.Is(err, errTooBig) {
				return nil, errStreamTooBig
			}
			return nil, nil // the stream ended (closed or broken): the caller resumes it or says so
		}
		if ev.typ != "" && ev.typ != "message" {
			continue
		}
		if len(bytes.TrimSpace([]byte(ev.data))) == 0 {
			continue // a priming event: an id (and a retry time) with no message
		}
		m, f := parseAnswer([]byte(ev.data), method)
		if f != nil {
			return nil, f
		}
		switch {
		case m.Response:
			if string(m.ID) == id {
				return m, nil
			}
			// a response to no request of this session's: nothing waits for it
		case !m.IsNotification():
			s.answerServer(ctx, m)
		}
	}
}

// answerServer answers a request the server sent on a stream: abcd offers no client feature (no
// sampling, roots or elicitation), so only ping has an answer.
func (s *Session) answerServer(ctx context.Context, m *mcpwire.Message) {
	out := mcpwire.Outbound{ID: m.ID, Result: json.RawMessage(`{}`)}
	if m.Method != "ping" {
		out = mcpwire.Outbound{ID: m.ID, Error: mcpwire.NewError(mcpwire.CodeMethodNotFound, "Method not found: abcd's RepoPrompt client offers no client features")}
	}
	resp, f := s.post(ctx, bytes.TrimSuffix(mcpwire.EncodeOutbound(out), []byte("\n")))
	if f != nil {
		return // the answer is a courtesy; the stream goes on either way
	}
	discard(resp)
}

// resume asks for the rest of a stream after lastID.
func (s *Session) resume(ctx context.Context, lastID, method string) (io.ReadCloser, *Fault) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.c.endpoint.String(), nil)
	if err != nil {
		return nil, fault(review.Failed, "the request could not be made")
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(mcpwire.HeaderLastEventID, lastID)
	s.headers(req)
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, transportFault(err)
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
		discard(resp)
		return nil, faultf(review.Unreachable, "the server closed the event stream of %s before it answered, and did not resume it (HTTP %d)", method, resp.StatusCode)
	}
	return resp.Body, nil
}

// budget is what is left of the bytes one answer may take, over every stream read for it.
type budget struct{ left int64 }

var errTooBig = errors.New("beyond the bound")

// counting reads from r while the budget lasts; a byte beyond it is errTooBig.
type counting struct {
	r io.Reader
	b *budget
}

func (c *counting) Read(p []byte) (int, error) {
	if c.b.left < 0 {
		return 0, errTooBig
	}
	if int64(len(p)) > c.b.left+1 {
		p = p[:c.b.left+1]
	}
	n, err := c.r.Read(p)
	c.b.left -= int64(n)
	if c.b.left < 0 {
		return 0, errTooBig
	}
	return n, err
}

// scrubClip is a server's word as a detail quotes it (scrubbed, clipped).
func (c *Client) scrubClip(s string) string { return text.Clip(c.scrubText(s)) }

// discard reads what is left of an answer whose outcome is already decided (at most maxErrorBody,
// so the connection can serve the next call) and closes it. Its errors are dropped on purpose: the
// call's outcome was decided before, and a failure here changes nothing but the connection's reuse.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
}
