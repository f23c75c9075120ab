package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// promptExample is the return the intent-auditor's prompt shows, copied from its text.
const promptExample = `{"schema_version":1,"intent":"<intent id>","verdicts":[{"criterion":"ac-1","verdict":"MET","evidence":"<file:line or test name and what it shows>","concerns":""}],"summary":"..."}`

const intentID = "itd-2609211950427074"

var criteria = []string{"ac-1", "ac-2", "ac-3"}

// audit builds a return for intentID from verdict objects written as JSON.
func audit(verdicts ...string) string {
	return `{"schema_version":1,"intent":"` + intentID + `","verdicts":[` + strings.Join(verdicts, ",") +
		`],"summary":"Two of three criteria are met."}`
}

func cv(id, verdict, evidence, concerns string) string {
	b, _ := json.Marshal(CriterionVerdict{Criterion: id, Verdict: verdict, Evidence: evidence, Concerns: concerns})
	return string(b)
}

var (
	met1  = cv("ac-1", Met, "TestRefusesUnknownKey in config_test.go asserts the refusal", "")
	met2  = cv("ac-2", Met, "review/audit.go:40 decodes strictly", "")
	met3  = cv("ac-3", Met, "TestFallback in fallback_test.go", "")
	mwc2  = cv("ac-2", MetWithConcerns, "review/audit.go:40", "only the happy path is tested")
	not3  = cv("ac-3", NotMet, "no code writes the receipt", "write it in drive.go")
	inc3  = cv("ac-3", Inconclusive, "needs a run", "test output for TestE2E would settle it")
	not2b = cv("ac-2", NotMet, "the flag is parsed but never read (cli/step.go:12)", "")
)

func TestParseAuditReturnPromptExample(t *testing.T) {
	a, v, err := ParseAuditReturn([]byte(promptExample), "<intent id>", []string{"ac-1"})
	if err != nil {
		t.Fatal(err)
	}
	if a.SchemaVersion != 1 || a.Intent != "<intent id>" || len(a.Verdicts) != 1 || a.Summary != "..." {
		t.Fatalf("%+v", a)
	}
	if v != (Verdict{Role: Auditor, Word: WordPass, Pass: true, Findings: "..."}) {
		t.Fatalf("%+v", v)
	}
}

// TestAuditorPromptMatchesTheParser reads the shipped prompt: its example is the one above, and it
// names the words and rules the parser holds a return to.
func TestAuditorPromptMatchesTheParser(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "agents", "intent-auditor.md"))
	if err != nil {
		t.Fatal(err)
	}
	prompt := string(data)
	if !strings.Contains(prompt, "\n"+promptExample+"\n") {
		t.Errorf("the prompt's example return changed: copy it into promptExample and check it still parses")
	}
	for _, phrase := range []string{
		"in the intent's order", "no id\n  missing, none repeated", "`concerns` is a string: empty for `MET`",
		"No other fields", "The audit passes only if no verdict is `NOT_MET` and none is `INCONCLUSIVE`",
	} {
		if !strings.Contains(prompt, phrase) {
			t.Errorf("the prompt no longer says %q: update the parser's rules with it", phrase)
		}
	}
	for _, w := range verdictWords() {
		if !strings.Contains(prompt, "`"+w+"`") {
			t.Errorf("the prompt does not name %s", w)
		}
	}
}

func TestParseAuditReturnAccepts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		word     string
		findings string
	}{
		{"all met", audit(met1, met2, met3), WordPass, "Two of three criteria are met."},
		{"met with concerns passes", audit(met1, mwc2, met3), WordPass,
			"ac-2 MET_WITH_CONCERNS\nconcerns: only the happy path is tested\nevidence: review/audit.go:40\n\nTwo of three criteria are met."},
		{"not met fails", audit(met1, mwc2, not3), WordFail,
			"ac-2 MET_WITH_CONCERNS\nconcerns: only the happy path is tested\nevidence: review/audit.go:40\n\n" +
				"ac-3 NOT_MET\nconcerns: write it in drive.go\nevidence: no code writes the receipt\n\nTwo of three criteria are met."},
		{"inconclusive fails", audit(met1, met2, inc3), WordFail,
			"ac-3 INCONCLUSIVE\nconcerns: test output for TestE2E would settle it\nevidence: needs a run\n\nTwo of three criteria are met."},
		{"not met without concerns", audit(met1, not2b, met3), WordFail,
			"ac-2 NOT_MET\nevidence: the flag is parsed but never read (cli/step.go:12)\n\nTwo of three criteria are met."},
		{"whitespace and CRLF around", "\r\n  " + audit(met1, met2, met3) + "\r\n", WordPass, "Two of three criteria are met."},
		{"blank concerns on MET", audit(met1, cv("ac-2", Met, "x", " "), met3), WordPass, "Two of three criteria are met."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, v, err := ParseAuditReturn([]byte(tc.in), intentID, criteria)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Verdicts) != 3 || a.Intent != intentID {
				t.Fatalf("%+v", a)
			}
			want := Verdict{Role: Auditor, Word: tc.word, Pass: tc.word == WordPass, Findings: tc.findings}
			if v != want {
				t.Fatalf("got  %+v\nwant %+v", v, want)
			}
		})
	}
}

func TestParseAuditReturnNoCriteria(t *testing.T) {
	_, v, err := ParseAuditReturn([]byte(`{"schema_version":1,"intent":"itd-1","verdicts":[],"summary":"Nothing to audit."}`), "itd-1", nil)
	if err != nil || !v.Pass {
		t.Fatalf("%+v %v", v, err)
	}
}

func TestParseAuditReturnRefuses(t *testing.T) {
	long := strings.Repeat("é", 4097)
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		// Strictness.
		{"empty", "", []string{"the return is not JSON"}},
		{"prose around", "Here is the audit:\n" + audit(met1, met2, met3), []string{"the return is not JSON: invalid character 'H' looking for beginning of value at byte 1: write the JSON document alone"}},
		{"code fence", "```json\n" + audit(met1, met2, met3) + "\n```", []string{"the return is not JSON: invalid character '`' looking for beginning of value at byte 1: write the JSON document alone, with no prose, markdown or code fence around it"}},
		{"an array", "[" + audit(met1, met2, met3) + "]", []string{"the return must hold one JSON object"}},
		{"trailing content", audit(met1, met2, met3) + "\n{}", []string{"the return has content after its object"}},
		{"trailing prose", audit(met1, met2, met3) + " done", []string{"the return has content after its object"}},
		{"duplicate key", `{"schema_version":1,"schema_version":1,"intent":"` + intentID + `","verdicts":[],"summary":""}`, []string{`names the key "schema_version" twice`}},
		{"duplicate key in a verdict", audit(met1, `{"criterion":"ac-2","verdict":"MET","verdict":"NOT_MET","evidence":"x","concerns":""}`, met3), []string{`names the key "verdicts.verdict" twice`}},
		{"invalid UTF-8", audit(met1, met2, cv("ac-3", Met, "x", "")) + "\xff", []string{"not valid UTF-8"}},
		{"unknown fields", strings.Replace(audit(met1, `{"criterion":"ac-2","verdict":"MET","evidence":"x","concerns":"","score":9}`, met3), `"summary"`, `"passed":true,"summary"`, 1),
			[]string{`the return has the unknown field "passed": remove it (its fields are schema_version, intent, verdicts, summary)`, `verdicts[1] has the unknown field "score"`}},
		{"a key in another case", strings.Replace(audit(met1, met2, met3), `"summary"`, `"Summary"`, 1),
			[]string{`unknown field "Summary"`, `the return has no "summary": add it as a string`}},
		{"missing fields", `{"verdicts":[{"criterion":"ac-1"}]}`, []string{
			`the return has no "schema_version": add it as the number 1`, `the return has no "intent"`, `the return has no "summary"`,
			`verdicts[0] has no "verdict"`, `verdicts[0] has no "evidence"`, `verdicts[0] has no "concerns"`,
			"no verdict for the criterion ac-2", "no verdict for the criterion ac-3"}},
		{"wrong types", `{"schema_version":"1","intent":7,"verdicts":{},"summary":null}`, []string{
			`"schema_version" must be the number 1; it is the string "1"`, `"intent" must be a string, the intent's id; it is the number 7`,
			`"summary" must be a string; it is null`, `"verdicts" must be an array, one verdict per criterion; it is an object`}},
		{"null verdicts", strings.Replace(audit(), "[]", "null", 1), []string{`"verdicts" must be an array, one verdict per criterion; it is null`}},
		{"fractional schema version", strings.Replace(audit(met1, met2, met3), `"schema_version":1`, `"schema_version":1.0`, 1), []string{`"schema_version" must be the number 1; it is the number 1.0`}},
		{"a verdict that is no object", audit(met1, `"ac-2 MET"`, met3), []string{`verdicts[1] must be an object; it is the string "ac-2 MET"`, "no verdict for the criterion ac-2"}},
		{"mistyped verdict members", audit(met1, `{"criterion":2,"verdict":true,"evidence":[],"concerns":null}`, met3), []string{
			`"verdicts[1].criterion" must be a string`, `"verdicts[1].verdict" must be a string, one of MET, MET_WITH_CONCERNS, NOT_MET, INCONCLUSIVE; it is a boolean`,
			`"verdicts[1].evidence" must be a string`, `"verdicts[1].concerns" must be a string ("" for MET); it is null`,
			"no verdict for the criterion ac-2"}},
		// Values.
		{"schema version 2", strings.Replace(audit(met1, met2, met3), `"schema_version":1`, `"schema_version":2`, 1), []string{`"schema_version" is 2; this abcd reads version 1`}},
		{"wrong intent", strings.Replace(audit(met1, met2, met3), intentID, "itd-1", 1), []string{`"intent" is "itd-1", but this audit is of "itd-2609211950427074": write "intent": "itd-2609211950427074"`}},
		{"empty intent", strings.Replace(audit(met1, met2, met3), intentID, "", 1), []string{`"intent" is "", but this audit is of`}},
		{"missing, unknown and duplicated criteria", audit(met1, cv("ac-9", Met, "x", ""), met1, cv("AC-2", Met, "x", ""), met1), []string{
			`verdicts[1] names the criterion "ac-9", which the intent does not have: remove it (the intent's criteria are ac-1, ac-2, ac-3)`,
			`verdicts[3] names the criterion "AC-2"`,
			"the criterion ac-1 has 3 verdicts (verdicts[0], verdicts[2], verdicts[4]): keep one",
			"there is no verdict for the criterion ac-2: add one",
			"there is no verdict for the criterion ac-3: add one"}},
		{"no verdicts", audit(), []string{"no verdict for the criterion ac-1", "ac-2", "ac-3"}},
		{"an empty criterion", audit(cv("", Met, "x", ""), met2, met3), []string{`verdicts[0] names the criterion ""`, "no verdict for the criterion ac-1"}},
		{"out of order", audit(met2, met1, met3), []string{"the verdicts are in the order ac-2, ac-1, ac-3: write them in the intent's order, ac-1, ac-2, ac-3"}},
		{"unknown verdict words", audit(cv("ac-1", "PASS", "x", ""), cv("ac-2", "met", "x", ""), cv("ac-3", "", "x", "")), []string{
			`verdicts[0].verdict is "PASS": write exactly one of MET, MET_WITH_CONCERNS, NOT_MET, INCONCLUSIVE`,
			`verdicts[1].verdict is "met"`, `verdicts[2].verdict is ""`}},
		{"empty evidence", audit(cv("ac-1", Met, "", ""), cv("ac-2", NotMet, " \n", ""), met3), []string{
			"verdicts[0].evidence is empty: name the file:line or the test", "verdicts[1].evidence is empty"}},
		{"concerns against the verdict", audit(cv("ac-1", Met, "x", "a worry"), cv("ac-2", MetWithConcerns, "x", ""), cv("ac-3", Inconclusive, "x", " ")), []string{
			`verdicts[0] is MET with concerns: write "concerns": "", or the verdict MET_WITH_CONCERNS`,
			"verdicts[1] is MET_WITH_CONCERNS with no concerns", "verdicts[2] is INCONCLUSIVE with no concerns"}},
		{"too long", strings.Replace(audit(cv("ac-1", Met, long, ""), cv("ac-2", NotMet, "x", long), met3), "Two of three criteria are met.", strings.Repeat("s", 16385), 1), []string{
			"verdicts[0].evidence is 4097 characters, more than 4096", "verdicts[1].concerns is 4097 characters, more than 4096",
			`"summary" is 16385 characters, more than 16384`}},
		{"too large", strings.Replace(audit(met1, met2, met3), "Two of three criteria are met.", strings.Repeat("s", MaxReturnBytes), 1), []string{
			"bytes, more than the 262144 it may be: shorten it", `"summary" is 262144 characters, more than 16384`}},
		{"far too large", strings.Repeat(" ", 1<<20+1), []string{"the return is 1048577 bytes, more than the 262144 it may be"}},
		{"everything at once", `{"schema_version":3,"intent":"itd-9","verdicts":[` + cv("ac-1", "OK", "", "") + `,` + met1 + `],"summary":"","extra":1}`, []string{
			`unknown field "extra"`, `"schema_version" is 3`, `"intent" is "itd-9"`, `verdicts[0].verdict is "OK"`, "verdicts[0].evidence is empty",
			"the criterion ac-1 has 2 verdicts", "no verdict for the criterion ac-2", "no verdict for the criterion ac-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, v, err := ParseAuditReturn([]byte(tc.in), intentID, criteria)
			wantProblems(t, err, tc.want...)
			if a.Verdicts != nil || a.Intent != "" || v != (Verdict{}) {
				t.Errorf("a refused return yields %+v, %+v", a, v)
			}
		})
	}
}

func TestAuditFindingsBounded(t *testing.T) {
	var vs []string
	var ids []string
	for i := range 30 {
		id := "ac-" + itoa(i+1)
		ids = append(ids, id)
		vs = append(vs, cv(id, NotMet, strings.Repeat("é", 2000), strings.Repeat("ü", 2000)))
	}
	_, v, err := ParseAuditReturn([]byte(audit(vs...)), intentID, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Findings) > MaxFindingsBytes || v.Pass || v.Word != WordFail {
		t.Fatalf("findings %d bytes, %+v", len(v.Findings), v.Word)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
