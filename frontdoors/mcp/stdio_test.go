package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports"
)

// TestLinesLongerThan64KiBAreRead: a message is one line of up to 16 MiB; bufio.Scanner's 64 KiB
// default has broken MCP servers before. A valid 15 MiB message (whitespace is JSON) is answered.
func TestLinesLongerThan64KiBAreRead(t *testing.T) {
	s := mustServer(t)
	big := `{"jsonrpc":"2.0",` + strings.Repeat(" ", 15<<20) + `"id":"big","method":"tools/call","params":{"name":"schema_show","arguments":{"name":"refusal"}}}`
	mid := callLine("mid", "schema_show", map[string]any{"name": "refusal" + strings.Repeat(" ", 0)})
	mid = strings.Replace(mid, `"name":"schema_show"`, `"name":`+strings.Repeat(" ", 100<<10)+`"schema_show"`, 1)
	replies := exchange(t, s, initializeLine(0, Legacy20251125), big, mid, request("after", "ping", nil))
	for _, id := range []string{`"big"`, `"mid"`} {
		tr := decodeToolResult(t, byID(t, replies, id))
		assert.Check(t, !tr.IsError, id)
		assert.Check(t, is.Contains(string(tr.StructuredContent), `"name":"refusal"`))
	}
	assert.Check(t, is.Equal(string(byID(t, replies, `"after"`).Result), `{}`))
}

// TestALineOver16MiBIsRefusedAndTheServerServesOn: the line is read to its end and dropped without
// holding it, answered with the id its first bytes carry, and the next message is served.
func TestALineOver16MiBIsRefusedAndTheServerServesOn(t *testing.T) {
	s := mustServer(t)
	huge := `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"ahoy_install","arguments":{"yes":true,"pad":"` +
		strings.Repeat("x", 20<<20) + `"}}}`
	noID := `{"jsonrpc":"2.0","method":"tools/call","params":{"pad":"` + strings.Repeat("y", 17<<20) + `"},"id":"late"}`
	replies := exchange(t, s, initializeLine(0, Legacy20251125), huge, noID, request("after", "ping", nil))
	r := byID(t, replies, `"huge"`)
	assert.Assert(t, r.Error != nil)
	assert.Check(t, is.Equal(r.Error.Code, codeInvalidRequest))
	assert.Check(t, is.Contains(r.Error.Message, "16 MiB"))
	assert.Check(t, is.Equal(string(byID(t, replies, `"after"`).Result), `{}`))
	anonymous := 0
	for _, r := range replies {
		if r.ID == nil {
			anonymous++
		}
	}
	assert.Check(t, is.Equal(anonymous, 1), "an id past the first bytes cannot be read: %d", anonymous)
	assert.Check(t, is.Len(replies, 4))
}

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("a\r\n"+strings.Repeat("b", 100)+"\nc"), 16)
	line, _, long, err := readLine(r, 10)
	assert.Check(t, is.Equal(string(line), "a"))
	assert.Check(t, !long && err == nil)
	line, prefix, long, err := readLine(r, 10)
	assert.Check(t, long && err == nil && line == nil)
	assert.Check(t, is.Equal(string(prefix), strings.Repeat("b", 16)), "the prefix is what was read up to the limit")
	line, _, long, err = readLine(r, 10)
	assert.Check(t, is.Equal(string(line), "c"))
	assert.Check(t, !long && errors.Is(err, io.EOF))
	line, _, long, err = readLine(bufio.NewReader(strings.NewReader(strings.Repeat("z", 10)+"\n")), 10)
	assert.Check(t, is.Equal(len(line), 10), "a line of exactly the limit is read")
	assert.Check(t, !long && err == nil)
}

// blockingInspector holds status until its context ends or it is released.
type blockingInspector struct {
	started chan struct{}
	release chan struct{}
	ended   atomic.Int32
}

func (b *blockingInspector) Inspect(ctx context.Context) (ports.RepoFacts, error) {
	b.started <- struct{}{}
	defer b.ended.Add(1)
	select {
	case <-ctx.Done():
		return ports.RepoFacts{}, ctx.Err()
	case <-b.release:
		return testFacts, nil
	}
}

// TestCancelledRequestGetsNoResponse: notifications/cancelled stops a request in flight and no
// response is sent for it; other requests are answered meanwhile.
func TestCancelledRequestGetsNoResponse(t *testing.T) {
	a := testApp(t)
	insp := &blockingInspector{started: make(chan struct{}, 1), release: make(chan struct{})}
	a.Inspector = insp
	s, _ := newServer(t, a)
	ls := startLive(t, s)
	ls.send(initializeLine(0, Legacy20251125))
	r, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(r.ID), "0"))
	ls.send(callLine(7, "status", map[string]any{}))
	<-insp.started
	ls.send(request(8, "ping", nil))
	r, err = ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(r.ID), "8"), "ping is answered while status runs: %s", r.line)
	ls.send(notification("notifications/cancelled", map[string]any{"requestId": 7, "reason": "test"}))
	deadline := time.Now().Add(5 * time.Second)
	for insp.ended.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.Check(t, is.Equal(insp.ended.Load(), int32(1)), "the cancelled call's context ended")
	ls.in.Close()
	for {
		r, err := ls.next(5 * time.Second)
		if errors.Is(err, io.EOF) {
			break
		}
		assert.NilError(t, err)
		t.Errorf("no message may follow a cancelled request, got %s", r.line)
	}
	select {
	case err := <-ls.done:
		assert.NilError(t, err)
	case <-time.After(5 * time.Second):
		close(insp.release)
		t.Fatal("the server did not return after its input closed")
	}
}

// TestEndOfInputAnswersWhatWasRead: when stdin closes the server finishes the requests it read,
// answers them, and returns nil.
func TestEndOfInputAnswersWhatWasRead(t *testing.T) {
	a := testApp(t)
	insp := &blockingInspector{started: make(chan struct{}, 1), release: make(chan struct{})}
	a.Inspector = insp
	s, _ := newServer(t, a)
	var out bytes.Buffer
	done := make(chan error, 1)
	pr, pw := io.Pipe()
	go func() { done <- s.ServeStdio(context.Background(), pr, &out) }()
	_, _ = io.WriteString(pw, initializeLine(0, Legacy20251125)+"\n"+callLine(1, "status", map[string]any{})+"\n")
	<-insp.started
	pw.Close()
	select {
	case err := <-done:
		t.Fatalf("returned (%v) before the request in flight was answered", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(insp.release)
	select {
	case err := <-done:
		assert.NilError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("did not return after the last answer")
	}
	replies := parseReplies(t, out.String())
	assert.Check(t, !decodeToolResult(t, byID(t, replies, "1")).IsError)
}

type failingWriter struct{ n atomic.Int32 }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n.Add(1)
	return 0, errors.New("broken pipe")
}

// TestAClosedStdoutStopsTheServer: when the client stops reading, the server stops.
func TestAClosedStdoutStopsTheServer(t *testing.T) {
	s := mustServer(t)
	w := &failingWriter{}
	in := strings.NewReader(strings.Repeat(request(1, "ping", nil)+"\n", 1000))
	err := s.ServeStdio(context.Background(), in, w)
	assert.Check(t, is.ErrorContains(err, "broken pipe"))
	assert.Check(t, w.n.Load() < 100, "stopped soon after the first failed write: %d writes", w.n.Load())
}

func TestAnIDStillInFlightIsRefused(t *testing.T) {
	a := testApp(t)
	insp := &blockingInspector{started: make(chan struct{}, 1), release: make(chan struct{})}
	a.Inspector = insp
	s, _ := newServer(t, a)
	ls := startLive(t, s)
	ls.send(initializeLine(0, Legacy20251125))
	_, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	ls.send(callLine(7, "status", map[string]any{}))
	<-insp.started
	ls.send(request(7, "ping", nil))
	r, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Assert(t, r.Error != nil, r.line)
	assert.Check(t, is.Equal(r.Error.Code, codeInvalidRequest))
	close(insp.release)
	r, err = ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Check(t, r.Result != nil && string(r.ID) == "7", r.line)
}

// TestACancelledContextStopsTheServer: Ctrl-C (the context ending) stops a server whose input is
// still open, cancelling what runs.
func TestACancelledContextStopsTheServer(t *testing.T) {
	a := testApp(t)
	insp := &blockingInspector{started: make(chan struct{}, 1), release: make(chan struct{})}
	a.Inspector = insp
	s, _ := newServer(t, a)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, pr, io.Discard) }()
	_, _ = io.WriteString(pw, initializeLine(0, Legacy20251125)+"\n"+callLine(1, "status", map[string]any{})+"\n")
	<-insp.started
	cancel()
	select {
	case err := <-done:
		assert.NilError(t, err)
	case <-time.After(5 * time.Second):
		close(insp.release)
		t.Fatal("ServeStdio did not return after its context ended")
	}
	assert.Check(t, is.Equal(insp.ended.Load(), int32(1)), "the call in flight was cancelled")
}

// TestAMessageOfAMillionValuesIsRefused: "[0,0,0,...]" takes a hundred bytes or more per value once
// parsed (a 16 MiB line of it drove the server past 600 MiB); a message holds at most 100,000 values,
// refused at the bound with the bound named, and the server serves on.
func TestAMessageOfAMillionValuesIsRefused(t *testing.T) {
	s := mustServer(t)
	zeros := strings.Repeat("0,", 999_999) + "0"
	inArguments := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{"x":[` + zeros + `]}}}`
	inEnvelope := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x":[` + zeros + `]}}}`
	replies := exchange(t, s, initializeLine(0, Legacy20251125), inArguments, inEnvelope, request(3, "ping", nil))
	doc := refusalOf(t, byID(t, replies, "1"))
	assert.Check(t, is.Equal(doc["code"], "input_too_large"))
	assert.Check(t, is.Contains(doc["why"].(string), "more than 100000 values"))
	assert.Check(t, is.Contains(doc["remedy"].(string), "at most 100000 values"))
	r := byID(t, replies, "2")
	if assert.Check(t, r.Error != nil, r.line) {
		assert.Check(t, is.Equal(r.Error.Code, codeInvalidRequest))
		assert.Check(t, is.Contains(r.Error.Message, "more than 100000 values"))
	}
	assert.Check(t, is.Equal(string(byID(t, replies, "3").Result), `{}`), "the server serves on")
}

// TestAFullConnectionStillReads: with every slot taken by a call in progress and one more call
// waiting for a slot, the server still reads: a ping is answered, and notifications/cancelled
// frees the waiting call (it leaves without a response and never runs).
func TestAFullConnectionStillReads(t *testing.T) {
	a := testApp(t)
	insp := &blockingInspector{started: make(chan struct{}, maxInFlight+1), release: make(chan struct{})}
	a.Inspector = insp
	s, _ := newServer(t, a)
	ls := startLive(t, s)
	released := false
	defer func() {
		if !released {
			close(insp.release)
		}
	}()
	ls.send(initializeLine(0, Legacy20251125))
	_, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	for id := 1; id <= maxInFlight; id++ {
		ls.send(callLine(id, "status", map[string]any{}))
	}
	for range maxInFlight {
		select {
		case <-insp.started:
		case <-time.After(5 * time.Second):
			t.Fatal("the calls did not all start")
		}
	}
	waiting := maxInFlight + 1
	ls.sendWithin(callLine(waiting, "status", map[string]any{}), 5*time.Second)
	ls.sendWithin(request("ping", "ping", nil), 5*time.Second)
	r, err := ls.next(5 * time.Second)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(r.ID), `"ping"`), "ping is answered while %d calls run and one waits: %s", maxInFlight, r.line)

	ls.sendWithin(notification("notifications/cancelled", map[string]any{"requestId": waiting}), 5*time.Second)
	assert.Check(t, idFreed(t, ls, waiting, 5*time.Second), "the waiting call left when it was cancelled")
	assert.Check(t, is.Equal(insp.ended.Load(), int32(0)), "no running call was cancelled")

	close(insp.release)
	released = true
	seen := map[string]bool{}
	for range maxInFlight {
		r, err := ls.next(5 * time.Second)
		assert.NilError(t, err)
		assert.Check(t, r.Result != nil, r.line)
		seen[string(r.ID)] = true
	}
	assert.Check(t, is.Len(seen, maxInFlight))
	assert.Check(t, !seen[itoa(waiting)], "the cancelled call got no response")
	assert.Check(t, is.Len(insp.started, 0), "the cancelled call never ran")
}
