package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports/fake"
)

// gatedRecords holds a new record's write until its call is cancelled: the cancellation reaches the
// call just before the write begins (after false), or just after the write is made and before the
// verb returns (after true). A client's notifications/cancelled can land in either window; only an
// in-process store can hold the call there to make each one certain.
type gatedRecords struct {
	*fake.Records
	after   bool
	reached chan struct{}
}

func (g *gatedRecords) Create(ctx context.Context, p string, data []byte) (bool, error) {
	if g.after {
		created, err := g.Records.Create(ctx, p, data)
		close(g.reached)
		awaitCancel(ctx)
		return created, err
	}
	close(g.reached)
	awaitCancel(ctx)
	return g.Records.Create(ctx, p, data)
}

// awaitCancel waits for the call's cancellation; a door that never delivers it fails its test
// within a bound rather than holding the call for the server's whole call timeout.
func awaitCancel(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(15 * time.Second):
	}
}

// cancelledCapture runs a capture over stdio whose write the store holds, sends notifications/cancelled
// for it once the store holds it, then a ping; it returns the replies up to the end of the session
// and the record files before and after.
func cancelledCapture(t *testing.T, after bool) (replies []reply, before, then map[string][]byte) {
	a := testApp(t)
	recs, runs := fake.NewRecords(), fake.NewRuns()
	gated := &gatedRecords{Records: recs, after: after, reached: make(chan struct{})}
	a.Records, a.Runs, a.Journal = gated, runs, fake.NewJournal(recs, runs)
	a.Clock, a.Random = fake.Clock{T: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}, &fake.Random{}
	s, _ := newServer(t, a)
	ls := startLive(t, s)
	ls.send(initializeLine(0, Legacy20251125))
	r, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Assert(t, is.Equal(string(r.ID), "0"), r.line)
	before = maps.Clone(recs.Files)
	ls.send(callLine(7, "capture", map[string]any{"text": "It flickers on resize\n\nSeen twice."}))
	select {
	case <-gated.reached:
	case <-time.After(10 * time.Second):
		t.Fatal("the capture never reached its write")
	}
	ls.send(notification("notifications/cancelled", map[string]any{"requestId": 7, "reason": "the person pressed Esc"}))
	ls.send(request(8, "ping", nil))
	ls.in.Close()
	for {
		r, err := ls.next(10 * time.Second)
		if errors.Is(err, io.EOF) {
			break
		}
		assert.NilError(t, err)
		replies = append(replies, r)
	}
	select {
	case err := <-ls.done:
		assert.NilError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not return after its input closed")
	}
	return replies, before, recs.Files
}

// An MCP capture cancelled with notifications/cancelled before its write begins writes nothing, and
// gets no response; the server answers what follows.
func TestACaptureCancelledBeforeItsWriteWritesNothing(t *testing.T) {
	replies, before, then := cancelledCapture(t, false)
	assert.Check(t, is.DeepEqual(then, before), "nothing is written")
	assert.Assert(t, is.Len(replies, 1), "only the ping is answered: %v", lines(replies))
	assert.Check(t, is.Equal(string(replies[0].ID), "8"))
}

// An MCP capture cancelled with notifications/cancelled after its write is made is answered as
// written, and the issue it wrote is whole: the client learns what stands rather than calling again.
func TestACaptureCancelledAfterItsWriteIsAnsweredAsWritten(t *testing.T) {
	replies, before, then := cancelledCapture(t, true)
	assert.Assert(t, is.Len(replies, 2), "%v", lines(replies))
	tr := decodeToolResult(t, byID(t, replies, "7"))
	assert.Assert(t, !tr.IsError, string(tr.StructuredContent))
	var got struct {
		Record struct{ ID, Path string }
	}
	assert.NilError(t, json.Unmarshal(tr.StructuredContent, &got))
	added := map[string][]byte{}
	for p, data := range then {
		if _, ok := before[p]; !ok {
			added[p] = data
		}
	}
	assert.Assert(t, is.Len(added, 1), "one issue is written")
	for p, data := range added {
		assert.Check(t, strings.HasSuffix(got.Record.Path, p), "the answer names the file written: %s, %s", got.Record.Path, p)
		is, err := record.ParseIssue(p, data)
		assert.NilError(t, err, "the issue is whole")
		assert.Check(t, is.Front.ID == got.Record.ID)
		assert.Check(t, strings.Contains(string(data), "Seen twice."), "the issue holds its text:\n%s", data)
	}
}

// cancelledHTTPCapture is cancelledCapture over Streamable HTTP in a 2025 session: the capture's POST
// runs while the session's notifications/cancelled for its id is posted; it returns the capture's
// reply and the record files before and after.
func cancelledHTTPCapture(t *testing.T, after bool) (captured httpReply, before, then map[string][]byte) {
	a := testApp(t)
	recs, runs := fake.NewRecords(), fake.NewRuns()
	gated := &gatedRecords{Records: recs, after: after, reached: make(chan struct{})}
	a.Records, a.Runs, a.Journal = gated, runs, fake.NewJournal(recs, runs)
	a.Clock, a.Random = fake.Clock{T: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}, &fake.Random{}
	s, _ := newServer(t, a)
	h := startHTTP(t, s)
	init := h.post(initializeLine(1, Legacy20250618), nil)
	assert.Assert(t, is.Equal(init.status, 200), init.body)
	session := map[string]string{"Mcp-Session-Id": init.header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": Legacy20250618}
	assert.Assert(t, is.Equal(h.post(notification("notifications/initialized", nil), session).status, 202))
	before = maps.Clone(recs.Files)
	replied := make(chan httpReply, 1)
	go func() {
		replied <- h.post(callLine(7, "capture", map[string]any{"text": "It flickers on resize\n\nSeen twice."}), session)
	}()
	select {
	case <-gated.reached:
	case <-time.After(10 * time.Second):
		t.Fatal("the capture never reached its write")
	}
	cancelled := h.post(notification("notifications/cancelled", map[string]any{"requestId": 7, "reason": "the person pressed Esc"}), session)
	assert.Check(t, is.Equal(cancelled.status, 202), cancelled.body)
	select {
	case captured = <-replied:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled capture's POST was never answered")
	}
	return captured, before, recs.Files
}

// Over HTTP, a session's notifications/cancelled ends its call as over stdio: cancelled before its
// write, the capture writes nothing and its POST says it was interrupted.
func TestAnHTTPCaptureCancelledBeforeItsWriteWritesNothing(t *testing.T) {
	captured, before, then := cancelledHTTPCapture(t, false)
	assert.Check(t, is.DeepEqual(then, before), "nothing is written")
	assert.Check(t, is.Equal(captured.status, 200), captured.body)
	assert.Check(t, is.Equal(refusalOf(t, captured.message)["code"], "interrupted"))
}

// Cancelled after its write, the capture's POST is answered as written.
func TestAnHTTPCaptureCancelledAfterItsWriteIsAnsweredAsWritten(t *testing.T) {
	captured, before, then := cancelledHTTPCapture(t, true)
	tr := decodeToolResult(t, captured.message)
	assert.Assert(t, !tr.IsError, string(tr.StructuredContent))
	assert.Check(t, is.Equal(len(then), len(before)+1), "one issue is written")
}
