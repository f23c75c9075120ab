package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestHandshakeNegotiatesTheVersion: initialize answers the revision asked for when it is a
// handshake revision this server speaks, else the newest handshake revision.
func TestHandshakeNegotiatesTheVersion(t *testing.T) {
	for _, c := range []struct{ asked, want string }{
		{Legacy20250618, Legacy20250618},
		{Legacy20251125, Legacy20251125},
		{"2024-11-05", Legacy20251125},
		{"2025-03-26", Legacy20251125},
		{Modern, Legacy20251125},
		{"1900-01-01", Legacy20251125},
	} {
		replies := exchange(t, mustServer(t), initializeLine(1, c.asked))
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    struct {
				Tools     *struct{} `json:"tools"`
				Resources *struct{} `json:"resources"`
			} `json:"capabilities"`
			ServerInfo   struct{ Name, Version string } `json:"serverInfo"`
			Instructions string                         `json:"instructions"`
		}
		r := byID(t, replies, "1")
		assert.NilError(t, json.Unmarshal(r.Result, &res), r.line)
		assert.Check(t, is.Equal(res.ProtocolVersion, c.want), c.asked)
		assert.Check(t, res.Capabilities.Tools != nil && res.Capabilities.Resources != nil)
		assert.Check(t, is.Equal(res.ServerInfo.Name, "abcd"))
		assert.Check(t, is.Equal(res.ServerInfo.Version, "1.2.3"))
		assert.Check(t, res.Instructions != "")
		assert.Check(t, !strings.Contains(r.line, "resultType"), "a handshake-era result has no resultType: %s", r.line)
	}
}

func TestHandshakeEraRules(t *testing.T) {
	s := mustServer(t)
	replies := exchange(t, s,
		request("early", "tools/list", nil), // before initialize, without _meta
		request("early-prompts", "prompts/get", map[string]any{"name": "drive"}),
		request("p0", "ping", nil), // ping is allowed before initialize
		initializeLine(1, Legacy20250618),
		notification("notifications/initialized", nil),
		initializeLine(2, Legacy20250618), // once per connection
		request(3, "ping", nil),
		request(4, "server/discover", nil), // a 2026-07-28 method, not a handshake one
		request(5, "frobnicate", nil),
		request(6, "tools/list", map[string]any{"cursor": "abc"}),
		request(7, "tools/list", map[string]any{"_meta": map[string]any{"progressToken": 1}}),
	)
	early := byID(t, replies, `"early"`)
	assert.Assert(t, early.Error != nil)
	assert.Check(t, is.Equal(early.Error.Code, codeInvalidParams))
	assert.Check(t, is.Contains(early.Error.Message, "initialize first"))
	prompts := byID(t, replies, `"early-prompts"`)
	assert.Assert(t, prompts.Error != nil)
	assert.Check(t, is.Contains(prompts.Error.Message, "initialize first"), "the prompts are served methods too")
	assert.Check(t, is.Equal(string(byID(t, replies, `"p0"`).Result), `{}`))
	assert.Check(t, is.Equal(byID(t, replies, "2").Error.Code, codeInvalidRequest))
	assert.Check(t, is.Equal(string(byID(t, replies, "3").Result), `{}`), "ping answers an empty object")
	assert.Check(t, is.Equal(byID(t, replies, "4").Error.Code, codeMethodNotFound))
	assert.Check(t, is.Equal(byID(t, replies, "5").Error.Code, codeMethodNotFound))
	assert.Check(t, is.Equal(byID(t, replies, "6").Error.Code, codeInvalidParams), "no cursor was ever given out")
	assert.Check(t, byID(t, replies, "7").Result != nil, "a _meta without a protocol version is handshake traffic")
}

// TestModernEraRules: 2026-07-28 requests carry their version and capabilities, every result says
// resultType complete and who answered, list results carry caching hints, and the handshake methods
// are gone.
func TestModernEraRules(t *testing.T) {
	s := mustServer(t)
	replies := exchange(t, s,
		request(1, "server/discover", modernParams(nil)),
		request(2, "tools/list", modernParams(nil)),
		request(3, "tools/call", modernParams(map[string]any{"name": "version", "arguments": map[string]any{}})),
		request(4, "resources/list", modernParams(nil)),
		request(5, "resources/templates/list", modernParams(nil)),
		request(6, "resources/read", modernParams(map[string]any{"uri": "abcd://schemas/v1/refusal.schema.json"})),
		request(7, "initialize", map[string]any{"_meta": modernMeta(), "protocolVersion": Modern, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}}),
		request(8, "ping", modernParams(nil)),
		request(9, "logging/setLevel", modernParams(map[string]any{"level": "info"})),
		request(10, "completion/complete", modernParams(nil)),
	)
	type common struct {
		ResultType string `json:"resultType"`
		TTLMs      *int64 `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
		Meta       struct {
			ServerInfo *struct{ Name, Version string } `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	for _, id := range []string{"1", "2", "3", "4", "5", "6"} {
		r := byID(t, replies, id)
		var c common
		assert.NilError(t, json.Unmarshal(r.Result, &c), r.line)
		assert.Check(t, is.Equal(c.ResultType, "complete"), r.line)
		assert.Assert(t, c.Meta.ServerInfo != nil, r.line)
		assert.Check(t, is.Equal(c.Meta.ServerInfo.Name, "abcd"))
		if id == "3" {
			assert.Check(t, c.TTLMs == nil && c.CacheScope == "", "a tool result is not cacheable: %s", r.line)
			continue
		}
		assert.Assert(t, c.TTLMs != nil, "cacheable result without ttlMs: %s", r.line)
		assert.Check(t, *c.TTLMs >= 0)
		assert.Check(t, is.Equal(c.CacheScope, "public"))
	}
	var disc struct {
		SupportedVersions []string       `json:"supportedVersions"`
		Capabilities      map[string]any `json:"capabilities"`
	}
	assert.NilError(t, json.Unmarshal(byID(t, replies, "1").Result, &disc))
	assert.Check(t, is.DeepEqual(disc.SupportedVersions, []string{Modern, Legacy20251125, Legacy20250618}))
	assert.Check(t, disc.Capabilities["tools"] != nil)
	for _, id := range []string{"7", "8", "9", "10"} {
		r := byID(t, replies, id)
		assert.Assert(t, r.Error != nil, r.line)
		assert.Check(t, is.Equal(r.Error.Code, codeMethodNotFound), r.line)
	}
}

func TestModernEnvelopeIsChecked(t *testing.T) {
	meta := func(edit func(m map[string]any)) map[string]any {
		m := modernMeta()
		edit(m)
		return map[string]any{"_meta": m}
	}
	s := mustServer(t)
	replies := exchange(t, s,
		request(1, "tools/list", meta(func(m map[string]any) { delete(m, metaClientCapabilities) })),
		request(2, "tools/list", meta(func(m map[string]any) { m[metaClientCapabilities] = []any{} })),
		request(3, "tools/list", meta(func(m map[string]any) { m[metaProtocolVersion] = 20260728 })),
		request(4, "tools/list", meta(func(m map[string]any) { m[metaClientInfo] = map[string]any{"name": "x"} })),
		request(5, "tools/list", meta(func(m map[string]any) { delete(m, metaClientInfo) })),
		request(6, "tools/list", meta(func(m map[string]any) { m[metaProtocolVersion] = "1900-01-01" })),
		request(7, "tools/list", meta(func(m map[string]any) { m[metaProtocolVersion] = Legacy20251125 })),
		request(8, "tools/list", meta(func(m map[string]any) { m[metaProtocolVersion] = "2027-01-01" })),
	)
	for _, id := range []string{"1", "2", "3", "4"} {
		r := byID(t, replies, id)
		assert.Assert(t, r.Error != nil, r.line)
		assert.Check(t, is.Equal(r.Error.Code, codeInvalidParams), r.line)
	}
	assert.Check(t, byID(t, replies, "5").Result != nil, "clientInfo is optional")
	for _, c := range []struct{ id, requested string }{{"6", "1900-01-01"}, {"7", Legacy20251125}, {"8", "2027-01-01"}} {
		r := byID(t, replies, c.id)
		assert.Assert(t, r.Error != nil, r.line)
		assert.Check(t, is.Equal(r.Error.Code, codeUnsupportedVersion), r.line)
		var data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		assert.NilError(t, json.Unmarshal(r.Error.Data, &data))
		assert.Check(t, is.DeepEqual(data.Supported, SupportedVersions()))
		assert.Check(t, is.Equal(data.Requested, c.requested))
	}
}

// TestMalformedMessagesAreAnsweredPerSpec: parse errors, invalid requests, batches and
// notifications-with-ids each get the JSON-RPC answer they should, with the id when it can be read
// and without one (never null) when it cannot.
func TestMalformedMessagesAreAnsweredPerSpec(t *testing.T) {
	s := mustServer(t)
	replies := exchange(t, s,
		initializeLine(0, Legacy20251125),
		`{"jsonrpc":"2.0","id":1,"method":"ping"`,               // truncated
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"p\xffng\"}", // invalid UTF-8
		`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":6,"method":7}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}`,
		`[{"jsonrpc":"2.0","id":9,"method":"ping"}]`,
		`[]`,
		`"just a string"`,
		`{"jsonrpc":"2.0","id":12,"method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":13,"id":14,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":15,"result":{}}`,                                              // a response: this server sends no requests
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"version","arguments":{}}}`, // a notification: never answered
		`{"jsonrpc":"2.0","id":"s-16","method":"ping"}`,
		`   `,
		`{"jsonrpc":"2.0","id":17,"method":"ping"} trailing`,
	)
	noID := func(r reply) bool { return r.ID == nil }
	count := func(code int) int {
		n := 0
		for _, r := range replies {
			if r.Error != nil && r.Error.Code == code && noID(r) {
				n++
			}
		}
		return n
	}
	assert.Check(t, is.Equal(count(codeParseError), 2), "truncated and trailing content: %v", lines(replies))
	assert.Check(t, is.Equal(byID(t, replies, "2").Error.Code, codeParseError), "invalid UTF-8, id recovered")
	assert.Check(t, is.Equal(byID(t, replies, "3").Error.Code, codeInvalidRequest))
	assert.Check(t, is.Equal(byID(t, replies, "6").Error.Code, codeInvalidRequest))
	assert.Check(t, is.Equal(byID(t, replies, "7").Error.Code, codeInvalidParams))
	assert.Check(t, is.Equal(byID(t, replies, "8").Error.Code, codeInvalidRequest))
	// null id, object id, two batches, a bare string and a key named twice: no id can be trusted.
	assert.Check(t, is.Equal(count(codeInvalidRequest), 6), "%v", lines(replies))
	assert.Check(t, is.Equal(byID(t, replies, "12").Error.Code, codeMethodNotFound))
	assert.Check(t, is.Contains(byID(t, replies, "12").Error.Message, "send it without an id"))
	assert.Check(t, is.Equal(string(byID(t, replies, `"s-16"`).Result), `{}`))
	for _, r := range replies {
		assert.Check(t, !strings.Contains(r.line, `"id":null`), "an unknown id is left out, never null: %s", r.line)
		assert.Check(t, string(r.ID) != "15", "a response is never answered")
	}
	// One reply per line but the response (15), the notification and the blank line.
	assert.Check(t, is.Len(replies, 16), "%v", lines(replies))
}

// TestADuplicateAroundBadArgumentsIsStillRefused: arguments that break a strictness rule are the
// tool's to refuse, but the envelope around them is still read strictly.
func TestADuplicateAroundBadArgumentsIsStillRefused(t *testing.T) {
	s := mustServer(t)
	replies := exchange(t, s, initializeLine(0, Legacy20251125),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"version","arguments":{"a":1,"a":2}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"version","arguments":{"a":1,"a":2}},"id":3}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"version","arguments":{"a":1,"a":2},"name":"status"}}`,
	)
	assert.Check(t, is.Equal(refusalOf(t, byID(t, replies, "1"))["code"], "input_invalid"))
	anonymous := 0
	for _, r := range replies {
		if r.ID == nil {
			assert.Check(t, is.Equal(r.Error.Code, codeInvalidRequest), r.line)
			anonymous++
		}
	}
	assert.Check(t, is.Equal(anonymous, 2), "%v", lines(replies))
}

// FuzzServeLine: whatever one line holds, the server answers with JSON-RPC responses only (at most
// one), never panics, never answers with a null id, and keeps serving.
func FuzzServeLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"version","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"implement_run","arguments":{"spec":"first"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"6f1c1c3e-0000-4000-8000-000000000000","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"schema_show","arguments":{"name":"refusal"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ahoy_install","arguments":{"yes":true,"yes":false}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"p\xffng\"}",
		`{"jsonrpc":"2.0","id":null}`, `{}`, `null`, `"`, `{"id":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	s, _ := newServer(f, testApp(f))
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.ReplaceAll(line, []byte("\n"), []byte(" "))
		var out bytes.Buffer
		in := string(line) + "\n" + `{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n"
		if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		replies := parseReplies(t, out.String())
		if len(replies) < 1 || len(replies) > 2 {
			t.Fatalf("want the answer to the line (if any) and to the ping, got %v", lines(replies))
		}
		if string(replies[len(replies)-1].ID) != `"after"` && string(replies[0].ID) != `"after"` {
			t.Fatalf("the server stopped serving: %v", lines(replies))
		}
		for _, r := range replies {
			if strings.Contains(r.line, `"id":null`) {
				t.Fatalf("a null id: %s", r.line)
			}
		}
	})
}
