package app_test

import (
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports/app"
)

// A finished run whose worktree removal a kill interrupted (its state still names the lane's
// worktree, git still lists it) is cleared by the next command that touches runs, not only by the
// next on that run: here a review of another branch. It says so, and the run's state and git are left
// with no worktree for it.
func TestTheNextCommandOnAnyRunClearsAFinishedRunsWorktrees(t *testing.T) {
	w := newLoopWorld(t, nil)
	recRun[app.StepResult](t, w.a, "implement_abandon", map[string]any{"run": w.run})
	statePath := loop.RunDir(w.run) + "/state.json"
	s, err := loop.Decode(statePath, w.rs.Files[statePath])
	assert.NilError(t, err)
	assert.Assert(t, s.Finished())
	// What a kill between git's removal and the state's save leaves: the state still names the
	// worktree, and git still lists it.
	wt := loop.WorktreeDir(w.run, "lane-1")
	i := slices.IndexFunc(s.Lanes, func(l loop.Lane) bool { return l.ID == "lane-1" })
	s.Lanes[i].Worktree = wt
	w.rs.Files[statePath] = loop.Encode(s)
	w.g.Worktrees[wt] = s.Lanes[i].Branch

	w.g.Branches["feature"] = vBase
	w.g.Commit("feature", "6666666666666666666666666666666666666666")
	w.g.Head = "feature"
	res := recRun[app.StepResult](t, w.a, "review", map[string]any{"base": "main"})
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "finished run "+w.run+": lane-1: removed its worktree"), "%v", res.Did)
	_, listed := w.g.Worktrees[wt]
	assert.Check(t, !listed, "git no longer lists the worktree")
	s, err = loop.Decode(statePath, w.rs.Files[statePath])
	assert.NilError(t, err)
	for _, l := range s.Lanes {
		assert.Check(t, is.Equal(l.Worktree, ""), "%s still names a worktree", l.ID)
	}
}
