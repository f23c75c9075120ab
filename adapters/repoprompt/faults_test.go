package repoprompt

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

const request = "# Review request\n\nThe lane's diff and its record.\n"

// faultCase is one row of the table: a fake server, a route to it, and what the review must come
// back as.
type faultCase struct {
	name   string
	fake   func(f *mcpFake)
	cfg    func(c *Config, f *mcpFake)
	ctx    func(t *testing.T) context.Context
	req    string
	empty  bool                  // send an empty request
	reason review.FallbackReason // "" when the route answers
	detail string                // a word the detail says
	check  func(t *testing.T, f *mcpFake, out ports.ReviewOutcome)
}

func runFaultCase(t *testing.T, c faultCase) {
	f := newFake(t, c.fake)
	cfg := testConfig(f.URL())
	if c.cfg != nil {
		c.cfg(&cfg, f)
	}
	ctx := context.Background()
	if c.ctx != nil {
		ctx = c.ctx(t)
	}
	req := c.req
	if req == "" && !c.empty {
		req = request
	}
	out, err := New(cfg).Review(ctx, ports.ReviewRequest{Role: "ruthless-reviewer", Request: []byte(req)})
	assert.NilError(t, err, "every fault is a fallback reason, never an error")
	if c.reason == "" {
		assert.Check(t, is.Equal(out.FallbackReason, ""), "detail: %s", out.FallbackDetail)
		assert.Check(t, len(out.Return) > 0)
	} else {
		assert.Check(t, is.Equal(out.FallbackReason, string(c.reason)), "detail: %s", out.FallbackDetail)
		assert.Check(t, is.Len(out.Return, 0))
		assert.Check(t, is.Contains(out.FallbackDetail, c.detail))
		assertDetailSafe(t, out.FallbackDetail, f)
	}
	assert.Check(t, out.ModelAsked == "" && out.ModelReported == "", "RepoPrompt chooses the model; abcd names none")
	if c.check != nil {
		c.check(t, f, out)
	}
}

// assertDetailSafe: a detail never quotes the address and is one the fallback receipt admits.
func assertDetailSafe(t *testing.T, detail string, f *mcpFake) {
	t.Helper()
	assert.Check(t, !contains(detail, "127.0.0.1", "localhost", "[::1]", f.port(), "://"), "the detail quotes the address: %s", detail)
	rec := review.FallbackReceipt{At: "2026-01-02T15:04:05Z", Run: "r", Lane: "lane-1", Round: 1, Role: review.Ruthless,
		Asked: Route, Reason: review.FallbackReason("refused"), Detail: detail, Ran: review.RanHost}
	assert.Check(t, rec.Check(), "the receipt refuses the detail %q", detail)
}

func callArgs(t *testing.T, f *mcpFake) map[string]any {
	t.Helper()
	h, ok := f.call()
	assert.Assert(t, ok, "tools/call was sent: %v", f.methods())
	args, _ := h.msg.Params["arguments"].(map[string]any)
	return args
}

func noCall(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
	t.Helper()
	_, called := f.call()
	assert.Check(t, !called, "refused before any call: %v", f.methods())
}

func slow(d time.Duration, method string) func(f *mcpFake) {
	return func(f *mcpFake) {
		f.override = func(w http.ResponseWriter, r *http.Request, m rpcReq) bool {
			if m.Method != method {
				return false
			}
			select {
			case <-time.After(d):
			case <-r.Context().Done():
			}
			return false
		}
	}
}

func on(method string, answer func(w http.ResponseWriter, m rpcReq)) func(f *mcpFake) {
	return func(f *mcpFake) {
		f.override = func(w http.ResponseWriter, r *http.Request, m rpcReq) bool {
			if m.Method != method {
				return false
			}
			answer(w, m)
			return true
		}
	}
}

func tools(defs ...any) func(f *mcpFake) {
	return func(f *mcpFake) { f.pages = [][]any{defs} }
}

func jsonBody(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

func TestFaults(t *testing.T) {
	big := strings.Repeat("x", 2048)
	cases := []faultCase{
		// Answered.
		{name: "a JSON answer", check: func(t *testing.T, f *mcpFake, out ports.ReviewOutcome) {
			assert.Check(t, is.Equal(string(out.Return), passText))
			assert.Check(t, is.DeepEqual(f.methods(), []string{"initialize", "notifications/initialized", "tools/list", "tools/call", "DELETE"}))
			assert.Check(t, is.DeepEqual(callArgs(t, f), map[string]any{"message": request, "new_chat": true}))
			h, _ := f.call()
			assert.Check(t, is.Equal(h.msg.Params["name"], DefaultTool))
			for i, h := range f.seen() {
				if i == 0 {
					assert.Check(t, is.Equal(h.header.Get("Mcp-Session-Id"), ""))
					assert.Check(t, is.Equal(h.msg.Params["protocolVersion"], "2025-11-25"))
					assert.Check(t, is.Contains(h.header.Get("Accept"), "text/event-stream"))
					continue
				}
				assert.Check(t, is.Equal(h.header.Get("Mcp-Session-Id"), "sess-1"), "%s carries the session", h.verb+" "+h.method)
				assert.Check(t, is.Equal(h.header.Get("MCP-Protocol-Version"), "2025-11-25"), "%s carries the revision", h.verb+" "+h.method)
			}
		}},
		{name: "an event-stream answer, after a notification and a server's requests", fake: func(f *mcpFake) {
			f.sse = true
			f.prelude = []string{
				": keep-alive\n\n",
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n",
				"data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n",
				"data: {\"jsonrpc\":\"2.0\",\"id\":\"s2\",\n" + "data: \"method\":\"sampling/createMessage\",\"params\":{}}\n\n",
				"event: other\ndata: not json at all\n\n",
				"data: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n\n",
			}
		}, check: func(t *testing.T, f *mcpFake, out ports.ReviewOutcome) {
			assert.Check(t, is.Equal(string(out.Return), passText))
			answers := map[string]string{}
			for _, h := range f.seen() {
				if h.verb == http.MethodPost && h.method == "" {
					b, _ := json.Marshal(h.msg.Result)
					e, _ := json.Marshal(h.msg.Error)
					answers[string(h.msg.ID)] = string(b) + string(e)
				}
			}
			// Each of the server's requests was answered once per stream that carried it: ping with
			// an empty result, sampling with method not found.
			assert.Check(t, is.Contains(answers[`"s1"`], `{}`))
			assert.Check(t, is.Contains(answers[`"s2"`], `-32601`))
		}},
		{name: "a tool without new_chat gets none", fake: tools(oracleSend(DefaultTool, false)), check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.DeepEqual(callArgs(t, f), map[string]any{"message": request}))
		}},
		{name: "the configured tool", fake: tools(oracleSend("review_it", true)), cfg: func(c *Config, _ *mcpFake) { c.Tool = "review_it" }},
		{name: "a catalog over pages", fake: func(f *mcpFake) {
			f.pages = [][]any{{oracleSend("a", false)}, {oracleSend("b", false)}, {oracleSend(DefaultTool, false)}}
		}, check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			n := 0
			for _, m := range f.methods() {
				if m == "tools/list" {
					n++
				}
			}
			assert.Check(t, is.Equal(n, 3))
		}},
		{name: "blocks join on a line break", fake: func(f *mcpFake) {
			f.result = func(map[string]any) any {
				r := textResult("## Verdict", "", "SHIP\n", "done")
				r["content"] = append(r["content"].([]any), map[string]any{"type": "image", "data": "AA==", "mimeType": "image/png"})
				return r
			}
		}, check: func(t *testing.T, _ *mcpFake, out ports.ReviewOutcome) {
			assert.Check(t, is.Equal(string(out.Return), "## Verdict\nSHIP\ndone"))
		}},
		{name: "no session id: none is sent, no DELETE", fake: func(f *mcpFake) { f.sessionID = "" }, check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.DeepEqual(f.methods(), []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}))
			for _, h := range f.seen() {
				assert.Check(t, is.Equal(len(h.header.Values("Mcp-Session-Id")), 0))
			}
		}},
		{name: "a 405 to DELETE is fine", fake: func(f *mcpFake) { f.deleteStatus = http.StatusMethodNotAllowed }, check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.Equal(f.methods()[len(f.methods())-1], "DELETE"))
		}},
		{name: "a revision abcd speaks, older than it offered", fake: func(f *mcpFake) { f.version = "2025-06-18" }, check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			h, _ := f.call()
			assert.Check(t, is.Equal(h.header.Get("MCP-Protocol-Version"), "2025-06-18"))
		}},
		{name: "a slow server within the bounds", fake: slow(100*time.Millisecond, "tools/call")},
		{name: "an event stream resumed after the server closed it", fake: func(f *mcpFake) {
			f.override = func(w http.ResponseWriter, r *http.Request, m rpcReq) bool {
				if m.Method != "tools/call" {
					return false
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = fmt.Fprintf(w, "id: ev-1\nretry: 20\ndata: \n\n")
				return true // the stream ends here, before the answer
			}
			f.get = func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Last-Event-ID") != "ev-1" || r.Header.Get("Mcp-Session-Id") != "sess-1" {
					w.WriteHeader(http.StatusBadRequest)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "result": textResult(passText)})
				_, _ = fmt.Fprintf(w, "id: ev-2\ndata: %s\n\n", b)
			}
		}, check: func(t *testing.T, f *mcpFake, out ports.ReviewOutcome) {
			assert.Check(t, is.Equal(string(out.Return), passText))
			assert.Check(t, is.Contains(strings.Join(f.methods(), " "), "tools/call GET DELETE"))
		}},

		// absent and failed: nothing is dialled.
		{name: "no server named", cfg: func(c *Config, _ *mcpFake) { c.URL = "" }, reason: review.Absent, detail: "oracle.rp.url", check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.Len(f.seen(), 0))
		}},
		{name: "an address abcd does not admit", cfg: func(c *Config, f *mcpFake) { c.URL = strings.Replace(f.URL(), "127.0.0.1", "10.1.2.3", 1) }, reason: review.Failed, detail: "not an http(s) URL on this machine"},
		{name: "an empty request", empty: true, reason: review.Failed, detail: "empty", check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.Len(f.seen(), 0))
		}},
		{name: "a request that is not text", req: "\xff\xfe", reason: review.Failed, detail: "not UTF-8", check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.Len(f.seen(), 0))
		}},
		{name: "a request too large to send", req: strings.Repeat("a", MaxRequest+1), reason: review.Failed, detail: "more than"},
		{name: "a tool name abcd cannot send to", cfg: func(c *Config, _ *mcpFake) { c.Tool = "bad tool" }, reason: review.Failed, detail: "oracle.rp.tool"},

		// unreachable.
		{name: "the connection is refused", cfg: func(c *Config, f *mcpFake) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			assert.NilError(t, err)
			c.URL = "http://" + ln.Addr().String() + "/mcp"
			assert.NilError(t, ln.Close())
		}, reason: review.Unreachable, detail: "refused"},
		{name: "the server closes the connection before answering the call", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) { hijackClose(w) }),
			reason: review.Unreachable, detail: "closed the connection"},
		{name: "localhost resolves to no loopback address", cfg: func(c *Config, f *mcpFake) {
			c.URL = "http://localhost:" + f.port() + "/mcp"
			c.Resolver = fixedResolver{mustAddr(t, "10.0.0.7"), mustAddr(t, "2001:db8::1")}
		}, reason: review.Unreachable, detail: "no loopback address", check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.Len(f.seen(), 0), "nothing was dialled")
		}},
		{name: "an event stream closed before the answer with no id to resume by", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"))
		}), reason: review.Unreachable, detail: "no event ids"},
		{name: "an event stream the server does not resume", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("id: 1\nretry: 5\ndata: \n\n"))
		}), reason: review.Unreachable, detail: "did not resume it (HTTP 405)"},

		// timeout: the route's own bounds.
		{name: "the set-up takes longer than its bound", fake: slow(time.Second, "initialize"), cfg: func(c *Config, _ *mcpFake) { c.SetupTimeout = 100 * time.Millisecond },
			reason: review.Timeout, detail: "setting the session up"},
		{name: "the tool list takes longer than the set-up bound", fake: slow(time.Second, "tools/list"), cfg: func(c *Config, _ *mcpFake) { c.SetupTimeout = 150 * time.Millisecond },
			reason: review.Timeout, detail: "setting the session up"},
		{name: "the call takes longer than its bound", fake: slow(2*time.Second, "tools/call"), cfg: func(c *Config, _ *mcpFake) { c.CallTimeout = 150 * time.Millisecond },
			reason: review.Timeout, detail: "answering"},

		// interrupted: the caller's context.
		{name: "the person interrupts the step", fake: slow(2*time.Second, "tools/call"), ctx: func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(150*time.Millisecond, cancel)
			t.Cleanup(cancel)
			return ctx
		}, reason: review.Interrupted, detail: "interrupted", check: func(t *testing.T, f *mcpFake, _ ports.ReviewOutcome) {
			assert.Check(t, is.Equal(f.methods()[len(f.methods())-1], "DELETE"), "an interrupted review still ends its session")
		}},
		{name: "a host deadline shorter than the route's", fake: slow(2*time.Second, "tools/call"), ctx: func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, reason: review.Interrupted, detail: "deadline"},

		// refused.
		{name: "the server's JSON-RPC error", fake: on("tools/call", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32000,"message":"RepoPrompt is busy\nat http://127.0.0.1:1/x `+big+`"}}`)
		}), reason: review.Refused, detail: "error -32000 (\"RepoPrompt is busy at [address] xxx", check: func(t *testing.T, _ *mcpFake, out ports.ReviewOutcome) {
			assert.Check(t, !strings.Contains(out.FallbackDetail, big[:100]), "the server's text is clipped")
		}},
		{name: "the tool is not offered", fake: tools(oracleSend("chat_send", true)), reason: review.Refused, detail: "offers no tool oracle_send (it lists 1 tool)", check: noCall},
		{name: "the tool takes no message", fake: tools(map[string]any{"name": DefaultTool, "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"prompt": map[string]any{"type": "string"}}}}),
			reason: review.Refused, detail: "takes no message", check: noCall},
		{name: "the tool has no properties", fake: tools(map[string]any{"name": DefaultTool, "inputSchema": map[string]any{"type": "object"}}),
			reason: review.Refused, detail: "takes no message", check: noCall},
		{name: "the message is not a string", fake: tools(map[string]any{"name": DefaultTool, "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "array"}}}}),
			reason: review.Refused, detail: "not a string", check: noCall},
		{name: "the tool requires an argument abcd does not send", fake: tools(map[string]any{"name": DefaultTool, "inputSchema": map[string]any{"type": "object",
			"properties": map[string]any{"message": map[string]any{"type": "string"}, "model": map[string]any{"type": "string"}}, "required": []any{"message", "model"}}}),
			reason: review.Refused, detail: "does not send (model)", check: noCall},
		{name: "the tool's answer is an error", fake: func(f *mcpFake) {
			f.result = func(map[string]any) any { r := textResult("no workspace is open"); r["isError"] = true; return r }
		}, reason: review.Refused, detail: `answered with an error ("no workspace is open")`},
		{name: "a redirect is not followed", cfg: func(c *Config, f *mcpFake) {
			var elsewhere atomic.Int32
			other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
			t.Cleanup(other.Close)
			redirect := httptest.NewServer(http.RedirectHandler(other.URL+"/mcp", http.StatusTemporaryRedirect))
			t.Cleanup(redirect.Close)
			c.URL = redirect.URL + "/mcp"
			t.Cleanup(func() { assert.Check(t, is.Equal(elsewhere.Load(), int32(0)), "the redirect was followed") })
		}, reason: review.Refused, detail: "redirect"},
		{name: "an HTTP error status", fake: on("tools/list", func(w http.ResponseWriter, _ rpcReq) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal server error"}}`))
		}), reason: review.Refused, detail: "HTTP 500"},
		{name: "the server asks for authorization", fake: on("initialize", func(w http.ResponseWriter, _ rpcReq) { w.WriteHeader(http.StatusUnauthorized) }),
			reason: review.Refused, detail: "authorization"},
		{name: "the server forgets the session", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) { w.WriteHeader(http.StatusNotFound) }),
			reason: review.Refused, detail: "no longer knows this session"},
		{name: "a revision abcd does not speak", fake: func(f *mcpFake) { f.version = "2024-11-05" }, reason: review.Refused, detail: `revision "2024-11-05"`, check: noCall},
		{name: "a server that offers no tools", fake: on("tools/list", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
		}), reason: review.Refused, detail: "tools/list with error -32601"},

		// unparsable.
		{name: "an answer that is not JSON", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) { jsonBody(w, `{"jsonrpc":"2.0",`) }),
			reason: review.Unparsable, detail: "not a JSON-RPC message"},
		{name: "a key named twice", fake: on("tools/call", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[],"isError":false,"isError":true}}`)
		}), reason: review.Unparsable, detail: "not a JSON-RPC message"},
		{name: "a result in the wrong shape", fake: on("tools/call", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":[1,2]}`)
		}), reason: review.Unparsable, detail: "result is not an object"},
		{name: "a result without content", fake: func(f *mcpFake) { f.result = func(map[string]any) any { return map[string]any{"text": "SHIP"} } },
			reason: review.Unparsable, detail: "no content array"},
		{name: "isError that is not a boolean", fake: func(f *mcpFake) {
			f.result = func(map[string]any) any { r := textResult("x"); r["isError"] = "yes"; return r }
		}, reason: review.Unparsable, detail: "isError"},
		{name: "the response to another request", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":77,"result":{"content":[]}}`)
		}), reason: review.Unparsable, detail: "not the response to it"},
		{name: "content that is neither JSON nor a stream", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>SHIP</html>"))
		}), reason: review.Unparsable, detail: "neither JSON nor an event stream"},
		{name: "an event that is not JSON-RPC", fake: func(f *mcpFake) { f.sse = true; f.prelude = []string{"data: {\"oops\"\n\n"} },
			reason: review.Unparsable, detail: "not a JSON-RPC message"},
		{name: "a session id that is not visible ASCII", fake: func(f *mcpFake) { f.sessionID = "a b" }, reason: review.Unparsable, detail: "session id"},
		{name: "a notification answered with 202 to a request", fake: on("tools/list", func(w http.ResponseWriter, _ rpcReq) { w.WriteHeader(http.StatusAccepted) }),
			reason: review.Unparsable, detail: "HTTP 202 and no response"},
		{name: "initialize without a version", fake: on("initialize", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"capabilities":{}}}`)
		}), reason: review.Unparsable, detail: "names no protocol version"},

		// invalid.
		{name: "an answer larger than a return may be", fake: func(f *mcpFake) {
			f.result = func(map[string]any) any { return textResult(strings.Repeat("y", 1500)) }
		}, cfg: func(c *Config, _ *mcpFake) { c.MaxAnswer = 1024 }, reason: review.Invalid, detail: "larger than a return may be"},
		{name: "an answer larger than its wire bound", fake: func(f *mcpFake) {
			f.result = func(map[string]any) any { return textResult(strings.Repeat("\u0001", 400<<10)) }
		}, cfg: func(c *Config, _ *mcpFake) { c.MaxAnswer = 1024 }, reason: review.Invalid, detail: "bytes abcd reads for an answer"},
		{name: "an oversize event stream", fake: on("tools/call", func(w http.ResponseWriter, _ rpcReq) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(": " + strings.Repeat("z", 2<<20) + "\n\n"))
		}), cfg: func(c *Config, _ *mcpFake) { c.MaxAnswer = 1024 }, reason: review.Invalid, detail: "bytes abcd reads for an answer"},
		{name: "no text content", fake: func(f *mcpFake) {
			f.result = func(map[string]any) any {
				return map[string]any{"content": []any{map[string]any{"type": "image", "data": "AA==", "mimeType": "image/png"}}}
			}
		}, reason: review.Invalid, detail: "no text content"},
		{name: "empty text", fake: func(f *mcpFake) { f.result = func(map[string]any) any { return textResult("") } }, reason: review.Invalid, detail: "no text content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runFaultCase(t, c) })
	}
}
