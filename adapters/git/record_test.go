package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// What a team's record asks of git, against the real git: its config, a move staged as a rename,
// the files a change touched, a merge's unmerged paths and their versions, where a text came from.

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	assert.NilError(t, err, string(out))
	return strings.TrimSpace(string(out))
}

func put(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	assert.NilError(t, os.WriteFile(p, []byte(data), 0o644))
}

func TestConfigOfTheRepository(t *testing.T) {
	t.Parallel() // its own repository
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	_, set, err := g.ConfigValue(ctx, "merge.abcd.driver")
	assert.NilError(t, err)
	assert.Check(t, !set)
	assert.NilError(t, g.SetConfig(ctx, "merge.abcd.driver", "'/opt/my tools/abcd' merge-record %O %A %B %L %P"))
	v, set, err := g.ConfigValue(ctx, "merge.abcd.driver")
	assert.NilError(t, err)
	assert.Check(t, set)
	assert.Equal(t, v, "'/opt/my tools/abcd' merge-record %O %A %B %L %P")
	assert.NilError(t, g.UnsetConfig(ctx, "merge.abcd.driver"))
	assert.NilError(t, g.UnsetConfig(ctx, "merge.abcd.driver"), "an unset key is no error")
	_, set, err = g.ConfigValue(ctx, "merge.abcd.driver")
	assert.NilError(t, err)
	assert.Check(t, !set)
}

func TestStageMoveRecordsARename(t *testing.T) {
	t.Parallel() // its own repository
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	put(t, dir.Path(), ".abcd/work/issues/open/iss-1-x.md", "an issue\nwith lines\nenough to be itself\n")
	gitIn(t, dir.Path(), "add", "-A")
	gitIn(t, dir.Path(), "commit", "-q", "-m", "issue")
	assert.NilError(t, os.Remove(dir.Join(".abcd/work/issues/open/iss-1-x.md")))
	put(t, dir.Path(), ".abcd/work/issues/closed/iss-1-x.md", "an issue\nwith lines\nenough to be itself\nclosed\n")
	moved, err := g.StageMove(ctx, ".abcd/work/issues/open/iss-1-x.md", ".abcd/work/issues/closed/iss-1-x.md")
	assert.NilError(t, err)
	assert.Check(t, moved)
	assert.Equal(t, gitIn(t, dir.Path(), "status", "--porcelain"), "R  .abcd/work/issues/open/iss-1-x.md -> .abcd/work/issues/closed/iss-1-x.md")

	// An old path git never tracked stages nothing: the new file stays the person's to add.
	put(t, dir.Path(), ".abcd/work/issues/closed/iss-2-y.md", "new\n")
	moved, err = g.StageMove(ctx, ".abcd/work/issues/open/iss-2-y.md", ".abcd/work/issues/closed/iss-2-y.md")
	assert.NilError(t, err)
	assert.Check(t, !moved)
	assert.Check(t, is.Contains(gitIn(t, dir.Path(), "status", "--porcelain"), "?? .abcd/work/issues/closed/iss-2-y.md"))

	_, err = g.StageMove(ctx, "--all", "x")
	_, isRefusal := refusal.As(err)
	assert.Check(t, isRefusal, "%v", err)
}

func TestChangedListsWhatAChangeTouched(t *testing.T) {
	t.Parallel() // its own repository
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	put(t, dir.Path(), ".abcd/a.md", "a\n")
	put(t, dir.Path(), ".abcd/b.md", "b\n")
	gitIn(t, dir.Path(), "add", "-A")
	gitIn(t, dir.Path(), "commit", "-q", "-m", "record")
	base := gitIn(t, dir.Path(), "rev-parse", "HEAD")
	put(t, dir.Path(), ".abcd/a.md", "a changed\n") // unstaged
	put(t, dir.Path(), ".abcd/c.md", "c\n")         // untracked
	put(t, dir.Path(), ".abcd/d.md", "d\n")
	gitIn(t, dir.Path(), "add", ".abcd/d.md") // staged
	put(t, dir.Path(), "elsewhere.txt", "x\n")

	got, err := g.Changed(ctx, ".abcd", base, false)
	assert.NilError(t, err)
	slices.Sort(got)
	assert.DeepEqual(t, got, []string{".abcd/a.md", ".abcd/c.md", ".abcd/d.md"})
	got, err = g.Changed(ctx, ".abcd", "", true)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []string{".abcd/d.md"})

	_, err = g.Changed(ctx, ".abcd", "no-such-branch", false)
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, r.Code == "ref_unknown", "code %s", r.Code)

	// Before the first commit, everything staged is new.
	fresh := fs.NewDir(t, "fresh")
	gitIn(t, fresh.Path(), "init", "-q")
	put(t, fresh.Path(), ".abcd/x.md", "x\n")
	gitIn(t, fresh.Path(), "add", "-A")
	got, err = Git{Dir: fresh.Path()}.Changed(ctx, ".abcd", "", true)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []string{".abcd/x.md"})
}

func TestUnmergedStagesAndSettle(t *testing.T) {
	t.Parallel() // its own repository
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	put(t, dir.Path(), ".abcd/r.md", "base\n")
	gitIn(t, dir.Path(), "add", "-A")
	gitIn(t, dir.Path(), "commit", "-q", "-m", "base")
	gitIn(t, dir.Path(), "checkout", "-q", "-b", "side")
	put(t, dir.Path(), ".abcd/r.md", "theirs\n")
	gitIn(t, dir.Path(), "commit", "-q", "-am", "theirs")
	gitIn(t, dir.Path(), "checkout", "-q", "main")
	put(t, dir.Path(), ".abcd/r.md", "ours\n")
	gitIn(t, dir.Path(), "commit", "-q", "-am", "ours")
	cmd := exec.Command("git", "merge", "side")
	cmd.Dir = dir.Path()
	assert.Check(t, cmd.Run() != nil, "the merge conflicts")

	unmerged, err := g.Unmerged(ctx, ".abcd")
	assert.NilError(t, err)
	assert.DeepEqual(t, unmerged, []string{".abcd/r.md"})
	stages, err := g.Stages(ctx, ".abcd/r.md", 1<<10)
	assert.NilError(t, err)
	assert.Equal(t, string(stages[1]), "base\n")
	assert.Equal(t, string(stages[2]), "ours\n")
	assert.Equal(t, string(stages[3]), "theirs\n")
	_, err = g.Stages(ctx, ".abcd/r.md", 3)
	assert.Check(t, err != nil, "a version over the bound is refused")

	put(t, dir.Path(), ".abcd/r.md", "settled\n")
	assert.NilError(t, g.Settle(ctx, ".abcd/r.md"))
	unmerged, err = g.Unmerged(ctx, ".abcd")
	assert.NilError(t, err)
	assert.Check(t, is.Len(unmerged, 0))
}

func TestIntroducedAndPathsAt(t *testing.T) {
	t.Parallel() // its own repository
	dir, _ := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	put(t, dir.Path(), ".abcd/one.md", "id: iss-1\n")
	gitIn(t, dir.Path(), "add", "-A")
	gitIn(t, dir.Path(), "commit", "-q", "-m", "one")
	put(t, dir.Path(), ".abcd/ref.md", "related: [iss-1]\n")
	gitIn(t, dir.Path(), "add", "-A")
	gitIn(t, dir.Path(), "commit", "-q", "-m", "ref")
	at := gitIn(t, dir.Path(), "rev-parse", "HEAD")
	// Moved later: the reference's origin is followed across the rename.
	gitIn(t, dir.Path(), "mv", ".abcd/ref.md", ".abcd/moved.md")
	gitIn(t, dir.Path(), "commit", "-q", "-m", "move")

	commit, found, err := g.Introduced(ctx, ".abcd/moved.md", "iss-1")
	assert.NilError(t, err)
	assert.Check(t, found)
	assert.Equal(t, commit, at)
	_, found, err = g.Introduced(ctx, ".abcd/moved.md", "iss-2")
	assert.NilError(t, err)
	assert.Check(t, !found)

	paths, err := g.PathsAt(ctx, at, ".abcd")
	assert.NilError(t, err)
	assert.DeepEqual(t, paths, []string{".abcd/one.md", ".abcd/ref.md"})
}

func TestNoGitIsSaidAsSuch(t *testing.T) {
	t.Parallel() // its own repository
	plain := fs.NewDir(t, "plain")
	_, _, err := Git{Dir: plain.Path()}.ConfigValue(context.Background(), "merge.abcd.driver")
	assert.Check(t, errors.Is(err, ports.ErrNoGit), "%v", err)
}
