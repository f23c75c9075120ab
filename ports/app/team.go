package app

import (
	"context"
	"fmt"
)

// A team shares the record through git. A move (a close, a ship, a plan) renames a record's file;
// staged in git's index as a rename, it travels whole with a commit -a, a stash or a branch switch,
// so no switch ever leaves the record in two folders.

// stageMove records a record's move in git's index when git tracks the old path. The move itself is
// made: a failure here is said, with the command that does it by hand, and never undoes the move.
func (a *App) stageMove(ctx context.Context, from, to string) {
	if a.Git == nil {
		return
	}
	if _, err := a.Git.StageMove(ctx, from, to); err != nil && a.Diag != nil {
		a.Diag.Warn(fmt.Sprintf("the record moved, but git's index was not told (%v): run `git add -A -- %s %s`", err, from, to))
	}
}
