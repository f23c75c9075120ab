package app_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// An implementer hands a step back: the lane is handed back with its reason, the lane that builds on
// it with it, the run goes on with the lane that does not, and nothing asks for the step again.
func TestAnImplementerHandsAStepBack(t *testing.T) {
	w := apptest.NewLaneWorld(t, "1. Read the headers.\n2. Parse them.\n3. (after 1) Render them.")
	impl := w.Await(t, "lane-1", loop.RoleImplementer)
	w.Implement(t, impl, `,"blocked":"the headers are encrypted, and the spec gives no key"`, false)
	res := w.Receipt(t, impl.Return)
	assert.Check(t, is.Equal(res.Recorded.Word, "BLOCKED"))
	assert.Check(t, !res.Recorded.Pass)
	assert.Check(t, is.Equal(apptest.Stages(res.Run), "lane-1:handed-back lane-2:implement lane-3:handed-back integration:handed-back"))
	assert.Check(t, is.Contains(res.Run.Lanes[0].Findings, "The implementer handed the step back: the headers are encrypted, and the spec gives no key"))
	assert.Check(t, is.Contains(res.Run.Lanes[2].Findings, "It builds on lane-1, which was handed back."))
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "lane-1: the implementer handed the step back (the headers are encrypted"))
	for _, aw := range res.Run.Awaits {
		assert.Check(t, aw.Lane == "lane-2", "only lane-2 is still asked for: %s %s", aw.Lane, aw.Role)
	}
	// The run goes on with lane-2 to its end, and says how it ended.
	w.Implement(t, w.Await(t, "lane-2", loop.RoleImplementer), "", true)
	w.Receipt(t, w.Await(t, "lane-2", loop.RoleImplementer).Return)
	w.Review(t, "lane-2", loop.RoleRuthless, "SHIP")
	last := w.Review(t, "lane-2", loop.RoleSecurity, "APPROVE")
	assert.Check(t, last.Run.Finished)
	assert.Check(t, is.Contains(last.Next[0].String(), "lane-1 (The implementer handed the step back: the headers are encrypted"))
	// A blocked receipt handed in again is recorded already.
	_, err := w.A.Call(context.Background(), "implement_receipt", map[string]any{"path": impl.Return})
	assert.Check(t, is.ErrorContains(err, "was recorded already"))
}

// Each round's implementer report is kept as it was handed in, even when the next round writes over
// the same file, and the round-2 reviewer gets round 1's findings and both reports, once each.
func TestTheSecondRoundsReviewerSeesEachReportOnce(t *testing.T) {
	w := apptest.NewLaneWorld(t, "1. Read the headers.")
	impl := w.Await(t, "lane-1", loop.RoleImplementer)
	first := w.Implement(t, impl, "", true)
	w.G.Dirty = map[string][]runner.Entry{loop.WorktreeDir(w.Run, "lane-1"): {{Path: "notes.txt", Kind: runner.EntryFile}, {Path: "src/forgotten.go", Kind: runner.EntryFile}}}
	res := w.Receipt(t, impl.Return)
	// The implementer is told what it left uncommitted, and so is the person: once, in what the
	// receipt did (the result both doors show), never again as a warning on stderr.
	warned := "lane-1: the implementer left 2 files uncommitted in its checkout"
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), warned))
	assert.Check(t, !strings.Contains(strings.Join(w.Diag.Warnings, "\n"), warned), "said twice: %v", w.Diag.Warnings)
	// So are the reviewers.
	brief := string(w.Rs.Files[w.Await(t, "lane-1", loop.RoleRuthless).Brief])
	assert.Check(t, is.Contains(brief, "the implementer had left these files uncommitted in its checkout: they are not part of the change under review, and what the change needs of them is missing from it: notes.txt, src/forgotten.go."))
	w.G.Dirty = nil

	w.Review(t, "lane-1", loop.RoleRuthless, "FIX FIRST")
	w.Review(t, "lane-1", loop.RoleSecurity, "APPROVE")
	fix := w.Await(t, "lane-1", loop.RoleImplementer)
	assert.Check(t, is.Equal(fix.Kind, "fix"))
	assert.Check(t, is.Contains(string(w.Rs.Files[fix.Brief]), "fix-1/report.md"), "the fix round's report has its own file")
	second := w.Implement(t, fix, "", true)
	w.Receipt(t, fix.Return)

	brief = string(w.Rs.Files[w.Await(t, "lane-1", loop.RoleRuthless).Brief])
	for _, once := range []string{first, second, "### F1. A finding of lane-1", "## The implementer's report of the implementation", "## The implementer's report of the fix after round 1"} {
		assert.Check(t, is.Equal(strings.Count(brief, once), 1), "the round-2 brief holds %q once", once)
	}
	// What round 1 left uncommitted is said of round 1's report alone: the fix left nothing.
	assert.Check(t, is.Equal(strings.Count(brief, "uncommitted in its checkout"), 1))
	assert.Check(t, is.Contains(brief, "When it handed the implementation in, the implementer had left"))
}

// implement start refuses, and writes nothing, when the spec or its intent is not committed as the
// run's base holds it: the lanes' agents would read the base's version.
func TestStartRefusesARecordNotCommitted(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	intent := apptest.RecNewIntent(t, a, r, "Faster cold start", true).ID
	p := apptest.RecPlan(t, a, r, intent, true)
	g := fake.NewGit(apptest.VBase)
	g.ChangedPaths = []string{p.Spec.Path}
	diag := &fake.Diag{}
	a.Git, a.Diag = g, diag
	a.Roster = fake.Roster{R: apptest.LoopRoster(t)}
	records := maps.Clone(r.Files)
	_, err := a.Call(context.Background(), "implement_start", map[string]any{"spec": p.Spec.ID})
	ref := apptest.RecRefused(t, err, refusal.Refused, refusal.CodeRecordUncommitted)
	assert.Check(t, is.Contains(ref.Why, p.Spec.Path+" and "))
	assert.Check(t, is.Contains(ref.Why, "are not committed as they stand at the run's base main (111111111111)"))
	assert.Check(t, is.Contains(ref.Error(), "git add .abcd && git commit"))
	assert.Check(t, apptest.SameFiles(r.Files, records))
	assert.Check(t, is.Len(a.Runs.(*fake.Runs).Files, 0), "no run was written")
	assert.Check(t, is.Len(diag.Warnings, 0), "a refusal is said once, as a refusal: %v", diag.Warnings)
}

// A merge between lanes that conflicts says where the integration is, how to resolve it and the one
// step that continues the same run; nothing is handed back, nothing delivered is redone, bare abcd
// points at the same step, and once the merge is made by hand the run goes on to the audit.
func TestAnIntegrationConflictGoesOnWithTheSameRun(t *testing.T) {
	w := apptest.NewLaneWorld(t, "1. Read the headers.\n2. Parse them.")
	w.PassLane(t, "lane-1")
	w.G.Conflicts = map[string][]string{}
	// lane-2's head will not merge onto lane-1's.
	impl := w.Await(t, "lane-2", loop.RoleImplementer)
	w.Implement(t, impl, "", true)
	head2 := w.G.Branches["abcd/"+w.Run+"/lane-2"]
	w.G.Conflicts[head2] = []string{"headers.go"}
	w.Receipt(t, impl.Return)
	w.Review(t, "lane-2", loop.RoleRuthless, "SHIP")
	res := w.Review(t, "lane-2", loop.RoleSecurity, "APPROVE")

	assert.Check(t, is.Equal(apptest.Stages(res.Run), "lane-1:done lane-2:done integration:waiting"))
	assert.Check(t, !res.Run.Finished)
	integration := res.Run.Lanes[2]
	wt := integration.Worktree
	assert.Check(t, strings.HasSuffix(wt, loop.WorktreeDir(w.Run, loop.IntegrationLane)), "the integration's checkout stays for the merge: %q", wt)
	assert.Check(t, is.Contains(integration.Findings, "conflicted on headers.go"))
	assert.Assert(t, is.Len(res.Next, 1))
	say := res.Next[0].String()
	for _, want := range []string{"the integration waits for a merge by hand: merging lane-2", "into abcd/" + w.Run + "/integration conflicted on headers.go",
		"In its checkout " + wt + " (branch abcd/" + w.Run + "/integration), run `git merge " + head2 + "`", "resolve the conflicts, and commit the merge"} {
		assert.Check(t, is.Contains(say, want))
	}
	assert.Check(t, is.Equal(apptest.RecStep(res.Next[0]), "implement_step run="+w.Run))
	// Bare abcd points at the same step, not at a fresh start.
	st := apptest.RecRun[setup.StatusResult](t, w.A, "status", map[string]any{})
	assert.Assert(t, len(st.Next) > 0)
	assert.Check(t, is.Equal(apptest.RecStep(st.Next[0].Next), "implement_step run="+w.Run))
	assert.Check(t, is.Contains(st.Next[0].String(), "git merge "+head2))
	// A step before the merge is made changes nothing and says the same.
	again := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
	assert.Check(t, is.Equal(apptest.Stages(again.Run), "lane-1:done lane-2:done integration:waiting"))
	assert.Check(t, is.Equal(again.Next[0].String(), say))

	// The person makes the merge; the same run goes on to the audit, the lanes not redone.
	w.MergeByHand("abcd/"+w.Run+"/integration", head2)
	merged := w.G.Branches["abcd/"+w.Run+"/integration"]
	went := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
	assert.Check(t, is.Equal(apptest.Stages(went.Run), "lane-1:done lane-2:done integration:validate"))
	assert.Check(t, is.Contains(strings.Join(went.Did, "\n"), "integration: the merge of lane-2 was made by hand"))
	assert.Check(t, is.Equal(went.Run.Lanes[2].Head, merged), "the integration is the branch as the person left it")
	assert.Check(t, is.Equal(went.Run.Lanes[2].Findings, ""))
	auditor := w.Await(t, loop.IntegrationLane, loop.RoleAuditor)
	assert.Check(t, is.Equal(auditor.Round, 1))
	for _, l := range went.Run.Lanes[:2] {
		assert.Check(t, is.Equal(l.Round, 1), "%s was not redone", l.ID)
	}
}

// A lane that builds on two others waits the same way when their heads do not merge, and the lanes
// that build on it wait with it.
func TestADependentLaneWaitsForAMergeByHand(t *testing.T) {
	w := apptest.NewLaneWorld(t, "1. Read the headers.\n2. Parse them.\n3. (after 1, 2) Render them.")
	w.PassLane(t, "lane-1")
	impl := w.Await(t, "lane-2", loop.RoleImplementer)
	w.Implement(t, impl, "", true)
	head2 := w.G.Branches["abcd/"+w.Run+"/lane-2"]
	w.G.Conflicts = map[string][]string{head2: {"a.go"}}
	w.Receipt(t, impl.Return)
	w.Review(t, "lane-2", loop.RoleRuthless, "SHIP")
	res := w.Review(t, "lane-2", loop.RoleSecurity, "APPROVE")
	assert.Check(t, is.Equal(apptest.Stages(res.Run), "lane-1:done lane-2:done lane-3:waiting integration:waiting"))
	assert.Check(t, is.Contains(res.Next[0].String(), "lane-3 waits for a merge by hand: merging lane-2"))
	w.MergeByHand("abcd/"+w.Run+"/lane-3", head2)
	went := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
	assert.Check(t, is.Equal(apptest.Stages(went.Run), "lane-1:done lane-2:done lane-3:implement integration:waiting"))
	assert.Check(t, is.Equal(went.Run.Lanes[2].Start, w.G.Branches["abcd/"+w.Run+"/lane-3"]))
}
