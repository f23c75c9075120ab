package story

import (
	"fmt"
	"github.com/abcd-dev/abcd/domain/text"
	"strings"
	"unicode"
	"unicode/utf8"

	domloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports/loop"
)

// Markdown is the run's story for a pull request or an issue (GitHub's markdown): what it was for and
// how it stands, the lane graph as a Mermaid block, every step with its route and what it took, each
// review round's verdicts and findings, the fallbacks with their causes, the audit per criterion and
// the sessions behind the steps. Everything the record holds is text from agents or people: a table
// cell is one line with markup escaped, a Mermaid label holds no character that could end it, and
// what an agent wrote at length is quoted in a fence no line of it can close.
func Markdown(r loop.ImplementRecordResult) string {
	m := newModel(r)
	var b strings.Builder
	fmt.Fprintf(&b, "### abcd run %s: %s\n\n%s\n\n", mdCode(r.Run.Run), md(m.title()), md(m.summary()))
	m.mermaid(&b)
	m.mdSteps(&b)
	m.mdRounds(&b)
	m.mdFallbacks(&b)
	m.mdAudit(&b)
	m.mdSessions(&b)
	fmt.Fprintf(&b, "<!-- abcd implement record %s -->\n", strings.ReplaceAll(r.Run.Run, "--", "- -"))
	return b.String()
}

// mermaid writes the lane graph: a node per lane (its step, stage and round), an arrow per lane it
// builds on, and a dotted arrow into the integration from each lane no other builds on.
func (m model) mermaid(b *strings.Builder) {
	b.WriteString("```mermaid\nflowchart LR\n")
	for i, n := range m.lanes {
		label := fmt.Sprintf("%s: %s<br/>%s, round %d", n.lane.ID, laneLabel(n.lane), n.lane.Stage, n.lane.Round)
		fmt.Fprintf(b, "  n%d[\"%s\"]:::%s\n", i, mermaidLabel(label), stageClass(n.lane.Stage))
	}
	for _, e := range m.edges {
		arrow := "-->"
		if e.merged {
			arrow = "-.->"
		}
		fmt.Fprintf(b, "  n%d %s n%d\n", e.from, arrow, e.to)
	}
	b.WriteString("  classDef done stroke:#1a7f37,stroke-width:2px\n  classDef back stroke:#cf222e,stroke-width:2px\n  classDef moving stroke:#9a6700,stroke-width:2px\n```\n\n")
}

func (m model) mdSteps(b *strings.Builder) {
	if len(m.steps) == 0 {
		b.WriteString("No step has been recorded yet.\n\n")
		return
	}
	b.WriteString("#### Steps\n\n| recorded | lane | round | role | route | result | took | cost |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range m.steps {
		took, cost := s.took(), s.spent()
		if took != "" && !s.measured {
			took = "~" + took
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s |\n", md(s.atText), md(s.lane), s.round, md(s.role), md(s.route()), md(s.word), took, cost)
	}
	b.WriteString("\nA runner's step took what the runner measured; a step marked ~ took the time from when it could start to when it was recorded.\n\n")
}

func (m model) mdRounds(b *strings.Builder) {
	if len(m.r.Verdicts) == 0 {
		return
	}
	b.WriteString("#### Review rounds\n\n")
	seen := ""
	for _, v := range m.r.Verdicts {
		if key := fmt.Sprintf("%s/%d", v.Lane, v.Round); key != seen {
			if seen != "" {
				b.WriteString("\n")
			}
			seen = key
			fmt.Fprintf(b, "**%s, round %d**\n\n", md(v.Lane), v.Round)
		}
		outcome := "failed"
		if v.Pass {
			outcome = "passed"
		}
		fmt.Fprintf(b, "- %s: **%s** (%s; %s)\n", md(v.Role), md(v.Word), outcome, md(step{asked: v.Route, ran: v.Ran}.route()))
		if f := strings.TrimSpace(v.Findings); f != "" {
			quote(b, "  ", f)
		}
	}
	b.WriteString("\n")
}

func (m model) mdFallbacks(b *strings.Builder) {
	if len(m.r.Fallbacks) == 0 {
		return
	}
	b.WriteString("#### Fallbacks\n\n| at | lane | round | role | asked | reason | cause | ran | detail |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range m.r.Fallbacks {
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", md(f.At), md(f.Lane), f.Round, md(f.Role), md(f.Asked), md(f.Reason),
			md(string(f.Cause)), md(f.Ran), md(f.Detail))
	}
	b.WriteString("\n")
}

func (m model) mdAudit(b *strings.Builder) {
	for _, v := range m.r.Verdicts {
		if v.Role != domloop.RoleAuditor {
			continue
		}
		fmt.Fprintf(b, "#### Audit of %s, round %d: %s\n\n", md(v.Lane), v.Round, md(v.Word))
		if v.AuditNote != "" {
			fmt.Fprintf(b, "%s\n\n", md(v.AuditNote))
		}
		if len(v.Criteria) == 0 {
			continue
		}
		b.WriteString("| criterion | verdict |\n|---|---|\n")
		for _, c := range v.Criteria {
			fmt.Fprintf(b, "| %s | %s |\n", md(c.Criterion), md(c.Verdict))
		}
		b.WriteString("\n")
		for _, c := range v.Criteria {
			fmt.Fprintf(b, "- %s evidence:\n", md(c.Criterion))
			quote(b, "  ", c.Evidence)
			if c.Concerns != "" {
				fmt.Fprintf(b, "- %s concerns:\n", md(c.Criterion))
				quote(b, "  ", c.Concerns)
			}
		}
		b.WriteString("\n")
	}
}

func (m model) mdSessions(b *strings.Builder) {
	h := m.r.History
	if len(h.Sessions) == 0 && h.Note == "" {
		return
	}
	b.WriteString("#### Sessions\n\n")
	for _, s := range h.Sessions {
		step := "no step named"
		if s.Lineage.Lane != "" {
			step = s.Lineage.Lane + " " + s.Lineage.Step
		}
		fmt.Fprintf(b, "- %s (%s, %s): %s\n", mdCode(s.Key), md(step), md(s.Started), md(s.Title))
	}
	if h.Note != "" {
		fmt.Fprintf(b, "\n%s\n", md(h.Note))
	}
	b.WriteString("\n")
}

// quote writes text as a fenced block, indented by indent, with a fence longer than any run of
// backticks in it, so no line of it closes the quote or renders as markup.
func quote(b *strings.Builder, indent, t string) {
	fence := text.FenceFor(t)
	fmt.Fprintf(b, "%s%stext\n", indent, fence)
	for _, line := range strings.Split(strings.TrimRight(t, "\n"), "\n") {
		fmt.Fprintf(b, "%s%s\n", indent, strings.TrimRight(line, "\r"))
	}
	fmt.Fprintf(b, "%s%s\n", indent, fence)
}

// md makes text safe in a line or a table cell: one line, markup and HTML escaped, no mention.
func md(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("&#64;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '!', '~':
			b.WriteRune('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode is an identifier abcd made (a run id, a session key) in a code span; a backtick in one
// (which abcd never writes) is dropped rather than let it end the span.
func mdCode(s string) string { return "`" + strings.ReplaceAll(oneLine(s), "`", "") + "`" }

// mermaidLabel keeps a label to letters, digits and plain punctuation, writing anything else as
// Mermaid's #code; entity (a quote, a bracket, a backtick, <, >, #), and at most 120 characters.
// The one markup kept is the <br/> abcd itself puts between a label's lines.
func mermaidLabel(s string) string {
	parts := strings.Split(s, "<br/>")
	for i, p := range parts {
		p = oneLine(p)
		if utf8.RuneCountInString(p) > 120 {
			p = string([]rune(p)[:119]) + "…"
		}
		var b strings.Builder
		for _, r := range p {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" .,:;-_/()'+=?…", r) {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, "#%d;", r)
			}
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, "<br/>")
}

// stageClass is the class a lane's stage is drawn with, in both tellings.
func stageClass(stage string) string {
	switch stage {
	case "done":
		return "done"
	case "handed-back":
		return "back"
	}
	return "moving"
}
