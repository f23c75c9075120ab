package repoprompt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// rpcReq is a message the fake read, leniently: the fake plays a peer, not a judge.
type rpcReq struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params map[string]any  `json:"params"`
	Result any             `json:"result"`
	Error  any             `json:"error"`
}

// hit is one HTTP request the fake received.
type hit struct {
	verb   string // POST, GET, DELETE
	method string // the JSON-RPC method, "" for a response or a GET or DELETE
	header http.Header
	msg    rpcReq
}

// mcpFake is an in-process MCP server on loopback, each fault a real peer cannot be made to
// produce one field away.
type mcpFake struct {
	srv *httptest.Server

	mu   sync.Mutex
	hits []hit

	sse       bool   // answer requests with an event stream
	sessionID string // "" sends none
	version   string // the protocolVersion initialize answers; "" echoes the one asked for
	pages     [][]any
	// result makes the tools/call result from the arguments; nil answers with passText.
	result func(args map[string]any) any
	// override answers a method itself: it returns false to let the fake answer as usual.
	override     func(w http.ResponseWriter, r *http.Request, m rpcReq) bool
	deleteStatus int
	get          func(w http.ResponseWriter, r *http.Request)
	// prelude is what an event stream carries before the response.
	prelude []string
}

const passText = "## Verdict\n\nSHIP\n\nNothing to fix.\n"

// oracleSend is a tool definition taking message (and new_chat when asked).
func oracleSend(name string, newChat bool) map[string]any {
	props := map[string]any{"message": map[string]any{"type": "string"}}
	if newChat {
		props["new_chat"] = map[string]any{"type": "boolean"}
	}
	return map[string]any{"name": name, "description": "Send a message to the oracle", "inputSchema": map[string]any{
		"type": "object", "properties": props, "required": []any{"message"}}}
}

func newFake(t *testing.T, configure func(f *mcpFake)) *mcpFake {
	t.Helper()
	f := &mcpFake{sessionID: "sess-1", pages: [][]any{{oracleSend("other_tool", false), oracleSend(DefaultTool, true)}}, deleteStatus: http.StatusNoContent}
	if configure != nil {
		configure(f)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *mcpFake) URL() string { return f.srv.URL + "/mcp" }

// port is the fake's port, which no detail may quote.
func (f *mcpFake) port() string {
	_, p, _ := net.SplitHostPort(f.srv.Listener.Addr().String())
	return p
}

func (f *mcpFake) record(h hit) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hits = append(f.hits, h)
}

func (f *mcpFake) seen() []hit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]hit(nil), f.hits...)
}

// methods lists what the fake was sent, in order: JSON-RPC methods, "response" for a message the
// client answered, and GET and DELETE.
func (f *mcpFake) methods() []string {
	var out []string
	for _, h := range f.seen() {
		switch {
		case h.verb != http.MethodPost:
			out = append(out, h.verb)
		case h.method == "":
			out = append(out, "response")
		default:
			out = append(out, h.method)
		}
	}
	return out
}

func (f *mcpFake) call() (hit, bool) {
	for _, h := range f.seen() {
		if h.method == "tools/call" {
			return h, true
		}
	}
	return hit{}, false
}

func (f *mcpFake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		f.record(hit{verb: r.Method, header: r.Header.Clone()})
		switch {
		case r.Method == http.MethodDelete:
			w.WriteHeader(f.deleteStatus)
		case r.Method == http.MethodGet && f.get != nil:
			f.get(w, r)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m rpcReq
	_ = json.Unmarshal(body, &m)
	f.record(hit{verb: r.Method, method: m.Method, header: r.Header.Clone(), msg: m})
	if f.override != nil && f.override(w, r, m) {
		return
	}
	switch {
	case m.Method == "":
		w.WriteHeader(http.StatusAccepted) // the client answered a request of ours
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "initialize":
		v := f.version
		if v == "" {
			v, _ = m.Params["protocolVersion"].(string)
		}
		if f.sessionID != "" {
			w.Header().Set("Mcp-Session-Id", f.sessionID)
		}
		f.reply(w, m.ID, map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "fake", "version": "1"}})
	case m.Method == "tools/list":
		page := 0
		if c, ok := m.Params["cursor"].(string); ok {
			if _, err := fmt.Sscanf(c, "page-%d", &page); err != nil {
				f.replyRaw(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32602,"message":"a cursor this server never gave"}}`)
				return
			}
		}
		res := map[string]any{"tools": f.pages[page]}
		if page+1 < len(f.pages) {
			res["nextCursor"] = fmt.Sprintf("page-%d", page+1)
		}
		f.reply(w, m.ID, res)
	case m.Method == "tools/call":
		args, _ := m.Params["arguments"].(map[string]any)
		if f.result != nil {
			f.reply(w, m.ID, f.result(args))
			return
		}
		f.reply(w, m.ID, textResult(passText))
	default:
		f.replyRaw(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
	}
}

func textResult(texts ...string) map[string]any {
	var blocks []any
	for _, t := range texts {
		blocks = append(blocks, map[string]any{"type": "text", "text": t})
	}
	return map[string]any{"content": blocks}
}

func (f *mcpFake) reply(w http.ResponseWriter, id json.RawMessage, result any) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err != nil {
		panic(err)
	}
	f.replyRaw(w, string(b))
}

func (f *mcpFake) replyRaw(w http.ResponseWriter, msg string) {
	if !f.sse {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, p := range f.prelude {
		_, _ = io.WriteString(w, p)
	}
	_, _ = io.WriteString(w, "event: message\ndata: "+msg+"\n\n")
}

// testConfig is a route to the fake with short bounds.
func testConfig(url string) Config {
	return Config{URL: url, SetupTimeout: 2 * time.Second, CallTimeout: 5 * time.Second, CloseTimeout: time.Second}
}

// fixedResolver answers every name with the same addresses.
type fixedResolver []netip.Addr

func (r fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return append([]netip.Addr(nil), r...), nil
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	assert.NilError(t, err)
	return a
}

// hijackClose drops the connection without an answer.
func hijackClose(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if sub != "" && strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
