package git

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strings"
)

// RootCommit is the least of the repository's root commits ("" when HEAD has none yet): the same id
// in every clone and worktree, so history kept under it is shared by all of them.
func (g Git) RootCommit(ctx context.Context) (string, error) {
	out, _, err := g.run(ctx, 64<<10, "rev-list", "--max-parents=0", "HEAD")
	var ee *exitError
	if errors.As(err, &ee) {
		return "", nil // no commit yet
	}
	if err != nil {
		return "", err
	}
	roots := strings.Fields(string(out))
	if len(roots) == 0 {
		return "", nil
	}
	sort.Strings(roots)
	return roots[0], nil
}

// WorktreeDirs are the repository's worktrees' folders, the main one first.
func (g Git) WorktreeDirs(ctx context.Context) ([]string, error) {
	out, _, err := g.run(ctx, 1<<20, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok && filepath.IsAbs(p) {
			dirs = append(dirs, filepath.Clean(p))
		}
	}
	return dirs, nil
}
