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

// The auditor's per-criterion verdict words.
const (
	Met             = "MET"
	MetWithConcerns = "MET_WITH_CONCERNS"
	NotMet          = "NOT_MET"
	Inconclusive    = "INCONCLUSIVE"
)

// Bounds of the auditor's return, in characters as the schema counts them.
const (
	maxEvidence = 4096
	maxConcerns = 4096
	maxSummary  = 16384
)

// CriterionVerdict is the auditor's verdict on one acceptance criterion.
type CriterionVerdict struct {
	Criterion string `json:"criterion" jsonschema:"pattern=^ac-[0-9]+$"`
	Verdict   string `json:"verdict"`
	Evidence  string `json:"evidence" jsonschema:"minLength=1,maxLength=4096"`
	Concerns  string `json:"concerns" jsonschema:"maxLength=4096"`
}

// AuditReturn is the intent-auditor's return: one verdict per acceptance criterion of the intent.
type AuditReturn struct {
	SchemaVersion int                `json:"schema_version"`
	Intent        string             `json:"intent"`
	Verdicts      []CriterionVerdict `json:"verdicts"`
	Summary       string             `json:"summary" jsonschema:"maxLength=16384"`
}

// ParseAuditReturn reads the intent-auditor's return for the intent intentID, whose acceptance
// criteria are criteria, in the intent's order. The return must be strict JSON of at most
// MaxReturnBytes: schema_version 1, intent equal to intentID, exactly one verdict per criterion in
// the intent's order, each with a verdict word of the enum and non-empty evidence; concerns empty
// for MET and non-empty for MET_WITH_CONCERNS and INCONCLUSIVE, as the auditor's prompt promises.
// The Verdict passes only with no NOT_MET and no INCONCLUSIVE. Every problem is named at once.
func ParseAuditReturn(data []byte, intentID string, criteria []string) (AuditReturn, Verdict, error) {
	return parseAudit(data, intentID, criteria, true)
}

// DecodeAuditReply reads an auditor's reply from a provider for its shape alone: every rule of
// ParseAuditReturn but the intent's id and criteria, which the loop checks when it records the
// rendered return.
func DecodeAuditReply(data []byte) (AuditReturn, error) {
	a, _, err := parseAudit(data, "", nil, false)
	return a, err
}

// parseAudit is ParseAuditReturn; ofIntent false skips the checks against the intent.
func parseAudit(data []byte, intentID string, criteria []string, ofIntent bool) (AuditReturn, Verdict, error) {
	var p problems
	if !strict("the return", data, MaxReturnBytes, &p) {
		return AuditReturn{}, Verdict{}, p.err()
	}
	var a AuditReturn
	var rawVerdicts json.RawMessage
	got := decodeObject(data, "the return", "", []field{
		{"schema_version", &a.SchemaVersion, "the number 1"},
		{"intent", &a.Intent, "a string, the intent's id"},
		{"verdicts", &rawVerdicts, "an array, one verdict per criterion"},
		{"summary", &a.Summary, "a string"},
	}, &p)
	if got["schema_version"] && a.SchemaVersion != ReturnVersion {
		p.add("\"schema_version\" is %d; this abcd reads version %d: write \"schema_version\": %d", a.SchemaVersion, ReturnVersion, ReturnVersion)
	}
	if got["intent"] && ofIntent && a.Intent != intentID {
		p.add("\"intent\" is %q, but this audit is of %q: write \"intent\": %q", text.Clip(a.Intent), intentID, intentID)
	}
	if got["verdicts"] {
		var named []bool
		var ok bool
		if a.Verdicts, named, ok = decodeVerdicts(rawVerdicts, &p); ok && ofIntent {
			checkCriteria(a.Verdicts, named, criteria, &p)
		}
	}
	if n := utf8.RuneCountInString(a.Summary); n > maxSummary {
		p.add("\"summary\" is %d characters, more than %d: say in one or two sentences how many criteria are met and whether the audit passes", n, maxSummary)
	}

	if err := p.err(); err != nil {
		return AuditReturn{}, Verdict{}, err
	}
	return a, auditVerdict(a), nil
}

// decodeVerdicts decodes and checks each verdict on its own; named says which verdicts carry a
// criterion string; ok is false when verdicts is no array.
func decodeVerdicts(raw json.RawMessage, p *problems) (out []CriterionVerdict, named []bool, ok bool) {
	elems, ok := decodeArray(raw, "verdicts", "an array, one verdict per criterion", p)
	if !ok {
		return nil, nil, false
	}
	out = make([]CriterionVerdict, len(elems))
	named = make([]bool, len(elems))
	for i, e := range elems {
		v := &out[i]
		at := fmt.Sprintf("verdicts[%d]", i)
		got := decodeObject(e, at, at+".", []field{
			{"criterion", &v.Criterion, "a string, the criterion's id (ac-1, ac-2, ...)"},
			{"verdict", &v.Verdict, "a string, one of " + strings.Join(verdictWords(), ", ")},
			{"evidence", &v.Evidence, "a string, the file:line or test that shows the verdict"},
			{"concerns", &v.Concerns, "a string (\"\" for MET)"},
		}, p)
		named[i] = got["criterion"]
		checkVerdict(at, *v, got, p)
	}
	return out, named, true
}

func verdictWords() []string { return []string{Met, MetWithConcerns, NotMet, Inconclusive} }

// checkVerdict applies the prompt's rules to one criterion's verdict.
// got names the members that decoded; a missing or mistyped one is already refused.
func checkVerdict(at string, v CriterionVerdict, got map[string]bool, p *problems) {
	if got["verdict"] && !slices.Contains(verdictWords(), v.Verdict) {
		p.add("%s.verdict is %q: write exactly one of %s", at, text.Clip(v.Verdict), strings.Join(verdictWords(), ", "))
	}
	if got["evidence"] && strings.TrimSpace(v.Evidence) == "" {
		p.add("%s.evidence is empty: name the file:line or the test that shows the verdict, and what it shows", at)
	} else if n := utf8.RuneCountInString(v.Evidence); n > maxEvidence {
		p.add("%s.evidence is %d characters, more than %d: point at the location rather than quoting it", at, n, maxEvidence)
	}
	if n := utf8.RuneCountInString(v.Concerns); n > maxConcerns {
		p.add("%s.concerns is %d characters, more than %d: say it shorter", at, n, maxConcerns)
	}
	switch {
	case v.Verdict == Met && strings.TrimSpace(v.Concerns) != "":
		p.add("%s is MET with concerns: write \"concerns\": \"\", or the verdict MET_WITH_CONCERNS", at)
	case got["concerns"] && (v.Verdict == MetWithConcerns || v.Verdict == Inconclusive) && strings.TrimSpace(v.Concerns) == "":
		p.add("%s is %s with no concerns: say in \"concerns\" what concerns you or what would settle it", at, v.Verdict)
	}
}

// checkCriteria holds the verdicts to the intent's criteria: none missing, none unknown, none
// repeated, and, when the set is right, in the intent's order.
func checkCriteria(verdicts []CriterionVerdict, named []bool, criteria []string, p *problems) {
	want := dedupe(criteria)
	seen := map[string][]int{}
	var order []string
	for i, v := range verdicts {
		if !named[i] {
			continue
		}
		if !slices.Contains(want, v.Criterion) {
			p.add("verdicts[%d] names the criterion %q, which the intent does not have: remove it (the intent's criteria are %s)", i, text.Clip(v.Criterion), listOrNone(want))
			continue
		}
		if len(seen[v.Criterion]) == 0 {
			order = append(order, v.Criterion)
		}
		seen[v.Criterion] = append(seen[v.Criterion], i)
	}
	complete := len(order) == len(verdicts)
	for _, c := range want {
		switch at := seen[c]; {
		case len(at) == 0:
			p.add("there is no verdict for the criterion %s: add one", c)
			complete = false
		case len(at) > 1:
			idx := make([]string, len(at))
			for i, n := range at {
				idx[i] = fmt.Sprintf("verdicts[%d]", n)
			}
			p.add("the criterion %s has %d verdicts (%s): keep one", c, len(at), strings.Join(idx, ", "))
		}
	}
	if complete && strings.Join(order, ",") != strings.Join(want, ",") {
		p.add("the verdicts are in the order %s: write them in the intent's order, %s", strings.Join(order, ", "), strings.Join(want, ", "))
	}
}

func dedupe(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// auditVerdict folds a valid return into one verdict: PASS with no NOT_MET and no INCONCLUSIVE.
// Its findings list each criterion not plainly MET, with its verdict, concerns and evidence, then
// the summary.
func auditVerdict(a AuditReturn) Verdict {
	v := Verdict{Role: Auditor, Word: WordPass, Pass: true}
	var b strings.Builder
	for _, c := range a.Verdicts {
		if c.Verdict == NotMet || c.Verdict == Inconclusive {
			v.Word, v.Pass = WordFail, false
		}
		if c.Verdict == Met {
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", c.Criterion, c.Verdict)
		if c.Concerns != "" {
			fmt.Fprintf(&b, "concerns: %s\n", c.Concerns)
		}
		fmt.Fprintf(&b, "evidence: %s\n\n", c.Evidence)
	}
	b.WriteString(a.Summary)
	v.Findings = text.Prefix(strings.TrimSpace(b.String()), MaxFindingsBytes)
	return v
}

func (CriterionVerdict) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"verdict": contract.Enum(verdictWords()...)}
}

func (AuditReturn) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(ReturnVersion)}
}
