package repoprompt

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

func manyTools(n int) []any {
	var out []any
	for i := range n {
		out = append(out, oracleSend(fmt.Sprintf("tool_%d", i), false))
	}
	return append(out, oracleSend(DefaultTool, false))
}

// The catalog is untrusted input: each bound is its own typed refusal, before any call.
func TestCatalogBounds(t *testing.T) {
	small := CatalogLimits{Tools: 4, NameBytes: 16, Definition: 1024, Catalog: 8 << 10, Pages: 3}
	withLimits := func(c *Config, _ *mcpFake) { c.Catalog = small }
	cases := []faultCase{
		{name: "within every bound", fake: tools(manyTools(3)...), cfg: withLimits},
		{name: "too many tools", fake: tools(manyTools(4)...), cfg: withLimits, reason: review.Refused, detail: "more than the 4 tools"},
		{name: "too many tools over pages", fake: func(f *mcpFake) { f.pages = [][]any{manyTools(2), manyTools(2)} }, cfg: withLimits,
			reason: review.Refused, detail: "more than the 4 tools"},
		{name: "a name too long", fake: tools(oracleSend(strings.Repeat("n", 17), false), oracleSend(DefaultTool, false)), cfg: withLimits,
			reason: review.Refused, detail: "a tool in 17 bytes, more than the 16"},
		{name: "a definition too large", fake: tools(map[string]any{"name": "big", "description": strings.Repeat("d", 1100), "inputSchema": map[string]any{"type": "object"}},
			oracleSend(DefaultTool, false)), cfg: withLimits, reason: review.Refused, detail: "definition in the server's catalog is more than the 1024 bytes"},
		{name: "a catalog too large", fake: func(f *mcpFake) {
			var page []any
			for i := range 3 {
				page = append(page, map[string]any{"name": fmt.Sprintf("t%d", i), "description": strings.Repeat("d", 900), "inputSchema": map[string]any{"type": "object"}})
			}
			f.pages = [][]any{page, page, page, {oracleSend(DefaultTool, false)}}
		}, cfg: func(c *Config, _ *mcpFake) { c.Catalog = small; c.Catalog.Tools = 100; c.Catalog.Pages = 10 },
			reason: review.Refused, detail: "catalog is larger than the 8192 bytes"},
		{name: "too many pages", fake: func(f *mcpFake) {
			f.pages = [][]any{{oracleSend("a", false)}, {oracleSend("b", false)}, {oracleSend("c", false)}, {oracleSend(DefaultTool, false)}}
		}, cfg: withLimits, reason: review.Refused, detail: "past 3 pages"},
		{name: "pages that loop", fake: on("tools/list", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[],"nextCursor":"again"}}`)
		}), reason: review.Unparsable, detail: "already gave"},
		{name: "a nextCursor that is not a string", fake: on("tools/list", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[],"nextCursor":7}}`)
		}), reason: review.Unparsable, detail: "nextCursor"},
		{name: "no tools array", fake: on("tools/list", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":{}}}`)
		}), reason: review.Unparsable, detail: "no tools array"},
		{name: "a tool without a name", fake: tools(map[string]any{"inputSchema": map[string]any{"type": "object"}}), reason: review.Unparsable, detail: "has no name"},
		{name: "a tool that is not an object", fake: tools("oracle_send"), reason: review.Unparsable, detail: "not an object"},
		{name: "the tool listed twice", fake: tools(oracleSend(DefaultTool, false), oracleSend(DefaultTool, true)), reason: review.Unparsable, detail: "more than once", check: noCall},
		{name: "the tool without an input schema", fake: tools(map[string]any{"name": DefaultTool}), reason: review.Unparsable, detail: "no input schema", check: noCall},
		{name: "an input schema that is not an object's", fake: tools(map[string]any{"name": DefaultTool, "inputSchema": map[string]any{"type": "string"}}),
			reason: review.Unparsable, detail: "not an object's", check: noCall},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runFaultCase(t, c) })
	}
}

// Each catalog bound is its own typed refusal, seen where the session is opened.
func TestCatalogRefusalsAreTyped(t *testing.T) {
	small := CatalogLimits{Tools: 4, NameBytes: 16, Definition: 1024, Catalog: 8 << 10, Pages: 3}
	big := map[string]any{"name": "big", "description": strings.Repeat("d", 3000), "inputSchema": map[string]any{"type": "object"}}
	for _, c := range []struct {
		pages [][]any
		want  CatalogBound
	}{
		{[][]any{manyTools(4)}, BoundTools},
		{[][]any{{oracleSend(strings.Repeat("n", 17), false)}}, BoundName},
		{[][]any{{big}}, BoundDefinition},
		{[][]any{{oracleSend("a", false)}, {oracleSend("b", false)}, {oracleSend("c", false)}, {oracleSend("d", false)}}, BoundPages},
	} {
		f := newFake(t, func(f *mcpFake) { f.pages = c.pages })
		cfg := testConfig(f.URL())
		cfg.Catalog = small
		if c.want == BoundDefinition {
			cfg.Catalog.Definition = 2048
		}
		_, fl := New(cfg).Open(t.Context())
		assert.Assert(t, fl != nil)
		assert.Check(t, is.Equal(fl.Bound, c.want), fl.Detail)
		assert.Check(t, is.Equal(fl.Reason, review.Refused))
	}
	f := newFake(t, func(f *mcpFake) { f.pages = [][]any{{big, big, big}} })
	cfg := testConfig(f.URL())
	cfg.Catalog = small
	cfg.Catalog.Definition = 1 << 20
	_, fl := New(cfg).Open(t.Context())
	assert.Assert(t, fl != nil)
	assert.Check(t, is.Equal(fl.Bound, BoundCatalog), fl.Detail)
	s, fl := New(testConfig(f.URL())).Open(t.Context())
	assert.Assert(t, fl == nil, "within the default bounds: %v", fl)
	s.Close(t.Context())
}

// The address is dialled only at a loopback address, whatever the name resolves to.
func TestOnlyLoopbackIsDialled(t *testing.T) {
	f := newFake(t, nil)
	cfg := testConfig("http://localhost:" + f.port() + "/mcp")
	cfg.Resolver = fixedResolver{mustAddr(t, "10.0.0.7"), mustAddr(t, "::ffff:127.0.0.1")}
	out, err := New(cfg).Review(t.Context(), ports.ReviewRequest{Request: []byte(request)})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(out.Return), passText), "the loopback address among the answers is dialled: %s", out.FallbackDetail)

	d := loopbackDialer{resolver: fixedResolver{mustAddr(t, "192.168.1.2"), mustAddr(t, "fe80::1")}}
	_, err = d.DialContext(t.Context(), "tcp", "localhost:"+f.port())
	assert.Check(t, is.ErrorIs(err, errNotLoopback))
	_, err = d.DialContext(t.Context(), "tcp", "10.0.0.1:80")
	assert.Check(t, is.ErrorIs(err, errNotLoopback), "an address literal is checked too")
}

// No proxy, whatever the environment says: the request reaches the server directly. The route is
// pointed at a name (not localhost, which Go never proxies anyway), so a client that read the proxy
// variables would send it to the proxy.
func TestProxyVariablesAreIgnored(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		proxied.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	}))
	t.Cleanup(proxy.Close)
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"} {
		t.Setenv(k, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	f := newFake(t, nil)
	c := New(testConfig(f.URL()))
	c.endpoint.Host = "rp.review.test:" + f.port() // a name the proxy variables would send to the proxy
	c.cfg.Resolver = fixedResolver{mustAddr(t, "127.0.0.1")}
	out, err := c.Review(t.Context(), ports.ReviewRequest{Request: []byte(request)})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(out.Return), passText), "detail: %s", out.FallbackDetail)
	assert.Check(t, is.Equal(proxied.Load(), int32(0)), "the proxy was used")
	_, tr := newHTTP(c.cfg)
	assert.Check(t, tr.Proxy == nil)
}

// Two reviews at once each open their own session.
func TestConcurrentReviews(t *testing.T) {
	f := newFake(t, nil)
	v := Dialer{Base: testConfig("")}.RP(f.URL(), "")
	assert.Check(t, is.Equal(v.Route(), "rp"))
	errs := make(chan string, 2)
	for range 2 {
		go func() {
			out, err := v.Review(t.Context(), ports.ReviewRequest{Request: []byte(request)})
			if err != nil || string(out.Return) != passText {
				errs <- fmt.Sprintf("%v %s", err, out.FallbackDetail)
				return
			}
			errs <- ""
		}()
	}
	for range 2 {
		assert.Check(t, is.Equal(<-errs, ""))
	}
	n := 0
	for _, m := range f.methods() {
		if m == "initialize" {
			n++
		}
	}
	assert.Check(t, is.Equal(n, 2))
}
