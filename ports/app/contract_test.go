package app_test

// The build loop's contract with the agents and the harness: a step handed back, each round's
// report kept, files left uncommitted named, a start on a record not committed warned of.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
)

// laneWorld is a spec run of the given steps, started and stepped, on the host route.
type laneWorld struct {
	a    *app.App
	g    *fake.Git
	rs   *fake.Runs
	diag *fake.Diag
	run  string
	seq  int
}

func newLaneWorld(t *testing.T, steps string) *laneWorld {
	t.Helper()
	r := fake.NewRecords()
	a := recApp(r)
	intent := recNewIntent(t, a, r, "Faster cold start", true).ID
	p := recRun[app.IntentPlanResult](t, a, "intent_plan", map[string]any{"ref": intent})
	recEdit(t, r, p.Spec.Path, "Steps", steps)
	g := fake.NewGit(vBase)
	rs := fake.NewRuns()
	diag := &fake.Diag{}
	a.Git, a.Runs, a.Diag = g, rs, diag
	a.Journal = fake.NewJournal(a.Records.(*fake.Records), rs)
	a.Config = fake.Config{Files: ports.ConfigFiles{
		RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"build":{"dod":"true"}}`)}}}
	a.Roster = fake.Roster{R: loopRoster(t)}
	start := recRun[app.StepResult](t, a, "implement_start", map[string]any{"spec": p.Spec.ID})
	w := &laneWorld{a: a, g: g, rs: rs, diag: diag, run: start.Run.Run}
	recRun[app.StepResult](t, a, "implement_step", map[string]any{"run": w.run})
	return w
}

func (w *laneWorld) status(t *testing.T) app.RunView {
	t.Helper()
	return recRun[app.ImplementStatusResult](t, w.a, "implement_status", map[string]any{"run": w.run}).Runs[0]
}

func (w *laneWorld) await(t *testing.T, lane, role string) app.AwaitView {
	t.Helper()
	for _, aw := range w.status(t).Awaits {
		if aw.Lane == lane && aw.Role == role {
			return aw
		}
	}
	t.Fatalf("no open await for %s on %s", role, lane)
	return app.AwaitView{}
}

// implement commits on the lane's branch and writes a receipt as the brief asks, with edit changing
// its JSON members before it is written; it returns the report's text.
func (w *laneWorld) implement(t *testing.T, aw app.AwaitView, extra string, commit bool) string {
	t.Helper()
	w.seq++
	lane := ""
	for _, l := range w.status(t).Lanes {
		if l.ID == aw.Lane {
			lane = l.Branch
		}
	}
	dir := loop.LaneDir(w.run, aw.Lane)
	sub := strings.TrimPrefix(strings.TrimSuffix(aw.Return, "/receipt.json"), dir+"/")
	commits := ""
	if commit {
		sha := fmt.Sprintf("%040x", 0xabc000+w.seq)
		w.g.Commit(lane, sha)
		commits = fmt.Sprintf(`"commits":[%q],`, sha)
	}
	report := fmt.Sprintf("Report %d of %s.", w.seq, aw.Lane)
	w.rs.Files[dir+"/"+sub+"/dod-output.txt"] = []byte("ok")
	// Every round writes its report over the same file: abcd's copies keep each round's.
	w.rs.Files[dir+"/report.md"] = []byte(report)
	w.rs.Files[aw.Return] = []byte(fmt.Sprintf(`{"schema_version":1,"run":%q,"lane":%q,"branch":%q,%s`+
		`"dod":{"command":"true","exit_code":0,"output":%q},"report":"report.md","model":"m"%s}`, w.run, aw.Lane, lane, commits, sub+"/dod-output.txt", extra))
	return report
}

func (w *laneWorld) receipt(t *testing.T, path string) app.StepResult {
	t.Helper()
	return recRun[app.StepResult](t, w.a, "implement_receipt", map[string]any{"path": path})
}

func (w *laneWorld) review(t *testing.T, lane, role, word string) app.StepResult {
	t.Helper()
	aw := w.await(t, lane, role)
	w.rs.Files[aw.Return] = []byte("Read it.\n\n## Verdict\n" + word + "\n\n### F1. A finding of " + lane + "\n")
	return w.receipt(t, aw.Return)
}

func stages(v app.RunView) string {
	var out []string
	for _, l := range v.Lanes {
		out = append(out, l.ID+":"+l.Stage)
	}
	return strings.Join(out, " ")
}

// An implementer hands a step back: the lane is handed back with its reason, the lane that builds on
// it with it, the run goes on with the lane that does not, and nothing asks for the step again.
func TestAnImplementerHandsAStepBack(t *testing.T) {
	w := newLaneWorld(t, "1. Read the headers.\n2. Parse them.\n3. (after 1) Render them.")
	impl := w.await(t, "lane-1", loop.RoleImplementer)
	w.implement(t, impl, `,"blocked":"the headers are encrypted, and the spec gives no key"`, false)
	res := w.receipt(t, impl.Return)
	assert.Check(t, is.Equal(res.Recorded.Word, "BLOCKED"))
	assert.Check(t, !res.Recorded.Pass)
	assert.Check(t, is.Equal(stages(res.Run), "lane-1:handed-back lane-2:implement lane-3:handed-back integration:handed-back"))
	assert.Check(t, is.Contains(res.Run.Lanes[0].Findings, "The implementer handed the step back: the headers are encrypted, and the spec gives no key"))
	assert.Check(t, is.Contains(res.Run.Lanes[2].Findings, "It builds on lane-1, which was handed back."))
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "lane-1: the implementer handed the step back (the headers are encrypted"))
	for _, aw := range res.Run.Awaits {
		assert.Check(t, aw.Lane == "lane-2", "only lane-2 is still asked for: %s %s", aw.Lane, aw.Role)
	}
	// The run goes on with lane-2 to its end, and says how it ended.
	w.implement(t, w.await(t, "lane-2", loop.RoleImplementer), "", true)
	w.receipt(t, w.await(t, "lane-2", loop.RoleImplementer).Return)
	w.review(t, "lane-2", loop.RoleRuthless, "SHIP")
	last := w.review(t, "lane-2", loop.RoleSecurity, "APPROVE")
	assert.Check(t, last.Run.Finished)
	assert.Check(t, is.Contains(last.Next[0].String(), "lane-1 (The implementer handed the step back: the headers are encrypted"))
	// A blocked receipt handed in again is recorded already.
	_, err := w.a.Call(context.Background(), "implement_receipt", map[string]any{"path": impl.Return})
	assert.Check(t, is.ErrorContains(err, "was recorded already"))
}

// Each round's implementer report is kept as it was handed in, even when the next round writes over
// the same file, and the round-2 reviewer gets round 1's findings and both reports, once each.
func TestTheSecondRoundsReviewerSeesEachReportOnce(t *testing.T) {
	w := newLaneWorld(t, "1. Read the headers.")
	impl := w.await(t, "lane-1", loop.RoleImplementer)
	first := w.implement(t, impl, "", true)
	w.g.Dirty = map[string][]runner.Entry{loop.WorktreeDir(w.run, "lane-1"): {{Path: "notes.txt", Kind: runner.EntryFile}, {Path: "src/forgotten.go", Kind: runner.EntryFile}}}
	res := w.receipt(t, impl.Return)
	// The implementer is told what it left uncommitted, and so is the person.
	warned := "lane-1: the implementer left 2 files uncommitted in its checkout"
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), warned))
	assert.Check(t, is.Contains(strings.Join(w.diag.Warnings, "\n"), warned))
	// So are the reviewers.
	brief := string(w.rs.Files[w.await(t, "lane-1", loop.RoleRuthless).Brief])
	assert.Check(t, is.Contains(brief, "the implementer had left these files uncommitted in its checkout: they are not part of the change under review, and what the change needs of them is missing from it: notes.txt, src/forgotten.go."))
	w.g.Dirty = nil

	w.review(t, "lane-1", loop.RoleRuthless, "FIX FIRST")
	w.review(t, "lane-1", loop.RoleSecurity, "APPROVE")
	fix := w.await(t, "lane-1", loop.RoleImplementer)
	assert.Check(t, is.Equal(fix.Kind, "fix"))
	assert.Check(t, is.Contains(string(w.rs.Files[fix.Brief]), "fix-1/report.md"), "the fix round's report has its own file")
	second := w.implement(t, fix, "", true)
	w.receipt(t, fix.Return)

	brief = string(w.rs.Files[w.await(t, "lane-1", loop.RoleRuthless).Brief])
	for _, once := range []string{first, second, "### F1. A finding of lane-1", "## The implementer's report of the implementation", "## The implementer's report of the fix after round 1"} {
		assert.Check(t, is.Equal(strings.Count(brief, once), 1), "the round-2 brief holds %q once", once)
	}
	// What round 1 left uncommitted is said of round 1's report alone: the fix left nothing.
	assert.Check(t, is.Equal(strings.Count(brief, "uncommitted in its checkout"), 1))
	assert.Check(t, is.Contains(brief, "When it handed the implementation in, the implementer had left"))
}

// implement start warns, and does not refuse, when the spec or its intent is not committed as the
// run's base holds it.
func TestStartWarnsOfARecordNotCommitted(t *testing.T) {
	r := fake.NewRecords()
	a := recApp(r)
	intent := recNewIntent(t, a, r, "Faster cold start", true).ID
	p := recPlan(t, a, r, intent, true)
	g := fake.NewGit(vBase)
	g.ChangedPaths = []string{p.Spec.Path}
	diag := &fake.Diag{}
	a.Git, a.Diag = g, diag
	a.Roster = fake.Roster{R: loopRoster(t)}
	res := recRun[app.StepResult](t, a, "implement_start", map[string]any{"spec": p.Spec.ID})
	warned := "is not committed as it stands at the run's base main (111111111111): the lanes branch from that commit"
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), p.Spec.Path+" "+warned))
	assert.Check(t, is.Contains(strings.Join(diag.Warnings, "\n"), warned))
}

// passLane has a lane implemented and both its reviewers pass it.
func (w *laneWorld) passLane(t *testing.T, lane string) string {
	t.Helper()
	impl := w.await(t, lane, loop.RoleImplementer)
	w.implement(t, impl, "", true)
	w.receipt(t, impl.Return)
	w.review(t, lane, loop.RoleRuthless, "SHIP")
	w.review(t, lane, loop.RoleSecurity, "APPROVE")
	for _, l := range w.status(t).Lanes {
		if l.ID == lane {
			return l.Head
		}
	}
	return ""
}

// mergeByHand is a person making the merge in the lane's worktree: a merge commit of head onto the
// branch.
func (w *laneWorld) mergeByHand(branch, head string) {
	w.seq++
	sha := fmt.Sprintf("%040x", 0xdd0000+w.seq)
	if w.g.Second == nil {
		w.g.Second = map[string]string{}
	}
	w.g.Parents[sha], w.g.Second[sha] = w.g.Branches[branch], head
	w.g.Branches[branch] = sha
}

// A merge between lanes that conflicts says where the integration is, how to resolve it and the one
// step that continues the same run; nothing is handed back, nothing delivered is redone, bare abcd
// points at the same step, and once the merge is made by hand the run goes on to the audit.
func TestAnIntegrationConflictGoesOnWithTheSameRun(t *testing.T) {
	w := newLaneWorld(t, "1. Read the headers.\n2. Parse them.")
	w.passLane(t, "lane-1")
	w.g.Conflicts = map[string][]string{}
	// lane-2's head will not merge onto lane-1's.
	impl := w.await(t, "lane-2", loop.RoleImplementer)
	w.implement(t, impl, "", true)
	head2 := w.g.Branches["abcd/"+w.run+"/lane-2"]
	w.g.Conflicts[head2] = []string{"headers.go"}
	w.receipt(t, impl.Return)
	w.review(t, "lane-2", loop.RoleRuthless, "SHIP")
	res := w.review(t, "lane-2", loop.RoleSecurity, "APPROVE")

	assert.Check(t, is.Equal(stages(res.Run), "lane-1:done lane-2:done integration:waiting"))
	assert.Check(t, !res.Run.Finished)
	integration := res.Run.Lanes[2]
	wt := integration.Worktree
	assert.Check(t, strings.HasSuffix(wt, loop.WorktreeDir(w.run, loop.IntegrationLane)), "the integration's checkout stays for the merge: %q", wt)
	assert.Check(t, is.Contains(integration.Findings, "conflicted on headers.go"))
	assert.Assert(t, is.Len(res.Next, 1))
	say := res.Next[0].String()
	for _, want := range []string{"the integration waits for a merge by hand: merging lane-2", "into abcd/" + w.run + "/integration conflicted on headers.go",
		"In its checkout " + wt + " (branch abcd/" + w.run + "/integration), run `git merge " + head2 + "`", "resolve the conflicts, and commit the merge"} {
		assert.Check(t, is.Contains(say, want))
	}
	assert.Check(t, is.Equal(recStep(res.Next[0]), "implement_step run="+w.run))
	// Bare abcd points at the same step, not at a fresh start.
	st := recRun[app.StatusResult](t, w.a, "status", map[string]any{})
	assert.Assert(t, len(st.Next) > 0)
	assert.Check(t, is.Equal(recStep(st.Next[0].Next), "implement_step run="+w.run))
	assert.Check(t, is.Contains(st.Next[0].String(), "git merge "+head2))
	// A step before the merge is made changes nothing and says the same.
	again := recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": w.run})
	assert.Check(t, is.Equal(stages(again.Run), "lane-1:done lane-2:done integration:waiting"))
	assert.Check(t, is.Equal(again.Next[0].String(), say))

	// The person makes the merge; the same run goes on to the audit, the lanes not redone.
	w.mergeByHand("abcd/"+w.run+"/integration", head2)
	merged := w.g.Branches["abcd/"+w.run+"/integration"]
	went := recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": w.run})
	assert.Check(t, is.Equal(stages(went.Run), "lane-1:done lane-2:done integration:validate"))
	assert.Check(t, is.Contains(strings.Join(went.Did, "\n"), "integration: the merge of lane-2 was made by hand"))
	assert.Check(t, is.Equal(went.Run.Lanes[2].Head, merged), "the integration is the branch as the person left it")
	assert.Check(t, is.Equal(went.Run.Lanes[2].Findings, ""))
	auditor := w.await(t, loop.IntegrationLane, loop.RoleAuditor)
	assert.Check(t, is.Equal(auditor.Round, 1))
	for _, l := range went.Run.Lanes[:2] {
		assert.Check(t, is.Equal(l.Round, 1), "%s was not redone", l.ID)
	}
}

// A lane that builds on two others waits the same way when their heads do not merge, and the lanes
// that build on it wait with it.
func TestADependentLaneWaitsForAMergeByHand(t *testing.T) {
	w := newLaneWorld(t, "1. Read the headers.\n2. Parse them.\n3. (after 1, 2) Render them.")
	w.passLane(t, "lane-1")
	impl := w.await(t, "lane-2", loop.RoleImplementer)
	w.implement(t, impl, "", true)
	head2 := w.g.Branches["abcd/"+w.run+"/lane-2"]
	w.g.Conflicts = map[string][]string{head2: {"a.go"}}
	w.receipt(t, impl.Return)
	w.review(t, "lane-2", loop.RoleRuthless, "SHIP")
	res := w.review(t, "lane-2", loop.RoleSecurity, "APPROVE")
	assert.Check(t, is.Equal(stages(res.Run), "lane-1:done lane-2:done lane-3:waiting integration:waiting"))
	assert.Check(t, is.Contains(res.Next[0].String(), "lane-3 waits for a merge by hand: merging lane-2"))
	w.mergeByHand("abcd/"+w.run+"/lane-3", head2)
	went := recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": w.run})
	assert.Check(t, is.Equal(stages(went.Run), "lane-1:done lane-2:done lane-3:implement integration:waiting"))
	assert.Check(t, is.Equal(went.Run.Lanes[2].Start, w.g.Branches["abcd/"+w.run+"/lane-3"]))
}
