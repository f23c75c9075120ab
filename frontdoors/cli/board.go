package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// The board's bounds: at most maxBoardLanes lane lines (the rest counted on one line), and the width
// and height it assumes when the terminal does not say its size.
const (
	maxBoardLanes = 20
	defaultCols   = 80
	defaultRows   = 24
)

// board is the picture of a run that the progress writer keeps below the event lines on a terminal:
// a header (the run, its lanes done of all, the steps running, what they cost, how long it has gone)
// and one line a lane that a route has taken a step of. It is built from progress events alone and
// drawn as plain lines; the writer moves the cursor.
type board struct {
	run         string
	done, total int
	start       time.Time
	usd         float64
	unpriced    int // steps whose cost no receipt says
	lanes       []*boardLane
	byID        map[string]*boardLane
}

// boardLane is one lane: the steps a route is taking of it now (by role), what its last step came
// to, its spend, and the last thing it did.
type boardLane struct {
	id       string
	steps    map[string]boardStep
	outcome  string // of its last step: answered or fell back
	role     string // of its last step
	route    string // of its last step
	last     string
	usd      float64
	unpriced int
	busy     time.Duration // its steps' time, while none runs
	since    time.Time     // when its running steps began; zero when none runs
	touched  int           // the board's event count when it last changed, for which lanes to show
}

type boardStep struct {
	route, state string
}

func newBoard() *board { return &board{byID: map[string]*boardLane{}} }

// active counts the steps routes are taking.
func (b *board) active() int {
	n := 0
	for _, l := range b.lanes {
		n += len(l.steps)
	}
	return n
}

// add takes one event at now.
func (b *board) add(ev ports.ProgressEvent, now time.Time, seq int) {
	if b.start.IsZero() {
		b.start = now
	}
	if ev.Run != "" {
		b.run = ev.Run
	}
	if ev.Total > 0 {
		b.done, b.total = ev.Done, ev.Total
	}
	if ev.Lane == "" {
		// The loop's own lines about a lane start with its name: the lane's last word.
		if id, rest, ok := strings.Cut(printable(ev.Text), ": "); ok && b.byID[id] != nil {
			b.byID[id].last, b.byID[id].touched = rest, seq
		}
		return
	}
	l := b.byID[ev.Lane]
	if l == nil {
		l = &boardLane{id: ev.Lane, steps: map[string]boardStep{}}
		b.byID[ev.Lane] = l
		b.lanes = append(b.lanes, l)
	}
	l.touched = seq
	if ev.Role != "" {
		l.role, l.route = ev.Role, ev.Route
	}
	if t := eventWords(ev); t != "" {
		l.last = t
	}
	switch ev.Kind {
	case "started", "waiting", "running", "doing":
		if len(l.steps) == 0 {
			l.since = now
		}
		state := map[string]string{"started": "starting", "waiting": "waiting", "running": "running", "doing": "running"}[ev.Kind]
		l.steps[ev.Role] = boardStep{route: ev.Route, state: state}
	case "answered", "fell-back":
		l.outcome = "answered"
		if ev.Kind == "fell-back" {
			l.outcome = "fell back"
		}
		if _, ok := l.steps[ev.Role]; !ok {
			return // a step never started (the budget kept it back) took no time and cost nothing
		}
		delete(l.steps, ev.Role)
		if len(l.steps) == 0 {
			l.busy += now.Sub(l.since)
			l.since = time.Time{}
		}
		switch ev.Cost {
		case runner.CostReported, runner.CostPriced, runner.CostUnmetered:
			l.usd += ev.USD
			b.usd += ev.USD
		default:
			l.unpriced++
			b.unpriced++
		}
	}
}

// eventWords is an event's text without the lane and role it starts with (its line says them).
func eventWords(ev ports.ProgressEvent) string {
	t := printable(ev.Text)
	for _, p := range []string{ev.Lane + " " + ev.Role + ": ", ev.Lane + ": "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			return rest
		}
	}
	return t
}

// frame is the board's lines at now, for a terminal cols wide and rows high (0 when it does not
// say): each line fits within cols-1 cells, and the board is never taller than the terminal can
// show below one line of its own, so moving the cursor up over it always reaches its top.
func (b *board) frame(now time.Time, cols, rows int) []string {
	if cols <= 0 {
		cols = defaultCols
	}
	if rows <= 0 {
		rows = defaultRows
	}
	room := rows - 1
	if room <= 0 {
		return nil
	}
	fit := func(s string) string { return fitCells(s, cols-1) }
	lines := []string{fit(b.header(now))}
	limit := min(maxBoardLanes, room-1)
	shown := b.shown(limit)
	width := 0
	for _, l := range shown {
		width = max(width, min(utf8.RuneCountInString(l.id), 24))
	}
	for _, l := range shown {
		lines = append(lines, fit(l.line(now, width)))
	}
	if more := len(b.lanes) - len(shown); more > 0 && limit > 0 {
		lines = append(lines, fit(fmt.Sprintf("… and %s", text.Count(more, "more lane", "more lanes"))))
	}
	return lines
}

// shown is the lanes that get a line when at most limit lines are left for them (one of which then
// counts the rest): the lanes with running steps first, then the most recently changed, in the
// order they first appeared.
func (b *board) shown(limit int) []*boardLane {
	if len(b.lanes) <= limit {
		return b.lanes
	}
	if limit <= 1 {
		return nil
	}
	pick := append([]*boardLane{}, b.lanes...)
	sort.SliceStable(pick, func(i, j int) bool {
		ai, aj := len(pick[i].steps) > 0, len(pick[j].steps) > 0
		if ai != aj {
			return ai
		}
		return pick[i].touched > pick[j].touched
	})
	keep := map[*boardLane]bool{}
	for _, l := range pick[:limit-1] {
		keep[l] = true
	}
	out := make([]*boardLane, 0, limit-1)
	for _, l := range b.lanes {
		if keep[l] {
			out = append(out, l)
		}
	}
	return out
}

func (b *board) header(now time.Time) string {
	var h strings.Builder
	h.WriteString("abcd run")
	if b.run != "" {
		h.WriteString(" " + printable(b.run))
	}
	if b.total > 0 {
		fmt.Fprintf(&h, " · %d/%d lanes done", b.done, b.total)
	}
	fmt.Fprintf(&h, " · %d running · %s spent · %s", b.active(), dollars(b.usd, b.unpriced), clock(now.Sub(b.start)))
	return h.String()
}

// line is a lane's line, its id padded to width: its state, how long its steps have taken, what they
// cost, who is taking it on which route, and the last thing it did.
func (l *boardLane) line(now time.Time, width int) string {
	state, who := l.outcome, l.role
	routes := []string{l.route}
	took := l.busy
	if len(l.steps) > 0 {
		took += now.Sub(l.since)
		roles := make([]string, 0, len(l.steps))
		for r := range l.steps {
			roles = append(roles, r)
		}
		sort.Strings(roles)
		routes, state = routes[:0], ""
		for _, r := range roles {
			s := l.steps[r]
			// The liveliest of its steps names the lane's state: running over waiting over starting.
			if stateRank(s.state) > stateRank(state) {
				state = s.state
			}
			if !contains(routes, s.route) {
				routes = append(routes, s.route)
			}
		}
		who = strings.Join(roles, "+")
	}
	id := printable(l.id)
	if pad := width - utf8.RuneCountInString(id); pad > 0 {
		id += strings.Repeat(" ", pad)
	}
	who = printable(who)
	if r := printable(strings.Join(routes, "+")); r != "" {
		who += " on " + r
	}
	line := fmt.Sprintf("%s  %-9s %7s %8s  %s", id, state, clock(took), dollars(l.usd, l.unpriced), who)
	if l.last != "" {
		line += " · " + l.last
	}
	return line
}

func stateRank(s string) int {
	return map[string]int{"starting": 1, "waiting": 2, "running": 3}[s]
}

// spendWords is money spent, "+?" marking steps whose cost no receipt says.
func dollars(usd float64, unpriced int) string {
	s := fmt.Sprintf("$%.2f", usd)
	if unpriced > 0 {
		s += "+?"
	}
	return s
}

// clock is a duration in whole seconds, as 5s, 1m30s or 2h03m.
func clock(d time.Duration) string {
	s := int(max(d, 0).Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// printable is s as one line a terminal shows as it is: every control character (an escape, a
// carriage return, a newline) and every hidden one a space, invalid UTF-8 a question mark. An
// event's text can hold what an agent wrote; none of it moves the cursor or sets the terminal.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || text.Hidden(r) != "" {
			return ' '
		}
		return r
	}, s)
}

// fitCells cuts s to at most n terminal cells, marked with "…" when cut. Wide characters (CJK,
// emoji) take two cells; combining marks are counted as one, so a line may fall short, never over.
func fitCells(s string, n int) string {
	if n <= 0 {
		return ""
	}
	used := 0
	for i, r := range s {
		w := cells(r)
		if used+w > n {
			cut := s[:i]
			for used+1 > n && cut != "" {
				last, size := utf8.DecodeLastRuneInString(cut)
				cut, used = cut[:len(cut)-size], used-cells(last)
			}
			return cut + "…"
		}
		used += w
	}
	return s
}

// cells is how many cells a terminal gives r: two for the East Asian wide and fullwidth blocks and
// the emoji, one otherwise.
func cells(r rune) int {
	for _, span := range [][2]rune{{0x1100, 0x115f}, {0x2e80, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe30, 0xfe4f},
		{0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x3fffd}} {
		if r >= span[0] && r <= span[1] {
			return 2
		}
	}
	return 1
}
