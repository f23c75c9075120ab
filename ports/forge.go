package ports

import (
	"context"
	"errors"
)

// Remote is the git a run's finish needs beyond ports.Git: a remote's address, a push of a branch,
// and a fast-forward of a branch (build.finish, ports/loop/finish).
type Remote interface {
	// RemoteURL is the fetch address of the named remote; ok is false when the repository has none
	// of that name.
	RemoteURL(ctx context.Context, name string) (addr string, ok bool, err error)
	// Push pushes branch to the same name on remote, never forced, bounded in time. A push the
	// remote refuses (not a fast-forward, a hook, no access) is ErrPushRefused with git's words.
	Push(ctx context.Context, remote, branch string) error
	// FastForward moves branch from commit from to commit to, only as a fast-forward: in the
	// worktree that has it checked out (its files follow), else the ref alone, compared and swapped.
	// A branch no longer at from, or a checkout git will not move, is ErrNotFastForward.
	FastForward(ctx context.Context, branch, from, to string) error
}

// ErrPushRefused and ErrNotFastForward are the ways a finish's git gives up that the person fixes.
var (
	ErrPushRefused    = errors.New("the remote refused the push")
	ErrNotFastForward = errors.New("the branch cannot be fast-forwarded")
)

// Forge opens a pull request with the person's own gh and its login.
type Forge interface {
	// Check is gh's standing on host: ErrForgeMissing when no gh is on PATH, ErrForgeLoggedOut
	// when gh has no login there that works.
	Check(ctx context.Context, host string) error
	// OpenPR opens a pull request and returns what gh printed (its address on the last line); a
	// gh that fails is ErrForgeFailed with its words.
	OpenPR(ctx context.Context, pr PullRequest) (out string, err error)
}

// PullRequest is one gh pr create: the repository (host/owner/name), the branch it merges from and
// into, its title and its body (markdown).
type PullRequest struct {
	Repo, Head, Base, Title, Body string
}

// The ways gh gives up.
var (
	ErrForgeMissing   = errors.New("gh is not installed")
	ErrForgeLoggedOut = errors.New("gh is not logged in")
	ErrForgeFailed    = errors.New("gh failed")
)
