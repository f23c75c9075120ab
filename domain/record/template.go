package record

import (
	"strings"
	"time"
)

// Templates are records with placeholders a harness or a person fills: HTML comments of the form
// <!-- fill: what to write -->. A section holding only comments, blank lines or "None." is unwritten.

func fill(what string) string { return "<!-- fill: " + what + " -->" }

func dayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// NewIntent is a draft intent from the template: lifecycle drafts, kind standalone, severity major,
// created on the UTC date of created; its sections each hold a placeholder (Open Questions also holds
// None.).
func NewIntent(id, title string, created time.Time) Intent {
	return Intent{
		Front: IntentFrontMatter{ID: id, Type: TypeOf(Intents), Title: title, Lifecycle: "drafts", Kind: "standalone", Severity: "major", Created: dayOf(created)},
		Sections: []Section{
			{Heading: SectionPressRelease, Body: fill("the announcement, written as if this has shipped: who it is for, what they can now do, and why it matters to them")},
			{Heading: SectionWhy, Body: fill("the problem today, who has it, and what it costs them")},
			{Heading: SectionWhatsInScope, Body: fill("what this intent covers, as a list")},
			{Heading: SectionWhatsOutOfScope, Body: fill("what it deliberately leaves out, and where that goes instead")},
			{Heading: SectionCriteria, Body: fill("one line per criterion, as - ac-1: Given …, when …, then … (ids ac-1, ac-2, … never reused)")},
			{Heading: SectionOpenQuestions, Body: fill("one line per question, as - [ ] question; mark it - [x] when resolved, and remove None.") + "\n\n" + none},
			{Heading: SectionAuditNotes, Body: fill("left for the audit: what was checked against each criterion, and what was found")},
		},
		Criteria:  []Criterion{},
		Questions: []Question{},
	}
}

// NewSpec is an open spec from the template, implementing the intent.
func NewSpec(id, title string, intent IntentFrontMatter, created time.Time) Spec {
	return Spec{
		Front: SpecFrontMatter{ID: id, Type: TypeOf(Specs), Title: title, Lifecycle: "open", Implements: intent.ID, Created: dayOf(created)},
		Sections: []Section{
			{Heading: SectionSummary, Body: fill("what this spec builds for " + intent.ID + ", in two or three sentences")},
			{Heading: SectionScope, Body: fill("what changes: packages, files, commands, formats")},
			{Heading: SectionOutOfScope, Body: fill("what this spec leaves alone")},
			{Heading: SectionApproach, Body: fill("how it is built, and why this way rather than another")},
			{Heading: SectionSteps, Body: fill("a numbered list, as 1. text; each step becomes a lane of the build loop")},
			{Heading: SectionCriteriaHow, Body: fill("one line per acceptance criterion of " + intent.ID + ", as - ac-N: how this spec satisfies it")},
			{Heading: SectionProgress, Body: fill("the build loop appends what each step delivered")},
		},
		Steps: []Step{},
	}
}

// NewIssue is an open issue. Summary holds the text, with \n line endings and without surrounding
// blank lines (a placeholder when it is empty); Notes holds a placeholder. Closing adds a Resolution
// section with AppendToSection. A nil related is written as []. Nothing is checked here: callers
// check the text with CheckBody, the title and source with CheckTitle and the severity against
// Severities (or render the issue and parse it back).
func NewIssue(id, title, text, severity, source string, related []string, created time.Time) Issue {
	summary := normalizeBody(text)
	if strings.TrimSpace(summary) == "" {
		summary = fill("what was noticed, where, and how to see it again")
	}
	return Issue{
		Front: IssueFrontMatter{ID: id, Type: TypeOf(Issues), Title: title, Lifecycle: "open", Severity: severity, Source: source, Related: append([]string{}, related...), Created: dayOf(created)},
		Sections: []Section{
			{Heading: SectionSummary, Body: summary},
			{Heading: SectionNotes, Body: fill("anything learned while looking into it")},
		},
	}
}

// NewDecision is a decision dated on the UTC date of date: Decision and Reasons hold placeholders,
// Supersedes lists the superseded ids (or None.).
func NewDecision(id, title string, supersedes []string, date time.Time) Decision {
	list := none
	if len(supersedes) > 0 {
		list = "- " + strings.Join(supersedes, "\n- ")
	}
	return Decision{
		Front: DecisionFrontMatter{ID: id, Type: TypeOf(Decisions), Title: title, Date: dayOf(date), Supersedes: append([]string{}, supersedes...)},
		Sections: []Section{
			{Heading: SectionDecision, Body: fill("the ruling, in a sentence or two")},
			{Heading: SectionReasons, Body: fill("why: the options weighed and what tipped it")},
			{Heading: SectionSupersedes, Body: list},
		},
	}
}

// Written reports whether a section holds anything besides HTML comments (placeholders), blank lines
// and "None." lines.
func Written(s Section) bool {
	body := s.Body
	for {
		i := strings.Index(body, "<!--")
		if i < 0 {
			break
		}
		j := strings.Index(body[i+4:], "-->")
		if j < 0 {
			body = body[:i]
			break
		}
		body = body[:i] + "\n" + body[i+4+j+3:]
	}
	for _, l := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(l); t != "" && t != none {
			return true
		}
	}
	return false
}
