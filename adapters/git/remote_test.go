package git

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports"
)

func gitAt(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	assert.NilError(t, err, string(out))
	return strings.TrimSpace(string(out))
}

// A branch no worktree has checked out is moved as a ref, only while it stands where the caller
// saw it; a branch that moved since is ErrNotFastForward and stays where it is.
func TestFastForwardMovesARefOnlyFromWhereItStood(t *testing.T) {
	t.Parallel() // its own repository
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	gitAt(t, dir.Path(), "branch", "release", commits[0])
	assert.NilError(t, g.FastForward(ctx, "release", commits[0], commits[1]))
	assert.Check(t, is.Equal(gitAt(t, dir.Path(), "rev-parse", "release"), commits[1]))

	gitAt(t, dir.Path(), "branch", "stale", commits[1])
	err := g.FastForward(ctx, "stale", commits[0], commits[1])
	assert.Check(t, errors.Is(err, ports.ErrNotFastForward), "%v", err)
	assert.Check(t, is.Equal(gitAt(t, dir.Path(), "rev-parse", "stale"), commits[1]))

	// Checked out in the repository's own worktree: main moved past from, so it is refused there too.
	err = g.FastForward(ctx, "main", commits[0], commits[1])
	assert.Check(t, errors.Is(err, ports.ErrNotFastForward), "%v", err)
	assert.Check(t, is.Contains(err.Error(), "main moved to "+commits[1]))
}

// A push goes to the remote's push address, never forced: a branch the remote holds further on is
// refused with git's words (ErrPushRefused). A remote that is not there is no remote.
func TestPushNeverForces(t *testing.T) {
	t.Parallel()
	dir, commits := repo(t)
	g := Git{Dir: dir.Path()}
	ctx := context.Background()
	bare := filepath.Join(t.TempDir(), "remote.git")
	gitAt(t, dir.Path(), "init", "-q", "--bare", bare)
	gitAt(t, dir.Path(), "remote", "add", "origin", "https://forge.invalid/team/repo.git")
	gitAt(t, dir.Path(), "config", "remote.origin.pushurl", bare)

	addr, ok, err := g.RemoteURL(ctx, "origin")
	assert.NilError(t, err)
	assert.Check(t, ok)
	assert.Check(t, is.Equal(addr, "https://forge.invalid/team/repo.git"), "the fetch address, which names the forge's repository")
	_, ok, err = g.RemoteURL(ctx, "upstream")
	assert.NilError(t, err)
	assert.Check(t, !ok)
	_, ok, err = g.RemoteURL(ctx, "--upload-pack=x")
	assert.NilError(t, err)
	assert.Check(t, !ok, "a flag is no remote's name")

	assert.NilError(t, g.Push(ctx, "origin", "main"))
	assert.Check(t, is.Equal(gitAt(t, bare, "rev-parse", "main"), commits[1]))
	// The local branch goes back one commit: pushing it would rewrite the remote's, so it is refused.
	gitAt(t, dir.Path(), "branch", "-f", "old", commits[0])
	gitAt(t, dir.Path(), "push", "-q", bare, commits[1]+":refs/heads/old")
	err = g.Push(ctx, "origin", "old")
	assert.Check(t, errors.Is(err, ports.ErrPushRefused), "%v", err)
	assert.Check(t, is.Equal(gitAt(t, bare, "rev-parse", "old"), commits[1]), "the remote's branch stands")
}
