package record

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const (
	itdID = "itd-2607011230051234"
	spcID = "spc-2607011231001111"
	issID = "iss-2607011232002222"
	dcnID = "dcn-2607011233003333"
	dcn2  = "dcn-2501010000000001"
)

// intentFM is a complete intent front matter: keys on lines 2-8, closing --- on line 9.
const intentFM = "id: " + itdID + "\n" +
	"type: intent\n" +
	`title: "Records you can \"trust\""` + "\n" +
	"lifecycle: planned\n" +
	"kind: standalone\n" +
	"severity: major\n" +
	"created: 2026-07-01\n"

// intentBody starts on line 10.
const intentBody = "# Preamble is ignored\n" + // 10
	"\n" + // 11
	"## Press Release\n" + // 12
	"\n" + // 13
	"Today abcd keeps records.\n" + // 14
	"\n" + // 15
	"## Acceptance Criteria\n" + // 16
	"\n" + // 17
	"<!-- fill: criteria -->\n" + // 18
	"- ac-1: Given a repo, when I run lint, then it reports.\n" + // 19
	"- ac-2: GIVEN two records\n" + // 20
	"  WHEN merged, THEN no collision.\n" + // 21
	"\n" + // 22
	"## Open Questions\n" + // 23
	"\n" + // 24
	"- [ ] Who owns it?\n" + // 25
	"- [x] Which format?\n" + // 26
	"\n" + // 27
	"## Notes\n" + // 28
	"\n" + // 29
	"```sh\n" + // 30
	"## not a heading\n" + // 31
	"```\n" // 32

func doc(fm, body string) string { return "---\n" + fm + "---\n" + body }

// replaceLine replaces the line of key in fm; an empty line removes it.
func replaceLine(fm, key, line string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(fm, "\n") {
		if strings.HasPrefix(l, key+":") {
			if line != "" {
				b.WriteString(line + "\n")
			}
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

const specFM = "id: " + spcID + "\n" +
	"type: spec\n" +
	"title: \"Build records\"\n" +
	"lifecycle: open\n" +
	"implements: " + itdID + "\n" +
	"created: 2026-07-01\n"

const specBody = "## Steps\n" + // 9
	"\n" + // 10
	"1. Parse the front matter.\n" + // 11
	"2. Render it\n" + // 12
	"   canonically.\n" + // 13
	"\n" + // 14
	"## Progress\n" // 15

const issueFM = "id: " + issID + "\n" +
	"type: issue\n" +
	"title: \"Lint is slow\"\n" +
	"lifecycle: open\n" +
	"severity: minor\n" +
	"source: person:alice\n" +
	"related: [" + itdID + ", " + spcID + "]\n" +
	"created: 2026-07-02\n"

const decisionFM = "id: " + dcnID + "\n" +
	"type: decision\n" +
	"title: \"Ids are time plus random\"\n" +
	"date: 2026-07-03\n" +
	"supersedes: [" + dcn2 + "]\n"

func parseErr(t *testing.T, err error) *ParseError {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not a *ParseError: %v", err, err)
	}
	return pe
}

// Positions (Line fields, Fields, File) describe the file parsed; round trips compare without them.
func stripIntent(i Intent) Intent {
	i.File, i.Fields = "", nil
	i.Sections = stripSections(i.Sections)
	i.Criteria = append([]Criterion{}, i.Criteria...)
	for k := range i.Criteria {
		i.Criteria[k].Line = 0
	}
	i.Questions = append([]Question{}, i.Questions...)
	for k := range i.Questions {
		i.Questions[k].Line = 0
	}
	return i
}

func stripSpec(s Spec) Spec {
	s.File, s.Fields = "", nil
	s.Sections = stripSections(s.Sections)
	s.Steps = append([]Step{}, s.Steps...)
	for k := range s.Steps {
		s.Steps[k].Line = 0
	}
	return s
}

func stripIssue(i Issue) Issue {
	i.File, i.Fields = "", nil
	i.Sections = stripSections(i.Sections)
	return i
}

func stripDecision(d Decision) Decision {
	d.File, d.Fields = "", nil
	d.Sections = stripSections(d.Sections)
	return d
}

func stripSections(s []Section) []Section {
	out := append([]Section{}, s...)
	for k := range out {
		out[k].Line = 0
	}
	return out
}

func deepEqual(a, b any) bool { return reflect.DeepEqual(a, b) }
