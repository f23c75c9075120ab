package record_test

import (
	"context"
	"strings"
	"testing"

	domloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// killedAfterJournal runs verb on a copy of the record and returns the change it committed: what a
// run killed once the journal was written leaves for the next writer.
func killedAfterJournal(t *testing.T, r *fake.Records, verb string, in map[string]any) ports.Change {
	t.Helper()
	copied := fake.NewRecords()
	copied.Files = apptest.RecClone(r.Files)
	a := apptest.RecApp(copied)
	j := a.Journal.(*fake.Journal)
	apptest.RecRun[any](t, a, verb, in)
	assert.Assert(t, is.Len(j.Commits, 1), "%s makes one change", verb)
	return j.Commits[0]
}

func TestAMoveIsOneChangeOfTwoFiles(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	id := apptest.RecRun[record.RecordCreated](t, a, "capture", map[string]any{"text": "The status line flickers"}).Record.ID
	res := apptest.RecRun[record.MoveResult](t, a, "issue_close", map[string]any{"ref": id, "why": "Fixed in the renderer."})
	c := a.Journal.(*fake.Journal).Commits
	assert.Assert(t, is.Len(c, 1), "capture writes one file on its own; the move is the one change")
	assert.Equal(t, c[0].Verb, "issue_close")
	assert.Equal(t, c[0].Record, id)
	assert.DeepEqual(t, []ports.FileChange{{Path: res.To, Data: r.Files[res.To]}, {Path: res.From, Remove: true}}, c[0].Files)
	assert.Assert(t, is.Contains(string(r.Files[res.To]), "Fixed in the renderer."))
}

// TestTheSameCommandRunAgainAfterAKillReportsItsChange: a close killed once its journal was written
// is finished by the lock the same command takes when run again, which then reports the close (the
// reason kept once) rather than refusing a move from closed to closed.
func TestTheSameCommandRunAgainAfterAKillReportsItsChange(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	id := apptest.RecRun[record.RecordCreated](t, a, "capture", map[string]any{"text": "The status line flickers"}).Record.ID
	in := map[string]any{"ref": id, "why": "Fixed in the renderer."}
	left := killedAfterJournal(t, r, "issue_close", in)

	diag := &fake.Diag{}
	a = apptest.RecApp(r)
	a.Diag = diag
	a.Journal.(*fake.Journal).Left = &left
	res := apptest.RecRun[record.MoveResult](t, a, "issue_close", in)
	assert.Equal(t, res.Record.Lifecycle, "closed")
	assert.Assert(t, strings.HasPrefix(res.From, apptest.RecIssuesOpen+"/"), res.From)
	assert.Assert(t, strings.HasPrefix(res.To, apptest.RecIssuesClosed+"/"), res.To)
	assert.Equal(t, strings.Count(string(r.Files[res.To]), "Fixed in the renderer."), 1)
	_, open := r.Files[res.From]
	assert.Assert(t, !open)
	assert.Assert(t, is.Len(a.Journal.(*fake.Journal).Commits, 0), "nothing is moved twice")
	assert.Assert(t, is.Len(diag.Warnings, 1))
	assert.Assert(t, is.Contains(diag.Warnings[0], "finished the change an interrupted `abcd issue close` left on "+id))

	// Run a third time, the issue is simply closed: the refusal says so.
	_, err := apptest.RecApp(r).Call(context.Background(), "issue_close", in)
	re := apptest.RecRefused(t, err, refusal.Refused, "transition_refused")
	assert.Check(t, is.Equal(re.Why, "is closed already"))
}

func TestAnotherCommandFinishesTheChangeAKillLeft(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	id := apptest.RecRun[record.RecordCreated](t, a, "capture", map[string]any{"text": "The status line flickers"}).Record.ID
	left := killedAfterJournal(t, r, "issue_close", map[string]any{"ref": id, "why": "Fixed."})
	a = apptest.RecApp(r)
	a.Journal.(*fake.Journal).Left = &left
	apptest.RecRun[record.RecordCreated](t, a, "capture", map[string]any{"text": "Something else"})
	show := apptest.RecRun[record.RecordShowResult](t, a, "issue_show", map[string]any{"ref": id})
	assert.Equal(t, show.Record.Lifecycle, "closed", "the capture's lock finished the close first")
}

// TestPlanIsOneChange: the intent's move and its new spec are written together, and intent plan run
// again after a kill reports the spec the first run made instead of making a second.
func TestPlanIsOneChange(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	intent := apptest.RecNewIntent(t, a, r, "Faster cold start", true).ID
	left := killedAfterJournal(t, r, "intent_plan", map[string]any{"ref": intent})
	assert.Assert(t, is.Len(left.Files, 3), "the intent written planned, its draft removed, the spec made")

	a = apptest.RecApp(r)
	a.Journal.(*fake.Journal).Left = &left
	res := apptest.RecRun[record.IntentPlanResult](t, a, "intent_plan", map[string]any{"ref": intent})
	assert.Equal(t, res.Intent.Lifecycle, "planned")
	assert.Equal(t, res.Spec.Lifecycle, "open")
	assert.Assert(t, is.Equal(res.Next.File.Path, res.Spec.Path))
	assert.Check(t, is.Equal(apptest.RecStep(res.Next), "implement_start spec="+res.Spec.ID))
	specs := apptest.RecRun[record.RecordListResult](t, a, "spec_list", map[string]any{})
	assert.Assert(t, is.Len(specs.Records, 1), "one spec, not two")
	assert.Equal(t, specs.Records[0].ID, res.Spec.ID)
}

// TestAuditNotesAndTheStateAreOneChange: the auditor's receipt writes the intent's Audit Notes with
// the state that records its verdict, in one change: a receipt handed in again after a kill never
// writes the notes twice.
func TestAuditNotesAndTheStateAreOneChange(t *testing.T) {
	w := newAuditWorld(t)
	j := w.a.Journal.(*fake.Journal)
	before := len(j.Commits)
	res := apptest.RecRun[loop.StepResult](t, w.a, "implement_receipt", map[string]any{"path": w.ret})
	assert.Equal(t, res.Recorded.Word, "PASS")
	assert.Assert(t, is.Len(j.Commits, before+1))
	c := j.Commits[len(j.Commits)-1]
	assert.Equal(t, c.Verb, "implement_receipt")
	var paths []string
	for _, f := range c.Files {
		paths = append(paths, f.Path)
	}
	assert.DeepEqual(t, paths, []string{w.intentPath, ".abcd/.work.local/run/" + res.Run.Run + "/state.json"})
	assert.Equal(t, strings.Count(string(w.recs.Files[w.intentPath]), "### Audit "), 1)
}

// auditWorld is an intent audit run whose auditor has written a passing return.
type auditWorld struct {
	a          *app.App
	recs       *fake.Records
	intentPath string
	ret        string
}

func newAuditWorld(t *testing.T) auditWorld {
	t.Helper()
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	intent := apptest.RecNewIntent(t, a, r, "Faster cold start", true)
	g := fake.NewGit(apptest.VBase)
	g.Commit("main", apptest.VWork)
	rs := fake.NewRuns()
	a.Git, a.Runs = g, rs
	a.Journal = fake.NewJournal(r, rs)
	a.Roster = fake.Roster{R: apptest.LoopRoster(t)}
	a.Diag = &fake.Diag{}
	start := apptest.RecRun[loop.StepResult](t, a, "intent_audit", map[string]any{"intent": intent.ID, "base": apptest.VBase})
	assert.Assert(t, is.Len(start.Run.Awaits, 1))
	ret := start.Run.Awaits[0].Return
	if rel, ok := strings.CutPrefix(ret, "/work/repo/"); ok {
		ret = rel
	}
	rs.Files[ret] = []byte(`{"schema_version":1,"intent":"` + intent.ID + `","verdicts":[{"criterion":"ac-1","verdict":"MET","evidence":"the start-up test shows it","concerns":""}],"summary":"Met."}`)
	return auditWorld{a: a, recs: r, intentPath: intent.Path, ret: ret}
}

// TestAStartKilledBeforeItsStateIsCleanedByTheNext: a run folder with no state (a start killed
// between making the folder and writing the state) is removed by the next run's start, which holds
// the record lock every start holds.
func TestAStartKilledBeforeItsStateIsCleanedByTheNext(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	orphan := "run-2611300000009999"
	w.Rs.Dirs[orphan] = true
	w.Rs.Files[".abcd/.work.local/run/"+orphan+"/lane-1/implement/brief.md"] = []byte("a brief nobody will read")
	apptest.RecRun[loop.StepResult](t, w.A, "implement_start", map[string]any{"spec": apptest.SpecOf(t, w), "again": true})
	assert.Assert(t, !w.Rs.Dirs[orphan])
	for p := range w.Rs.Files {
		assert.Assert(t, !strings.Contains(p, orphan), "%s stays", p)
	}
	unstarted, err := w.Rs.Unstarted(t.Context())
	assert.NilError(t, err)
	assert.Assert(t, is.Len(unstarted, 0))
}

// TestALaneStartKilledPartWayIsMadeAgain: a step killed after making a lane's branch and worktree
// (and merging part way) but before its state said the lane started leaves them; the step run again
// makes the start again from the lane's base, so the lane starts where it should.
func TestALaneStartKilledPartWayIsMadeAgain(t *testing.T) {
	// Its worktree where abcd makes it, and where an earlier abcd killed so made it.
	t.Run("lanes folder", func(t *testing.T) { laneStartKilled(t, domloop.WorktreeDir) })
	t.Run("earlier run folder", func(t *testing.T) { laneStartKilled(t, domloop.OldWorktreeDir) })
}

func laneStartKilled(t *testing.T, at func(run, lane string) string) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	intent := apptest.RecNewIntent(t, a, r, "Faster cold start", true).ID
	spec := apptest.RecPlan(t, a, r, intent, true).Spec.ID
	g := fake.NewGit(apptest.VBase)
	rs := fake.NewRuns()
	a.Git, a.Runs, a.Journal = g, rs, fake.NewJournal(r, rs)
	a.Config = fake.Config{Files: ports.ConfigFiles{RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true,
		Data: []byte(`{"schema_version":1,"build":{"dod":"true"}}`)}}}
	a.Roster = fake.Roster{R: apptest.LoopRoster(t)}
	a.Diag = &fake.Diag{}
	start := apptest.RecRun[loop.StepResult](t, a, "implement_start", map[string]any{"spec": spec})
	lane := start.Run.Lanes[0]
	// What the killed step left: the branch moved on by a merge it made, its worktree registered.
	g.Branches[lane.Branch] = apptest.VWork
	g.Parents[apptest.VWork] = apptest.VBase
	g.Worktrees = map[string]string{at(start.Run.Run, lane.ID): lane.Branch}
	step := apptest.RecRun[loop.StepResult](t, a, "implement_step", map[string]any{"run": start.Run.Run})
	assert.Equal(t, g.Branches[lane.Branch], apptest.VBase, "the lane starts from its base, not from what the killed step left")
	for _, l := range step.Run.Lanes {
		if l.ID == lane.ID {
			assert.Assert(t, l.Worktree != "")
			assert.Equal(t, l.Stage, "implement")
		}
	}
}

// TestARoutesAnswerIsWrittenWithTheStateThatRecordsIt: the answers a route gives are placed at their
// return paths in the same change as the state that records them as the route's, so a kill between
// never leaves an answer standing that a later receipt would credit to the host. An answer that
// does not verify is not written at all: the host's agent writes there.
func TestARoutesAnswerIsWrittenWithTheStateThatRecordsIt(t *testing.T) {
	passing := func(req ports.ReviewRequest) ports.ReviewOutcome {
		word := map[string]string{"ruthless-reviewer": "SHIP", "security-reviewer": "APPROVE"}[req.Role]
		return ports.ReviewOutcome{Return: []byte("## Verdict\n\n" + word + "\n\nNothing to fix.\n")}
	}
	w := apptest.NewLoopWorld(t, &fake.Validator{Name: "rp", Answer: passing})
	j := w.A.Journal.(*fake.Journal)
	w.Receipt(t)
	var placed *ports.Change
	for i := range j.Commits {
		for _, f := range j.Commits[i].Files {
			if strings.HasSuffix(f.Path, "/ruthless-reviewer/return.md") {
				placed = &j.Commits[i]
			}
		}
	}
	assert.Assert(t, placed != nil, "the answers went through the journal: %+v", j.Commits)
	var paths []string
	for _, f := range placed.Files {
		paths = append(paths, f.Path[strings.LastIndex(f.Path[:strings.LastIndex(f.Path, "/")], "/")+1:])
	}
	assert.Assert(t, is.Contains(paths, "ruthless-reviewer/return.md"))
	assert.Assert(t, is.Contains(paths, "security-reviewer/return.md"))
	assert.Equal(t, paths[len(paths)-1], w.Run+"/state.json", "the state that records them, in the same change")

	bad := apptest.NewLoopWorld(t, &fake.Validator{Name: "rp", Outcome: ports.ReviewOutcome{Return: []byte("I liked it.")}})
	res := bad.Receipt(t)
	for _, aw := range res.Run.Awaits {
		if aw.Role == "ruthless-reviewer" {
			_, err := bad.Rs.Read(t.Context(), strings.TrimPrefix(aw.Return, "/work/repo/"), 1<<20)
			assert.Assert(t, err != nil, "an answer that does not verify is not written")
		}
	}
}

// TestAFinishedRunSaysHowItEnded: a run that ends with a lane handed back says so in its next line,
// with why, rather than reading like a success.
func TestAFinishedRunSaysHowItEnded(t *testing.T) {
	failing := func(req ports.ReviewRequest) ports.ReviewOutcome {
		if req.Role == "ruthless-reviewer" {
			return ports.ReviewOutcome{Return: []byte("The error path is untested.\n\n## Verdict\n\nFIX FIRST\n")}
		}
		return ports.ReviewOutcome{Return: []byte("## Verdict\n\nAPPROVE\n\nNothing to fix.\n")}
	}
	w := apptest.NewLoopWorld(t, &fake.Validator{Name: "rp", Answer: failing})
	w.G.Head = "abcd/" + w.Run + "/lane-1"
	res := apptest.RecRun[loop.StepResult](t, w.A, "review", map[string]any{"base": apptest.VBase})
	assert.Assert(t, res.Run.Finished)
	assert.Assert(t, is.Len(res.Next, 1))
	assert.Assert(t, is.Contains(res.Next[0].String(), "the review failed with 1 lane handed back: lane-1 ("), res.Next[0].String())
	assert.Check(t, is.Equal(apptest.RecStep(res.Next[0]), "implement_record run="+res.Run.Run))
}

// TestLintNamesAChangeAKillLeftPending: while a killed writer's change waits in the journal, lint says
// so first (the record may read half changed meanwhile), and says nothing once it is finished.
func TestLintNamesAChangeAKillLeftPending(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	id := apptest.RecRun[record.RecordCreated](t, a, "capture", map[string]any{"text": "The status line flickers"}).Record.ID
	left := killedAfterJournal(t, r, "issue_close", map[string]any{"ref": id, "why": "Fixed."})
	a = apptest.RecApp(r)
	a.Journal.(*fake.Journal).Left = &left
	res := apptest.RecRun[record.LintResult](t, a, "lint", map[string]any{})
	assert.Assert(t, len(res.Findings) > 0)
	assert.Equal(t, res.Findings[0].Code, "change_pending")
	assert.Equal(t, res.Findings[0].File, ".abcd/.work.local/journal.json")
	assert.Equal(t, res.Errors, 1)
	apptest.RecRun[record.RecordCreated](t, a, "capture", map[string]any{"text": "Something else"})
	res = apptest.RecRun[record.LintResult](t, a, "lint", map[string]any{})
	for _, f := range res.Findings {
		assert.Check(t, f.Code != "change_pending")
	}
}
