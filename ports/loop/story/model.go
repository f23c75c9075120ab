// Package story tells a run's record (loop.ImplementRecordResult) for people: as markdown for a pull
// request or an issue, the lane graph as a Mermaid block, and as one self-contained HTML page whose
// lane graph abcd lays out and draws itself. Both are functions of the record's result alone, so a
// field the result gains reaches them with a small change here, and nothing else is read. It also
// declares implement_record, the verb that hands them out.
package story

import (
	"fmt"
	"sort"
	"strings"
	"time"

	domloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/loop"
)

// model is what both tellings share: the lanes laid out by depth, the steps in time order with their
// durations, and the rounds with their verdicts.
type model struct {
	r     loop.ImplementRecordResult
	lanes []laneNode
	edges []edge
	steps []step
}

// laneNode is one lane in the graph: its depth (how many lanes it builds on, transitively, in a
// chain) and its place among the lanes of that depth.
type laneNode struct {
	lane  loop.LaneView
	depth int
	row   int
}

// edge is one lane building on another; merged marks a lane merged into the integration.
type edge struct {
	from, to int // indexes into model.lanes
	merged   bool
}

// step is one implementation or verdict, as the timeline shows it.
type step struct {
	lane, role, word string
	round            int
	asked, ran       string
	pass, verdict    bool
	at               time.Time
	atText           string
	// duration is the runner's own measure when a runner took the step, else the time from when the
	// step could start (its lane's start, or the round before it) to when it was recorded; known is
	// false when neither time can be read.
	duration time.Duration
	known    bool
	measured bool // the duration is the runner's own
	costUSD  float64
	cost     bool
	sessions []string
}

func newModel(r loop.ImplementRecordResult) model {
	m := model{r: r}
	m.layout()
	m.timeline()
	return m
}

// layout gives each lane its depth: 0 for a lane that builds on none, one more than the deepest lane
// it builds on otherwise, and the integration one past every lane. A name that is no lane of the run,
// and a cycle (which abcd's own states never hold), are drawn without the edge that would need it.
func (m *model) layout() {
	index := map[string]int{}
	for i, l := range m.r.Run.Lanes {
		index[l.ID] = i
		m.lanes = append(m.lanes, laneNode{lane: l})
	}
	depth := make([]int, len(m.lanes))
	state := make([]int, len(m.lanes)) // 0 unseen, 1 in progress, 2 done
	var visit func(i int) int
	visit = func(i int) int {
		switch state[i] {
		case 1:
			return -1
		case 2:
			return depth[i]
		}
		state[i] = 1
		d := 0
		for _, a := range m.lanes[i].lane.After {
			j, ok := index[a]
			if !ok || m.lanes[j].lane.Integration {
				continue
			}
			if dj := visit(j); dj >= 0 {
				d = max(d, dj+1)
				m.edges = append(m.edges, edge{from: j, to: i})
			}
		}
		state[i], depth[i] = 2, d
		return d
	}
	deepest := -1
	for i := range m.lanes {
		if !m.lanes[i].lane.Integration {
			deepest = max(deepest, visit(i))
		}
	}
	// The integration merges every lane; it is drawn from the lanes no other lane builds on, whose
	// heads hold the rest, so no arrow crosses a lane on its way.
	builtOn := map[int]bool{}
	for _, e := range m.edges {
		builtOn[e.from] = true
	}
	for i := range m.lanes {
		if m.lanes[i].lane.Integration {
			depth[i] = deepest + 1
			for j := range m.lanes {
				if !m.lanes[j].lane.Integration && !builtOn[j] {
					m.edges = append(m.edges, edge{from: j, to: i, merged: true})
				}
			}
		}
	}
	rows := map[int]int{}
	for i := range m.lanes {
		m.lanes[i].depth = depth[i]
		m.lanes[i].row = rows[depth[i]]
		rows[depth[i]]++
	}
	sort.SliceStable(m.edges, func(a, b int) bool {
		if m.edges[a].to != m.edges[b].to {
			return m.edges[a].to < m.edges[b].to
		}
		return m.edges[a].from < m.edges[b].from
	})
}

// timeline lists every implementation and verdict in the order they were recorded, each with what
// it took.
func (m *model) timeline() {
	last := map[string]time.Time{} // a lane's latest recorded step
	for _, im := range m.r.Implementations {
		s := step{lane: im.Lane, role: domloop.RoleImplementer, word: fmt.Sprintf("%d commits", len(im.Commits)), round: im.Round,
			asked: im.Receipt.ConnectionTried, ran: im.Receipt.ConnectionUsed, pass: true, atText: im.At, sessions: im.Sessions}
		if len(im.Commits) == 1 {
			s.word = "1 commit"
		}
		s.at, _ = time.Parse(time.RFC3339Nano, im.At)
		if im.Runner != nil {
			s.duration, s.known, s.measured = time.Duration(im.Runner.DurationMS)*time.Millisecond, true, true
			s.costUSD, s.cost = im.Runner.CostUSD, known(im.Runner.SourceOf())
		}
		m.steps = append(m.steps, s)
	}
	for _, v := range m.r.Verdicts {
		s := step{lane: v.Lane, role: v.Role, word: v.Word, round: v.Round, asked: v.Route, ran: v.Ran, pass: v.Pass, verdict: true,
			atText: v.At, sessions: v.Sessions}
		s.at, _ = time.Parse(time.RFC3339Nano, v.At)
		if v.Runner != nil {
			s.duration, s.known, s.measured = time.Duration(v.Runner.DurationMS)*time.Millisecond, true, true
			s.costUSD, s.cost = v.Runner.CostUSD, known(v.Runner.SourceOf())
		} else if v.Call.Provider != "" {
			s.costUSD, s.cost = v.Call.CostUSD, known(v.Call.CostSource)
		}
		m.steps = append(m.steps, s)
	}
	sort.SliceStable(m.steps, func(a, b int) bool { return m.steps[a].at.Before(m.steps[b].at) })
	for _, s := range m.steps {
		if s.at.After(last[s.lane]) {
			last[s.lane] = s.at
		}
	}
	for i := range m.steps {
		s := &m.steps[i]
		if s.known || s.at.IsZero() {
			continue
		}
		if from := m.couldStart(*s, last); !from.IsZero() && !from.After(s.at) {
			s.duration, s.known = s.at.Sub(from), true
		}
	}
}

// couldStart is when a host's step could start: a verdict of round N once the implementation of
// round N-1 was recorded, a fix once its failed round's verdicts were, and a lane's first step once
// the lanes it builds on (every lane, for the integration) had their last step recorded, or the run
// started.
func (m *model) couldStart(s step, last map[string]time.Time) time.Time {
	var from time.Time
	later := func(t time.Time) {
		if t.After(from) {
			from = t
		}
	}
	for _, o := range m.steps {
		if o.lane != s.lane {
			continue
		}
		if s.verdict && !o.verdict && o.round == s.round-1 || !s.verdict && o.verdict && o.round == s.round {
			later(o.at)
		}
	}
	if !from.IsZero() {
		return from
	}
	started, _ := time.Parse(time.RFC3339Nano, m.r.Started)
	later(started)
	for _, n := range m.lanes {
		if n.lane.ID != s.lane {
			continue
		}
		for _, e := range m.edges {
			if m.lanes[e.to].lane.ID == s.lane {
				later(last[m.lanes[e.from].lane.ID])
			}
		}
	}
	return from
}

// title says what the run was for and how it stands.
func (m model) title() string {
	r := m.r.Run
	what := r.Kind
	switch r.Kind {
	case "spec":
		what = fmt.Sprintf("spec %s (intent %s)", r.Spec, r.Intent)
	case "audit":
		what = "audit of " + r.Intent
	case "review":
		what = "review of " + r.Base
	}
	return what + ", " + m.standing()
}

func (m model) standing() string {
	if !m.r.Run.Finished {
		return "in progress"
	}
	back := 0
	for _, l := range m.r.Run.Lanes {
		if l.Stage == "handed-back" {
			back++
		}
	}
	if back > 0 {
		return fmt.Sprintf("finished, %s handed back", count(back, "lane", "lanes"))
	}
	return "finished"
}

// summary counts the run's lanes, implementations, verdicts and fallbacks in a sentence.
func (m model) summary() string {
	lanes, failed := 0, 0
	for _, l := range m.r.Run.Lanes {
		if !l.Integration {
			lanes++
		}
	}
	for _, v := range m.r.Verdicts {
		if !v.Pass {
			failed++
		}
	}
	return fmt.Sprintf("%s, %s, %s (%d passed, %d failed), %s.", count(lanes, "lane", "lanes"),
		count(len(m.r.Implementations), "implementation", "implementations"), count(len(m.r.Verdicts), "verdict", "verdicts"),
		len(m.r.Verdicts)-failed, failed, count(len(m.r.Fallbacks), "fallback", "fallbacks"))
}

// laneLabel names a lane for people: its step and text, or the integration.
func laneLabel(l loop.LaneView) string {
	if l.Integration {
		return "the integration"
	}
	if l.Text == "" {
		return l.ID
	}
	return fmt.Sprintf("%d. %s", l.Step, oneLine(l.Text))
}

// route says which route a step asked for and which ran it.
func (s step) route() string {
	switch {
	case s.asked == "" || s.asked == s.ran:
		return s.ran
	case s.ran == "":
		return "asked " + s.asked
	}
	return fmt.Sprintf("asked %s, ran %s", s.asked, s.ran)
}

// took is the step's duration as people read it, "" when it is not known.
func (s step) took() string {
	if !s.known {
		return ""
	}
	return roundDuration(s.duration)
}

func roundDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// spent is the step's cost as people read it, "" when the record has none.
func (s step) spent() string {
	if !s.cost {
		return ""
	}
	return fmt.Sprintf("$%.4f", s.costUSD)
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// oneLine folds white space, line breaks included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// known reports whether a cost from src is a figure of money: reported by the route, or priced.
func known(src runner.CostSource) bool { return src == runner.CostReported || src == runner.CostPriced }
