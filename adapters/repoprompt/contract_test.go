package repoprompt

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

// The Validator port's contract, as ports/app/validator_test.go holds the loop to it with a fake,
// run against this adapter over real HTTP and only through the port: a route that answers gives the
// return bytes as the server wrote them (the loop verifies them, so an answer without a verdict is
// returned as it is and the loop records it invalid); every way it does not answer is exactly one
// fallback reason, with a detail that never quotes the address, and never an error.
func TestValidatorContract(t *testing.T) {
	short := Config{SetupTimeout: time.Second, CallTimeout: 200 * time.Millisecond, CloseTimeout: time.Second}
	answer := func(text string) func(f *mcpFake) {
		return func(f *mcpFake) { f.result = func(map[string]any) any { return textResult(text) } }
	}
	refusedPort := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		assert.NilError(t, err)
		defer ln.Close()
		return "http://" + ln.Addr().String() + "/mcp"
	}
	for _, c := range []struct {
		name   string
		server func(f *mcpFake)
		url    func(t *testing.T, f *mcpFake) string // nil: the fake's
		req    []byte
		ctx    func(t *testing.T) context.Context
		reason review.FallbackReason // "" when the route answers
		ret    string
	}{
		{name: "the route answers", server: answer("## Verdict\n\nSHIP\n\nNothing to fix.\n"), ret: "## Verdict\n\nSHIP\n\nNothing to fix.\n"},
		{name: "the answer has no verdict", server: answer("I liked it."), ret: "I liked it."},
		{name: "the route refuses", server: on("tools/call", func(w http.ResponseWriter, m rpcReq) {
			jsonBody(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32000,"message":"the server said no"}}`)
		}), reason: review.Refused},
		{name: "the route times out", server: slow(2*time.Second, "tools/call"), reason: review.Timeout},
		{name: "the route fails (the request cannot be composed)", req: []byte{0xff}, reason: review.Failed},
		{name: "no server named", url: func(*testing.T, *mcpFake) string { return "" }, reason: review.Absent},
		{name: "the server is not there", url: func(t *testing.T, _ *mcpFake) string { return refusedPort(t) }, reason: review.Unreachable},
		{name: "the answer is not the protocol's", server: on("tools/call", func(w http.ResponseWriter, _ rpcReq) { jsonBody(w, "SHIP") }), reason: review.Unparsable},
		{name: "the answer has no text", server: answer(""), reason: review.Invalid},
		{name: "the step is interrupted", server: slow(2*time.Second, "tools/call"), ctx: func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			t.Cleanup(cancel)
			return ctx
		}, reason: review.Interrupted},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.server)
			url := f.URL()
			if c.url != nil {
				url = c.url(t, f)
			}
			var v ports.Validator = Dialer{Base: short}.RP(url, "")
			assert.Check(t, is.Equal(v.Route(), "rp"))
			req := c.req
			if req == nil {
				req = []byte(request)
			}
			ctx := context.Background()
			if c.ctx != nil {
				ctx = c.ctx(t)
			}
			out, err := v.Review(ctx, ports.ReviewRequest{Run: "run-1", Lane: "lane-1", Role: "security-reviewer", Round: 1, Request: req})
			assert.NilError(t, err)
			if c.reason == "" {
				assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
				assert.Check(t, is.Equal(string(out.Return), c.ret))
				return
			}
			assert.Check(t, is.Equal(out.FallbackReason, string(c.reason)), out.FallbackDetail)
			assert.Check(t, is.Len(out.Return, 0))
			assert.Check(t, out.FallbackDetail != "")
			assertDetailSafe(t, out.FallbackDetail, f)
		})
	}
}
