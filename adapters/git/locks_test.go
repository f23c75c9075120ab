//go:build unix

package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// TestClearStaleLocksRemovesWhatAKilledGitLeft: a git killed part way through a commit in a lane's
// worktree leaves its index's and HEAD's locks in the worktree's own git folder, or its branch's in
// the common one, and git then refuses every commit there. ClearStaleLocks removes each that stood
// unchanged past git's own wait, and the commit goes through; a lock a git still held and let go
// meanwhile is left to it; a worktree with none is not an error.
func TestClearStaleLocksRemovesWhatAKilledGitLeft(t *testing.T) {
	root, wt, run := laneWorktree(t)
	g := Git{Dir: root}
	ctx := context.Background()
	abs := filepath.Join(root, wt)
	own := run(abs, "rev-parse", "--absolute-git-dir")
	common := run(abs, "rev-parse", "--path-format=absolute", "--git-common-dir")
	locks := []string{filepath.Join(own, "index.lock"), filepath.Join(own, "HEAD.lock"), filepath.Join(common, "refs", "heads", "abcd", "run-1", "lane-1.lock")}
	// Left by a killed git all but the last 200 ms of git's wait ago, which is waited out.
	left := time.Now().Add(200*time.Millisecond - staleAfter)
	for _, l := range locks {
		assert.NilError(t, os.WriteFile(l, nil, 0o644))
		assert.NilError(t, os.Chtimes(l, left, left))
	}
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "b.txt"), []byte("b\n"), 0o644))
	_, err := g.CommitAll(ctx, wt, "a step\n")
	assert.Check(t, err != nil, "git refuses the commit while the locks stand")

	removed, err := g.ClearStaleLocks(ctx, wt, "abcd/run-1/lane-1")
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(removed, []string{"index.lock", "HEAD.lock", "refs/heads/abcd/run-1/lane-1.lock"}))
	for _, l := range locks {
		_, err := os.Lstat(l)
		assert.Check(t, os.IsNotExist(err), "%s is left", l)
	}
	_, err = g.CommitAll(ctx, wt, "a step\n")
	assert.NilError(t, err, "the commit goes through")

	removed, err = g.ClearStaleLocks(ctx, wt, "abcd/run-1/lane-1")
	assert.NilError(t, err)
	assert.Check(t, is.Len(removed, 0), "none stood")

	// A git at work holds its lock, and lets it go before it would be taken for stale.
	assert.NilError(t, os.WriteFile(locks[0], nil, 0o644))
	released := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		released <- os.Remove(locks[0])
	}()
	removed, err = g.ClearStaleLocks(ctx, wt, "abcd/run-1/lane-1")
	assert.NilError(t, err)
	assert.NilError(t, <-released, "the git that held it let it go itself")
	assert.Check(t, is.Len(removed, 0))

	_, err = g.ClearStaleLocks(ctx, wt, "abcd/../../x")
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeBranchInvalid))
}

// TestClearStaleIndexLockLetsAKilledStagingFinish: a git killed while it staged a record's move
// leaves the checkout's index.lock, and git refuses every add after it. ClearStaleIndexLock removes
// it once it has stood unchanged past git's own wait, and the move is staged; with no lock it
// removes nothing; a lock a git at work holds, and lets go meanwhile, is left to it.
func TestClearStaleIndexLockLetsAKilledStagingFinish(t *testing.T) {
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	const from, to = ".abcd/work/issues/open/iss-1-x.md", ".abcd/work/issues/closed/iss-1-x.md"
	put(t, dir.Path(), from, "an issue\nwith lines\nenough to be itself\n")
	gitIn(t, dir.Path(), "add", "-A")
	gitIn(t, dir.Path(), "commit", "-q", "-m", "issue")
	assert.NilError(t, os.Remove(dir.Join(from)))
	put(t, dir.Path(), to, "an issue\nwith lines\nenough to be itself\nclosed\n")

	lock := dir.Join(".git", "index.lock")
	left := time.Now().Add(200*time.Millisecond - staleAfter)
	assert.NilError(t, os.WriteFile(lock, nil, 0o644))
	assert.NilError(t, os.Chtimes(lock, left, left))
	_, err := g.StageMove(ctx, from, to)
	assert.Check(t, err != nil, "git refuses to stage while the lock stands")

	removed, err := g.ClearStaleIndexLock(ctx)
	assert.NilError(t, err)
	assert.Check(t, removed)
	_, err = os.Lstat(lock)
	assert.Check(t, os.IsNotExist(err), "the lock is gone")
	moved, err := g.StageMove(ctx, from, to)
	assert.NilError(t, err)
	assert.Check(t, moved)
	assert.Check(t, is.Equal(gitIn(t, dir.Path(), "status", "--porcelain"), "R  "+from+" -> "+to))

	removed, err = g.ClearStaleIndexLock(ctx)
	assert.NilError(t, err)
	assert.Check(t, !removed, "none stood")

	assert.NilError(t, os.WriteFile(lock, nil, 0o644))
	released := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		released <- os.Remove(lock)
	}()
	removed, err = g.ClearStaleIndexLock(ctx)
	assert.NilError(t, err)
	assert.NilError(t, <-released, "the git that held it let it go itself")
	assert.Check(t, !removed)
}
