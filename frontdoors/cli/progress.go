package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/ports"
)

// Progress writes what a long verb (implement run) does to stderr as it happens: one line per event,
// and on a terminal that takes cursor movement (IO.ErrLive) a board below them, one line a lane,
// redrawn in place at each event and each second while a step runs, and taken away when the run
// ends. It never writes to stdout, which holds the result alone.
type Progress struct {
	s     *IO
	out   io.Writer // stderr itself
	now   func() time.Time
	size  func() (cols, rows int)
	every time.Duration // how often the board is redrawn while a step runs
	mu    sync.Mutex
	board *board
	seq   int // events taken, for which lanes the board shows first
	// height is the board's lines on the screen, the cursor at the start of the line below them.
	height int
	tick   *time.Ticker
}

// NewProgress writes to s.Err. Where it keeps a board (s.ErrLive), it takes s.Err over: whatever
// else is written there (a warning, a refusal) first takes the board away, so it lands where the
// board stood and never inside it, and the board comes back at the next event.
func NewProgress(s *IO) *Progress {
	size := s.ErrSize
	if size == nil {
		size = func() (int, int) { return 0, 0 }
	}
	p := &Progress{s: s, out: s.Err, now: time.Now, size: size, every: time.Second, board: newBoard()}
	if s.ErrLive {
		s.Err = besideBoard{p}
	}
	return p
}

// besideBoard is stderr for every writer but the progress: the board is taken away before each write.
type besideBoard struct{ p *Progress }

func (w besideBoard) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	w.p.stopTicking()
	w.p.draw("", nil)
	return w.p.out.Write(b)
}

var _ ports.Progress = (*Progress)(nil)

// Event writes one event.
func (p *Progress) Event(ev ports.ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Kind == "bell" {
		// The run ended in a way the person wants to hear of, and no build.notify is set: the bell,
		// only on a terminal (never into a pipe or a file).
		if p.s.ErrTTY {
			p.put("\a")
		}
		return
	}
	line := ""
	if ev.Text != "" {
		line = "abcd: " + printable(ev.Text)
	}
	if !p.s.ErrLive {
		if line != "" {
			p.put(line + "\n")
		}
		return
	}
	p.seq++
	p.board.add(ev, p.now(), p.seq)
	if ev.Kind == "done" {
		// The run's last line stands where the board stood; the next run starts a board of its own.
		p.stopTicking()
		p.draw(line, nil)
		p.board = newBoard()
		return
	}
	p.draw(line, p.frame())
	switch active := p.board.active() > 0; {
	case active && p.tick == nil:
		p.tick = time.NewTicker(p.every)
		go p.redraw(p.tick)
	case !active:
		p.stopTicking()
	}
}

func (p *Progress) frame() []string {
	cols, rows := p.size()
	return p.board.frame(p.now(), cols, rows)
}

// redraw redraws the board each tick while steps run, so their times move.
func (p *Progress) redraw(t *time.Ticker) {
	for range t.C {
		p.mu.Lock()
		if p.tick != t {
			p.mu.Unlock()
			return
		}
		p.draw("", p.frame())
		p.mu.Unlock()
	}
}

func (p *Progress) stopTicking() {
	if p.tick != nil {
		p.tick.Stop()
		p.tick = nil
	}
}

// draw moves the cursor up over the board on the screen, writes the event line (when there is one)
// where the board began, so it scrolls above, then the board's lines, each clearing what is left of
// its row, and clears whatever a taller board left below. It is one write, so a reader never sees
// half a frame. The board's lines fit the terminal's width; autowrap is off while they are written
// in case a character is wider than counted, so a line is cut by the terminal, never wrapped.
func (p *Progress) draw(line string, frame []string) {
	var b strings.Builder
	if p.height > 0 {
		fmt.Fprintf(&b, "\r\x1b[%dA", p.height)
	}
	if line != "" {
		b.WriteString(line + "\x1b[K\n")
	}
	if len(frame) > 0 {
		b.WriteString("\x1b[?7l")
		for _, l := range frame {
			b.WriteString(l + "\x1b[K\n")
		}
		b.WriteString("\x1b[?7h")
	}
	if p.height > len(frame) {
		b.WriteString("\x1b[J")
	}
	p.height = len(frame)
	if b.Len() > 0 {
		p.put(b.String())
	}
}

// put writes to stderr. Progress is for the person watching: a stderr that cannot be written to has
// nowhere to say so, and the run's result still goes to stdout.
func (p *Progress) put(s string) {
	_, _ = io.WriteString(p.out, s)
}

// Done takes the board away and stops redrawing it.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopTicking()
	p.draw("", nil)
}
