//go:build unix

package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/runner"
)

// laneWorktree is a repository with a lane branch checked out in its own worktree, as the loop makes
// one: the repository's folder, the worktree's path relative to it, and a git runner.
func laneWorktree(t *testing.T) (string, string, func(dir string, args ...string) string) {
	t.Helper()
	dir, _ := repo(t)
	run := func(in string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = in
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	head, err := g.Resolve(ctx, "main")
	assert.NilError(t, err)
	assert.NilError(t, g.CreateBranch(ctx, "abcd/run-1/lane-1", head))
	wt := ".abcd-lanes/run-1/lane-1"
	assert.NilError(t, g.AddWorktree(ctx, wt, "abcd/run-1/lane-1"))
	return dir.Path(), wt, run
}

func TestASnapshotSeesWhatAStepMustNotChange(t *testing.T) {
	// Not in parallel: it writes hooks git would run, and a program written while another test
	// starts a process can be held open in that child and refuse to start (ETXTBSY).
	root, wt, run := laneWorktree(t)
	g := Git{Dir: root}
	ctx := context.Background()
	before, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(before.HeadRef, "refs/heads/abcd/run-1/lane-1"))
	assert.Check(t, is.Len(before.Head, 40))
	assert.Check(t, is.Equal(before.Refs["refs/heads/main"], before.Head))
	assert.Check(t, before.Config != "" && before.Hooks != "" && before.Info != "")

	same, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(same, before), "nothing changed, nothing differs")

	abs := filepath.Join(root, wt)
	// Files in the worktree are the step's work, not what it must not change.
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "new.txt"), []byte("x"), 0o644))
	after, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(after, before))

	common := run(abs, "rev-parse", "--path-format=absolute", "--git-common-dir")
	assert.NilError(t, os.WriteFile(filepath.Join(common, "hooks", "pre-commit"), []byte("#!/bin/sh\necho pwned\n"), 0o755))
	run(abs, "config", "core.fsmonitor", "touch /tmp/pwned")
	run(abs, "commit", "--allow-empty", "-qm", "the CLI's own commit")
	after, err = g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, after.Hooks != before.Hooks)
	assert.Check(t, after.Config != before.Config)
	assert.Check(t, after.Head != before.Head)
	f := runner.CheckWork(before, after, before.HeadRef, nil, nil)
	assert.Assert(t, f != nil)
	assert.Check(t, is.Equal(f.Cause, runner.CauseRefsMoved))
}

func TestEntriesNameWhatStandsAtEachChange(t *testing.T) {
	t.Parallel() // its own repository
	root, wt, run := laneWorktree(t)
	g := Git{Dir: root}
	ctx := context.Background()
	abs := filepath.Join(root, wt)
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "a.txt"), []byte("changed\n"), 0o644))
	assert.NilError(t, os.MkdirAll(filepath.Join(abs, "d", "e"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "d", "e", "new file.txt"), []byte("x"), 0o644))
	assert.NilError(t, os.Symlink("../../etc/passwd", filepath.Join(abs, "d", "out")))
	assert.NilError(t, syscall.Mkfifo(filepath.Join(abs, "pipe"), 0o644))
	nested := filepath.Join(abs, "vendor", "nested")
	assert.NilError(t, os.MkdirAll(nested, 0o755))
	run(nested, "init", "-q")
	assert.NilError(t, os.WriteFile(filepath.Join(abs, ".gitignore"), []byte("ignored.log\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "ignored.log"), []byte("x"), 0o644))

	got, err := g.Entries(ctx, wt, 100)
	assert.NilError(t, err)
	kinds := map[string]runner.Entry{}
	for _, e := range got {
		kinds[e.Path] = e
	}
	assert.Check(t, is.Equal(kinds["a.txt"].Kind, runner.EntryFile))
	assert.Check(t, is.Equal(kinds["d/e/new file.txt"].Kind, runner.EntryFile))
	assert.Check(t, is.Equal(kinds["d/out"].Kind, runner.EntryLink))
	assert.Check(t, is.Equal(kinds["d/out"].Link, "../../etc/passwd"))
	assert.Check(t, is.Equal(kinds["vendor/nested/"].Kind, runner.EntryRepo))
	assert.Check(t, is.Equal(kinds[".gitignore"].Kind, runner.EntryFile))
	_, ignored := kinds["ignored.log"]
	assert.Check(t, !ignored, "an ignored file is not the step's work")
	if p, ok := kinds["pipe"]; ok {
		assert.Check(t, is.Equal(p.Kind, runner.EntryOther))
	}

	assert.NilError(t, os.Remove(filepath.Join(abs, "a.txt")))
	got, err = g.Entries(ctx, wt, 100)
	assert.NilError(t, err)
	for _, e := range got {
		if e.Path == "a.txt" {
			assert.Check(t, is.Equal(e.Kind, runner.EntryDeleted))
		}
	}
	got, err = g.Entries(ctx, wt, 2)
	assert.NilError(t, err)
	assert.Check(t, is.Len(got, 3), "one more than the bound says it was passed")
}

func TestCommitAllIsAbcdsCommitWithNoHook(t *testing.T) {
	// Not in parallel: it writes hooks git would run, and a program written while another test
	// starts a process can be held open in that child and refuse to start (ETXTBSY).
	root, wt, run := laneWorktree(t)
	g := Git{Dir: root}
	ctx := context.Background()
	abs := filepath.Join(root, wt)
	common := run(abs, "rev-parse", "--path-format=absolute", "--git-common-dir")
	marker := filepath.Join(t.TempDir(), "hook-ran")
	for _, hook := range []string{"pre-commit", "commit-msg", "post-commit", "prepare-commit-msg"} {
		assert.NilError(t, os.WriteFile(filepath.Join(common, "hooks", hook), []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755))
	}
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "b.txt"), []byte("b\n"), 0o644))
	assert.NilError(t, os.Remove(filepath.Join(abs, "a.txt")))
	before := run(abs, "rev-parse", "HEAD")
	msg := "# Added b\n\nAnd removed a.\n\nAbcd-Run: run-1 lane-1\n"
	sha, err := g.CommitAll(ctx, wt, msg)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(run(abs, "rev-parse", "HEAD"), sha))
	assert.Check(t, is.Equal(run(abs, "rev-parse", "HEAD~1"), before))
	assert.Check(t, is.Equal(run(abs, "log", "-1", "--format=%B"), strings.TrimSpace(msg)), "a line starting with # is kept")
	assert.Check(t, is.Equal(run(abs, "status", "--porcelain"), ""))
	_, err = os.Stat(marker)
	assert.Check(t, os.IsNotExist(err), "no hook ran")

	// A merge abcd makes runs none either.
	_, err = g.Merge(ctx, wt, run(root, "rev-parse", "main"), "merge main")
	assert.NilError(t, err)
	_, err = os.Stat(marker)
	assert.Check(t, os.IsNotExist(err), "no hook ran on the merge")
}

func TestRestorePutsTheLaneBack(t *testing.T) {
	t.Parallel() // its own repository
	root, wt, run := laneWorktree(t)
	g := Git{Dir: root}
	ctx := context.Background()
	abs := filepath.Join(root, wt)
	start := run(abs, "rev-parse", "HEAD")
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "x.txt"), []byte("x"), 0o644))
	run(abs, "add", "x.txt")
	run(abs, "commit", "-qm", "stray")
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "untracked.txt"), []byte("u"), 0o644))
	run(abs, "checkout", "-q", "-b", "elsewhere")
	assert.NilError(t, g.Restore(ctx, wt, "abcd/run-1/lane-1", start))
	assert.Check(t, is.Equal(run(abs, "symbolic-ref", "HEAD"), "refs/heads/abcd/run-1/lane-1"))
	assert.Check(t, is.Equal(run(abs, "rev-parse", "HEAD"), start))
	assert.Check(t, is.Equal(run(abs, "status", "--porcelain"), ""))
	assert.Check(t, is.Len(run(root, "rev-parse", "--verify", "elsewhere"), 40), "the branch it made stays for the person to see")
	assert.Check(t, g.Restore(ctx, wt, "abcd/run-1/lane-1", "--hard") != nil)
}

// A snapshot reads HEAD from the refs listing when it names a listed branch, and from git otherwise:
// each way must say what git says.
func TestASnapshotReadsHEADAsGitDoes(t *testing.T) {
	root, wt, run := laneWorktree(t)
	g := Git{Dir: root}
	ctx := context.Background()
	abs := filepath.Join(root, wt)
	run(abs, "commit", "--allow-empty", "-qm", "on the lane")
	on, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(on.HeadRef, "refs/heads/abcd/run-1/lane-1"))
	assert.Check(t, is.Equal(on.Head, run(abs, "rev-parse", "HEAD")))
	assert.Check(t, on.Head != on.Refs["refs/heads/main"], "the lane's commit, not the main worktree's")

	run(abs, "checkout", "-q", "--detach", "main")
	detached, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(detached.HeadRef, ""))
	assert.Check(t, is.Equal(detached.Head, run(abs, "rev-parse", "HEAD")))

	run(abs, "symbolic-ref", "HEAD", "refs/heads/unborn")
	unborn, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(unborn.HeadRef, "refs/heads/unborn"))
	assert.Check(t, is.Equal(unborn.Head, ""))

	// Hooks kept where core.hooksPath says are the ones watched.
	run(abs, "symbolic-ref", "HEAD", "refs/heads/abcd/run-1/lane-1")
	hooks := filepath.Join(root, "elsewhere-hooks")
	assert.NilError(t, os.Mkdir(hooks, 0o755))
	run(abs, "config", "core.hooksPath", hooks)
	moved, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\n"), 0o755))
	planted, err := g.Snapshot(ctx, wt)
	assert.NilError(t, err)
	assert.Check(t, planted.Hooks != moved.Hooks)
	assert.Check(t, is.Equal(planted.Info, moved.Info))
}

// WorkChange reads everything a step left, as text, through an index of its own: the worktree's index
// and the object store are as they were (but for git's empty object), and a bound cuts it.
func TestWorkChangeReadsEverythingTheStepLeft(t *testing.T) {
	root, wt, run := laneWorktree(t)
	g := Git{Dir: root}
	ctx := context.Background()
	abs := filepath.Join(root, wt)
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "tracked.txt"), []byte("one\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "gone.txt"), []byte("soon gone\n"), 0o644))
	run(abs, "add", ".")
	run(abs, "commit", "-qm", "the lane's start")
	start := run(abs, "rev-parse", "HEAD")
	// What a step leaves: a change to a tracked file, a staged one, a removal, untracked files (one
	// binary, one git is told to show no diff of), an ignored one.
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "tracked.txt"), []byte("one\nkey-in-tracked\n"), 0o644))
	assert.NilError(t, os.Remove(filepath.Join(abs, "gone.txt")))
	assert.NilError(t, os.MkdirAll(filepath.Join(abs, "deep", "er"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "deep", "er", "new.bin"), []byte("\x00\x01key-in-binary\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(abs, ".gitattributes"), []byte("* -diff\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "staged.txt"), []byte("key-in-staged\n"), 0o644))
	run(abs, "add", "staged.txt")
	assert.NilError(t, os.WriteFile(filepath.Join(abs, ".gitignore"), []byte("*.log\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(abs, "debug.log"), []byte("key-in-ignored\n"), 0o644))
	status := run(abs, "status", "--porcelain")
	objects := run(abs, "count-objects", "-v")

	c, err := g.WorkChange(ctx, wt, start, 1<<20)
	assert.NilError(t, err)
	assert.Check(t, !c.Truncated)
	assert.Check(t, is.Equal(c.Messages, ""))
	for _, want := range []string{"+key-in-tracked", "\x01key-in-binary", "+key-in-staged", "+* -diff", "-soon gone", "+++ b/deep/er/new.bin", "--- a/gone.txt"} {
		assert.Check(t, is.Contains(c.Diff, want))
	}
	assert.Check(t, !strings.Contains(c.Diff, "key-in-ignored"), "git ignores it, and abcd would not commit it")
	assert.Check(t, is.Equal(run(abs, "status", "--porcelain"), status), "the worktree's index is as it was")
	assert.Check(t, countLoose(run(abs, "count-objects", "-v")) <= countLoose(objects)+1, "no object but the empty one")

	// The step's own commits: their messages, and the diff from the start.
	run(abs, "add", "-A")
	run(abs, "commit", "-qm", "the step's commit says key-in-message")
	c, err = g.WorkChange(ctx, wt, start, 1<<20)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(c.Messages, "key-in-message"))
	assert.Check(t, is.Contains(c.Diff, "\x01key-in-binary"))

	// Bounded: past max, what was read is cut and says so.
	c, err = g.WorkChange(ctx, wt, start, 100)
	assert.NilError(t, err)
	assert.Check(t, c.Truncated)
	assert.Check(t, len(c.Messages)+len(c.Diff) <= 100)
	_, err = g.WorkChange(ctx, wt, "--output=/tmp/x", 100)
	assert.Check(t, err != nil, "a base that is not a commit id is refused before git reads it")
}

// countLoose is the count of loose objects git count-objects -v reports.
func countLoose(report string) int {
	for _, line := range strings.Split(report, "\n") {
		if n, ok := strings.CutPrefix(line, "count: "); ok {
			c, _ := strconv.Atoi(n) // git writes a number here
			return c
		}
	}
	return -1
}
