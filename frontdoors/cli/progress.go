package cli

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/ports"
)

// Progress writes what a long verb (implement run) does to stderr as it happens: one line per event,
// and on a terminal a live line below them naming every step a route is taking and for how long,
// redrawn each second. It never writes to stdout, which holds the result alone.
type Progress struct {
	s     *IO
	now   func() time.Time
	every time.Duration // how often the live line is redrawn
	mu    sync.Mutex
	steps map[string]liveStep // by lane and role
	tick  *time.Ticker
	drawn bool // the live line stands below the last event line
}

type liveStep struct {
	what  string
	since time.Time
}

// NewProgress writes to s.Err.
func NewProgress(s *IO) *Progress {
	return &Progress{s: s, now: time.Now, every: time.Second, steps: map[string]liveStep{}}
}

var _ ports.Progress = (*Progress)(nil)

// liveWidth bounds the live line, in characters, so it never wraps on a common terminal.
const liveWidth = 100

// Event writes one event.
func (p *Progress) Event(ev ports.ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := ev.Lane + " " + ev.Role
	switch ev.Kind {
	case "bell":
		// The run ended in a way the person wants to hear of, and no build.notify is set: the bell,
		// only on a terminal (never into a pipe or a file).
		if p.s.ErrTTY {
			fmt.Fprint(p.s.Err, "\a")
		}
		return
	case "started", "waiting", "running":
		s := p.steps[key]
		if s.since.IsZero() {
			s.since = p.now()
		}
		s.what = fmt.Sprintf("%s %s on %s", ev.Lane, ev.Role, ev.Route)
		if ev.Kind == "waiting" {
			s.what += " (waiting for a slot)"
		}
		p.steps[key] = s
	case "answered", "fell-back":
		delete(p.steps, key)
	case "done":
		clear(p.steps)
	}
	if ev.Text == "" && len(p.steps) > 0 && p.s.ErrTTY {
		p.clear()
		p.draw()
		return
	}
	if ev.Text == "" {
		return
	}
	if !p.s.ErrTTY {
		fmt.Fprintf(p.s.Err, "abcd: %s\n", ev.Text)
		return
	}
	p.clear()
	fmt.Fprintf(p.s.Err, "abcd: %s\n", ev.Text)
	p.draw()
	switch {
	case len(p.steps) > 0 && p.tick == nil:
		p.tick = time.NewTicker(p.every)
		go p.redraw(p.tick)
	case len(p.steps) == 0 && p.tick != nil:
		p.tick.Stop()
		p.tick = nil
	}
}

// redraw redraws the live line each second while steps run.
func (p *Progress) redraw(t *time.Ticker) {
	for range t.C {
		p.mu.Lock()
		if p.tick != t {
			p.mu.Unlock()
			return
		}
		p.clear()
		p.draw()
		p.mu.Unlock()
	}
}

// clear takes the live line away.
func (p *Progress) clear() {
	if p.drawn {
		fmt.Fprint(p.s.Err, "\r\x1b[K")
		p.drawn = false
	}
}

// draw writes the live line: how many steps run, each with how long it has taken.
func (p *Progress) draw() {
	if len(p.steps) == 0 {
		return
	}
	keys := make([]string, 0, len(p.steps))
	for k := range p.steps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		s := p.steps[k]
		parts = append(parts, fmt.Sprintf("%s %s", s.what, p.now().Sub(s.since).Round(time.Second)))
	}
	line := fmt.Sprintf("running %d: %s", len(keys), strings.Join(parts, "; "))
	if utf8.RuneCountInString(line) > liveWidth {
		line = string([]rune(line)[:liveWidth-1]) + "…"
	}
	fmt.Fprint(p.s.Err, line)
	p.drawn = true
}

// Done takes the live line away and stops redrawing it.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tick != nil {
		p.tick.Stop()
		p.tick = nil
	}
	p.clear()
}
