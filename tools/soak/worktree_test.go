//go:build unix

package soak

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestAbcdInALanesWorktreeActsOnTheRepository: the briefs send each agent to work in its lane's
// worktree, and the agent runs abcd there. abcd acts on the repository that holds the worktree: it
// sees the run, takes the receipt, and a capture lands in the repository's record, never in the
// lane's checkout (where it could be committed onto the lane's branch).
func TestAbcdInALanesWorktreeActsOnTheRepository(t *testing.T) {
	r := newRepo(t)
	plannedRepo(r, "1. Make config loading lazy.")
	run := runOf(r, r.ok("implement", "start", "spc-2611300000000002")).Run
	v := runOf(r, r.ok("implement", "step", "--run", run))
	wt := v.Lanes[0].Worktree
	assert.Assert(t, wt != "")
	inWorktree := func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(binary, append(args, "--json")...)
		cmd.Dir, cmd.Env = filepath.Join(wt, "src"), r.env
		out, err := cmd.Output()
		assert.NilError(t, err, "abcd %s in the worktree: %s", strings.Join(args, " "), out)
		var doc map[string]any
		assert.NilError(t, json.Unmarshal(out, &doc))
		return doc
	}
	status := inWorktree("implement", "status")
	runs, _ := status["runs"].([]any)
	assert.Assert(t, is.Len(runs, 1), "the worktree's abcd sees the repository's run")
	inWorktree("capture", "Noticed while implementing")
	assert.Check(t, is.Len(r.files(".abcd/work/issues/open"), 1), "the issue is in the repository's record")
	inLane, err := os.ReadDir(filepath.Join(wt, ".abcd", "work", "issues", "open"))
	if !errors.Is(err, fs.ErrNotExist) {
		assert.NilError(t, err)
	}
	for _, e := range inLane {
		assert.Check(t, is.Equal(e.Name(), record.KeepFile), "and not in the lane's checkout")
	}
	r.implemented(v, "lane-1")
	ret := awaitFor(v, "implementer").Return
	recorded := inWorktree("implement", "receipt", filepath.Join(r.root, ret))
	assert.Check(t, recorded["recorded"] != nil, "the receipt is taken from inside the worktree")
}

// TestAbcdInASubfolderPutsTheLanesWorktreesInTheRepository: run from a subfolder, a step still makes
// each lane's worktree where the run's folder is, never inside the subfolder.
func TestAbcdInASubfolderPutsTheLanesWorktreesInTheRepository(t *testing.T) {
	r := newRepo(t)
	plannedRepo(r, "1. Make config loading lazy.")
	inSrc := func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(binary, append(args, "--json")...)
		cmd.Dir, cmd.Env = r.path("src"), r.env
		out, err := cmd.Output()
		assert.NilError(t, err, "abcd %s in src: %s", strings.Join(args, " "), out)
		var doc map[string]any
		assert.NilError(t, json.Unmarshal(out, &doc))
		return doc
	}
	run := runOf(r, inSrc("implement", "start", "spc-2611300000000002")).Run
	v := runOf(r, inSrc("implement", "step", "--run", run))
	assert.Check(t, is.Equal(v.Lanes[0].Worktree, filepath.Join(r.root, layout.LanesDir(run), "lane-1")))
	assert.Check(t, r.exists(layout.LanesDir(run)+"/lane-1/src"), "the worktree is checked out where it says")
	assert.Check(t, !r.exists("src/.abcd"), "nothing is made inside the subfolder")
	assert.Check(t, is.Equal(r.git(r.root, "status", "--porcelain", "--untracked-files=all", "src"), ""))
}
