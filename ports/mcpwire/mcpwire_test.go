package mcpwire_test

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// The handshake's table, read from both ends: what a client offers, a server answers, and the
// client goes on with.
func TestNegotiationTable(t *testing.T) {
	assert.Check(t, is.Equal(mcpwire.Offer(), mcpwire.LegacyVersions()[0]), "a client offers the newest handshake revision")
	for _, c := range []struct {
		asked, answered string
	}{
		{mcpwire.Legacy20251125, mcpwire.Legacy20251125},
		{mcpwire.Legacy20250618, mcpwire.Legacy20250618},
		{"2025-03-26", mcpwire.Legacy20251125},
		{"2024-11-05", mcpwire.Legacy20251125},
		{mcpwire.Modern, mcpwire.Legacy20251125},
		{"", mcpwire.Legacy20251125},
	} {
		got := mcpwire.Negotiate(c.asked)
		assert.Check(t, is.Equal(got, c.answered), c.asked)
		assert.Check(t, mcpwire.Accept(got), "a client accepts every answer a server of ours gives: %s", got)
	}
	for _, v := range []string{"2025-03-26", "2024-11-05", mcpwire.Modern, "", "2025-11-25 "} {
		assert.Check(t, !mcpwire.Accept(v), "a client does not go on in %q", v)
	}
	assert.Check(t, is.DeepEqual(mcpwire.SupportedVersions(), []string{mcpwire.Modern, mcpwire.Legacy20251125, mcpwire.Legacy20250618}))
	assert.Check(t, mcpwire.NamesModernRevision("2027-01-01"))
	assert.Check(t, !mcpwire.NamesModernRevision(mcpwire.Legacy20251125))
}

var clientLimits = strictjson.Limits{MaxDepth: 64, MaxValues: 10_000}

func TestReplyReadsAResponseAsAClientMust(t *testing.T) {
	for _, c := range []struct {
		name, msg string
		result    bool
		code      int
		problem   string
	}{
		{"a result", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, true, 0, ""},
		{"an error", `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`, false, -32601, ""},
		{"both", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, false, 0, "both a result and an error"},
		{"a null result", `{"jsonrpc":"2.0","id":1,"result":null}`, false, 0, "result is not an object"},
		{"an array result", `{"jsonrpc":"2.0","id":1,"result":[]}`, false, 0, "result is not an object"},
		{"a string error", `{"jsonrpc":"2.0","id":1,"error":"bad"}`, false, 0, "error is not an object"},
		{"a fractional code", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, false, 0, "not an integer"},
		{"a huge code", `{"jsonrpc":"2.0","id":1,"error":{"code":99999999999,"message":"m"}}`, false, 0, "not an integer"},
		{"no message", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, false, 0, "has no message"},
		{"a request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, false, 0, "not a response"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _, perr := mcpwire.ParseMessage([]byte(c.msg), clientLimits)
			assert.Assert(t, perr == nil, "%v", perr)
			res, rerr, problem := m.Reply()
			if c.problem != "" {
				assert.Check(t, is.Contains(problem, c.problem))
				assert.Check(t, res == nil && rerr == nil)
				return
			}
			assert.Check(t, is.Equal(problem, ""))
			assert.Check(t, is.Equal(res != nil, c.result))
			if !c.result {
				assert.Assert(t, rerr != nil)
				assert.Check(t, is.Equal(rerr.Code, c.code))
			}
		})
	}
}

func TestParseMessageRefusesWhatIsNotOneMessage(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{},"result":{}}`, "twice"},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, "batches"},
		{`{"jsonrpc":"1.0","id":1,"result":{}}`, "jsonrpc must be"},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, "id must be"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}", "UTF-8"},
		{`{"jsonrpc":"2.0","id":1,"result":{}} x`, "Parse error"},
	} {
		_, _, perr := mcpwire.ParseMessage([]byte(c.msg), clientLimits)
		assert.Assert(t, perr != nil, c.msg)
		assert.Check(t, is.Contains(perr.Message, c.want), c.msg)
	}
}

func TestEncodeRequest(t *testing.T) {
	b, err := mcpwire.EncodeRequest(mcpwire.Request{ID: json.RawMessage("7"), Method: "tools/call",
		Params: mcpwire.CallToolParams{Name: "oracle_send", Arguments: map[string]any{"message": "<a & b>"}}})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(b), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"oracle_send","arguments":{"message":"<a & b>"}}}`))
	n, err := mcpwire.EncodeRequest(mcpwire.Request{Method: "notifications/initialized"})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(n), `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	assert.Check(t, is.Equal(string(mcpwire.EncodeOutbound(mcpwire.Outbound{ID: json.RawMessage("1"), Error: mcpwire.NewError(-32601, "no").WithStatus(404)})),
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`+"\n"), "the HTTP status is not part of the object")
}

// FuzzParseReply: whatever a peer sends, the reader and Reply never panic, and Reply gives exactly
// one of a result, an error or a problem.
func FuzzParseReply(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, perr := mcpwire.ParseMessage(data, clientLimits)
		if perr != nil {
			if m != nil || perr.Message == "" {
				t.Fatalf("a refusal with a message, or a message: %v %v", m, perr)
			}
			return
		}
		res, rerr, problem := m.Reply()
		n := 0
		for _, b := range []bool{res != nil, rerr != nil, problem != ""} {
			if b {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("Reply gave %d of result, error, problem for %q", n, data)
		}
		if !m.Response && !strings.Contains(problem, "not a response") {
			t.Fatalf("a request read as a response: %q", data)
		}
	})
}
