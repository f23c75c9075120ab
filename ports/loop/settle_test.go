package loop_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A finished run whose worktree removal a kill interrupted (its state still names the lane's
// worktree, git still lists it) is cleared by the next command that touches runs, not only by the
// next on that run: here a review of another branch. It says so, and the run's state and git are left
// with no worktree for it.
func TestTheNextCommandOnAnyRunClearsAFinishedRunsWorktrees(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	apptest.RecRun[loopuc.StepResult](t, w.A, "implement_abandon", map[string]any{"run": w.Run})
	statePath := loop.RunDir(w.Run) + "/state.json"
	s, err := loop.Decode(statePath, w.Rs.Files[statePath])
	assert.NilError(t, err)
	assert.Assert(t, s.Finished())
	// What a kill between git's removal and the state's save leaves: the state still names the
	// worktree, and git still lists it.
	wt := loop.WorktreeDir(w.Run, "lane-1")
	i := slices.IndexFunc(s.Lanes, func(l loop.Lane) bool { return l.ID == "lane-1" })
	s.Lanes[i].Worktree = wt
	w.Rs.Files[statePath] = loop.Encode(s)
	w.G.Worktrees[wt] = s.Lanes[i].Branch

	w.G.Branches["feature"] = apptest.VBase
	w.G.Commit("feature", "6666666666666666666666666666666666666666")
	w.G.Head = "feature"
	res := apptest.RecRun[loopuc.StepResult](t, w.A, "review", map[string]any{"base": "main"})
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "finished run "+w.Run+": lane-1: removed its worktree"), "%v", res.Did)
	_, listed := w.G.Worktrees[wt]
	assert.Check(t, !listed, "git no longer lists the worktree")
	s, err = loop.Decode(statePath, w.Rs.Files[statePath])
	assert.NilError(t, err)
	for _, l := range s.Lanes {
		assert.Check(t, is.Equal(l.Worktree, ""), "%s still names a worktree", l.ID)
	}
}

// A lane still worked in whose worktree is gone (a person's rm, an abandon a kill interrupted) is
// checked out again from its branch by the next step, so no agent is pointed at a folder that is not
// there; a whole one is left as it is.
func TestAStepChecksOutAGoneWorktreeAgain(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	wt := loop.WorktreeDir(w.Run, "lane-1")
	branch, ok := w.G.Worktrees[wt]
	assert.Assert(t, ok, "the lane's worktree is checked out: %v", w.G.Worktrees)
	res := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
	assert.Check(t, !strings.Contains(strings.Join(res.Did, "\n"), "worktree was gone"), "%v", res.Did)

	delete(w.G.Worktrees, wt)
	res = apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "lane-1: its worktree was gone; checked "+branch+" out again"), "%v", res.Did)
	assert.Check(t, is.Equal(w.G.Worktrees[wt], branch))
}
