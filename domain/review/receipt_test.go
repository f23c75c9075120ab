package review

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const (
	c1 = "0123456789abcdef0123456789abcdef01234567"
	c2 = "89abcdef0123456789abcdef0123456789abcdef"
	c3 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" // SHA-256
)

func goodReceipt() ImplementerReceipt {
	return ImplementerReceipt{
		SchemaVersion: 1, Run: "run-1", Lane: "lane-2", Branch: "abcd/run-1/lane-2",
		Commits: []string{c1, c2, c3},
		DoD:     DoD{Command: "make test", ExitCode: 0, Output: "dod-output.txt"},
		Report:  "reports/implement.md", Model: "claude-sonnet-4",
	}
}

// receiptJSON marshals the good receipt after edit, as a generic object so members can be
// dropped, retyped or added.
func receiptJSON(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	b, err := json.Marshal(goodReceipt())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dod(m map[string]any) map[string]any { return m["dod"].(map[string]any) }

func TestDecodeImplementerReceiptAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want func(r *ImplementerReceipt)
	}{
		{"the good receipt", nil, nil},
		{"one commit", func(m map[string]any) { m["commits"] = []string{c1} }, func(r *ImplementerReceipt) { r.Commits = []string{c1} }},
		{"200 commits", func(m map[string]any) { m["commits"] = commits(200) }, func(r *ImplementerReceipt) { r.Commits = commits(200) }},
		{"nested and dotted paths", func(m map[string]any) { dod(m)["output"] = "out/./dod.log"; m["report"] = ".report.md" },
			func(r *ImplementerReceipt) { r.DoD.Output = "out/./dod.log"; r.Report = ".report.md" }},
		// A blocked receipt hands the step back: it may list no commit, and report a failing run.
		{"blocked with no commit and a failing definition of done", func(m map[string]any) {
			delete(m, "commits")
			m["blocked"] = "make test fails in vendor/x, which the step may not change"
			dod(m)["exit_code"] = 2
		}, func(r *ImplementerReceipt) {
			r.Commits, r.Blocked, r.DoD.ExitCode = nil, "make test fails in vendor/x, which the step may not change", 2
		}},
		{"blocked with the commits made", func(m map[string]any) { m["blocked"] = "the spec asks for two incompatible formats" },
			func(r *ImplementerReceipt) { r.Blocked = "the spec asks for two incompatible formats" }},
		{"longest values", func(m map[string]any) {
			m["run"], m["lane"], m["branch"], m["model"] = strings.Repeat("r", 64), strings.Repeat("l", 64), strings.Repeat("b", 255), strings.Repeat("m", 200)
		}, func(r *ImplementerReceipt) {
			r.Run, r.Lane, r.Branch, r.Model = strings.Repeat("r", 64), strings.Repeat("l", 64), strings.Repeat("b", 255), strings.Repeat("m", 200)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeImplementerReceipt(receiptJSON(t, tc.edit))
			if err != nil {
				t.Fatal(err)
			}
			want := goodReceipt()
			if tc.want != nil {
				tc.want(&want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func commits(n int) []string {
	out := make([]string, n)
	for i := range out {
		b := []byte(c1)
		const hex = "0123456789abcdef"
		b[0], b[1], b[2] = hex[i>>8&15], hex[i>>4&15], hex[i&15]
		out[i] = string(b)
	}
	return out
}

func TestDecodeImplementerReceiptRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want []string
	}{
		// Strictness.
		{"not JSON", []byte("done: 3 commits"), []string{"the receipt is not JSON"}},
		{"duplicate key", []byte(`{"run":"a","run":"b"}`), []string{`the receipt names the key "run" twice`}},
		{"duplicate key in dod", []byte(`{"dod":{"exit_code":0,"exit_code":1}}`), []string{`names the key "dod.exit_code" twice`}},
		{"trailing content", append(receiptJSON(t, nil), "\n{}"...), []string{"the receipt has content after its object"}},
		{"too large", receiptJSON(t, func(m map[string]any) { m["model"] = strings.Repeat("m", MaxReceiptBytes) }), []string{
			"the receipt is 65893 bytes, more than the 65536 it may be", `"model" is 65536 characters, more than 200`}},
		{"unknown fields", receiptJSON(t, func(m map[string]any) { m["tests"] = "ok"; dod(m)["stdout"] = "" }), []string{
			`the receipt has the unknown field "tests": remove it (its fields are schema_version, run, lane, branch, commits, dod, report, model, blocked)`,
			`"dod" has the unknown field "stdout": remove it (its fields are command, exit_code, output)`}},
		{"no commits and not blocked", receiptJSON(t, func(m map[string]any) { delete(m, "commits") }), []string{
			`the receipt has no "commits": add it as an array of the lane's full commit ids (or, to hand the step back, say why in "blocked")`}},
		{"blocked but empty", receiptJSON(t, func(m map[string]any) { m["blocked"] = " " }), []string{`"blocked" is empty`}},
		{"blocked too long", receiptJSON(t, func(m map[string]any) { m["blocked"] = strings.Repeat("é", MaxBlockedChars+1) }), []string{`"blocked" is 2001 characters, more than 2000`}},
		{"blocked with an empty commit list", receiptJSON(t, func(m map[string]any) { m["blocked"] = "x"; m["commits"] = []string{} }), []string{`"commits" is empty`}},
		{"a failing definition of done, not blocked", receiptJSON(t, func(m map[string]any) { dod(m)["exit_code"] = 1 }), []string{
			`exited 1: a lane is done only when it exits 0; fix what fails, run it again and hand back a new receipt (or, if you cannot make it pass, hand the step back: say why in "blocked")`}},
		{"every member missing", []byte(`{"dod":{}}`), []string{
			`the receipt has no "schema_version"`, `no "run"`, `no "lane"`, `no "branch"`, `no "report"`, `no "model"`, `no "commits"`,
			`"dod" has no "command"`, `"dod" has no "exit_code"`, `"dod" has no "output"`}},
		{"nulls and wrong types", []byte(`{"schema_version":null,"run":1,"lane":[],"branch":{},"commits":"` + c1 + `","dod":[],"report":true,"model":null}`), []string{
			`"schema_version" must be the number 1; it is null`, `"run" must be a string, the run's id; it is the number 1`,
			`"lane" must be a string, the lane's id; it is an array`, `"branch" must be a string, the lane's branch; it is an object`,
			`"report" must be a string`, `"model" must be a string, the model that did the work; it is null`,
			`"commits" must be an array of the lane's full commit ids; it is the string`, `"dod" must be an object; it is an array`}},
		{"exit code not a whole number", receiptJSON(t, func(m map[string]any) { dod(m)["exit_code"] = 0.5 }), []string{`"dod.exit_code" must be a whole number, the command's exit code; it is the number 0.5`}},
		// Values.
		{"schema version 2", receiptJSON(t, func(m map[string]any) { m["schema_version"] = 2 }), []string{`"schema_version" is 2; this abcd reads version 1`}},
		{"empty strings", receiptJSON(t, func(m map[string]any) {
			m["run"], m["lane"], m["branch"], m["model"], m["report"] = "", " ", "", "\t", ""
			dod(m)["command"], dod(m)["output"] = "", ""
		}), []string{`"run" is empty`, `"lane" is empty`, `"branch" is empty`, `"model" is empty`, `"dod.command" is empty`, `"dod.output" is empty`, `"report" is empty: name a file inside the lane folder`}},
		{"too long", receiptJSON(t, func(m map[string]any) {
			m["run"], m["lane"], m["branch"], m["model"] = strings.Repeat("r", 65), strings.Repeat("ł", 65), strings.Repeat("b", 256), strings.Repeat("m", 201)
			dod(m)["command"], dod(m)["output"], m["report"] = strings.Repeat("c", 1025), strings.Repeat("o", 1025), strings.Repeat("p", 1025)
		}), []string{`"run" is 65 characters, more than 64`, `"lane" is 65 characters`, `"branch" is 256 characters, more than 255`, `"model" is 201 characters, more than 200`,
			`"dod.command" is 1025 characters, more than 1024`, `"dod.output" is 1025 characters`, `"report" is 1025 characters`}},
		{"no commits", receiptJSON(t, func(m map[string]any) { m["commits"] = []string{} }), []string{`"commits" is empty: list the commits the lane made, from 1 to 200`}},
		{"201 commits", receiptJSON(t, func(m map[string]any) { m["commits"] = commits(201) }), []string{`"commits" lists 201 commits, more than 200`}},
		{"bad commit ids", receiptJSON(t, func(m map[string]any) {
			m["commits"] = []any{"HEAD", strings.ToUpper(c1), c1[:39], c1 + "0", c3[:63], 7, nil, c1, " " + c2}
		}), []string{
			`commits[0] "HEAD" is not a full commit id: write the 40 (or 64) lowercase hex characters git rev-parse prints`,
			`commits[1] "0123456789ABCDEF`, `commits[2]`, `commits[3]`, `commits[4]`,
			`"commits[5]" must be a string, a full commit id; it is the number 7`, `"commits[6]" must be a string, a full commit id; it is null`,
			`commits[8] " 89ab`}},
		{"repeated commits", receiptJSON(t, func(m map[string]any) { m["commits"] = []string{c1, c2, c1, c1} }), []string{
			"commits[2] repeats commits[0] (" + c1 + "): list each commit once", "commits[3] repeats commits[0]"}},
		{"failing definition of done", receiptJSON(t, func(m map[string]any) { dod(m)["exit_code"] = 2 }), []string{
			`the definition-of-done command "make test" exited 2: a lane is done only when it exits 0`}},
		{"negative exit code", receiptJSON(t, func(m map[string]any) { dod(m)["exit_code"] = -1 }), []string{`"make test" exited -1`}},
		{"paths that leave the lane folder", receiptJSON(t, func(m map[string]any) {
			dod(m)["output"] = "/tmp/out.txt"
			m["report"] = "../other-lane/report.md"
		}), []string{`"dod.output" "/tmp/out.txt" is an absolute path`, `"report" "../other-lane/report.md" has a ".." segment`}},
		{"paths with everything wrong", receiptJSON(t, func(m map[string]any) {
			dod(m)["output"] = "C:\\lanes\\..\\x\x00"
			m["report"] = "a/../b"
		}), []string{`"dod.output" "C:\\lanes\\..\\x\x00" has a control character`, `has a backslash`, `starts with a drive letter`, `"report" "a/../b" has a ".." segment`}},
		{"paths naming the folder", receiptJSON(t, func(m map[string]any) { dod(m)["output"] = "."; m["report"] = "./" }), []string{
			`"dod.output" "." names the lane folder itself, not a file`, `"report" "./" names the lane folder itself`}},
		{"more control characters", receiptJSON(t, func(m map[string]any) { dod(m)["output"] = "out\n.txt"; m["report"] = "r\u0085.md" }), []string{
			`"dod.output" "out\n.txt" has a control character`, `"report" "r\u0085.md" has a control character`}},
		{"slash root", receiptJSON(t, func(m map[string]any) { m["report"] = "/" }), []string{`is an absolute path`}},
		{"everything at once", []byte(`{"schema_version":0,"run":"","lane":"l","branch":"b","commits":["x","x"],"dod":{"command":"go test ./...","exit_code":1,"output":"../o"},"report":"/r","model":"","more":1}`), []string{
			`unknown field "more"`, `"schema_version" is 0`, `"run" is empty`, `"model" is empty`, `commits[0] "x" is not a full commit id`, `commits[1] "x" is not a full commit id`,
			`"go test ./..." exited 1`, `"dod.output" "../o" has a ".." segment`, `"report" "/r" is an absolute path`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := DecodeImplementerReceipt(tc.in)
			wantProblems(t, err, tc.want...)
			// What decoded is returned beside the problems, so the caller can check the facts too;
			// a receipt that is not one JSON object yields nothing.
			var probe map[string]json.RawMessage
			if json.Unmarshal(tc.in, &probe) != nil && !reflect.DeepEqual(r, ImplementerReceipt{}) {
				t.Errorf("a receipt that is no object yields %+v", r)
			}
		})
	}
}

func TestCheckReceiptFacts(t *testing.T) {
	r := goodReceipt()
	fine := ReceiptFacts{Run: r.Run, Lane: r.Lane, Branch: r.Branch}
	if err := CheckReceiptFacts(r, fine); err != nil {
		t.Fatalf("fine facts refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		f    ReceiptFacts
		want []string
	}{
		{"wrong run", ReceiptFacts{Run: "run-2", Lane: r.Lane, Branch: r.Branch}, []string{
			`the receipt names the run "run-1", but it was awaited for "run-2": write "run": "run-2"`}},
		{"wrong lane and branch", ReceiptFacts{Run: r.Run, Lane: "lane-3", Branch: "abcd/run-1/lane-3"}, []string{
			`the receipt names the lane "lane-2", but it was awaited for "lane-3"`, `the receipt names the branch "abcd/run-1/lane-2", but it was awaited for "abcd/run-1/lane-3"`}},
		{"empty facts fail closed", ReceiptFacts{}, []string{`the run "run-1"`, `the lane "lane-2"`, `the branch`}},
		{"commits from elsewhere", ReceiptFacts{Run: r.Run, Lane: r.Lane, Branch: r.Branch, Unreachable: []string{c1, c2}, FromBase: []string{c3}}, []string{
			`the commit ` + c1 + ` is not reachable from the lane branch "abcd/run-1/lane-2": commit the work on that branch, or remove the id`,
			`the commit ` + c2 + ` is not reachable`,
			`the commit ` + c3 + ` is already reachable from the base: list only the commits the lane made`}},
		{"files", ReceiptFacts{Run: r.Run, Lane: r.Lane, Branch: r.Branch, OutputProblem: "is a symlink", ReportProblem: "does not exist"}, []string{
			`the definition-of-done output "dod-output.txt" is a symlink: write the command's output to a regular file inside the lane folder`,
			`the report "reports/implement.md" does not exist: write the report to a regular file inside the lane folder`}},
		{"everything at once", ReceiptFacts{Run: "x", Lane: "y", Branch: "z", Unreachable: []string{c1}, FromBase: []string{c2}, OutputProblem: "is a folder", ReportProblem: "is outside the lane folder"}, []string{
			"run", "lane", "branch", c1, c2, "is a folder", "is outside the lane folder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, CheckReceiptFacts(r, tc.f), tc.want...)
		})
	}
}
