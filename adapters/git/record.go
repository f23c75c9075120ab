package git

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// ConfigValue reads a key of the repository's own config.
func (g Git) ConfigValue(ctx context.Context, key string) (string, bool, error) {
	out, _, err := g.run(ctx, 16<<10, "config", "--local", "--get", "--end-of-options", key)
	var ee *exitError
	if errors.As(err, &ee) && ee.code == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSuffix(string(out), "\n"), true, nil
}

// SetConfig writes a key of the repository's own config.
func (g Git) SetConfig(ctx context.Context, key, value string) error {
	_, _, err := g.run(ctx, 1<<10, "config", "--local", "--end-of-options", key, value)
	return err
}

// UnsetConfig removes a key of the repository's own config; an unset key is not an error.
func (g Git) UnsetConfig(ctx context.Context, key string) error {
	_, _, err := g.run(ctx, 1<<10, "config", "--local", "--unset-all", "--end-of-options", key)
	var ee *exitError
	if errors.As(err, &ee) && ee.code == 5 {
		return nil // git's code for a key that is not set
	}
	return err
}

// StageMove stages a move git tracks the old path of.
func (g Git) StageMove(ctx context.Context, from, to string) (bool, error) {
	for _, p := range []string{from, to} {
		if p != "" && !repoPath(p) {
			return false, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(p)), "give a path relative to the repository root")
		}
	}
	out, _, err := g.run(ctx, 4<<10, "--literal-pathspecs", "ls-files", "-z", "--", from)
	if err != nil || len(out) == 0 {
		return false, err
	}
	args := []string{"--literal-pathspecs", "add", "--all", "--", from}
	if to != "" {
		args = append(args, to)
	}
	if _, _, err := g.run(ctx, 4<<10, args...); err != nil {
		return false, err
	}
	return true, nil
}

// ClearStaleIndexLock removes the checkout's index.lock once it has stood unchanged past git's own
// wait (a git at work holds its lock for milliseconds); one a git lets go meanwhile is its own.
func (g Git) ClearStaleIndexLock(ctx context.Context) (bool, error) {
	out, _, err := g.run(ctx, 4<<10, "rev-parse", "--git-path", "index.lock")
	if err != nil {
		return false, err
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.Dir, p)
	}
	_, removed, err := removeStaleLock(ctx, p)
	return removed, err
}

// maxChanged bounds the list of changed paths git prints (about 60 bytes each).
const maxChanged = 32 << 20

// Changed lists the paths under dir that differ from rev (or, staged, the index from HEAD).
func (g Git) Changed(ctx context.Context, dir, rev string, staged bool) ([]string, error) {
	if !repoPath(dir) {
		return nil, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(dir)), "give a path relative to the repository root")
	}
	var lists [][]string
	if staged {
		args := []string{"--literal-pathspecs", "diff", "--cached", "--name-only", "-z", "--no-renames"}
		if _, err := g.Resolve(ctx, "HEAD"); err != nil {
			// Before the first commit every staged path is new.
			args = []string{"--literal-pathspecs", "ls-files", "-z"}
		}
		out, err := g.names(ctx, append(args, "--", dir)...)
		if err != nil {
			return nil, err
		}
		lists = append(lists, out)
	} else {
		if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\n\x00") {
			return nil, refusal.New(refusal.CodeRefInvalid, "git ref", fmt.Sprintf("%q is not a git ref", text.Clip(rev)), "give a branch, tag or commit, such as main")
		}
		// The diff resolves the revision itself: one git process fewer on a check CI runs often.
		changed, err := g.names(ctx, "--literal-pathspecs", "diff", "--name-only", "-z", "--no-renames", "--end-of-options", rev+"^{commit}", "--", dir)
		var ee *exitError
		if errors.As(err, &ee) && ee.code == 128 {
			return nil, refusal.New(refusal.CodeRefUnknown, "git ref", fmt.Sprintf("%q names no commit in this repository", text.Clip(rev)), "give a branch, tag or commit that exists, such as main")
		}
		if err != nil {
			return nil, err
		}
		untracked, err := g.names(ctx, "--literal-pathspecs", "ls-files", "-z", "--others", "--exclude-standard", "--", dir)
		if err != nil {
			return nil, err
		}
		lists = append(lists, changed, untracked)
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, p := range l {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// Unmerged lists the paths under dir with unresolved conflicts in the index.
func (g Git) Unmerged(ctx context.Context, dir string) ([]string, error) {
	if !repoPath(dir) {
		return nil, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(dir)), "give a path relative to the repository root")
	}
	entries, err := g.names(ctx, "--literal-pathspecs", "ls-files", "-z", "--unmerged", "--", dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		// mode sha stage<TAB>path, one entry for each side git holds
		if _, p, ok := strings.Cut(e, "\t"); ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Introduced is the oldest commit that added text to path, following renames.
func (g Git) Introduced(ctx context.Context, path, needle string) (string, bool, error) {
	if !repoPath(path) || needle == "" || strings.ContainsAny(needle, "\x00\n") {
		return "", false, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(path)), "give a path relative to the repository root")
	}
	out, cut, err := g.run(ctx, 1<<20, "--literal-pathspecs", "log", "--format=%H", "--follow", "-S"+needle, "--", path)
	var ee *exitError
	if errors.As(err, &ee) {
		return "", false, nil // no commits yet
	}
	if err != nil {
		return "", false, err
	}
	lines := strings.Fields(string(out))
	if cut || len(lines) == 0 {
		return "", false, nil
	}
	return lines[len(lines)-1], true, nil
}

// PathsAt lists the paths under dir in commit's tree.
func (g Git) PathsAt(ctx context.Context, commit, dir string) ([]string, error) {
	if !repoPath(dir) || commit == "" || strings.HasPrefix(commit, "-") {
		return nil, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(dir)), "give a path relative to the repository root")
	}
	return g.names(ctx, "--literal-pathspecs", "ls-tree", "-r", "--name-only", "-z", "--end-of-options", commit, "--", dir)
}

// Stages reads the index's versions of an unmerged path.
func (g Git) Stages(ctx context.Context, path string, max int) ([4][]byte, error) {
	var out [4][]byte
	if !repoPath(path) {
		return out, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(path)), "give a path relative to the repository root")
	}
	entries, err := g.names(ctx, "--literal-pathspecs", "ls-files", "-z", "--unmerged", "--", path)
	if err != nil {
		return out, err
	}
	for _, e := range entries {
		meta, p, ok := strings.Cut(e, "\t")
		fields := strings.Fields(meta)
		if !ok || p != path || len(fields) != 3 || len(fields[2]) != 1 || fields[2][0] < '1' || fields[2][0] > '3' {
			continue
		}
		data, cut, err := g.run(ctx, max, "cat-file", "blob", fields[1])
		if err != nil {
			return out, err
		}
		if cut {
			return out, refusal.New(refusal.CodeRecordTooLarge, path, fmt.Sprintf("holds a version in git's index larger than %d bytes", max), "settle it by hand")
		}
		out[fields[2][0]-'0'] = data
	}
	return out, nil
}

// Settle marks an unmerged path resolved as the working tree has it.
func (g Git) Settle(ctx context.Context, path string) error {
	if !repoPath(path) {
		return refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(path)), "give a path relative to the repository root")
	}
	_, _, err := g.run(ctx, 4<<10, "--literal-pathspecs", "add", "--all", "--", path)
	return err
}

// names runs a git command that prints NUL-separated paths.
func (g Git) names(ctx context.Context, args ...string) ([]string, error) {
	out, cut, err := g.run(ctx, maxChanged, args...)
	if err != nil {
		return nil, err
	}
	if cut {
		return nil, refusal.New(refusal.CodeTooManyChanges, "git", fmt.Sprintf("lists more changed paths than %d bytes hold", maxChanged), "run the full check instead")
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// repoPath reports whether p is a plain repository-relative path git cannot read as an option.
func repoPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "-") && !strings.ContainsAny(p, "\x00\n") &&
		!strings.Contains("/"+p+"/", "/../")
}
