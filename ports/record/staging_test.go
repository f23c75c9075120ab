package record_test

import (
	"context"
	"path"
	"runtime"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A record's move is whole once git's index holds it: these kill a verb the moment it begins to
// stage its move (its files made, the journal still holding the change), as a kill -9 there does,
// and hold the same command run again, and the next writer, to staging it.

// dyingGit is git as a kill -9 leaves it: the process ends the moment it would stage a move.
type dyingGit struct{ *fake.Git }

func (dyingGit) StageMove(context.Context, string, string) (bool, error) {
	runtime.Goexit() // the caller's goroutine ends here, as the killed process does
	return false, nil
}

// killedAtStaging runs verb on w's app with a git that dies as it stages, and returns what the
// journal then holds: the change, its files made.
func killedAtStaging(t *testing.T, w apptest.RecWorld, g *fake.Git, verb string, in map[string]any) ports.Change {
	t.Helper()
	w.A.Git = dyingGit{g}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		res, err := w.A.Call(context.Background(), verb, in)
		t.Errorf("%s ended on its own (%v, %v): it never began to stage", verb, res, err)
	}()
	<-ended
	w.A.Git = g
	j := w.A.Journal.(*fake.Journal)
	assert.Assert(t, j.Left != nil && j.Made, "%s left its change in the journal, its files made", verb)
	assert.Assert(t, len(j.Left.Moves) > 0)
	assert.Assert(t, is.Len(g.Staged, 0), "nothing was staged before the kill")
	return *j.Left
}

// staged checks that git's index holds every move of c, once, and that the journal let it go.
func staged(t *testing.T, w apptest.RecWorld, g *fake.Git, c ports.Change) {
	t.Helper()
	var want [][2]string
	for _, m := range c.Moves {
		want = append(want, [2]string{m.From, m.To})
	}
	assert.Check(t, is.DeepEqual(g.Staged, want))
	pending, err := w.A.Journal.Pending(context.Background())
	assert.NilError(t, err)
	assert.Check(t, !pending, "the change is settled")
}

// TestARenumberKilledBeforeItsMoveIsStagedIsFinishedByTheSameCommand: killed once its change is
// made and before git's index holds the move, renumber run again stages the move and reports the
// renumber whole: the new id, the references rewritten and the unsure one, found again.
func TestARenumberKilledBeforeItsMoveIsStagedIsFinishedByTheSameCommand(t *testing.T) {
	w, g := teamWorld(t)
	mine := recPath(t, w, w.Draft)
	ours := apptest.RecRun[recorduc.RecordCreated](t, w.A, "capture", map[string]any{"text": "Ours", "related": []string{w.Draft}}).Record.Path
	unsure := apptest.RecRun[recorduc.RecordCreated](t, w.A, "capture", map[string]any{"text": "Unsure", "related": []string{w.Draft}}).Record.Path
	other := path.Dir(mine) + "/" + record.FileName(w.Draft, "another-clone")
	w.R.Files[other] = record.RenderIntent(record.NewIntent(w.Draft, "Another clone's intent", apptest.RecNow))
	g.Origins = map[string]string{ours + "\x00" + w.Draft: "c1", unsure + "\x00" + w.Draft: "c2"}
	g.Trees = map[string][]string{"c1": {mine}, "c2": {mine, other}}
	g.Tracked[mine] = true
	in := map[string]any{"file": mine}

	left := killedAtStaging(t, w, g, "record_renumber", in)
	dst := left.Files[0].Path
	_, stands := w.R.Files[mine]
	assert.Check(t, !stands, "the change was made: the old file is gone")

	diag := &fake.Diag{}
	w.A.Diag = diag
	res := apptest.RecRun[recorduc.RecordRenumberResult](t, w.A, "record_renumber", in)
	assert.Check(t, is.Equal(res.Record.Path, dst))
	assert.Check(t, is.Equal(res.From, mine))
	assert.Check(t, is.Equal(res.OldID, w.Draft))
	assert.Check(t, is.DeepEqual(res.Rewritten, []string{ours}))
	assert.Check(t, is.DeepEqual(res.Unsure, []string{unsure}), "the unsure record is found again, as the first run found it")
	staged(t, w, g, left)
	assert.Check(t, is.Len(diag.Warnings, 1))
	assert.Check(t, is.Contains(diag.Warnings[0], "finished the change an interrupted `abcd record renumber` left on "+w.Draft))

	// Run a third time, the file is gone: nothing is renumbered or staged twice.
	_, err := w.A.Call(context.Background(), "record_renumber", in)
	missing := apptest.RecRefused(t, err, refusal.Refused, "record_missing")
	assert.Check(t, is.Equal(missing.What, mine))
	staged(t, w, g, left)
}

// TestAMoveKilledBeforeItsStagingIsStagedByTheNextWriter: every verb that moves a record, killed
// once its files are made and before git's index holds the move, leaves the move for the next
// writer, whatever it is, to stage; the same command run again reports the move, staged.
func TestAMoveKilledBeforeItsStagingIsStagedByTheNextWriter(t *testing.T) {
	moveOf := func(w apptest.RecWorld) map[string]struct {
		verb string
		in   map[string]any
	} {
		return map[string]struct {
			verb string
			in   map[string]any
		}{
			"issue close": {"issue_close", map[string]any{"ref": w.Issue, "why": "Fixed in the renderer."}},
			"spec close":  {"spec_close", map[string]any{"ref": w.OpenSpec}},
			"intent ship": {"intent_ship", map[string]any{"ref": w.Shippable}},
			"intent plan": {"intent_plan", map[string]any{"ref": w.Draft}},
			"finish-move": {"record_finish_move", map[string]any{"ref": w.Issue}},
		}
	}
	for name := range moveOf(apptest.NewRecWorld(t)) {
		for _, next := range []string{"the next writer", "the same command"} {
			t.Run(name+", then "+next, func(t *testing.T) {
				w, g := teamWorld(t)
				m := moveOf(w)[name]
				if m.verb == "record_finish_move" {
					// A move a branch switch left half made: the issue in both folders.
					open := recPath(t, w, w.Issue)
					data, err := record.SetLifecycle(w.R.Files[open], "closed")
					assert.NilError(t, err)
					w.R.Files[".abcd/work/issues/closed/"+path.Base(open)] = data
				}
				left := killedAtStaging(t, w, g, m.verb, m.in)
				if next == "the next writer" {
					apptest.RecRun[recorduc.RecordCreated](t, w.A, "capture", map[string]any{"text": "Something else"})
				} else {
					j := w.A.Journal.(*fake.Journal)
					before := len(j.Commits)
					apptest.RecRun[any](t, w.A, m.verb, m.in)
					assert.Check(t, is.Len(j.Commits, before), "nothing is moved twice")
				}
				staged(t, w, g, left)
			})
		}
	}
}

// TestTheIndexLockAKilledStagingLeftIsCleared: a kill while git staged the move leaves git's
// index.lock, on which git refuses every add; the writer that finishes the killed change clears it
// (the adapter only once it has stood past git's own wait) and stages the move. A lock found by a
// move nobody killed is not abcd's to remove: the move is made, the staging refused, and the person
// told what to run.
func TestTheIndexLockAKilledStagingLeftIsCleared(t *testing.T) {
	w, g := teamWorld(t)
	in := map[string]any{"ref": w.Issue, "why": "Fixed."}
	left := killedAtStaging(t, w, g, "issue_close", in)
	g.IndexLocked = true // the killed abcd's git, killed with it part way through its add
	diag := &fake.Diag{}
	w.A.Diag = diag
	apptest.RecRun[recorduc.RecordCreated](t, w.A, "capture", map[string]any{"text": "Something else"})
	assert.Check(t, is.Equal(g.IndexLocksCleared, 1))
	staged(t, w, g, left)
	assert.Check(t, is.Contains(strings.Join(diag.Warnings, "\n"), "removed git's index.lock"))

	g.IndexLocked = true // a git of the person's, or one abcd did not start
	diag.Warnings = nil
	moved := apptest.RecRun[recorduc.MoveResult](t, w.A, "spec_close", map[string]any{"ref": w.OpenSpec})
	assert.Check(t, is.Equal(g.IndexLocksCleared, 1), "left alone")
	assert.Check(t, is.Len(g.Staged, 1), "git refused the add")
	assert.Check(t, is.Len(diag.Warnings, 1))
	assert.Check(t, is.Contains(diag.Warnings[0], "run `git add -A -- "+moved.From+" "+moved.To+"`"))
	pending, err := w.A.Journal.Pending(context.Background())
	assert.NilError(t, err)
	assert.Check(t, !pending, "a refusal git gives is said, not retried by every writer after")
}

// cancellingGit is git's add ended by the call's end (Ctrl-C, an MCP client's cancellation).
type cancellingGit struct {
	*fake.Git
	cancel context.CancelFunc
}

func (g cancellingGit) StageMove(ctx context.Context, _, _ string) (bool, error) {
	g.cancel()
	return false, ctx.Err()
}

// TestAMoveWhoseStagingTheCallerEndedIsStagedByTheNextWriter: a call ended while it staged its
// move is refused interrupted, its change made and left in the journal as a kill leaves it; the
// same command run again stages the move and reports it.
func TestAMoveWhoseStagingTheCallerEndedIsStagedByTheNextWriter(t *testing.T) {
	w, g := teamWorld(t)
	in := map[string]any{"ref": w.Issue, "why": "Fixed."}
	from := recPath(t, w, w.Issue)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.A.Git = cancellingGit{Git: g, cancel: cancel}
	diag := &fake.Diag{}
	w.A.Diag = diag
	_, err := w.A.Call(ctx, "issue_close", in)
	ended := apptest.RecRefused(t, err, refusal.Contention, "interrupted")
	assert.Check(t, is.Contains(ended.Why, "ended by its caller"))
	assert.Check(t, is.Len(diag.Warnings, 0), "no git failure is said for an add the caller ended")
	pending, err := w.A.Journal.Pending(context.Background())
	assert.NilError(t, err)
	assert.Check(t, pending)

	w.A.Git = g
	res := apptest.RecRun[recorduc.MoveResult](t, w.A, "issue_close", in)
	assert.Check(t, is.Equal(res.From, from))
	staged(t, w, g, ports.Change{Moves: []ports.Move{{From: from, To: res.To}}})
}
