package review

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// wantReturnError fails unless err is a *ReturnError naming at least one problem.
func wantReturnError(t *testing.T, err error) {
	t.Helper()
	var re *ReturnError
	if !errors.As(err, &re) || len(re.Problems) == 0 {
		t.Fatalf("error %T %v, want a *ReturnError with problems", err, err)
	}
}

// FuzzParseReviewerReturn: the parser never panics; a refusal is a *ReturnError; an accepted return
// is within its bounds, valid UTF-8, and carries exactly one of the role's words with the pass it
// means, and bounded findings.
func FuzzParseReviewerReturn(f *testing.F) {
	for _, seed := range []string{
		"## Verdict\nSHIP\nNo findings.\n",
		"Summary.\r\n\r\n## Verdict\r\n**FIX FIRST**\r\n\r\n" + ruthlessFinding,
		"## Verdict\n`NEEDS-INPUT`\n\n" + securityFinding,
		"```\n## Verdict\nSHIP\n```\n## Verdict\nBLOCK\n",
		"## Verdict\nSHIP\n## Verdict\nAPPROVE\n",
		"~~~\n## Verdict\n",
		"   ###### verdict ##\n\n\nAPPROVE",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, security bool) {
		role := Ruthless
		if security {
			role = Security
		}
		v, err := ParseReviewerReturn(role, data)
		if err != nil {
			wantReturnError(t, err)
			return
		}
		if len(data) > MaxReturnBytes || !utf8.Valid(data) {
			t.Fatalf("accepted %d bytes, valid UTF-8 %v", len(data), utf8.Valid(data))
		}
		pass, fail := Words(role)
		inPass, inFail := slices.Contains(pass, v.Word), slices.Contains(fail, v.Word)
		if inPass == inFail || v.Pass != inPass || v.Role != role {
			t.Fatalf("verdict %+v for %s", v, role)
		}
		if len(v.Findings) > MaxFindingsBytes || !utf8.ValidString(v.Findings) || v.Findings != strings.TrimSpace(v.Findings) {
			t.Fatalf("findings of %d bytes", len(v.Findings))
		}
		if h, _ := verdictHeadings(splitLines(string(data))); len(h) != 1 {
			t.Fatalf("accepted with %d Verdict headings", len(h))
		}
	})
}

// FuzzParseAuditReturn: never panics; a refusal is a *ReturnError; an accepted return has one
// verdict per criterion in order, words of the enum, evidence, a verdict that follows the pass rule,
// and survives a round trip through encoding/json unchanged.
func FuzzParseAuditReturn(f *testing.F) {
	for _, seed := range []string{
		promptExample,
		audit(met1, met2, met3),
		audit(met1, mwc2, not3),
		audit(met1, met2, inc3),
		audit(met2, met1, met3),
		audit(met1, met1),
		`{"schema_version":1,"schema_version":1}`,
		audit(met1, met2, met3) + "{}",
		`{"schema_version":1,"intent":"itd-2609211950427074","verdicts":[{"criterion":"ac-1","verdict":"MET","evidence":"x","concerns":"","x":1}],"summary":""}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, v, err := ParseAuditReturn(data, intentID, criteria)
		if err != nil {
			wantReturnError(t, err)
			return
		}
		if a.SchemaVersion != 1 || a.Intent != intentID || len(a.Verdicts) != len(criteria) {
			t.Fatalf("accepted %+v", a)
		}
		failed := false
		for i, c := range a.Verdicts {
			if c.Criterion != criteria[i] || !slices.Contains(verdictWords(), c.Verdict) || strings.TrimSpace(c.Evidence) == "" {
				t.Fatalf("verdict %d: %+v", i, c)
			}
			failed = failed || c.Verdict == NotMet || c.Verdict == Inconclusive
		}
		if v.Role != Auditor || v.Pass == failed || (v.Word == WordPass) != v.Pass || (v.Word != WordPass && v.Word != WordFail) {
			t.Fatalf("verdict %+v with failed %v", v, failed)
		}
		if len(v.Findings) > MaxFindingsBytes || !utf8.ValidString(v.Findings) {
			t.Fatalf("findings of %d bytes", len(v.Findings))
		}
		again, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		b, v2, err := ParseAuditReturn(again, intentID, criteria)
		if err != nil || !reflect.DeepEqual(a, b) || v != v2 {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, a, b)
		}
	})
}

// FuzzDecodeImplementerReceipt: never panics; a refusal is a *ReturnError; an accepted receipt
// keeps every shape rule and survives a round trip through encoding/json unchanged.
func FuzzDecodeImplementerReceipt(f *testing.F) {
	good, err := json.Marshal(goodReceipt())
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(good),
		strings.Replace(string(good), `"exit_code":0`, `"exit_code":1`, 1),
		strings.Replace(string(good), `"dod-output.txt"`, `"../dod-output.txt"`, 1),
		strings.Replace(string(good), c2, c1, 1),
		strings.Replace(string(good), `"model"`, `"Model"`, 1),
		`{"dod":{"exit_code":0,"exit_code":0}}`,
		string(good) + " []",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeImplementerReceipt(data)
		if err != nil {
			wantReturnError(t, err)
			return
		}
		if len(data) > MaxReceiptBytes || r.SchemaVersion != 1 || r.DoD.ExitCode != 0 || len(r.Commits) == 0 || len(r.Commits) > MaxCommits {
			t.Fatalf("accepted %+v", r)
		}
		seen := map[string]bool{}
		for _, c := range r.Commits {
			if !commitID.MatchString(c) || seen[c] {
				t.Fatalf("accepted the commit %q", c)
			}
			seen[c] = true
		}
		var p problems
		checkLanePath("dod.output", r.DoD.Output, &p)
		checkLanePath("report", r.Report, &p)
		if len(p) > 0 || strings.TrimSpace(r.Model) == "" {
			t.Fatalf("accepted %+v: %v", r, p)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := DecodeImplementerReceipt(again)
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, r, r2)
		}
	})
}

// TestSchemaTagsMatchTheRules: the jsonschema tags state the rules the code enforces.
func TestSchemaTagsMatchTheRules(t *testing.T) {
	if tag := reflectTag(t, ImplementerReceipt{}, "Commits"); !strings.HasSuffix(tag, "pattern="+commitID.String()) {
		t.Errorf("commits tag %q, pattern %s", tag, commitID)
	}
	for _, typ := range []any{Verdict{}, CriterionVerdict{}, AuditReturn{}, DoD{}, ImplementerReceipt{}, FallbackReceipt{}} {
		rt := reflect.TypeOf(typ)
		for i := range rt.NumField() {
			tag := rt.Field(i).Tag.Get("jsonschema")
			for _, part := range strings.Split(tag, ",") {
				if part != "" && !strings.Contains(part, "=") {
					t.Errorf("%s.%s: the tag part %q has no =: a comma inside a value splits it", rt.Name(), rt.Field(i).Name, part)
				}
			}
		}
	}
}
