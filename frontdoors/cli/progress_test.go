package cli

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// Off a terminal, progress is one line an event on stderr, and events without words say nothing;
// whatever an event's text holds, not one escape byte is written.
func TestProgressIsOneLineAnEventOffATerminal(t *testing.T) {
	var errOut strings.Builder
	p := NewProgress(&IO{Err: &errOut})
	for _, ev := range boardScript() {
		p.Event(ev.ProgressEvent)
	}
	p.Done()
	assert.Check(t, !strings.ContainsRune(errOut.String(), '\x1b'), "%q", errOut.String())
	golden.Assert(t, errOut.String(), "progress-plain.golden")
	errOut.Reset()
	p.Event(ports.ProgressEvent{Lane: "lane-1", Role: "implementer", Kind: "doing", Text: "lane-1 implementer: cc: \x1b[2J\x1b]0;pwned\x07cleared\r\nnext"})
	assert.Check(t, is.Equal(errOut.String(), "abcd: lane-1 implementer: cc:  [2J ]0;pwned cleared  next\n"), "an agent's escape is not the terminal's")
}

// timedEvent is an event of the script and how long after the one before it came.
type timedEvent struct {
	after time.Duration
	ports.ProgressEvent
}

// boardScript is a three-lane run, the third after the other two, on runners cc (the implementer's)
// and rv (the reviewers'): its events as the loop sends them.
func boardScript() []timedEvent {
	ev := func(after time.Duration, lane, role, route, kind, text string) timedEvent {
		return timedEvent{after, ports.ProgressEvent{Run: "run-1", Lane: lane, Role: role, Route: route, Kind: kind, Text: text}}
	}
	answered := func(after time.Duration, lane, role, route string, usd float64, cost runner.CostSource) timedEvent {
		e := ev(after, lane, role, route, "answered", "")
		e.USD, e.Cost = usd, cost
		return e
	}
	did := func(after time.Duration, text string, done int) timedEvent {
		return timedEvent{after, ports.ProgressEvent{Run: "run-1", Kind: "did", Text: text, Done: done, Total: 4}}
	}
	return []timedEvent{
		{0, ports.ProgressEvent{Run: "run-1", Kind: "did", Text: "started run run-1 for spec-1"}},
		did(0, "lane-1: opened its worktree", 0),
		ev(time.Second, "lane-1", "implementer", "cc", "started", "lane-1 implementer: cc takes the step (round 0)"),
		ev(0, "lane-2", "implementer", "cc", "started", "lane-2 implementer: cc takes the step (round 0)"),
		ev(time.Second, "lane-1", "implementer", "cc", "running", "lane-1 implementer: runner cc is running (process group 4242)"),
		ev(0, "lane-2", "implementer", "cc", "waiting", "lane-2 implementer: waiting for one of runner cc's 1 slot"),
		ev(12*time.Second, "lane-1", "implementer", "cc", "doing", "lane-1 implementer: cc: Edit DONE-1"),
		ev(50*time.Second, "lane-1", "implementer", "cc", "did", "lane-1: abcd committed the runner's work as 1a2b3c4d; running the definition of done"),
		answered(3*time.Second, "lane-1", "implementer", "cc", 0.4213, runner.CostReported),
		did(0, "lane-1: implemented at 1a2b3c4d; review round 1 opened", 0),
		ev(0, "lane-1", "ruthless-reviewer", "rv", "started", "lane-1 ruthless-reviewer: rv takes the review (round 1)"),
		ev(0, "lane-1", "security-reviewer", "rv", "started", "lane-1 security-reviewer: rv takes the review (round 1)"),
		ev(0, "lane-2", "implementer", "cc", "running", "lane-2 implementer: runner cc is running (process group 4250)"),
		ev(30*time.Second, "lane-1", "ruthless-reviewer", "rv", "running", ""),
		answered(15*time.Second, "lane-1", "ruthless-reviewer", "rv", 0, runner.CostUnknown),
		answered(5*time.Second, "lane-1", "security-reviewer", "rv", 0, runner.CostUnmetered),
		did(0, "lane-1: both reviewers passed; the lane is done", 1),
		answered(40*time.Second, "lane-2", "implementer", "cc", 1.5, runner.CostPriced),
		did(0, "lane-2: reviewed and done", 2),
		ev(0, "lane-3", "implementer", "cc", "started", "lane-3 implementer: cc takes the step (round 0)"),
		{2 * time.Second, ports.ProgressEvent{Run: "run-1", Lane: "lane-3", Role: "implementer", Route: "cc", Kind: "fell-back"}},
		did(0, "lane-3: the implementer's step fell back to the host: runner cc (timeout): no event for 30s", 2),
		{0, ports.ProgressEvent{Run: "run-1", Kind: "done", Text: "run run-1: only the host's work is left", Done: 2, Total: 4}},
	}
}

// The board's frames as the script goes, on a terminal 100 columns wide: a header with the lanes done
// of all, the steps running, the money spent (+? where a step's cost is not known) and the time, and
// a line a lane with its state, its steps' time, its spend, who takes it on which route and the last
// thing it did.
func TestTheBoardsFramesFollowTheRun(t *testing.T) {
	b := newBoard()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var frames strings.Builder
	for i, ev := range boardScript() {
		now = now.Add(ev.after)
		b.add(ev.ProgressEvent, now, i+1)
		fmt.Fprintf(&frames, "after %s %s:\n", ev.Kind, ev.Lane)
		for _, l := range b.frame(now, 100, 30) {
			frames.WriteString("  " + l + "\n")
		}
	}
	golden.Assert(t, frames.String(), "board-frames.golden")
}

// Every line of the board fits the terminal's width, whatever it is and whatever the lanes hold
// (wide characters count two cells), marked where it is cut.
func TestTheBoardsLinesFitTheTerminal(t *testing.T) {
	b := newBoard()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i, ev := range boardScript()[:14] {
		b.add(ev.ProgressEvent, now, i)
	}
	b.add(ports.ProgressEvent{Lane: "lane-世界世界", Role: "implementer", Route: "cc", Kind: "doing", Text: "编辑文件 😀 DONE-世界"}, now, 20)
	for cols := 1; cols <= 140; cols++ {
		for _, l := range b.frame(now, cols, 30) {
			w := 0
			for _, r := range l {
				w += cells(r)
			}
			assert.Check(t, w <= max(cols-1, 0), "%d columns: %q is %d cells", cols, l, w)
		}
	}
	assert.Check(t, is.Equal(b.frame(now, 40, 30)[0], "abcd run run-1 · 0/4 lanes done · 4 ru…"))
	assert.Check(t, is.Equal(fitCells("ab世界", 5), "ab世…"))
	assert.Check(t, is.Equal(fitCells("ab世界", 6), "ab世界"))
}

// The board is bounded: at most maxBoardLanes lane lines and one counting the rest, the lanes with
// running steps first; on a short terminal never taller than the terminal less one row, so moving up
// over it always reaches its top; on one too short for any line, no board.
func TestTheBoardIsBounded(t *testing.T) {
	b := newBoard()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range 30 {
		lane := fmt.Sprintf("lane-%d", i+1)
		b.add(ports.ProgressEvent{Run: "run-9", Lane: lane, Role: "implementer", Route: "cc", Kind: "started"}, now, i)
		if i%3 != 0 {
			b.add(ports.ProgressEvent{Run: "run-9", Lane: lane, Role: "implementer", Route: "cc", Kind: "answered", Cost: runner.CostReported, USD: 0.01}, now, i)
		}
	}
	tall := b.frame(now, 80, 60)
	assert.Assert(t, is.Len(tall, 1+maxBoardLanes))
	assert.Check(t, is.Equal(tall[len(tall)-1], "… and 11 more lanes"))
	// The ten lanes with a step running (1, 4, ..., 28) are shown, then the nine idle ones that changed
	// last; the eleven idle ones that changed first are counted; the lanes keep the order they came in.
	var ids []string
	for _, l := range tall[1 : len(tall)-1] {
		ids = append(ids, strings.Fields(l)[0])
	}
	assert.Check(t, is.DeepEqual(ids, []string{"lane-1", "lane-4", "lane-7", "lane-10", "lane-13", "lane-16", "lane-18", "lane-19", "lane-20",
		"lane-21", "lane-22", "lane-23", "lane-24", "lane-25", "lane-26", "lane-27", "lane-28", "lane-29", "lane-30"}))
	assert.Check(t, is.Contains(tall[0], "abcd run run-9 · 10 running · $0.20 spent · 0s"))
	short := b.frame(now, 80, 6)
	assert.Check(t, is.Len(short, 5))
	assert.Check(t, is.Equal(short[4], "… and 27 more lanes"))
	assert.Check(t, is.Len(b.frame(now, 80, 2), 1), "the header alone")
	assert.Check(t, is.Len(b.frame(now, 80, 1), 0))
	assert.Check(t, is.Len(b.frame(now, 0, 0), 1+maxBoardLanes), "a terminal that says no size is taken as 80x24")
}

// On a terminal, each event redraws the board in place: the cursor goes up the board's height, the
// event line is written where the board began (so it scrolls above it), the board's lines follow,
// each clearing the rest of its row, with autowrap off; a shorter board clears what the taller one
// left; the run's end leaves its last line and no board.
func TestProgressRedrawsTheBoardInPlaceOnATerminal(t *testing.T) {
	var errOut strings.Builder
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p := NewProgress(&IO{Err: &errOut, ErrTTY: true, ErrLive: true, ErrSize: func() (int, int) { return 60, 10 }})
	p.now = func() time.Time { return now }
	p.every = time.Hour // no redraw of its own between the test's events
	p.Event(ports.ProgressEvent{Run: "run-1", Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "started", Text: "lane-1 implementer: cc takes the step (round 0)"})
	assert.Check(t, is.Equal(errOut.String(), "abcd: lane-1 implementer: cc takes the step (round 0)\x1b[K\n"+
		"\x1b[?7l"+
		"abcd run run-1 · 1 running · $0.00 spent · 0s\x1b[K\n"+
		"lane-1  starting       0s    $0.00  implementer on cc · cc…\x1b[K\n"+
		"\x1b[?7h"))
	errOut.Reset()
	now = now.Add(90 * time.Second)
	p.Event(ports.ProgressEvent{Run: "run-1", Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "answered", Cost: runner.CostReported, USD: 0.5})
	assert.Check(t, is.Equal(errOut.String(), "\r\x1b[2A"+
		"\x1b[?7l"+
		"abcd run run-1 · 0 running · $0.50 spent · 1m30s\x1b[K\n"+
		"lane-1  answered    1m30s    $0.50  implementer on cc · cc…\x1b[K\n"+
		"\x1b[?7h"), "an event without words redraws the board alone")
	assert.Check(t, p.tick == nil, "no step runs: nothing to redraw each second")
	errOut.Reset()
	p.Event(ports.ProgressEvent{Run: "run-1", Kind: "done", Text: "run run-1: finished", Done: 1, Total: 1})
	assert.Check(t, is.Equal(errOut.String(), "\r\x1b[2Aabcd: run run-1: finished\x1b[K\n\x1b[J"), "the board goes with the run")
	errOut.Reset()
	p.Done()
	assert.Check(t, is.Equal(errOut.String(), ""), "nothing left to take away")
}

// Whatever else is written to stderr while the board stands (a warning, a refusal) takes the board
// away first, so it lands where the board stood and is never overwritten by a redraw; the board
// comes back below it at the next event.
func TestAnotherWriteToStderrTakesTheBoardAway(t *testing.T) {
	var errOut strings.Builder
	s := &IO{Err: &errOut, ErrTTY: true, ErrLive: true, ErrSize: func() (int, int) { return 60, 10 }}
	p := NewProgress(s)
	p.every = time.Hour
	p.Event(ports.ProgressEvent{Run: "run-1", Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "running"})
	assert.Check(t, p.tick != nil)
	errOut.Reset()
	NewDiag(s).Warn("the journal is behind")
	assert.Check(t, is.Equal(errOut.String(), "\r\x1b[2A\x1b[Jabcd: warning: the journal is behind\n"))
	assert.Check(t, p.tick == nil, "no redraw over the line until the next event")
	errOut.Reset()
	p.Event(ports.ProgressEvent{Run: "run-1", Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "doing", Text: "lane-1 implementer: cc: Read go.mod"})
	assert.Check(t, strings.HasPrefix(errOut.String(), "abcd: lane-1 implementer: cc: Read go.mod\x1b[K\n\x1b[?7labcd run run-1 · 1 running"), "%q", errOut.String())
	p.Done()
}

// While a step runs the board is redrawn each tick, so its time moves; Done stops it and takes the
// board away.
func TestProgressRedrawsEachTickWhileAStepRuns(t *testing.T) {
	out := &syncBuilder{}
	p := NewProgress(&IO{Err: out, ErrTTY: true, ErrLive: true})
	p.every = time.Millisecond
	p.Event(ports.ProgressEvent{Run: "run-1", Lane: "lane-1", Role: "implementer", Route: "cc", Kind: "running"})
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\r\x1b[2A") < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	assert.Check(t, strings.Count(out.String(), "\r\x1b[2A") >= 2, "redrawn in place: %q", out.String())
	p.Done()
	s := out.String()
	assert.Check(t, strings.HasSuffix(s, "\r\x1b[2A\x1b[J"), "%q", s[max(len(s)-40, 0):])
	n := len(s)
	time.Sleep(20 * time.Millisecond)
	assert.Check(t, is.Equal(len(out.String()), n), "nothing redrawn after Done")
}

// syncBuilder is a strings.Builder the ticker's goroutine and the test may share.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Whatever an agent writes into an event, the board's lines hold no control character (nothing that
// moves the cursor or sets the terminal) and fit the terminal's width.
func FuzzTheBoardsLinesArePrintableAndFit(f *testing.F) {
	f.Add("lane-1", "implementer", "cc", "lane-1 implementer: cc: Edit DONE-1", uint8(80))
	f.Add("lane-\x1b[2J", "re\tviewer", "r\u200bv", "\x1b]0;title\x07編集 😀\r\n\xff", uint8(3))
	f.Fuzz(func(t *testing.T, lane, role, route, words string, cols uint8) {
		b := newBoard()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		for i, kind := range []string{"started", "doing", "answered", "did"} {
			b.add(ports.ProgressEvent{Run: words, Lane: lane, Role: role, Route: route, Kind: kind, Text: words}, now, i)
		}
		b.add(ports.ProgressEvent{Kind: "did", Text: lane + ": " + words}, now, 5)
		for _, l := range b.frame(now, int(cols), 30) {
			w := 0
			for _, r := range l {
				assert.Assert(t, !unicode.IsControl(r), "%q", l)
				w += cells(r)
			}
			assert.Assert(t, w <= max(int(cols)-1, 0) || cols == 0 && w <= defaultCols-1, "%d columns: %q", cols, l)
		}
	})
}

// The bell rings only where stderr is a terminal: never into a pipe or a file.
func TestTheBellRingsOnlyOnATerminal(t *testing.T) {
	var tty, pipe strings.Builder
	NewProgress(&IO{Err: &tty, ErrTTY: true}).Event(ports.ProgressEvent{Run: "run-1", Kind: "bell"})
	NewProgress(&IO{Err: &pipe}).Event(ports.ProgressEvent{Run: "run-1", Kind: "bell"})
	assert.Check(t, is.Equal(tty.String(), "\a"))
	assert.Check(t, is.Equal(pipe.String(), ""))
}
