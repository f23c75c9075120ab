package loop

import (
	"reflect"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/review"
)

const (
	sha1 = "1111111111111111111111111111111111111111"
	sha2 = "2222222222222222222222222222222222222222"
	sha3 = "3333333333333333333333333333333333333333"
)

func TestShortCutsACommitToTwelve(t *testing.T) {
	for in, want := range map[string]string{sha1: "111111111111", "abc": "abc", "": ""} {
		if got := Short(in); got != want {
			t.Errorf("Short(%q) = %q", in, got)
		}
	}
}

// A delivered lane's Progress line names the step, its branch, its head and each commit once, even
// when a fix's receipt lists the first round's commits again; the integration's says where every
// lane was integrated.
func TestProgressLine(t *testing.T) {
	s := State{Run: "run-1", Base: sha1}
	lane := Lane{Step: 2, Text: "Parse\n  the   headers.", Branch: "abcd/run-1/lane-2", Head: sha3,
		Implementations: []Implementation{{Commits: []string{sha2}}, {Commits: []string{sha2, sha3}}}}
	if got, want := ProgressLine(s, lane), "- Run run-1, step 2 (Parse the headers.): delivered on `abcd/run-1/lane-2` at 333333333333, commits 222222222222, 333333333333."; got != want {
		t.Errorf("step lane:\n got %s\nwant %s", got, want)
	}
	integration := Lane{Integration: true, Branch: "abcd/run-1/integration", Head: sha3}
	if got, want := ProgressLine(s, integration), "- Run run-1 integrated on `abcd/run-1/integration` at 333333333333 from 111111111111."; got != want {
		t.Errorf("integration:\n got %s\nwant %s", got, want)
	}
}

// The Audit Notes hold the day, the run, what was audited and the verdict, then each criterion on
// one line (concerns only where there are some) and the summary.
func TestAuditNotes(t *testing.T) {
	audit := review.AuditReturn{Verdicts: []review.CriterionVerdict{
		{Criterion: "ac-1", Verdict: review.Met, Evidence: "main.go:12\nloads lazily"},
		{Criterion: "ac-2", Verdict: review.MetWithConcerns, Evidence: "bench", Concerns: "only on\nlinux"},
	}, Summary: "Good\n\nwork."}
	got := AuditNotes("2026-11-30", State{Run: "run-1", Base: sha1}, Lane{Head: sha2}, audit, "PASS")
	want := "### Audit 2026-11-30 (run run-1, 111111111111..222222222222): PASS\n\n" +
		"- ac-1: MET. main.go:12 loads lazily\n" +
		"- ac-2: MET_WITH_CONCERNS. bench Concerns: only on linux\n" +
		"\nGood work.\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if noSummary := AuditNotes("d", State{}, Lane{}, review.AuditReturn{}, "FAIL"); strings.Count(noSummary, "\n") != 2 {
		t.Errorf("no verdicts and no summary: %q", noSummary)
	}
}

// A finished run says how it ended: what passed, each lane handed back with the first line of why,
// and for a delivered spec the branch to merge into the base.
func TestOutcome(t *testing.T) {
	back := func(kind Kind, findings string) State {
		return State{Kind: kind, Lanes: []Lane{{ID: "lane-1", Stage: StageDone}, {ID: "lane-2", Stage: StageHandedBack, Findings: findings}}}
	}
	spec := State{Kind: KindSpec, BaseRef: "main", Lanes: []Lane{{ID: "lane-1", Stage: StageDone}, {ID: "integration", Integration: true, Stage: StageDone, Branch: "abcd/run-1/integration"}}}
	for name, c := range map[string]struct {
		s    State
		want string
	}{
		"spec delivered":    {spec, "the run is finished: every step delivered, integrated on abcd/run-1/integration and audited; merge that branch into main (`git merge abcd/run-1/integration`)"},
		"spec, no base ref": {State{Kind: KindSpec, Lanes: spec.Lanes}, "the run is finished: every step delivered, integrated on abcd/run-1/integration and audited; merge that branch into your base branch (`git merge abcd/run-1/integration`)"},
		"legacy spec":       {State{Kind: KindSpec, Lanes: spec.Lanes[:1]}, "the run is finished: every step delivered"},
		"spec handed back":  {back(KindSpec, "\n  Merging lane-1 conflicted.\nmore"), "the run ended with 1 lane handed back: lane-2 (Merging lane-1 conflicted.)"},
		"review passed":     {State{Kind: KindReview}, "the review passed"},
		"review failed":     {back(KindReview, ""), "the review failed with 1 lane handed back: lane-2 (no findings recorded)"},
		"audit passed":      {State{Kind: KindAudit}, "the audit passed; its verdicts are in the intent's Audit Notes"},
		"audit failed":      {back(KindAudit, "ac-1 NOT_MET"), "the audit failed with 1 lane handed back: lane-2 (ac-1 NOT_MET)"},
	} {
		if got := Outcome(c.s); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, c.want)
		}
	}
}

// What to do next: each open await's step with absolute paths, else how the run ended and where
// its story is, else the step that starts the lanes of a fresh run or opens what is due.
func TestNextSteps(t *testing.T) {
	h := newV2(t, 1, laneSpecs(2))
	run := func(verb string) *hint.Run {
		return &hint.Run{Verb: verb, Args: map[string]string{"run": "run-1"}, Fill: []string{}}
	}
	fresh := NextSteps(h.s, "/repo")
	if len(fresh) != 1 || !reflect.DeepEqual(fresh[0].Run, run("implement_step")) || !strings.HasPrefix(fresh[0].String(), "to start the lanes and hand out the first briefs, ") {
		t.Fatalf("a fresh run: %v", fresh)
	}
	h.start()
	for _, p := range Pending(h.s) {
		h.open(p)
	}
	open := NextSteps(h.s, "/repo")
	if len(open) != 2 {
		t.Fatalf("one step per open await: %v", open)
	}
	for i, n := range open {
		ret := "/repo/" + h.s.OpenAwaits()[i].Return
		if !reflect.DeepEqual(n.Run, &hint.Run{Verb: "implement_receipt", Args: map[string]string{"path": ret}, Fill: []string{}}) ||
			!strings.Contains(n.String(), "with the brief /repo/.abcd/") {
			t.Errorf("await %d: %v %+v", i, n, n.Run)
		}
	}
	h.s.Lanes[0].Awaits, h.s.Lanes[1].Awaits = nil, nil
	if idle := NextSteps(h.s, "/repo"); len(idle) != 1 || !reflect.DeepEqual(idle[0].Run, run("implement_step")) || !strings.HasPrefix(idle[0].String(), "to open what is due, ") {
		t.Fatalf("nothing open: %v", idle)
	}
	h.s.Abandon("abandoned\n")
	done := NextSteps(h.s, "/repo")
	if len(done) != 1 || !reflect.DeepEqual(done[0].Run, run("implement_record")) || !strings.HasPrefix(done[0].String(), Outcome(h.s)+"; for its whole story, ") {
		t.Fatalf("finished: %v", done)
	}
}

func TestAbsAndUnder(t *testing.T) {
	for _, c := range [][3]string{{"/repo", "a/b", "/repo/a/b"}, {"/repo/", "a", "/repo/a"}, {"/repo", "/abs", "/abs"}, {"", "a", "a"}} {
		if got := Abs(c[0], c[1]); got != c[2] {
			t.Errorf("Abs(%q, %q) = %q", c[0], c[1], got)
		}
	}
	aw := Await{Brief: "b/brief.md", Return: "/already/return.md"}.Under("/repo")
	if aw.Brief != "/repo/b/brief.md" || aw.Return != "/already/return.md" {
		t.Errorf("%+v", aw)
	}
}
