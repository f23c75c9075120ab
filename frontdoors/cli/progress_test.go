package cli

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports"
)

// Off a terminal, progress is one line an event on stderr, and events without words say nothing.
func TestProgressIsOneLineAnEventOffATerminal(t *testing.T) {
	var errOut strings.Builder
	p := NewProgress(&IO{Err: &errOut})
	p.Event(ports.ProgressEvent{Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "started", Text: "lane-1 implementer: cc takes the step (round 0)"})
	p.Event(ports.ProgressEvent{Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "answered"})
	p.Event(ports.ProgressEvent{Kind: "done", Text: "run run-1: finished"})
	p.Done()
	assert.Check(t, is.Equal(errOut.String(), "abcd: lane-1 implementer: cc takes the step (round 0)\nabcd: run run-1: finished\n"))
}

// On a terminal, a live line below the event lines names each step a route is taking and for how
// long; it is taken away before each event line and when the run ends, and never wraps.
func TestProgressKeepsALiveLineOnATerminal(t *testing.T) {
	var errOut strings.Builder
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p := NewProgress(&IO{Err: &errOut, ErrTTY: true})
	p.now = func() time.Time { return now }
	p.every = time.Hour // no redraw of its own between the test's events
	p.Event(ports.ProgressEvent{Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "started", Text: "lane-1 implementer: cc takes the step (round 0)"})
	now = now.Add(90 * time.Second)
	p.Event(ports.ProgressEvent{Lane: "lane-2", Role: "implementer", Route: "cc", Kind: "waiting", Text: "lane-2 implementer: waiting for one of runner cc's 1 slot"})
	assert.Check(t, is.Equal(errOut.String(), "abcd: lane-1 implementer: cc takes the step (round 0)\n"+
		"running 1: lane-1 implementer on cc 0s"+
		"\r\x1b[K"+"abcd: lane-2 implementer: waiting for one of runner cc's 1 slot\n"+
		"running 2: lane-1 implementer on cc 1m30s; lane-2 implementer on cc (waiting for a slot) 0s"))
	errOut.Reset()
	p.Event(ports.ProgressEvent{Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "answered"})
	assert.Check(t, is.Equal(errOut.String(), "\r\x1b[Krunning 1: lane-2 implementer on cc (waiting for a slot) 0s"), "a step that ends leaves the live line")
	errOut.Reset()
	for i := range 8 {
		lane := "lane-" + strings.Repeat("9", i+3)
		p.Event(ports.ProgressEvent{Lane: lane, Role: "security-reviewer", Route: "a-long-runner-name", Kind: "started"})
	}
	last := errOut.String()[strings.LastIndex(errOut.String(), "\x1b[K")+3:]
	assert.Check(t, is.Equal(len([]rune(last)), liveWidth), "the live line is cut to %d characters: %q", liveWidth, last)
	assert.Check(t, strings.HasSuffix(last, "…"))
	errOut.Reset()
	p.Event(ports.ProgressEvent{Kind: "done", Text: "run run-1: finished"})
	p.Done()
	assert.Check(t, is.Equal(errOut.String(), "\r\x1b[Kabcd: run run-1: finished\n"), "the live line goes with the run")
}

// The bell rings only where stderr is a terminal: never into a pipe or a file.
func TestTheBellRingsOnlyOnATerminal(t *testing.T) {
	var tty, pipe strings.Builder
	NewProgress(&IO{Err: &tty, ErrTTY: true}).Event(ports.ProgressEvent{Run: "run-1", Kind: "bell"})
	NewProgress(&IO{Err: &pipe}).Event(ports.ProgressEvent{Run: "run-1", Kind: "bell"})
	assert.Check(t, is.Equal(tty.String(), "\a"))
	assert.Check(t, is.Equal(pipe.String(), ""))
}
