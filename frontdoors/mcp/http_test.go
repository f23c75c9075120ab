package mcp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

type httpHarness struct {
	t    *testing.T
	url  string
	host string
}

// testClient is the tests' one HTTP client: it reads what the server answered (a redirect is an
// answer, never followed), and no call waits without a bound.
var testClient = &http.Client{
	Timeout:       time.Minute,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func startHTTP(t *testing.T, s *Server) *httpHarness {
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = s.HTTPHandler(srv.Listener.Addr().(*net.TCPAddr))
	srv.Start()
	t.Cleanup(srv.Close)
	return &httpHarness{t: t, url: srv.URL + Endpoint, host: strings.TrimPrefix(srv.URL, "http://")}
}

type httpReply struct {
	status  int
	header  http.Header
	body    string
	message reply
}

func (h *httpHarness) post(body string, headers map[string]string) httpReply {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	assert.NilError(h.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	return h.do(req)
}

func (h *httpHarness) do(req *http.Request) httpReply {
	h.t.Helper()
	res, err := testClient.Do(req)
	assert.NilError(h.t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	assert.NilError(h.t, err)
	out := httpReply{status: res.StatusCode, header: res.Header, body: string(data)}
	if len(data) > 0 {
		assert.Check(h.t, is.Equal(res.Header.Get("Content-Type"), "application/json"), string(data))
		assert.NilError(h.t, json.Unmarshal(data, &out.message), string(data))
		out.message.line = string(data)
	}
	return out
}

// modernHeaders are the headers a 2026-07-28 request mirrors from its body.
func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": Modern, "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func TestHTTPModernRequests(t *testing.T) {
	h := startHTTP(t, mustServer(t))
	ok := h.post(request(1, "tools/call", modernParams(map[string]any{"name": "version", "arguments": map[string]any{}})), modernHeaders("tools/call", "version"))
	assert.Check(t, is.Equal(ok.status, http.StatusOK), ok.body)
	assert.Check(t, is.Equal(ok.header.Get("Mcp-Session-Id"), ""), "the modern era has no sessions")
	var tr toolResult
	assert.NilError(t, json.Unmarshal(ok.message.Result, &tr))
	assert.Check(t, !tr.IsError && tr.ResultType == "complete", ok.body)

	b64 := h.post(request(2, "tools/call", modernParams(map[string]any{"name": "version", "arguments": map[string]any{}})),
		modernHeaders("tools/call", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("version"))+"?="))
	assert.Check(t, is.Equal(b64.status, http.StatusOK), b64.body)

	for _, c := range []struct {
		name    string
		body    string
		headers map[string]string
		status  int
		code    int
	}{
		{"Mcp-Name disagrees", request(3, "tools/call", modernParams(map[string]any{"name": "version"})), modernHeaders("tools/call", "status"), 400, codeHeaderMismatch},
		{"Mcp-Name missing", request(4, "tools/call", modernParams(map[string]any{"name": "version"})), modernHeaders("tools/call", ""), 400, codeHeaderMismatch},
		{"Mcp-Name bad base64", request(5, "tools/call", modernParams(map[string]any{"name": "version"})), modernHeaders("tools/call", "=?base64?***?="), 400, codeHeaderMismatch},
		{"Mcp-Method disagrees", request(6, "tools/list", modernParams(nil)), modernHeaders("prompts/list", ""), 400, codeHeaderMismatch},
		{"Mcp-Method missing", request(7, "tools/list", modernParams(nil)), map[string]string{"MCP-Protocol-Version": Modern}, 400, codeHeaderMismatch},
		{"Mcp-Method case differs", request(8, "tools/list", modernParams(nil)), modernHeaders("TOOLS/LIST", ""), 400, codeHeaderMismatch},
		{"version header missing", request(9, "tools/list", modernParams(nil)), map[string]string{"Mcp-Method": "tools/list"}, 400, codeHeaderMismatch},
		{"version header disagrees", request(10, "tools/list", modernParams(nil)), map[string]string{"MCP-Protocol-Version": Legacy20251125, "Mcp-Method": "tools/list"}, 400, codeHeaderMismatch},
		{"no _meta under a modern header", request(11, "tools/list", nil), modernHeaders("tools/list", ""), 400, codeInvalidParams},
		{"unsupported version", request(12, "server/discover", map[string]any{"_meta": map[string]any{metaProtocolVersion: "v999", metaClientCapabilities: map[string]any{}}}),
			map[string]string{"MCP-Protocol-Version": "v999", "Mcp-Method": "server/discover"}, 400, codeUnsupportedVersion},
		{"initialize under a modern header", initializeLine(13, Legacy20251125), modernHeaders("initialize", ""), 400, codeHeaderMismatch},
		{"a removed method", request(14, "ping", modernParams(nil)), modernHeaders("ping", ""), 404, codeMethodNotFound},
		{"an unknown method", request(15, "unknown/method", modernParams(nil)), modernHeaders("unknown/method", ""), 404, codeMethodNotFound},
		{"an unknown tool is in-band", request(16, "tools/call", modernParams(map[string]any{"name": "nope"})), modernHeaders("tools/call", "nope"), 200, codeInvalidParams},
	} {
		r := h.post(c.body, c.headers)
		assert.Check(t, is.Equal(r.status, c.status), "%s: %s", c.name, r.body)
		if assert.Check(t, r.message.Error != nil, "%s: %s", c.name, r.body) {
			assert.Check(t, is.Equal(r.message.Error.Code, c.code), "%s: %s", c.name, r.body)
			assert.Check(t, r.message.ID != nil, "%s: the error carries the request id: %s", c.name, r.body)
		}
	}
	lower := h.post(request(17, "tools/list", modernParams(nil)), map[string]string{"mcp-protocol-version": Modern, "MCP-METHOD": "tools/list"})
	assert.Check(t, is.Equal(lower.status, http.StatusOK), "header names are case-insensitive: %s", lower.body)
	spaced := h.post(request(18, "tools/call", modernParams(map[string]any{"name": "version"})), modernHeaders("tools/call", "  version  "))
	assert.Check(t, is.Equal(spaced.status, http.StatusOK), "whitespace around a header value is not part of it: %s", spaced.body)
	note := h.post(notification("notifications/cancelled", map[string]any{"requestId": 1}), modernHeaders("notifications/cancelled", ""))
	assert.Check(t, is.Equal(note.status, http.StatusAccepted))
	assert.Check(t, is.Equal(note.body, ""))
}

// TestHTTPLegacySessions: initialize opens a session named by Mcp-Session-Id; requests outside a
// session are refused, an ended or unknown session is 404, DELETE ends one.
func TestHTTPLegacySessions(t *testing.T) {
	h := startHTTP(t, mustServer(t))
	init := h.post(initializeLine(1, Legacy20250618), nil)
	assert.Assert(t, is.Equal(init.status, http.StatusOK), init.body)
	sid := init.header.Get("Mcp-Session-Id")
	assert.Assert(t, len(sid) >= 32, "a session id: %q", sid)
	for _, c := range sid {
		assert.Check(t, c >= 0x21 && c <= 0x7e, "visible ASCII only: %q", sid)
	}
	withSession := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": Legacy20250618}
	assert.Check(t, is.Equal(h.post(notification("notifications/initialized", nil), withSession).status, http.StatusAccepted))
	list := h.post(request(2, "tools/list", nil), withSession)
	assert.Check(t, is.Equal(list.status, http.StatusOK), list.body)
	assert.Check(t, !strings.Contains(list.body, "resultType"), "a session result is a handshake-era result")

	noSession := h.post(request(3, "tools/list", nil), map[string]string{"MCP-Protocol-Version": Legacy20250618})
	assert.Check(t, is.Equal(noSession.status, http.StatusBadRequest), noSession.body)
	wrongVersion := h.post(request(4, "tools/list", nil), map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": Legacy20251125})
	assert.Check(t, is.Equal(wrongVersion.status, http.StatusBadRequest), wrongVersion.body)
	unknown := h.post(request(5, "tools/list", nil), map[string]string{"Mcp-Session-Id": "nope"})
	assert.Check(t, is.Equal(unknown.status, http.StatusNotFound), unknown.body)
	ping := h.post(request(6, "ping", nil), nil)
	assert.Check(t, is.Equal(ping.status, http.StatusOK), "ping needs no session: %s", ping.body)

	del, _ := http.NewRequest(http.MethodDelete, h.url, nil)
	del.Header.Set("Mcp-Session-Id", sid)
	assert.Check(t, is.Equal(h.do(del).status, http.StatusNoContent))
	after := h.post(request(7, "tools/list", nil), withSession)
	assert.Check(t, is.Equal(after.status, http.StatusNotFound), after.body)
	del2, _ := http.NewRequest(http.MethodDelete, h.url, nil)
	del2.Header.Set("Mcp-Session-Id", sid)
	assert.Check(t, is.Equal(h.do(del2).status, http.StatusNotFound))
}

// TestHTTPRefusesDNSRebinding: Host and Origin must name this loopback server.
func TestHTTPRefusesDNSRebinding(t *testing.T) {
	h := startHTTP(t, mustServer(t))
	_, port, _ := net.SplitHostPort(h.host)
	body := request(1, "tools/list", modernParams(nil))
	for _, c := range []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"the listener's own host", map[string]string{}, 200},
		{"localhost with the port", map[string]string{"Host": "localhost:" + port}, 200},
		{"a same-origin Origin", map[string]string{"Origin": "http://127.0.0.1:" + port}, 200},
		{"a localhost Origin", map[string]string{"Origin": "http://localhost:" + port}, 200},
		{"a rebinding Host", map[string]string{"Host": "evil.example.com"}, 403},
		{"a rebinding Host with the port", map[string]string{"Host": "evil.example.com:" + port}, 403},
		{"localhost on another port", map[string]string{"Host": "localhost:1"}, 403},
		{"a foreign Origin", map[string]string{"Origin": "http://evil.example.com"}, 403},
		{"a loopback Origin on another port", map[string]string{"Origin": "http://localhost:1"}, 403},
		{"an https Origin", map[string]string{"Origin": "https://127.0.0.1:" + port}, 403},
		{"a null Origin", map[string]string{"Origin": "null"}, 403},
	} {
		headers := modernHeaders("tools/list", "")
		for k, v := range c.headers {
			headers[k] = v
		}
		r := h.post(body, headers)
		assert.Check(t, is.Equal(r.status, c.status), "%s: %s", c.name, r.body)
	}
}

func TestHTTPTransportRules(t *testing.T) {
	h := startHTTP(t, mustServer(t))
	get, _ := http.NewRequest(http.MethodGet, h.url, nil)
	r := h.do(get)
	assert.Check(t, is.Equal(r.status, http.StatusMethodNotAllowed))
	assert.Check(t, is.Equal(r.header.Get("Allow"), "POST, DELETE"))

	r = h.post(request(1, "tools/list", modernParams(nil)), map[string]string{"Content-Type": "text/plain"})
	assert.Check(t, is.Equal(r.status, http.StatusUnsupportedMediaType))
	r = h.post(request(1, "tools/list", modernParams(nil)), map[string]string{"Accept": "text/html"})
	assert.Check(t, is.Equal(r.status, http.StatusNotAcceptable))
	hdr := modernHeaders("tools/list", "")
	hdr["Accept"] = ""
	r = h.post(request(1, "tools/list", modernParams(nil)), hdr)
	assert.Check(t, is.Equal(r.status, http.StatusOK), "no Accept header accepts anything: %s", r.body)

	big := `{"jsonrpc":"2.0","id":1,"method":"ping","pad":"` + strings.Repeat("x", MaxMessageBytes) + `"}`
	r = h.post(big, nil)
	assert.Check(t, is.Equal(r.status, http.StatusRequestEntityTooLarge))

	r = h.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil)
	assert.Check(t, is.Equal(r.status, http.StatusBadRequest))
	assert.Check(t, is.Equal(r.message.Error.Code, codeInvalidRequest))
	r = h.post(`{"jsonrpc":"2.0","id":1,`, nil)
	assert.Check(t, is.Equal(r.status, http.StatusBadRequest))
	assert.Check(t, is.Equal(r.message.Error.Code, codeParseError))
	assert.Check(t, r.message.ID == nil && !strings.Contains(r.body, `"id":null`), r.body)

	other, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(h.url, Endpoint)+"/other", strings.NewReader("{}"))
	other.Header.Set("Content-Type", "application/json")
	assert.Check(t, is.Equal(h.do(other).status, http.StatusNotFound))
}

func TestParseLoopbackAddr(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"127.0.0.1:8080", "127.0.0.1:8080", ""},
		{"127.0.0.1:0", "127.0.0.1:0", ""},
		{"localhost:9000", "127.0.0.1:9000", ""},
		{"LOCALHOST:9000", "127.0.0.1:9000", ""},
		{"[::1]:7000", "[::1]:7000", ""},
		{"127.1.2.3:80", "127.1.2.3:80", ""},
		{"0.0.0.0:8080", "", "not a loopback address"},
		{"[::]:8080", "", "not a loopback address"},
		{":8080", "", "not a loopback address"},
		{"192.168.1.10:8080", "", "not a loopback address"},
		{"example.com:8080", "", "not a loopback address"},
		{"127.0.0.1", "", "is not host:port"},
		{"127.0.0.1:http", "", "port is not a number"},
		{"127.0.0.1:70000", "", "port is not a number"},
		// Spellings the parsers would take but docs/mcp.md does not name.
		{"127.0.0.1:+80", "", "port is not a number"},
		{"127.0.0.1:-0", "", "port is not a number"},
		{"127.0.0.1:0080", "", "port is not a number"},
		{"127.0.0.1:", "", "port is not a number"},
		{"[::ffff:127.0.0.1]:80", "", "not a loopback address abcd serves on"},
		{"[0:0:0:0:0:0:0:1]:80", "", "not a loopback address abcd serves on"},
		{"[127.0.0.1]:80", "", "not a loopback address abcd serves on"},
		{"[localhost]:80", "", "not a loopback address abcd serves on"},
		{"[::1%lo]:80", "", "not a loopback address abcd serves on"},
		{"localhost.:80", "", "not a loopback address abcd serves on"},
	} {
		got, err := ParseLoopbackAddr(c.in)
		if c.err != "" {
			assert.Check(t, is.ErrorContains(err, c.err), c.in)
			continue
		}
		assert.Check(t, err, c.in)
		assert.Check(t, is.Equal(got, c.want), c.in)
	}
}

func TestServeHTTPStopsWithItsContext(t *testing.T) {
	s := mustServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	assert.NilError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln) }()
	h := &httpHarness{t: t, url: "http://" + ln.Addr().String() + Endpoint}
	r := h.post(request(1, "tools/list", modernParams(nil)), modernHeaders("tools/list", ""))
	assert.Check(t, is.Equal(r.status, http.StatusOK))
	cancel()
	select {
	case err := <-done:
		assert.Check(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not return after its context ended")
	}
}

// The table is bounded: when full, a new session is refused and none in use is ended; a session
// idle past sessionIdle ends, and its place goes to a new one.
func TestSessionTableIsBounded(t *testing.T) {
	tbl := newSessionTable()
	now := time.Unix(1000, 0)
	tbl.now = func() time.Time { return now }
	tbl.max = 3
	first, err := tbl.create(Legacy20251125)
	assert.NilError(t, err)
	var ids []string
	for range 2 {
		now = now.Add(time.Second)
		id, err := tbl.create(Legacy20251125)
		assert.NilError(t, err)
		ids = append(ids, id)
	}
	for range 5 {
		now = now.Add(time.Second)
		_, err := tbl.create(Legacy20251125)
		assert.Check(t, is.ErrorIs(err, errSessionsFull))
	}
	assert.Check(t, is.Len(tbl.m, 3))
	assert.Check(t, tbl.get(first) != nil, "the oldest session is still live")

	// Two sessions go idle past sessionIdle while the first is used: new sessions take their places.
	now = now.Add(sessionIdle - 10*time.Second)
	assert.Check(t, tbl.get(first) != nil)
	now = now.Add(20 * time.Second)
	a, err := tbl.create(Legacy20250618)
	assert.NilError(t, err)
	_, err = tbl.create(Legacy20250618)
	assert.NilError(t, err)
	_, err = tbl.create(Legacy20250618)
	assert.Check(t, is.ErrorIs(err, errSessionsFull), "the first was used %s ago: still live", 10*time.Second)
	assert.Check(t, tbl.get(first) != nil)
	for _, id := range ids {
		assert.Check(t, tbl.get(id) == nil, "an idle session ended")
	}
	now = now.Add(sessionIdle + time.Second)
	assert.Check(t, tbl.get(a) == nil, "an idle session ends")
}

// TestHTTPManySessionsNeverEndALiveOne: a neighbour opening 300 sessions fills the table; the
// sessions past the bound are refused with 503, Retry-After and a JSON-RPC error saying why, and
// the live session goes on answering. A session its client ends makes room for one more.
func TestHTTPManySessionsNeverEndALiveOne(t *testing.T) {
	h := startHTTP(t, mustServer(t))
	init := h.post(initializeLine(1, Legacy20250618), nil)
	assert.Assert(t, is.Equal(init.status, http.StatusOK), init.body)
	live := map[string]string{"Mcp-Session-Id": init.header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": Legacy20250618}
	assert.Check(t, is.Equal(h.post(notification("notifications/initialized", nil), live).status, http.StatusAccepted))

	opened, refused := 1, 0
	var theirs string
	for i := range 300 {
		r := h.post(initializeLine(i+2, Legacy20250618), nil)
		switch r.status {
		case http.StatusOK:
			opened++
			theirs = r.header.Get("Mcp-Session-Id")
		case http.StatusServiceUnavailable:
			refused++
			assert.Check(t, is.Equal(r.header.Get("Retry-After"), "60"))
			assert.Check(t, is.Equal(r.header.Get("Mcp-Session-Id"), ""))
			assert.Check(t, is.Equal(r.message.Error.Code, codeInternalError))
			assert.Check(t, is.Contains(r.message.Error.Message, "all 256 sessions are in use"))
			assert.Check(t, is.Equal(string(r.message.ID), fmt.Sprint(i+2)))
		default:
			t.Fatalf("initialize %d: %d %s", i, r.status, r.body)
		}
	}
	assert.Check(t, is.Equal(opened, maxSessions))
	assert.Check(t, is.Equal(refused, 301-maxSessions))
	list := h.post(request("after", "tools/list", nil), live)
	assert.Check(t, is.Equal(list.status, http.StatusOK), "the live session was ended: %s", list.body)

	del, _ := http.NewRequest(http.MethodDelete, h.url, nil)
	del.Header.Set("Mcp-Session-Id", theirs)
	assert.Check(t, is.Equal(h.do(del).status, http.StatusNoContent))
	again := h.post(initializeLine("again", Legacy20250618), nil)
	assert.Check(t, is.Equal(again.status, http.StatusOK), again.body)
}

// TestHTTPRefusesTwoOrigins: a request carrying two Origin headers is refused, whatever each says.
func TestHTTPRefusesTwoOrigins(t *testing.T) {
	h := startHTTP(t, mustServer(t))
	_, port, _ := net.SplitHostPort(h.host)
	own := "http://127.0.0.1:" + port
	for _, origins := range [][]string{{own, own}, {own, "http://evil.example.com"}, {"http://evil.example.com", own}, {own, ""}} {
		req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(request(1, "tools/list", modernParams(nil))))
		assert.NilError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range modernHeaders("tools/list", "") {
			req.Header.Set(k, v)
		}
		req.Header["Origin"] = origins
		r := h.do(req)
		assert.Check(t, is.Equal(r.status, http.StatusForbidden), "%q: %s", origins, r.body)
		assert.Check(t, is.Contains(r.message.Error.Message, "Origin"), "%q", origins)
	}
	one := h.post(request(2, "tools/list", modernParams(nil)), map[string]string{"Origin": own,
		"MCP-Protocol-Version": Modern, "Mcp-Method": "tools/list"})
	assert.Check(t, is.Equal(one.status, http.StatusOK), "one same-origin Origin is served: %s", one.body)
}

// stalledBody opens a connection that sends a request's headers and the start of its body, then
// nothing more: a client slow to send, or one holding the server up on purpose.
func stalledBody(t *testing.T, addr, host string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	assert.NilError(t, err)
	t.Cleanup(func() { assert.Check(t, conn.Close()) })
	_, err = io.WriteString(conn, "POST "+Endpoint+" HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/json\r\n"+
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
	assert.NilError(t, err)
	return conn
}

// TestHTTPSlowBodiesHoldNoSlot: a request takes one of the 32 slots only once its body is read, so
// 32 (and more) clients that send headers and then trickle their bodies do not lock everyone else
// out; each of them is cut off when its body is not read in time.
func TestHTTPSlowBodiesHoldNoSlot(t *testing.T) {
	s := mustServer(t)
	srv := httptest.NewUnstartedServer(nil)
	ep := s.endpoint(srv.Listener.Addr().(*net.TCPAddr))
	ep.bodyTimeout = 500 * time.Millisecond
	srv.Config.Handler = ep
	srv.Start()
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	var stalled []net.Conn
	for range maxHTTPInFlight + 1 {
		stalled = append(stalled, stalledBody(t, srv.Listener.Addr().String(), host))
	}
	time.Sleep(50 * time.Millisecond) // let the server read every request's headers
	h := &httpHarness{t: t, url: srv.URL + Endpoint, host: host}
	start := time.Now()
	r := h.post(request("p", "ping", nil), nil)
	elapsed := time.Since(start)
	assert.Check(t, is.Equal(r.status, http.StatusOK), r.body)
	assert.Check(t, is.Equal(string(r.message.Result), `{}`), r.body)
	assert.Check(t, elapsed < ep.bodyTimeout/2, "answered in %s, while %d bodies stall", elapsed, len(stalled))

	for _, conn := range stalled {
		assert.NilError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if assert.Check(t, err) {
			assert.Check(t, is.Equal(res.StatusCode, http.StatusRequestTimeout))
			assert.Check(t, res.Body.Close())
		}
	}
}

// TestHTTPLargeBodiesWaitForMemory: the bodies being read and the messages being served draw on one
// budget; a large body that does not fit waits, and is turned away when it cannot be read in time,
// while small messages (a ping) are never held up behind large ones.
func TestHTTPLargeBodiesWaitForMemory(t *testing.T) {
	t.Parallel() // its own server and budget
	s := mustServer(t)
	s.budget = newBudget(4 << 20)
	// Two endpoints of the one server, so of one budget: the patient one gives a megabyte sent on a
	// loaded machine its time; the hurried one turns away, after a short wait, the body that cannot
	// fit while the whole budget is held (it never could, however long the wait).
	serve := func(bodyTimeout time.Duration) *httpHarness {
		srv := httptest.NewUnstartedServer(nil)
		ep := s.endpoint(srv.Listener.Addr().(*net.TCPAddr))
		ep.bodyTimeout = bodyTimeout
		srv.Config.Handler = ep
		srv.Start()
		t.Cleanup(srv.Close)
		return &httpHarness{t: t, url: srv.URL + Endpoint, host: strings.TrimPrefix(srv.URL, "http://")}
	}
	patient, hurried := serve(2*time.Second), serve(250*time.Millisecond)
	pad := strings.Repeat(" ", 1<<20)
	big := `{"jsonrpc":"2.0","id":"big",` + pad + `"method":"ping"}`
	r := patient.post(big, nil)
	assert.Check(t, is.Equal(r.status, http.StatusOK), "a large message that fits is served: %.200s", r.body)

	assert.NilError(t, s.budget.acquire(context.Background(), 4<<20))
	r = hurried.post(big, nil)
	assert.Check(t, is.Equal(r.status, http.StatusServiceUnavailable), "%.200s", r.body)
	r = patient.post(request("small", "ping", nil), nil)
	assert.Check(t, is.Equal(r.status, http.StatusOK), r.body)
	s.budget.release(4 << 20)
	r = patient.post(big, nil)
	assert.Check(t, is.Equal(r.status, http.StatusOK), "%.200s", r.body)
}

// TestHTTPDeclaredLengthsHoldNoMemory: five connections that declare the largest body and send
// nothing hold none of the memory budget, so an 8 KB request, which the budget charges, is answered
// at once rather than after their bodies time out. The five are still waiting when it is answered.
func TestHTTPDeclaredLengthsHoldNoMemory(t *testing.T) {
	s := mustServer(t)
	srv := httptest.NewUnstartedServer(nil)
	ep := s.endpoint(srv.Listener.Addr().(*net.TCPAddr)) // the real budget and body timeout
	srv.Config.Handler = ep
	srv.Start()
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	var stalled []net.Conn
	for range 5 {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		assert.NilError(t, err)
		t.Cleanup(func() { assert.Check(t, conn.Close()) })
		_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			Endpoint, host, MaxMessageBytes)
		assert.NilError(t, err)
		stalled = append(stalled, conn)
	}
	time.Sleep(50 * time.Millisecond) // let the server read every request's headers
	h := &httpHarness{t: t, url: srv.URL + Endpoint, host: host}
	body := `{"jsonrpc":"2.0","id":"p",` + strings.Repeat(" ", 8<<10) + `"method":"ping"}`
	assert.Assert(t, messageCost(len(body)) > 0, "an 8 KB message is charged to the budget")
	start := time.Now()
	r := h.post(body, nil)
	elapsed := time.Since(start)
	assert.Check(t, is.Equal(r.status, http.StatusOK), r.body)
	assert.Check(t, is.Equal(string(r.message.Result), `{}`), r.body)
	t.Logf("an 8 KB request beside %d stalled %d MiB bodies answered in %s (their bodies time out after %s)",
		len(stalled), MaxMessageBytes>>20, elapsed, ep.bodyTimeout)
	assert.Check(t, elapsed < ep.bodyTimeout, "answered only after the stalled bodies timed out")
	for _, conn := range stalled {
		assert.NilError(t, conn.SetReadDeadline(time.Now().Add(10*time.Millisecond)))
		_, err := conn.Read(make([]byte, 1))
		var ne net.Error
		assert.Check(t, errors.As(err, &ne) && ne.Timeout(), "a stalled request was answered first: %v", err)
	}
}

// TestServeHTTPCancelsCallsWhenItStops: Ctrl-C (the context ending) cancels the calls in progress,
// which answer and end, and ServeHTTP returns nil at once rather than waiting out its grace period
// and failing with "context deadline exceeded".
func TestServeHTTPCancelsCallsWhenItStops(t *testing.T) {
	a := testApp(t)
	insp := &blockingInspector{started: make(chan struct{}, 1), release: make(chan struct{})}
	a.Inspector = insp
	s, _ := newServer(t, a)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	assert.NilError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln) }()
	h := &httpHarness{t: t, url: "http://" + ln.Addr().String() + Endpoint}
	answered := make(chan httpReply, 1)
	go func() {
		answered <- h.post(request(1, "tools/call", modernParams(map[string]any{"name": "status", "arguments": map[string]any{}})),
			modernHeaders("tools/call", "status"))
	}()
	select {
	case <-insp.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not start")
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		assert.NilError(t, err)
	case <-time.After(2 * shutdownGrace):
		close(insp.release)
		t.Fatal("ServeHTTP did not return after its context ended")
	}
	elapsed := time.Since(start)
	assert.Check(t, elapsed < shutdownGrace/2, "stopped in %s", elapsed)
	assert.Check(t, is.Equal(insp.ended.Load(), int32(1)), "the running verb saw the cancellation")
	r := <-answered
	assert.Check(t, is.Equal(r.status, http.StatusOK), r.body)
	var tr toolResult
	assert.NilError(t, json.Unmarshal(r.message.Result, &tr))
	assert.Check(t, tr.IsError, "the cancelled call answers with a refusal: %s", r.body)
}
