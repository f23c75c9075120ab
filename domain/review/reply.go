package review

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/text"
)

// A provider answers in JSON constrained by a published schema, not in the markdown a host's agent
// writes. The reply is checked here, then rendered into exactly the return the host's agent would
// have written, so the loop verifies and records a provider's review the same way as a host's.

// Bounds of a review reply, in characters as the schema counts them.
const (
	MaxReplyFindings = 200
	maxFindingTitle  = 200
	maxFindingPlace  = 1024
	maxFindingText   = 8192
)

// ReviewReply is a reviewer's reply from a provider: a summary, the findings, and the verdict word.
type ReviewReply struct {
	// Summary is one short paragraph on the change and the review.
	Summary string `json:"summary" jsonschema:"minLength=1,maxLength=16384"`
	// Verdict is the role's word: SHIP or FIX FIRST for the ruthless reviewer; APPROVE, BLOCK or
	// NEEDS-INPUT for the security reviewer.
	Verdict string `json:"verdict"`
	// Findings, most severe first; empty when there are none.
	Findings []ReviewFinding `json:"findings" jsonschema:"maxItems=200"`
}

// ReviewFinding is one finding of a review reply.
type ReviewFinding struct {
	Title string `json:"title" jsonschema:"minLength=1,maxLength=200"`
	// Location is a real file:line from the head of the change.
	Location string `json:"location" jsonschema:"minLength=1,maxLength=1024"`
	// Severity is the role's: blocker, major, minor or nit (ruthless); critical, high, medium, low or
	// question (security).
	Severity string `json:"severity"`
	What     string `json:"what" jsonschema:"minLength=1,maxLength=8192"`
	Fix      string `json:"fix" jsonschema:"maxLength=8192"`
}

// Severities are the finding severities a reviewer role writes, most severe first.
func Severities(r Role) []string {
	switch r {
	case Ruthless:
		return []string{"blocker", "major", "minor", "nit"}
	case Security:
		return []string{"critical", "high", "medium", "low", "question"}
	}
	return nil
}

func (ReviewReply) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"verdict": contract.Enum(ReviewerWords()...)}
}

func (ReviewFinding) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"severity": contract.Enum(append(Severities(Ruthless), Severities(Security)...)...)}
}

// DecodeReviewReply reads a reviewer's reply: strict JSON of at most MaxReturnBytes with exactly the
// members summary, verdict and findings; the verdict one of the role's words; each finding complete,
// its severity one of the role's, every text within its bound. Every problem is named at once.
func DecodeReviewReply(role Role, data []byte) (ReviewReply, error) {
	var p problems
	if role != Ruthless && role != Security {
		p.add("the role %q writes no review reply: decode it as %s's or %s's", text.Clip(string(role)), Ruthless, Security)
		return ReviewReply{}, p.err()
	}
	if !strict("the reply", data, MaxReturnBytes, &p) {
		return ReviewReply{}, p.err()
	}
	var r ReviewReply
	var raw json.RawMessage
	got := decodeObject(data, "the reply", "", []field{
		{"summary", &r.Summary, "a string, a short paragraph on the change"},
		{"verdict", &r.Verdict, "a string, one of " + wordList(role)},
		{"findings", &raw, "an array of findings (empty when there are none)"},
	}, &p)
	if got["summary"] {
		checkText("summary", r.Summary, 1, maxSummary, &p)
	}
	if got["verdict"] {
		pass, fail := Words(role)
		if !slices.Contains(append(pass, fail...), r.Verdict) {
			p.add("\"verdict\" is %q: write exactly one of %s", text.Clip(r.Verdict), wordList(role))
		}
	}
	if got["findings"] {
		r.Findings = decodeFindings(role, raw, &p)
	}
	if err := p.err(); err != nil {
		return ReviewReply{}, err
	}
	return r, nil
}

func decodeFindings(role Role, raw json.RawMessage, p *problems) []ReviewFinding {
	elems, ok := decodeArray(raw, "findings", "an array of findings", p)
	if !ok {
		return nil
	}
	if len(elems) > MaxReplyFindings {
		p.add("\"findings\" holds %d findings, more than %d: keep the ones that matter", len(elems), MaxReplyFindings)
		return nil
	}
	out := make([]ReviewFinding, len(elems))
	for i, e := range elems {
		f := &out[i]
		at := fmt.Sprintf("findings[%d]", i)
		got := decodeObject(e, at, at+".", []field{
			{"title", &f.Title, "a string, a short title"},
			{"location", &f.Location, "a string, the file:line"},
			{"severity", &f.Severity, "a string, one of " + strings.Join(Severities(role), ", ")},
			{"what", &f.What, "a string, what is wrong"},
			{"fix", &f.Fix, "a string, the fix (\"\" when none)"},
		}, p)
		for _, t := range []struct {
			name, value string
			min, max    int
		}{{"title", f.Title, 1, maxFindingTitle}, {"location", f.Location, 1, maxFindingPlace}, {"what", f.What, 1, maxFindingText}, {"fix", f.Fix, 0, maxFindingText}} {
			if got[t.name] {
				checkText(at+"."+t.name, t.value, t.min, t.max, p)
			}
		}
		if got["severity"] && !slices.Contains(Severities(role), f.Severity) {
			p.add("%s.severity is %q: a %s writes %s", at, text.Clip(f.Severity), role, strings.Join(Severities(role), ", "))
		}
	}
	return out
}

// checkText holds a text to min..max characters.
func checkText(name, s string, min, max int, p *problems) {
	switch n := utf8.RuneCountInString(s); {
	case strings.TrimSpace(s) == "" && min > 0:
		p.add("%q is empty: write it", name)
	case n > max:
		p.add("%q is %d characters, more than %d: say it shorter", name, n, max)
	}
}

// RenderReviewReply writes a checked reply as the markdown a host's reviewer returns: the summary,
// the one ## Verdict heading with the word on the line after it, then each finding in the agent's
// shape, or "No findings.". Text from the reply cannot open a heading or a code fence (a line
// starting so is escaped), so the rendered return has exactly the reply's verdict. The rendering is
// checked with ParseReviewerReturn before it is handed back.
func RenderReviewReply(role Role, r ReviewReply) ([]byte, error) {
	prefix := map[Role]string{Ruthless: "F", Security: "S"}[role]
	var b strings.Builder
	b.WriteString(block(r.Summary, ""))
	b.WriteString("\n\n## Verdict\n")
	b.WriteString(r.Verdict)
	b.WriteString("\n\n")
	if len(r.Findings) == 0 {
		b.WriteString("No findings.\n")
	}
	for i, f := range r.Findings {
		fmt.Fprintf(&b, "### %s%d. %s\n", prefix, i+1, oneLine(f.Title))
		fmt.Fprintf(&b, "- Location: %s\n", oneLine(f.Location))
		fmt.Fprintf(&b, "- Severity: %s\n", f.Severity)
		fmt.Fprintf(&b, "- What: %s\n", block(f.What, "  "))
		if strings.TrimSpace(f.Fix) != "" {
			fmt.Fprintf(&b, "- Fix: %s\n", block(f.Fix, "  "))
		}
		b.WriteString("\n")
	}
	out := []byte(strings.TrimRight(b.String(), "\n") + "\n")
	v, err := ParseReviewerReturn(role, out)
	if err != nil {
		return nil, err
	}
	if v.Word != r.Verdict {
		return nil, &ReturnError{Problems: []string{fmt.Sprintf("the rendered return reads %q, not the reply's %q", v.Word, r.Verdict)}}
	}
	return out, nil
}

// oneLine keeps a heading's or a list item's text on its line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// block writes multi-line text with its lines after the first indented by indent, each line that
// would open a heading or a fence escaped, so nothing in it changes the return's structure.
func block(s, indent string) string {
	lines := splitLines(strings.TrimSpace(s))
	for i, l := range lines {
		j := 0
		for j < len(l) && j < 4 && l[j] == ' ' {
			j++
		}
		if rest := l[j:]; strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~") {
			l = l[:j] + `\` + l[j:]
		}
		if i > 0 && l != "" {
			l = indent + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// RenderAuditReply writes a checked auditor's reply as the JSON return the host's auditor writes.
func RenderAuditReply(a AuditReturn) ([]byte, error) {
	data, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
