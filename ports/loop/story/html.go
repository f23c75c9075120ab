package story

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	domloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports/loop"
)

//go:embed page.html.tmpl
var pageText string

// page is parsed on first use: html/template escapes every value by where it stands (text, an
// attribute, a style), so nothing the record holds is ever read as markup.
var page = template.Must(template.New("page").Parse(pageText))

// The lane graph's geometry, in SVG user units: a box per lane, columns by depth, rows within one.
const (
	nodeW, nodeH = 210, 66
	gapX, gapY   = 70, 22
	margin       = 14
	labelRunes   = 30
	barWidth     = 120
)

type pageData struct {
	Run, Title, Summary, Started string
	Graph                        graphData
	Steps                        []stepRow
	Rounds                       []roundGroup
	Fallbacks                    []loop.FallbackView
	Audits                       []auditData
	Sessions                     []sessionRow
	HistoryNote                  string
}

type graphData struct {
	Width, Height int
	Nodes         []nodeBox
	Edges         []edgePath
}

type nodeBox struct {
	ID, Label, Full, Stage, Class string
	X, Y, Round                   int
	TextX, Line1, Line2, Line3    int
}

type edgePath struct {
	From, To, D string
	Merged      bool
}

type stepRow struct {
	At, Lane, Role, Route, Word, Took, Cost, Outcome string
	Round, Bar                                       int
	Measured                                         bool
	Sessions                                         []string
}

type roundGroup struct {
	Lane     string
	Round    int
	Verdicts []loop.RecordVerdictView
}

type auditData struct {
	Lane, Word, Note string
	Round            int
	Pass             bool
	Criteria         []review.CriterionVerdict
}

type sessionRow struct{ Key, Step, Started, Title string }

// HTML is the run's story as one self-contained page: no script, nothing fetched (its policy forbids
// both), the lane graph drawn by abcd as inline SVG (lanes in columns by how deep they build on
// others, an arrow for each lane a lane builds on, a dashed one into the integration), a timeline of
// every step with its route, what it took and its cost, each review round's verdicts and findings,
// the fallbacks with their causes, the audit per criterion and the sessions behind the steps. Light
// or dark as the reader's system prefers, and printable.
func HTML(r loop.ImplementRecordResult) (string, error) {
	m := newModel(r)
	d := pageData{Run: r.Run.Run, Title: m.title(), Summary: m.summary(), Started: r.Started, Graph: m.graph(),
		Fallbacks: r.Fallbacks, HistoryNote: r.History.Note}
	longest := int64(0)
	for _, s := range m.steps {
		if s.known {
			longest = max(longest, int64(s.duration))
		}
	}
	for _, s := range m.steps {
		row := stepRow{At: s.atText, Lane: s.lane, Role: s.role, Route: s.route(), Word: s.word, Took: s.took(), Cost: s.spent(),
			Round: s.round, Measured: s.measured, Sessions: s.sessions, Outcome: outcome(s.pass)}
		if s.known && longest > 0 {
			row.Bar = max(1, int(int64(barWidth)*int64(s.duration)/longest))
		}
		d.Steps = append(d.Steps, row)
	}
	for _, v := range r.Verdicts {
		if n := len(d.Rounds); n == 0 || d.Rounds[n-1].Lane != v.Lane || d.Rounds[n-1].Round != v.Round {
			d.Rounds = append(d.Rounds, roundGroup{Lane: v.Lane, Round: v.Round})
		}
		d.Rounds[len(d.Rounds)-1].Verdicts = append(d.Rounds[len(d.Rounds)-1].Verdicts, v)
		if v.Role == domloop.RoleAuditor {
			d.Audits = append(d.Audits, auditData{Lane: v.Lane, Word: v.Word, Note: v.AuditNote, Round: v.Round, Pass: v.Pass, Criteria: v.Criteria})
		}
	}
	for _, s := range r.History.Sessions {
		step := "no step named"
		if s.Lineage.Lane != "" {
			step = s.Lineage.Lane + " " + s.Lineage.Step
		}
		d.Sessions = append(d.Sessions, sessionRow{Key: s.Key, Step: step, Started: s.Started, Title: s.Title})
	}
	var b bytes.Buffer
	if err := page.Execute(&b, d); err != nil {
		return "", fmt.Errorf("implement record: the page: %w", err)
	}
	return b.String(), nil
}

// graph places each lane's box by its depth and row, and draws each edge as a curve from the right
// side of the lane built on to the left side of the lane building on it.
func (m model) graph() graphData {
	g := graphData{}
	cols, rows := 0, 0
	for _, n := range m.lanes {
		cols, rows = max(cols, n.depth+1), max(rows, n.row+1)
	}
	g.Width = 2*margin + cols*nodeW + max(0, cols-1)*gapX
	g.Height = 2*margin + rows*nodeH + max(0, rows-1)*gapY
	at := func(n laneNode) (int, int) { return margin + n.depth*(nodeW+gapX), margin + n.row*(nodeH+gapY) }
	for _, n := range m.lanes {
		x, y := at(n)
		full := laneLabel(n.lane)
		g.Nodes = append(g.Nodes, nodeBox{ID: n.lane.ID, Label: clip(full, labelRunes), Full: full, Stage: n.lane.Stage, Class: stageClass(n.lane.Stage),
			X: x, Y: y, Round: n.lane.Round, TextX: x + 10, Line1: y + 20, Line2: y + 39, Line3: y + 57})
	}
	for _, e := range m.edges {
		x1, y1 := at(m.lanes[e.from])
		x2, y2 := at(m.lanes[e.to])
		x1, y1, y2 = x1+nodeW, y1+nodeH/2, y2+nodeH/2
		mid := (x1 + x2) / 2
		g.Edges = append(g.Edges, edgePath{From: m.lanes[e.from].lane.ID, To: m.lanes[e.to].lane.ID, Merged: e.merged,
			D: fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, mid, y1, mid, y2, x2-2, y2)})
	}
	return g
}

func outcome(pass bool) string {
	if pass {
		return "pass"
	}
	return "fail"
}

// clip keeps a label to n characters, marking a cut with an ellipsis.
func clip(s string, n int) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n-1])) + "…"
}
