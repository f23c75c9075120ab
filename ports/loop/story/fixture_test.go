package story_test

import (
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/history"
	"github.com/abcd-dev/abcd/ports/loop"
)

// hostile is what an agent might write to break a page or a comment: markup, a script, a fence, a
// mention, a table's pipe, a Mermaid label's quote and bracket.
const hostile = "The check is missing.\n<script>alert('x')</script> <img src=x onerror=alert(1)>\n```\n@octocat | \"]) --> x[\"owned\n````"

// threeLanes is a finished three-lane run, the third lane after the other two: lane-1 failed its
// first round (a finding of hostile text) and was fixed; the security review of lane-2 fell back from
// rp to the host; the runners took the rest, each with its duration and one with its cost; the audit
// met one criterion and had concerns on the other.
func threeLanes() loop.ImplementRecordResult {
	rn := func(ms int64, cost float64, reported bool) *runner.Receipt {
		return &runner.Receipt{Runner: "cc", CLI: "claude", Outcome: "completed", DurationMS: ms, CostUSD: cost, CostReported: reported}
	}
	impl := func(lane string, round int, at, head string, r *runner.Receipt) loop.ImplementationView {
		ran := "host"
		if r != nil {
			ran = "cc"
		}
		return loop.ImplementationView{Lane: lane, Round: round, Commits: []string{head}, Head: head, Model: "m",
			Receipt: oracle.Receipt{Agent: "implementer", ConnectionTried: ran, ConnectionUsed: ran}, Sessions: []string{}, Runner: r, At: at}
	}
	verdict := func(lane string, round int, role, word string, pass bool, route, ran, at, findings string, r *runner.Receipt) loop.RecordVerdictView {
		return loop.RecordVerdictView{Lane: lane, Round: round, Role: role, Word: word, Pass: pass, Tier: "economy", Route: route, Ran: ran,
			Findings: findings, Sessions: []string{}, Runner: r, At: at, Criteria: []review.CriterionVerdict{}}
	}
	lanes := []loop.LaneView{
		{ID: "lane-1", Step: 1, Text: "Measure the start-up.", Stage: "done", Round: 2, Failed: 1, After: []string{}},
		{ID: "lane-2", Step: 2, Text: "Trim the \"init\" work <fast>.", Stage: "done", Round: 1, After: []string{}},
		{ID: "lane-3", Step: 3, Text: "Report it.", Stage: "done", Round: 1, After: []string{"lane-1", "lane-2"}},
		{ID: "integration", Stage: "done", Round: 1, Integration: true, After: []string{}},
	}
	audit := verdict("integration", 1, "intent-auditor", "PASS", true, "rv", "rv", "2026-07-01T10:09:00Z", "ac-2 MET_WITH_CONCERNS", rn(30000, 0, false))
	audit.Criteria = []review.CriterionVerdict{
		{Criterion: "ac-1", Verdict: "MET", Evidence: "bench_test.go:40 shows 1.2x."},
		{Criterion: "ac-2", Verdict: "MET_WITH_CONCERNS", Evidence: "report.md", Concerns: "Only measured on Linux <b>today</b>."},
	}
	return loop.ImplementRecordResult{
		Run: loop.RunView{Run: "run-2607011000001234", Kind: "spec", Spec: "spc-2606300900001111", Intent: "itd-2606300800002222", Base: "0123456789abcdef0123456789abcdef01234567",
			Finished: true, Lanes: lanes, Awaits: []loop.AwaitView{}, FallbacksByRoute: []loop.FallbackCount{{Name: "rp", Total: 1}},
			FallbacksByRole: []loop.FallbackCount{{Name: "security-reviewer", Total: 1}}, Unfenced: []string{}},
		Started: "2026-07-01T10:00:00Z",
		Implementations: []loop.ImplementationView{
			impl("lane-1", 0, "2026-07-01T10:01:00Z", "1111111111111111111111111111111111111111", rn(55000, 0.4213, true)),
			impl("lane-2", 0, "2026-07-01T10:01:30Z", "2222222222222222222222222222222222222222", rn(80000, 0, false)),
			impl("lane-1", 1, "2026-07-01T10:04:00Z", "3333333333333333333333333333333333333333", nil),
			impl("lane-3", 0, "2026-07-01T10:07:00Z", "4444444444444444444444444444444444444444", rn(60000, 0.1, true)),
		},
		Verdicts: []loop.RecordVerdictView{
			verdict("lane-1", 1, "ruthless-reviewer", "FIX FIRST", false, "rv", "rv", "2026-07-01T10:02:00Z", hostile, rn(40000, 0, false)),
			verdict("lane-1", 1, "security-reviewer", "APPROVE", true, "rv", "rv", "2026-07-01T10:02:10Z", "", rn(45000, 0, false)),
			verdict("lane-2", 1, "ruthless-reviewer", "SHIP", true, "rv", "rv", "2026-07-01T10:02:30Z", "", rn(20000, 0, false)),
			verdict("lane-2", 1, "security-reviewer", "APPROVE", true, "rp", "host", "2026-07-01T10:03:30Z", "", nil),
			verdict("lane-1", 2, "ruthless-reviewer", "SHIP", true, "rv", "rv", "2026-07-01T10:05:00Z", "", rn(20000, 0, false)),
			verdict("lane-1", 2, "security-reviewer", "APPROVE", true, "rv", "rv", "2026-07-01T10:05:05Z", "", rn(25000, 0, false)),
			verdict("lane-3", 1, "ruthless-reviewer", "SHIP", true, "rv", "rv", "2026-07-01T10:08:00Z", "", rn(20000, 0, false)),
			verdict("lane-3", 1, "security-reviewer", "APPROVE", true, "rv", "rv", "2026-07-01T10:08:00Z", "", rn(20000, 0, false)),
			audit,
		},
		Fallbacks: []loop.FallbackView{{At: "2026-07-01T10:02:40Z", Lane: "lane-2", Round: 1, Role: "security-reviewer", Asked: "rp", Reason: "timeout",
			Detail: "the route did not answer within its time bound", Ran: "host"}},
		ByRoute: []loop.Count{{Name: "host", Total: 1, Passed: 1}, {Name: "rv", Total: 8, Passed: 7, Failed: 1}},
		ByRole:  []loop.Count{{Name: "intent-auditor", Total: 1, Passed: 1}},
		History: history.RunHistory{Sessions: []history.HistorySession{{Key: "claude:4f1c", Title: "Review lane-2 <security>", Started: "2026-07-01T10:02:45Z"}}},
	}
}
