package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// JSON-RPC error codes abcd answers with.
const (
	codeInvalidParams  = -32602
	codeMethodNotFound = -32601
	codeRefused        = -32000 // abcd's own: the request is one abcd does not grant
	codeNotFound       = -32002 // ACP's resource_not_found: a file that does not exist
	// codeAuthRequired is ACP's auth_required: the agent wants authenticate before the request.
	codeAuthRequired = -32000
)

// message is one JSON-RPC 2.0 message, as read: a request (method and id), a notification (method,
// no id) or a response (id and exactly one of result and error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Data is what the agent adds; codex-acp says what went wrong only there ("Internal error",
	// with the vendor's 401 in data.message).
	Data json.RawMessage `json:"data,omitempty"`
}

// words are the error's message and, when its data is an object with a message, that too.
func (e *rpcError) words() string {
	var d struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Data, &d) == nil && d.Message != "" && d.Message != e.Message {
		return e.Message + ": " + d.Message
	}
	return e.Message
}

// kind of a message read.
type kind int

const (
	kindRequest kind = iota
	kindNotification
	kindResponse
)

// parse reads one line as a JSON-RPC 2.0 message (the line is already one strict JSON object). A
// message the protocol does not allow is an error: the step fails closed.
func parse(line []byte) (message, kind, error) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return m, 0, fmt.Errorf("not a JSON-RPC message: %s", text.Clip(err.Error()))
	}
	if m.JSONRPC != "2.0" {
		return m, 0, errors.New(`not JSON-RPC 2.0 (its "jsonrpc" is not "2.0")`)
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	if hasID {
		if err := checkID(m.ID); err != nil {
			return m, 0, err
		}
	}
	switch {
	case m.Method != "" && (m.Result != nil || m.Error != nil):
		return m, 0, errors.New("a message is both a request and a response")
	case m.Method != "" && hasID:
		return m, kindRequest, nil
	case m.Method != "":
		return m, kindNotification, nil
	case !hasID:
		return m, 0, errors.New("a message with neither a method nor an id")
	case (m.Result == nil) == (m.Error == nil):
		return m, 0, errors.New("a response with both or neither of result and error")
	}
	return m, kindResponse, nil
}

// checkID admits an id JSON-RPC allows: a number or a string, of at most 128 bytes.
func checkID(id json.RawMessage) error {
	if len(id) > 128 {
		return errors.New("an id longer than 128 bytes")
	}
	var v any
	if err := json.Unmarshal(id, &v); err != nil {
		return errors.New("an id that is not JSON")
	}
	switch v.(type) {
	case string, float64:
		return nil
	}
	return errors.New("an id that is neither a number nor a string")
}

// Stop reasons (session/prompt's answer).
const stopEndTurn = "end_turn"

// stopCause is the cause of a turn that ended on another stop reason; an unknown one fails closed.
func stopCause(reason string) domain.Cause {
	switch reason {
	case "max_tokens":
		return domain.CauseMaxTokens
	case "max_turn_requests":
		return domain.CauseMaxTurns
	case "refusal":
		return domain.CauseRefusal
	case "cancelled":
		return domain.CauseCancelled
	}
	return domain.CauseCLIError
}

// stage is how far the handshake went: which answer abcd waits for.
type stage int

const (
	stageInit stage = iota
	stageNew
	stageAuth
	stageNewAuthed
	stagePrompt
	stageDone
)

// The requests abcd makes, by id: session/new is asked again, under an id of its own, after
// authenticate.
const (
	idInitialize   = 1
	idNew          = 2
	idPrompt       = 3
	idAuthenticate = 4
	idNewAuthed    = 5
)

// session is one step's ACP conversation. Event runs on the step's reading goroutine; a terminal's
// wait runs on its own, and answers through the same sender.
type session struct {
	c         runner.Conversation
	stage     stage
	sessionID string
	// methods are the authentication methods initialize's answer listed; authMethod the one abcd
	// authenticated with
	methods    []authMethod
	authMethod string
	cancelled  bool
	// what the agent said: its last message (reset when a tool call begins), whether a model turn is
	// under way, and each tool call's kind and input, for the permission asked about it
	final  strings.Builder
	inTurn bool
	tools  map[string]toolInfo
	terms  *terminals
	// unopened are the calls abcd rejected before any update announced them; asked those its allow
	// opened, which a later tool_call announces without opening again
	unopened map[string]bool
	asked    map[string]bool

	// said is the agent's message since its last tool call, told as one line of what it is doing
	// when it moves on; doing the lines not yet told
	said  strings.Builder
	doing []string

	mu       sync.Mutex
	asks     []domain.Ask
	asksMore int
}

func newSession(c runner.Conversation) *session {
	return &session{c: c, tools: map[string]toolInfo{}, unopened: map[string]bool{}, asked: map[string]bool{}, terms: newTerminals(c.Run)}
}

func (s *session) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.c.Send(b)
}

func (s *session) request(id int, method string, params any) error {
	return s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

func (s *session) reply(id json.RawMessage, result any) error {
	return s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *session) replyError(id json.RawMessage, code int, msg string) error {
	return s.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcError{Code: code, Message: msg}})
}

// Begin sends initialize: the protocol abcd speaks and what it offers the agent (files read and
// written through abcd, and terminals abcd runs).
func (s *session) Begin() error {
	return s.request(idInitialize, "initialize", map[string]any{
		"protocolVersion": domain.ACPProtocol,
		"clientCapabilities": map[string]any{
			"fs":       map[string]bool{"readTextFile": true, "writeTextFile": true},
			"terminal": true,
		},
		"clientInfo": map[string]string{"name": "abcd", "version": "1"},
	})
}

// Cancel sends session/cancel once a session is open; abcd then ends the agent's group.
func (s *session) Cancel() {
	if s.sessionID == "" || s.cancelled {
		return
	}
	s.cancelled = true
	// The agent may have stopped reading: its group is ended next either way.
	_ = s.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]string{"sessionId": s.sessionID}})
}

// Close ends every terminal and what waits on one.
func (s *session) Close() { s.terms.closeAll() }

// Asks are the questions asked and answered, in order.
func (s *session) Asks() ([]domain.Ask, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asks), s.asksMore
}

// record keeps a question and abcd's answer; it runs on the step's reading goroutine, as tell does.
func (s *session) record(method, callID, what string, answer domain.AskAnswer, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.asks) >= domain.MaxAsks {
		s.asksMore++
		return
	}
	s.asks = append(s.asks, domain.Ask{Method: method, CallID: callID, What: what, Answer: answer, Why: why})
	s.tell(fmt.Sprintf("abcd answered %s %s: %s", method, strings.TrimSpace(callID+" "+what), answer))
}

// maxSaid bounds the message kept to tell what the agent said (the step's progress shows a line of it).
const maxSaid = 1024

// tell queues a line of what the agent is doing, after what it said before it.
func (s *session) tell(line string) {
	s.spoke()
	s.doing = append(s.doing, line)
}

// spoke queues what the agent said since it last moved on, as one line.
func (s *session) spoke() {
	if said := strings.Join(strings.Fields(s.said.String()), " "); said != "" {
		s.doing = append(s.doing, "says: "+said)
	}
	s.said.Reset()
}

// Event reads one line of the agent's and answers it as the protocol asks; the event tells what the
// agent is doing, for the step's progress.
func (s *session) Event(line []byte) (runner.Event, error) {
	m, k, err := parse(line)
	if err != nil {
		return runner.Event{Type: "jsonrpc"}, err
	}
	var ev runner.Event
	switch k {
	case kindResponse:
		ev, err = s.response(m)
	case kindNotification:
		ev, err = s.notification(m)
	default:
		ev, err = s.agentRequest(m)
	}
	if ev.Terminal != nil {
		s.spoke()
	}
	ev.Doing, s.doing = s.doing, nil
	return ev, err
}

// response is the agent's answer to one of abcd's three requests; an answer to any other id (one
// never asked, or asked and already answered) fails the step closed.
func (s *session) response(m message) (runner.Event, error) {
	id, err := strconv.Atoi(string(m.ID))
	want := map[int]bool{idInitialize: s.stage == stageInit, idNew: s.stage == stageNew, idPrompt: s.stage == stagePrompt,
		idAuthenticate: s.stage == stageAuth, idNewAuthed: s.stage == stageNewAuthed}
	if err != nil || !want[id] {
		return runner.Event{Type: "response"}, fmt.Errorf("an answer to request %s, which abcd has not asked or was answered", text.Clip(string(m.ID)))
	}
	switch id {
	case idInitialize:
		return s.initialized(m)
	case idNew, idNewAuthed:
		return s.opened(m)
	case idAuthenticate:
		return s.authenticated(m)
	}
	return s.prompted(m)
}

// failed is an event that ends the step with its cause.
func failed(typ string, f *domain.Failure) runner.Event {
	return runner.Event{Type: typ, Known: true, Terminal: &runner.Terminal{Event: typ, Reason: "error", Failure: f}}
}

// rpcFailure is the cause of an error the agent answered one of abcd's requests with.
func rpcFailure(method string, e *rpcError) *domain.Failure {
	words := text.Clip(e.words())
	if e.Code == codeAuthRequired || strings.Contains(strings.ToLower(e.words()), "auth") {
		return domain.Failf(domain.CauseAuth, "the agent answered %s with an error (%d): %s", method, e.Code, words)
	}
	return domain.Failf(domain.CauseCLIError, "the agent answered %s with an error (%d): %s", method, e.Code, words)
}

func (s *session) initialized(m message) (runner.Event, error) {
	if m.Error != nil {
		return failed("initialize", rpcFailure("initialize", m.Error)), nil
	}
	var r struct {
		ProtocolVersion *int              `json:"protocolVersion"`
		AuthMethods     []json.RawMessage `json:"authMethods"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || r.ProtocolVersion == nil {
		return runner.Event{Type: "initialize"}, errors.New("initialize's answer names no protocolVersion")
	}
	s.methods = authMethods(r.AuthMethods)
	v := *r.ProtocolVersion
	ev := runner.Event{Type: "initialize", Known: true, Version: fmt.Sprintf("%d.0.0", max(v, 0))}
	if v != domain.ACPProtocol {
		ev.Version = ""
		ev.Terminal = &runner.Terminal{Event: "initialize", Reason: "protocol " + strconv.Itoa(v),
			Failure: domain.Failf(domain.CauseVersion, "the agent speaks the Agent Client Protocol's version %d, and abcd knows version %d alone", v, domain.ACPProtocol)}
		return ev, nil
	}
	s.stage = stageNew
	return ev, s.newSession(idNew)
}

// newSession asks for the step's session: in its folder, handed its catalog.
func (s *session) newSession(id int) error {
	servers := []map[string]any{}
	for _, sv := range s.c.Catalog.Servers {
		servers = append(servers, map[string]any{"name": sv.Name, "command": sv.Command, "args": runner.NonNil(sv.Args), "env": []any{}})
	}
	return s.request(id, "session/new", map[string]any{"cwd": s.c.Dir, "mcpServers": servers})
}

func (s *session) opened(m message) (runner.Event, error) {
	if m.Error != nil && m.Error.Code == codeAuthRequired && s.stage == stageNew {
		return s.authenticate(m.Error)
	}
	if m.Error != nil {
		return failed("session/new", rpcFailure("session/new", m.Error)), nil
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || r.SessionID == "" || len(r.SessionID) > 200 || text.LineProblem(r.SessionID) != "" {
		return runner.Event{Type: "session/new"}, errors.New("session/new's answer names no session id abcd can keep")
	}
	s.sessionID, s.stage = r.SessionID, stagePrompt
	prompt := []map[string]string{{"type": "text", "text": string(s.c.Prompt)}}
	if err := s.request(idPrompt, "session/prompt", map[string]any{"sessionId": s.sessionID, "prompt": prompt}); err != nil {
		return runner.Event{Type: "session/new"}, err
	}
	return runner.Event{Type: "session/new", Known: true, Handshake: true, Session: r.SessionID}, nil
}

func (s *session) prompted(m message) (runner.Event, error) {
	s.stage = stageDone
	if m.Error != nil {
		return failed("session/prompt", rpcFailure("session/prompt", m.Error)), nil
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || r.StopReason == "" {
		return runner.Event{Type: "session/prompt"}, errors.New("session/prompt's answer names no stopReason")
	}
	t := &runner.Terminal{Event: "session/prompt", Reason: r.StopReason, Session: s.sessionID}
	s.tell("the turn ended: " + text.Clip(r.StopReason))
	if r.StopReason == stopEndTurn {
		t.Final = s.final.String()
	} else {
		t.Failure = domain.Failf(stopCause(r.StopReason), "the agent's turn ended with stopReason %s, not end_turn", text.Clip(r.StopReason))
	}
	return runner.Event{Type: "session/prompt", Known: true, Terminal: t}, nil
}

// sessionParams is what every session method's params carry.
type sessionParams struct {
	SessionID string `json:"sessionId"`
}

// ours checks that params name this step's session.
func (s *session) ours(params json.RawMessage) error {
	var p sessionParams
	if err := json.Unmarshal(params, &p); err != nil {
		return errors.New("its params are not an object")
	}
	if s.sessionID == "" || p.SessionID != s.sessionID {
		return errors.New("it names a session abcd did not open")
	}
	return nil
}
