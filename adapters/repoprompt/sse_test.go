package repoprompt

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/review"
)

func readAll(t *testing.T, stream string) ([]event, *sseReader) {
	t.Helper()
	rd := newSSEReader(strings.NewReader(stream))
	var out []event
	for {
		ev, err := rd.next()
		if errors.Is(err, io.EOF) {
			return out, rd
		}
		assert.NilError(t, err)
		out = append(out, ev)
	}
}

// The event-stream format as the HTML standard parses it.
func TestEventStreamFormat(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		want         []event
		lastID       string
		retry        time.Duration
	}{
		{"one event", "data: {}\n\n", []event{{data: "{}"}}, "", 0},
		{"data lines join with LF", "data: a\ndata:b\ndata:  c\n\n", []event{{data: "a\nb\n c"}}, "", 0},
		{"CRLF and lone CR end lines", "event: message\r\ndata: x\r\rdata: y\r\n\r\n", []event{{typ: "message", data: "x"}, {data: "y"}}, "", 0},
		{"comments and unknown fields", ": hi\nfoo: bar\ndata: z\n\n", []event{{data: "z"}}, "", 0},
		{"a field with no colon", "data\n\n", []event{{data: ""}}, "", 0},
		{"a blank line with no data dispatches nothing", "\n\nid: 7\n\n", nil, "7", 0},
		{"the id counts once its event is dispatched", "id: 1\ndata: a\n\nid: 2\ndata: b", []event{{data: "a"}}, "1", 0},
		{"an id with a NUL is ignored", "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n", []event{{data: "a"}, {data: "b"}}, "1", 0},
		{"retry in digits", "retry: 250\ndata: a\n\nretry: 1s\n\n", []event{{data: "a"}}, "", 250 * time.Millisecond},
		{"a BOM first is skipped", "\uFEFFdata: a\n\n", []event{{data: "a"}}, "", 0},
		{"an event the stream ends inside is dropped", "data: a\n\ndata: b\n", []event{{data: "a"}}, "", 0},
		{"a long line", "data: " + strings.Repeat("q", 100<<10) + "\n\n", []event{{data: strings.Repeat("q", 100<<10)}}, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, rd := readAll(t, c.stream)
			assert.Check(t, is.DeepEqual(got, c.want, cmp.AllowUnexported(event{})))
			assert.Check(t, is.Equal(rd.lastID, c.lastID))
			assert.Check(t, is.Equal(rd.retry, c.retry))
		})
	}
}

// FuzzEventStream: whatever a server streams, the reader never panics, reads no more than it is
// allowed, and every event it dispatches came from data lines of the stream.
func FuzzEventStream(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "id: 1\nretry: 5\ndata: \n\n", "data: a\r\rdata: b\r\n\r\n", ":x\n\nevent: e\ndata:\n\n", "\uFEFFdata: \x00\n\n"} {
		f.Add([]byte(s), uint16(64))
	}
	f.Fuzz(func(t *testing.T, stream []byte, limit uint16) {
		b := &budget{left: int64(limit)}
		rd := newSSEReader(&counting{r: strings.NewReader(string(stream)), b: b})
		for range len(stream) + 1 {
			ev, err := rd.next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, errTooBig) {
					t.Fatalf("unexpected error %v", err)
				}
				if errors.Is(err, errTooBig) && len(stream) <= int(limit) {
					t.Fatalf("a stream of %d bytes is beyond a bound of %d", len(stream), limit)
				}
				return
			}
			if len(ev.data) > len(stream) {
				t.Fatalf("an event longer than its stream")
			}
			for _, line := range strings.Split(ev.data, "\n") {
				if line != "" && !strings.Contains(string(stream), line) {
					t.Fatalf("event data %q is not in the stream", line)
				}
			}
		}
		t.Fatalf("more events than bytes")
	})
}

// FuzzAnswer: whatever a server answers a call with, reading it never panics, and either gives
// text within the bound or a fault with one of the reasons and a detail the receipt admits.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"## Verdict\n\nSHIP"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"isError":true}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image"}]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"see http://127.0.0.1:8765/"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":{}}}`,
	} {
		f.Add([]byte(s))
	}
	c := New(Config{URL: "http://127.0.0.1:8765/mcp", MaxAnswer: 64})
	valid := map[review.FallbackReason]bool{}
	for _, r := range review.FallbackReasons() {
		valid[r] = true
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, fl := parseAnswer(data, "tools/call")
		if fl == nil {
			res, rerr, problem := m.Reply()
			switch {
			case problem != "":
				return
			case rerr != nil:
				fl = faultf(review.Refused, "the server answered with error %d%s", rerr.Code, c.excerpt(rerr.Message))
			default:
				out, f2 := c.readCallResult(res)
				if f2 == nil {
					if len(out.Text) > 64 {
						t.Fatalf("an answer of %d bytes past a bound of 64", len(out.Text))
					}
					return
				}
				fl = f2
			}
		}
		if !valid[fl.Reason] {
			t.Fatalf("reason %q", fl.Reason)
		}
		o := fl.outcome()
		if strings.Contains(o.FallbackDetail, "8765") || strings.Contains(o.FallbackDetail, "127.0.0.1") {
			t.Fatalf("the detail quotes the address: %s", o.FallbackDetail)
		}
		rec := review.FallbackReceipt{At: "2026-01-02T15:04:05Z", Run: "r", Lane: "l", Role: review.Ruthless, Asked: "rp", Reason: fl.Reason, Detail: o.FallbackDetail, Ran: "host"}
		if err := rec.Check(); err != nil {
			t.Fatalf("the receipt refuses the detail: %v", err)
		}
	})
}
