package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// repo is a git repository with two commits on main.
func repo(t *testing.T) (*fs.Dir, []string) {
	t.Helper()
	dir := fs.NewDir(t, "git")
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir.Path()
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", "-b", "main")
	assert.NilError(t, os.WriteFile(dir.Join("a.txt"), []byte("one\n"), 0o644))
	run("add", "a.txt")
	run("commit", "-q", "-m", "one")
	first := run("rev-parse", "HEAD")
	assert.NilError(t, os.WriteFile(dir.Join("a.txt"), []byte("one\ntwo\n"), 0o644))
	run("commit", "-q", "-am", "two")
	second := run("rev-parse", "HEAD")
	return dir, []string{first, second}
}

func TestResolveAndAncestry(t *testing.T) {
	t.Parallel() // its own repository
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	head, err := g.Resolve(ctx, "HEAD")
	assert.NilError(t, err)
	assert.Equal(t, head, commits[1])
	main, err := g.Resolve(ctx, "main")
	assert.NilError(t, err)
	assert.Equal(t, main, commits[1])

	for _, bad := range []string{"nope", "--output=/tmp/x", "", "a b"} {
		_, err := g.Resolve(ctx, bad)
		r, ok := refusal.As(err)
		assert.Assert(t, ok, "%q: %v", bad, err)
		assert.Equal(t, r.Kind, refusal.Refused)
	}

	ok, err := g.IsAncestor(ctx, commits[0], commits[1])
	assert.NilError(t, err)
	assert.Assert(t, ok)
	ok, err = g.IsAncestor(ctx, commits[1], commits[0])
	assert.NilError(t, err)
	assert.Assert(t, !ok)
	ok, err = g.IsAncestor(ctx, strings.Repeat("0", 40), commits[1])
	assert.NilError(t, err)
	assert.Assert(t, !ok, "an unknown commit is not reachable")
}

func TestBranchesAndDiff(t *testing.T) {
	t.Parallel() // its own repository
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	cur, err := g.CurrentBranch(ctx)
	assert.NilError(t, err)
	assert.Equal(t, cur, "main")

	assert.NilError(t, g.CreateBranch(ctx, "abcd/run-1/lane-1", commits[0]))
	at, err := g.Resolve(ctx, "abcd/run-1/lane-1")
	assert.NilError(t, err)
	assert.Equal(t, at, commits[0])
	err = g.CreateBranch(ctx, "abcd/run-1/lane-1", commits[1])
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "an existing branch is never moved: %v", err)
	assert.Equal(t, r.Code, refusal.CodeBranchExists)
	at, _ = g.Resolve(ctx, "abcd/run-1/lane-1")
	assert.Equal(t, at, commits[0])

	diff, cut, err := g.Diff(ctx, commits[0], commits[1], 1<<20)
	assert.NilError(t, err)
	assert.Assert(t, !cut)
	assert.Assert(t, is.Contains(string(diff), "+two"))
	diff, cut, err = g.Diff(ctx, commits[0], commits[1], 10)
	assert.NilError(t, err)
	assert.Assert(t, cut)
	assert.Equal(t, len(diff), 10)
}

func TestCommitted(t *testing.T) {
	t.Parallel() // its own repository
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	data, ok, err := g.Committed(ctx, "a.txt", 1<<10)
	assert.NilError(t, err)
	assert.Assert(t, ok)
	assert.Equal(t, string(data), "one\ntwo\n")

	_, ok, err = g.Committed(ctx, "missing.txt", 1<<10)
	assert.NilError(t, err)
	assert.Assert(t, !ok, "a path HEAD lacks is not committed")

	_, _, err = g.Committed(ctx, "a.txt", 3)
	r, isRefusal := refusal.As(err)
	assert.Assert(t, isRefusal, "a file over the bound is refused: %v", err)
	assert.Equal(t, r.Code, refusal.CodeConfigFile)

	// A committed symbolic link is refused, and a subfolder reads paths from the root.
	assert.NilError(t, os.Symlink("a.txt", dir.Join("link.txt")))
	assert.NilError(t, os.Mkdir(dir.Join("sub"), 0o755))
	for _, args := range [][]string{{"add", "link.txt"}, {"commit", "-q", "-m", "link"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir.Path()
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
	}
	_, _, err = g.Committed(ctx, "link.txt", 1<<10)
	_, isRefusal = refusal.As(err)
	assert.Assert(t, isRefusal, "a committed link is refused: %v", err)
	_, ok, err = Git{Dir: dir.Join("sub")}.Committed(ctx, "a.txt", 1<<10)
	assert.NilError(t, err)
	assert.Assert(t, ok)

	empty := fs.NewDir(t, "empty")
	assert.NilError(t, exec.Command("git", "init", "-q", empty.Path()).Run())
	_, ok, err = Git{Dir: empty.Path()}.Committed(ctx, "a.txt", 1<<10)
	assert.NilError(t, err)
	assert.Assert(t, !ok, "a repository without commits has nothing committed")
}

// commitIn writes a file in a worktree and commits it there, returning the commit.
func commitIn(t *testing.T, dir, file, content string) string {
	t.Helper()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	assert.NilError(t, os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644))
	run("add", file)
	run("commit", "-q", "-m", file)
	return run("rev-parse", "HEAD")
}

// TestWorktreesAndMerges: lanes work in worktrees of their own branches; merging them into an
// integration worktree makes merge commits, and a conflict is aborted and named, leaving the
// worktree as it was.
func TestWorktreesAndMerges(t *testing.T) {
	t.Parallel() // its own repository
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	for _, b := range []string{"lane-1", "lane-2", "integration"} {
		assert.NilError(t, g.CreateBranch(ctx, b, commits[1]))
	}
	wt := func(name string) string { return ".abcd-lanes/run-1/" + name }
	for _, b := range []string{"lane-1", "lane-2", "integration"} {
		assert.NilError(t, g.AddWorktree(ctx, wt(b), b))
		assert.NilError(t, g.AddWorktree(ctx, wt(b), b), "adding it again (a step run again) is not an error")
	}
	// One look answers every dir: a whole worktree says its branch; one whose folder lost its .git
	// file, or a folder git has no worktree at, says none.
	assert.NilError(t, os.Rename(dir.Join(wt("lane-2"), ".git"), dir.Join(wt("lane-2"), "git-moved")))
	checked, err := g.CheckedOut(ctx, []string{wt("lane-1"), wt("lane-2"), wt("integration"), wt("nowhere")})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(checked, map[string]string{wt("lane-1"): "lane-1", wt("lane-2"): "", wt("integration"): "integration", wt("nowhere"): ""}))
	assert.NilError(t, os.Rename(dir.Join(wt("lane-2"), "git-moved"), dir.Join(wt("lane-2"), ".git")))
	checked, err = g.CheckedOut(ctx, nil)
	assert.NilError(t, err)
	assert.Check(t, is.Len(checked, 0))
	// A worktree's folder that cannot be looked into (here a link to itself, which no permission
	// lifts, so the test holds as root too) is a fault, not a worktree that is not whole; a file where
	// the folder stood is one that is not whole.
	assert.NilError(t, os.Rename(dir.Join(wt("lane-2")), dir.Join("lane-2-aside")))
	assert.NilError(t, os.Symlink("lane-2", dir.Join(wt("lane-2"))))
	_, err = g.CheckedOut(ctx, []string{wt("lane-1"), wt("lane-2")})
	assert.Check(t, errors.Is(err, syscall.ELOOP), "%v", err)
	assert.NilError(t, os.Remove(dir.Join(wt("lane-2"))))
	assert.NilError(t, os.WriteFile(dir.Join(wt("lane-2")), nil, 0o644))
	checked, err = g.CheckedOut(ctx, []string{wt("lane-2")})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(checked, map[string]string{wt("lane-2"): ""}))
	assert.NilError(t, os.Remove(dir.Join(wt("lane-2"))))
	assert.NilError(t, os.Rename(dir.Join("lane-2-aside"), dir.Join(wt("lane-2"))))

	err = g.AddWorktree(ctx, wt("other"), "lane-1")
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "a branch checked out elsewhere: %v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeWorktreeFailed))

	one := commitIn(t, dir.Join(wt("lane-1")), "one.txt", "one\n")
	two := commitIn(t, dir.Join(wt("lane-2")), "two.txt", "two\n")
	clash := commitIn(t, dir.Join(wt("lane-2")), "a.txt", "lane two's a\n")

	conflicts, err := g.Merge(ctx, wt("integration"), one, "abcd: integrate lane-1")
	assert.NilError(t, err)
	assert.Check(t, is.Len(conflicts, 0))
	head, _ := g.Resolve(ctx, "integration")
	ok, _ = g.IsAncestor(ctx, one, head)
	assert.Check(t, ok, "lane-1 is in the integration branch")

	// lane-1 now changes a.txt too, so lane-2's change to it conflicts.
	commitIn(t, dir.Join(wt("integration")), "a.txt", "integration's a\n")
	before, _ := g.Resolve(ctx, "integration")
	conflicts, err = g.Merge(ctx, wt("integration"), clash, "abcd: integrate lane-2")
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(conflicts, []string{"a.txt"}))
	after, _ := g.Resolve(ctx, "integration")
	assert.Check(t, is.Equal(after, before), "a conflict leaves the branch where it was")
	status, _, err := Git{Dir: dir.Join(wt("integration"))}.run(ctx, 4<<10, "status", "--porcelain")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(status), ""), "a conflict leaves the worktree clean")

	// A merge git refuses before beginning (an untracked file it would overwrite) has nothing to
	// abort: it is the merge's refusal, naming git's reason, not the abort's complaint.
	assert.NilError(t, os.WriteFile(filepath.Join(dir.Join(wt("integration")), "two.txt"), []byte("mine\n"), 0o644))
	conflicts, err = g.Merge(ctx, wt("integration"), two, "abcd: integrate lane-2's two")
	r, ok = refusal.As(err)
	assert.Assert(t, ok, "want merge_failed, got %v (conflicts %v)", err, conflicts)
	assert.Check(t, is.Equal(r.Code, refusal.CodeMergeFailed))
	assert.Check(t, is.Contains(r.Error(), "untracked"))
	assert.NilError(t, os.Remove(filepath.Join(dir.Join(wt("integration")), "two.txt")))

	// Uncommitted names what the worktree's head does not hold: changed, staged and untracked files,
	// relative to the worktree, bounded; not ignored ones.
	left, more, err := g.Uncommitted(ctx, wt("lane-1"), 10)
	assert.NilError(t, err)
	assert.Check(t, is.Len(left, 0))
	assert.Check(t, !more)
	lane1 := dir.Join(wt("lane-1"))
	assert.NilError(t, os.WriteFile(filepath.Join(lane1, "one.txt"), []byte("changed\n"), 0o644))
	assert.NilError(t, os.MkdirAll(filepath.Join(lane1, "new dir"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(lane1, "new dir", "b c.txt"), []byte("new\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(lane1, ".gitignore"), []byte("*.log\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(lane1, "x.log"), []byte("ignored\n"), 0o644))
	left, more, err = g.Uncommitted(ctx, wt("lane-1"), 10)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(left, []string{"one.txt", ".gitignore", "new dir/b c.txt"}))
	assert.Check(t, !more)
	left, more, err = g.Uncommitted(ctx, wt("lane-1"), 2)
	assert.NilError(t, err)
	assert.Check(t, is.Len(left, 2))
	assert.Check(t, more, "a third is left out")
	assert.NilError(t, os.Remove(filepath.Join(lane1, "x.log")))
	assert.NilError(t, os.RemoveAll(filepath.Join(lane1, "new dir")))
	assert.NilError(t, os.Remove(filepath.Join(lane1, ".gitignore")))
	assert.NilError(t, os.WriteFile(filepath.Join(lane1, "one.txt"), []byte("one\n"), 0o644))

	for _, b := range []string{"lane-1", "lane-2", "integration"} {
		assert.NilError(t, g.RemoveWorktree(ctx, wt(b)))
		_, err := os.Stat(dir.Join(wt(b)))
		assert.Check(t, os.IsNotExist(err), "%s's worktree is gone", b)
		assert.NilError(t, g.RemoveWorktree(ctx, wt(b)), "removing it again is not an error")
	}
	out, _, err := g.run(ctx, 1<<20, "worktree", "list", "--porcelain")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(strings.Count(string(out), "worktree "), 1), "only the main worktree is left:\n%s", out)
}

func TestDefaultBranch(t *testing.T) {
	t.Parallel() // its own repository
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	name, err := g.DefaultBranch(ctx)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(name, "main"))
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir.Path()
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
	}
	run("branch", "-m", "main", "trunk")
	name, _ = g.DefaultBranch(ctx)
	assert.Check(t, is.Equal(name, ""), "no main, master or configured default")
	run("config", "init.defaultBranch", "trunk")
	name, _ = g.DefaultBranch(ctx)
	assert.Check(t, is.Equal(name, "trunk"))
	run("update-ref", "refs/remotes/origin/develop", "trunk")
	run("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
	name, _ = g.DefaultBranch(ctx)
	assert.Check(t, is.Equal(name, "origin/develop"), "the remote's HEAD wins")
}

func TestDeleteBranch(t *testing.T) {
	t.Parallel() // its own repository
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	assert.NilError(t, g.CreateBranch(ctx, "abcd/run-1/lane-1", commits[1]))
	assert.NilError(t, g.DeleteBranch(ctx, "abcd/run-1/lane-1"))
	_, err := g.Resolve(ctx, "abcd/run-1/lane-1")
	assert.Check(t, err != nil, "the branch is gone")
	assert.NilError(t, g.DeleteBranch(ctx, "abcd/run-1/lane-1"), "deleting it again is not an error")
}

// TestBranchesUnder lists a run's branches, not another run's whose id starts the same, and refuses
// a prefix that is not a branch folder, or more branches than asked for.
func TestBranchesUnder(t *testing.T) {
	t.Parallel() // its own repository
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	for _, b := range []string{"abcd/run-1/lane-1", "abcd/run-1/attempts/lane-1-await-1-x", "abcd/run-10/lane-1", "abcd/run-1x"} {
		assert.NilError(t, g.CreateBranch(ctx, b, commits[1]))
	}
	got, err := g.BranchesUnder(ctx, "abcd/run-1", 8)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(got, []string{"abcd/run-1/attempts/lane-1-await-1-x", "abcd/run-1/lane-1"}))
	none, err := g.BranchesUnder(ctx, "abcd/run-2", 8)
	assert.NilError(t, err)
	assert.Check(t, is.Len(none, 0))
	_, err = g.BranchesUnder(ctx, "abcd/run-1", 1)
	assert.Check(t, is.ErrorContains(err, "has more than 1 branches"))
	for _, bad := range []string{"", "-x", "abcd/*", "a b"} {
		_, err = g.BranchesUnder(ctx, bad, 8)
		assert.Check(t, is.ErrorContains(err, "is not a branch prefix"), bad)
	}
}

// TestDeleteBranchPastPackedRefsLocks: a packed-refs.lock a killed git left (stale) is removed and
// the branch deleted; one a live git still holds past git's own wait (the killed abcd's git, which
// runs on) is waited out, and the branch deleted once it lets go.
func TestDeleteBranchPastPackedRefsLocks(t *testing.T) {
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	lock := dir.Join(".git", "packed-refs.lock")
	// git waits core.packedRefsTimeout (a second by default) for a held lock before it fails; this
	// repository's git fails at once, as a person's configured so would, and abcd does what it does
	// after either wait.
	cmd := exec.Command("git", "config", "core.packedRefsTimeout", "0")
	cmd.Dir = dir.Path()
	out, err := cmd.CombinedOutput()
	assert.NilError(t, err, string(out))

	assert.NilError(t, g.CreateBranch(ctx, "abcd/run-1/lane-1", commits[1]))
	assert.NilError(t, os.WriteFile(lock, nil, 0o644))
	// A killed git's lock, left a while ago: it has stood unchanged for all but the last 300 ms of
	// staleAfter, which DeleteBranch waits out before taking it for stale.
	left := time.Now().Add(300*time.Millisecond - staleAfter)
	assert.NilError(t, os.Chtimes(lock, left, left))
	assert.NilError(t, g.DeleteBranch(ctx, "abcd/run-1/lane-1"), "a stale lock")
	_, err = g.Resolve(ctx, "refs/heads/abcd/run-1/lane-1")
	assert.Check(t, err != nil, "the branch is gone")
	_, err = os.Lstat(lock)
	assert.Check(t, errors.Is(err, os.ErrNotExist), "the stale lock is removed")

	assert.NilError(t, g.CreateBranch(ctx, "abcd/run-1/lane-2", commits[1]))
	assert.NilError(t, os.WriteFile(lock, nil, 0o644))
	released := make(chan error, 1)
	go func() {
		// Held past git's wait, let go before it would be taken for stale.
		time.Sleep(300 * time.Millisecond)
		released <- os.Remove(lock)
	}()
	assert.NilError(t, g.DeleteBranch(ctx, "abcd/run-1/lane-2"), "a lock held, then let go")
	assert.NilError(t, <-released)
	_, err = g.Resolve(ctx, "refs/heads/abcd/run-1/lane-2")
	assert.Check(t, err != nil, "the branch is gone")
}

// What a killed `git worktree add` leaves: an entry locked "initializing" whose commondir was never
// written (git then refuses every worktree and branch command), others in the runs' folder (the run's
// other lane, killed at the same moment, and another run's), a half-made entry with no gitdir, and a branch ref lock. With the folder gone, RemoveWorktree forgets both entries and ClearRefLock the lock, so
// the branch and worktree are made again.
func TestAKilledWorktreeAddIsForgotten(t *testing.T) {
	t.Parallel()
	// The lanes' folder abcd makes worktrees in, and the run's folder an earlier abcd made them in.
	t.Run("lanes folder", func(t *testing.T) {
		t.Parallel() // its own repository
		killedWorktreeAdd(t, ".abcd-lanes/run-1/lane-1", ".abcd-lanes/run-2/lane-3")
	})
	t.Run("earlier run folder", func(t *testing.T) {
		t.Parallel() // its own repository
		killedWorktreeAdd(t, ".abcd/.work.local/run/run-1/worktrees/lane-1", ".abcd/.work.local/run/run-2/worktrees/lane-3")
	})
}

func killedWorktreeAdd(t *testing.T, wt, otherRun string) {
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	abs, err := filepath.Abs(dir.Join(wt))
	assert.NilError(t, err)
	for name, files := range map[string]map[string]string{
		"lane-1":  {"gitdir": abs + "/.git\n", "commondir": "", "HEAD": strings.Repeat("0", 40) + "\n", "locked": "initializing\n"},
		"lane-12": {"locked": "initializing\n"},
		"lane-2":  {"gitdir": filepath.Join(filepath.Dir(abs), "lane-2") + "/.git\n", "commondir": "", "locked": "initializing\n"},
		"lane-3":  {"gitdir": dir.Join(otherRun) + "/.git\n", "commondir": "", "locked": "initializing\n"},
		"other":   {"locked": "mine\n"},
	} {
		assert.NilError(t, os.MkdirAll(dir.Join(".git/worktrees", name), 0o755))
		for f, body := range files {
			assert.NilError(t, os.WriteFile(dir.Join(".git/worktrees", name, f), []byte(body), 0o644))
		}
	}
	_, _, err = g.run(ctx, 1<<20, "worktree", "list", "--porcelain")
	assert.Assert(t, err != nil, "git refuses worktree commands while the entry is half written")
	assert.NilError(t, os.WriteFile(dir.Join(".git/refs/heads/lane-1.lock"), []byte(commits[0]+"\n"), 0o644))
	assert.Assert(t, g.CreateBranch(ctx, "lane-1", commits[1]) != nil, "the ref lock stops the branch")

	assert.NilError(t, g.RemoveWorktree(ctx, wt))
	assert.NilError(t, g.ClearRefLock(ctx, "lane-1"))
	assert.NilError(t, g.ClearRefLock(ctx, "lane-1"), "no lock is not an error")
	_, err = os.Stat(dir.Join(".git/worktrees/other"))
	assert.NilError(t, err, "another folder's entry stays")
	for _, gone := range []string{"lane-2", "lane-3"} {
		_, err = os.Stat(dir.Join(".git/worktrees", gone))
		assert.Assert(t, os.IsNotExist(err), "a half-written entry of a run's worktree goes (%s): git refuses to delete a branch while one stands", gone)
	}
	assert.NilError(t, g.CreateBranch(ctx, "lane-1", commits[1]))
	assert.NilError(t, g.AddWorktree(ctx, wt, "lane-1"))
	data, err := os.ReadFile(dir.Join(wt, "a.txt"))
	assert.NilError(t, err)
	assert.Equal(t, string(data), "one\ntwo\n", "the worktree is checked out whole")
	status, _, err := Git{Dir: dir.Join(wt)}.run(ctx, 4<<10, "status", "--porcelain")
	assert.NilError(t, err)
	assert.Equal(t, string(status), "")
}
