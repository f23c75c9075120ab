package git

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// PushTimeout bounds a push to a remote, which crosses the network.
const PushTimeout = 2 * time.Minute

// RemoteURL is the remote's fetch address, as git config holds it (no insteadOf rewriting: the
// address the person wrote names the repository on its forge).
func (g Git) RemoteURL(ctx context.Context, name string) (string, bool, error) {
	if !validRemoteName(name) {
		return "", false, nil
	}
	out, _, err := g.run(ctx, 4<<10, "config", "--get", "remote."+name+".url")
	var ee *exitError
	if errors.As(err, &ee) && ee.code == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(string(out)), true, nil
}

func validRemoteName(s string) bool {
	if s == "" || len(s) > 64 || strings.HasPrefix(s, "-") || strings.Contains(s, "..") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Push pushes the branch to the same name on the remote: never forced (no +, no --force), no
// prompt for a credential (GIT_TERMINAL_PROMPT=0; the person's credential helper answers), within
// PushTimeout.
func (g Git) Push(ctx context.Context, remote, branch string) error {
	if !validRemoteName(remote) {
		return fmt.Errorf("%w: %q is not a remote's name", ports.ErrPushRefused, text.Clip(remote))
	}
	ref := "refs/heads/" + branch
	_, _, err := g.runFor(ctx, PushTimeout, 64<<10, "push", "--porcelain", "--no-verify", "--end-of-options", remote, ref+":"+ref)
	var ee *exitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%w: %s", ports.ErrPushRefused, ee.stderr)
	}
	return err
}

// FastForward moves branch from one commit to a later one, as a fast-forward only. Where a worktree
// has the branch checked out, git's own fast-forward moves it there, its files with it (refused when
// the person's changes there would be overwritten); elsewhere the ref is moved only while it still
// stands at from. No hook runs.
func (g Git) FastForward(ctx context.Context, branch, from, to string) error {
	ref := "refs/heads/" + branch
	out, _, err := g.run(ctx, 1<<20, "worktree", "list", "--porcelain")
	if err != nil {
		return err
	}
	dir := ""
	for _, block := range strings.Split(string(out), "\n\n") {
		var wt, head string
		for _, line := range strings.Split(block, "\n") {
			if p, ok := strings.CutPrefix(line, "worktree "); ok {
				wt = p
			} else if b, ok := strings.CutPrefix(line, "branch "); ok {
				head = b
			}
		}
		if head == ref && filepath.IsAbs(wt) {
			dir = filepath.Clean(wt)
		}
	}
	if dir == "" {
		_, _, err := g.run(ctx, 1<<10, hookless("update-ref", "-m", "abcd: fast-forward to the run's integration", ref, to, from)...)
		var ee *exitError
		if errors.As(err, &ee) {
			return fmt.Errorf("%w: %s", ports.ErrNotFastForward, ee.stderr)
		}
		return err
	}
	wt := Git{Dir: dir}
	at, _, err := wt.run(ctx, 1<<10, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(at)) != from {
		return fmt.Errorf("%w: %s moved to %s", ports.ErrNotFastForward, branch, strings.TrimSpace(string(at)))
	}
	_, _, err = wt.run(ctx, 64<<10, hookless("merge", "--ff-only", "--no-edit", "--quiet", "--end-of-options", to)...)
	var ee *exitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%w: in %s: %s", ports.ErrNotFastForward, dir, ee.stderr)
	}
	return err
}
