package record

import (
	"fmt"

	"github.com/abcd-dev/abcd/domain/internal/frontmatter"
)

// Intent is a parsed intent: its front matter, its sections in order, and the items of its
// Acceptance Criteria and Open Questions sections. Fields holds the front matter lines as read (for
// line numbers); Render ignores it and every Line, which are positions in the file parsed.
type Intent struct {
	Front     IntentFrontMatter
	Sections  []Section
	Criteria  []Criterion
	Questions []Question
	File      string
	Fields    []frontmatter.Field `json:"-"`
}

// Spec is a parsed spec, with the items of its Steps section.
type Spec struct {
	Front    SpecFrontMatter
	Sections []Section
	Steps    []Step
	File     string
	Fields   []frontmatter.Field `json:"-"`
}

// Issue is a parsed issue.
type Issue struct {
	Front    IssueFrontMatter
	Sections []Section
	File     string
	Fields   []frontmatter.Field `json:"-"`
}

// Decision is a parsed decision.
type Decision struct {
	Front    DecisionFrontMatter
	Sections []Section
	File     string
	Fields   []frontmatter.Field `json:"-"`
}

// Section headings the templates write and the parsers read items from.
const (
	SectionPressRelease    = "Press Release"
	SectionWhy             = "Why This Matters"
	SectionWhatsInScope    = "What's In Scope"
	SectionWhatsOutOfScope = "What's Out of Scope"
	SectionCriteria        = "Acceptance Criteria"
	SectionOpenQuestions   = "Open Questions"
	SectionAuditNotes      = "Audit Notes"
	SectionSummary         = "Summary"
	SectionScope           = "Scope"
	SectionOutOfScope      = "Out of Scope"
	SectionApproach        = "Approach"
	SectionSteps           = "Steps"
	SectionCriteriaHow     = "How the Criteria Are Satisfied"
	SectionProgress        = "Progress"
	SectionNotes           = "Notes"
	SectionResolution      = "Resolution"
	SectionDecision        = "Decision"
	SectionReasons         = "Reasons"
	SectionSupersedes      = "Supersedes"
)

// parseRecord runs the checks every family shares: size, no unresolved merge conflict, header, body.
func parseRecord(f Family, file string, data []byte) (header, []rawSection, *ParseError) {
	if len(data) > MaxFileBytes {
		return header{}, nil, newParseError(file, 0, fmt.Sprintf("the file is %d bytes, over the limit of %d (256 KiB)", len(data), MaxFileBytes), "shorten it, or split it into several records")
	}
	if line, ok := ConflictMarkers(data); ok {
		return header{}, nil, newParseError(file, line, conflictProblem, conflictRemedy)
	}
	h, pe := parseHeader(f, file, data)
	if pe != nil {
		return h, nil, pe
	}
	secs, pe := parseBody(file, data, h.size, h.close)
	return h, secs, pe
}

// ParseIntent reads an intent file. Besides the front matter and sections it reads the Acceptance
// Criteria items (each "- ac-N: Given …, when …, then …"; ids unique) and the Open Questions items
// ("- [ ] text", "- [x] text", or the single line None.). Every refusal is a *ParseError.
func ParseIntent(file string, data []byte) (Intent, error) {
	h, raw, pe := parseRecord(Intents, file, data)
	if pe != nil {
		return Intent{}, pe
	}
	i := Intent{Front: h.decode().(IntentFrontMatter), Sections: sectionsOf(raw), File: file, Fields: h.fields}
	i.Criteria, i.Questions = []Criterion{}, []Question{}
	if s := findRaw(raw, SectionCriteria); s != nil {
		if i.Criteria, pe = parseCriteria(file, s); pe != nil {
			return Intent{}, pe
		}
	}
	if s := findRaw(raw, SectionOpenQuestions); s != nil {
		if i.Questions, pe = parseQuestions(file, s); pe != nil {
			return Intent{}, pe
		}
	}
	return i, nil
}

// ParseSpec reads a spec file, and the items of its Steps section ("1. text", numbered 1..n).
func ParseSpec(file string, data []byte) (Spec, error) {
	h, raw, pe := parseRecord(Specs, file, data)
	if pe != nil {
		return Spec{}, pe
	}
	s := Spec{Front: h.decode().(SpecFrontMatter), Sections: sectionsOf(raw), File: file, Fields: h.fields, Steps: []Step{}}
	if sec := findRaw(raw, SectionSteps); sec != nil {
		if s.Steps, pe = parseSteps(file, sec); pe != nil {
			return Spec{}, pe
		}
	}
	return s, nil
}

// ParseIssue reads an issue file.
func ParseIssue(file string, data []byte) (Issue, error) {
	h, raw, pe := parseRecord(Issues, file, data)
	if pe != nil {
		return Issue{}, pe
	}
	return Issue{Front: h.decode().(IssueFrontMatter), Sections: sectionsOf(raw), File: file, Fields: h.fields}, nil
}

// ParseDecision reads a decision file.
func ParseDecision(file string, data []byte) (Decision, error) {
	h, raw, pe := parseRecord(Decisions, file, data)
	if pe != nil {
		return Decision{}, pe
	}
	return Decision{Front: h.decode().(DecisionFrontMatter), Sections: sectionsOf(raw), File: file, Fields: h.fields}, nil
}

// fieldLine is the line of a front matter key, or 0.
func fieldLine(fields []frontmatter.Field, key string) int {
	for _, f := range fields {
		if f.Key == key {
			return f.Line
		}
	}
	return 0
}
