package git

// The host commit of an implementer's step on a runner: what git holds before and after the step
// (Snapshot), what the worktree changed (Entries), abcd's own commit of it (CommitAll), and putting
// a lane back where its step started (Restore). The rules that judge them are the domain's
// (runner.CheckWork).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// hookless keeps a git command abcd runs from running the repository's hooks: a hook is code a step
// may have planted, and abcd's own merges and commits need none of the person's.
func hookless(args ...string) []string {
	return append([]string{"-c", "core.hooksPath=/dev/null"}, args...)
}

// Bounds of what a snapshot reads.
const (
	maxRefsBytes   = 32 << 20
	maxConfigBytes = 4 << 20
	maxGuardFiles  = 4096
	maxGuardBytes  = 64 << 20
	maxStatusBytes = 64 << 20
)

// worktree is the git of the worktree at dir (relative to the repository root).
func (g Git) worktree(dir string) (Git, error) {
	if !repoPath(dir) {
		return Git{}, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(dir)), "give a path relative to the repository root")
	}
	return Git{Dir: filepath.Join(g.Dir, filepath.FromSlash(dir))}, nil
}

// Snapshot is what a step must not change, read in the worktree at dir.
func (g Git) Snapshot(ctx context.Context, dir string) (runner.Snapshot, error) {
	wt, err := g.worktree(dir)
	if err != nil {
		return runner.Snapshot{}, err
	}
	var s runner.Snapshot
	if out, _, err := wt.run(ctx, 4<<10, "symbolic-ref", "--quiet", "HEAD"); err == nil {
		s.HeadRef = strings.TrimSpace(string(out))
	} else if !isExit(err) {
		return runner.Snapshot{}, err
	}
	out, cut, err := wt.run(ctx, maxRefsBytes, "for-each-ref", "--format=%(refname)%00%(objectname)")
	if err != nil {
		return runner.Snapshot{}, err
	}
	if cut {
		return runner.Snapshot{}, fmt.Errorf("the repository's refs are more than %d bytes", maxRefsBytes)
	}
	s.Refs = map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, obj, ok := strings.Cut(line, "\x00"); ok {
			s.Refs[name] = obj
		}
	}
	// HEAD on a branch the refs list is at that branch's commit, as git resolves it; a detached HEAD,
	// or one on a branch not listed (unborn, or outside refs/), is asked of git.
	if head, ok := s.Refs[s.HeadRef]; ok && s.HeadRef != "" {
		s.Head = head
	} else if out, _, err := wt.run(ctx, 4<<10, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		s.Head = strings.TrimSpace(string(out))
	} else if !isExit(err) {
		return runner.Snapshot{}, err
	}
	cfg, cut, err := wt.run(ctx, maxConfigBytes, "config", "--list", "--show-origin", "--show-scope", "-z")
	if err != nil && !isExit(err) { // no configuration at all is exit 1 on some versions
		return runner.Snapshot{}, err
	}
	if cut {
		return runner.Snapshot{}, fmt.Errorf("git's configuration is more than %d bytes", maxConfigBytes)
	}
	sum := sha256.Sum256(cfg)
	s.Config = hex.EncodeToString(sum[:])
	hooks, info, err := wt.guardPaths(ctx)
	if err != nil {
		return runner.Snapshot{}, err
	}
	if s.Hooks, err = treeDigest(hooks); err != nil {
		return runner.Snapshot{}, err
	}
	if s.Info, err = treeDigest(info); err != nil {
		return runner.Snapshot{}, err
	}
	return s, nil
}

// guardPaths is where git keeps the worktree's hooks and info folders, asked in one call; a path
// that would not read back whole from it (one holding a line break) is asked on its own.
func (g Git) guardPaths(ctx context.Context) (hooks, info string, err error) {
	out, _, err := g.run(ctx, 8<<10, "rev-parse", "--path-format=absolute", "--git-path", "hooks", "--git-path", "info")
	if err != nil {
		return "", "", err
	}
	if lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); len(lines) == 2 && lines[0] != "" && lines[1] != "" {
		return lines[0], lines[1], nil
	}
	for _, f := range []struct {
		name string
		out  *string
	}{{"hooks", &hooks}, {"info", &info}} {
		p, _, err := g.run(ctx, 4<<10, "rev-parse", "--path-format=absolute", "--git-path", f.name)
		if err != nil {
			return "", "", err
		}
		*f.out = strings.TrimSuffix(string(p), "\n")
	}
	return hooks, info, nil
}

// treeDigest digests a folder: every entry's path, kind, mode and content (a link's target), in
// order, without following a link. An absent folder has a digest of its own.
func treeDigest(root string) (string, error) {
	h := sha256.New()
	fi, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent", nil
	case err != nil:
		return "", err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(root)
		if err != nil {
			return "", err
		}
		return "link:" + target, nil
	case !fi.IsDir():
		fmt.Fprintf(h, "file %o\n", fi.Mode())
		if err := hashFile(h, root, maxGuardBytes); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	files, total := 0, int64(0)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if files++; files > maxGuardFiles {
			return fmt.Errorf("%s holds more than %d files", root, maxGuardFiles)
		}
		fmt.Fprintf(h, "%s\x00%o\x00", filepath.ToSlash(rel), info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00", target)
		case info.Mode().IsRegular():
			if total += info.Size(); total > maxGuardBytes {
				return fmt.Errorf("%s holds more than %d bytes", root, maxGuardBytes)
			}
			if err := hashFile(h, p, info.Size()+1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(h hash.Hash, p string, max int64) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, io.LimitReader(f, max))
	return err
}

func isExit(err error) bool {
	var ee *exitError
	return errors.As(err, &ee)
}

// Entries lists what the worktree at dir changed, at most max+1 entries (more than max says the
// step changed more than it may).
func (g Git) Entries(ctx context.Context, dir string, max int) ([]runner.Entry, error) {
	wt, err := g.worktree(dir)
	if err != nil {
		return nil, err
	}
	out, cut, err := wt.run(ctx, maxStatusBytes, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none", "--no-renames")
	if err != nil {
		return nil, err
	}
	if cut {
		return nil, fmt.Errorf("git status lists more than %d bytes of changes", maxStatusBytes)
	}
	var entries []runner.Entry
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields) && len(entries) <= max; i++ {
		f := fields[i]
		if f == "" {
			continue
		}
		var p string
		repo := false
		switch f[0] {
		case '1', 'u':
			n := 9 // 1 XY sub mH mI mW hH hI path
			if f[0] == 'u' {
				n = 11 // u XY sub m1 m2 m3 mW h1 h2 h3 path
			}
			parts := strings.SplitN(f, " ", n)
			if len(parts) < n {
				return nil, fmt.Errorf("git status printed an entry abcd cannot read: %q", text.Clip(f))
			}
			p = parts[n-1]
			repo = strings.HasPrefix(parts[2], "S") || parts[n-4] == "160000" || parts[3] == "160000"
		case '2': // a rename, though --no-renames asks for none: the new path, then the old one
			parts := strings.SplitN(f, " ", 10)
			if len(parts) < 10 {
				return nil, fmt.Errorf("git status printed an entry abcd cannot read: %q", text.Clip(f))
			}
			p = parts[9]
			i++ // the old path
		case '?':
			p = strings.TrimPrefix(f, "? ")
		default:
			continue
		}
		e, err := entryAt(wt.Dir, p)
		if err != nil {
			return nil, err
		}
		if repo && e.Kind != runner.EntryDeleted {
			e.Kind = runner.EntryRepo
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// entryAt is what stands at a changed path of the worktree, without following a link.
func entryAt(root, p string) (runner.Entry, error) {
	e := runner.Entry{Path: p}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/"))))
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		e.Kind = runner.EntryDeleted
	case err != nil:
		return e, err
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Kind = runner.EntryLink
		if e.Link, err = os.Readlink(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			return e, err
		}
	case fi.IsDir():
		// git lists a folder whole only when it holds a repository of its own.
		e.Kind = runner.EntryRepo
	case fi.Mode().IsRegular():
		e.Kind = runner.EntryFile
	default:
		e.Kind = runner.EntryOther
	}
	return e, nil
}

// WorkChange reads what the worktree at dir holds beyond base: the commits' messages (git log), then
// git's diff from base to the working tree. The diff is read through an index of its own, in a
// temporary folder: HEAD's tree, with every path git neither tracks nor ignores added as one to be
// added (git add --intent-to-add, which writes no object but the empty one), so what a step left
// untracked is in the diff and the worktree's own index is left as it is. --text reads every file
// as text (a .gitattributes saying -diff hides nothing), and the a/ and b/ prefixes are asked for
// whatever the configuration says.
func (g Git) WorkChange(ctx context.Context, dir, base string, max int) (_ runner.Change, err error) {
	wt, err := g.worktree(dir)
	if err != nil {
		return runner.Change{}, err
	}
	if !isCommitID(base) {
		return runner.Change{}, fmt.Errorf("work change: %q is not a commit id", text.Clip(base))
	}
	var c runner.Change
	head, _, err := wt.run(ctx, 4<<10, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return runner.Change{}, err
	}
	if strings.TrimSpace(string(head)) != base {
		out, cut, err := wt.run(ctx, max, "log", "--no-show-signature", "--no-color", "--format=%B", base+"..HEAD")
		if err != nil {
			return runner.Change{}, err
		}
		c.Messages, c.Truncated = string(out), cut
	}
	tmp, err := os.MkdirTemp("", "abcd-scan-*")
	if err != nil {
		return runner.Change{}, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(tmp)) }()
	scan := Git{Dir: wt.Dir, env: []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}}
	for _, args := range [][]string{{"read-tree", "HEAD"}, {"add", "--all", "--intent-to-add", "--", "."}} {
		if _, _, err := scan.run(ctx, 64<<10, hookless(args...)...); err != nil {
			return runner.Change{}, fmt.Errorf("reading the step's change: %w", err)
		}
	}
	room := max - len(c.Messages)
	if c.Truncated || room <= 0 {
		c.Truncated = true
		return c, nil
	}
	out, cut, err := scan.run(ctx, room, "diff", "--text", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames",
		"--ignore-submodules=none", "--src-prefix=a/", "--dst-prefix=b/", base, "--")
	if err != nil {
		return runner.Change{}, err
	}
	c.Diff, c.Truncated = string(out), cut
	return c, nil
}

// CommitAll stages everything the worktree at dir changed and commits it with message: no hook
// runs, and the message is kept as given (lines starting with # are not comments).
func (g Git) CommitAll(ctx context.Context, dir, message string) (string, error) {
	wt, err := g.worktree(dir)
	if err != nil {
		return "", err
	}
	if _, _, err := wt.run(ctx, 64<<10, hookless("add", "--all", "--", ".")...); err != nil {
		return "", commitRefusal(dir, "stage the step's changes", err)
	}
	args := hookless("commit", "--quiet", "--no-verify", "--cleanup=whitespace", "-m", message)
	if _, _, err := wt.run(ctx, 64<<10, wt.identity(ctx, args)...); err != nil {
		return "", commitRefusal(dir, "commit the step's changes", err)
	}
	out, _, err := wt.run(ctx, 4<<10, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ClearStaleLocks removes the lock files a git killed part way left on the worktree at dir: its
// index's and its HEAD's (in the worktree's own git folder) and its branch's (in the common one).
// git refuses every commit there while one stands. Each is removed only once it has stood unchanged
// past git's own wait, so a git still at work keeps its lock. It returns the ones it removed.
func (g Git) ClearStaleLocks(ctx context.Context, dir, branch string) ([]string, error) {
	wt, err := g.worktree(dir)
	if err != nil {
		return nil, err
	}
	if _, _, err := wt.run(ctx, 4<<10, "check-ref-format", "--branch", branch); err != nil {
		return nil, refusal.New(refusal.CodeBranchInvalid, branch, "is not a valid branch name", "this is a bug in abcd's branch naming; report it")
	}
	locks := []string{"index.lock", "HEAD.lock", "refs/heads/" + branch + ".lock"}
	var args []string
	for _, l := range locks {
		args = append(args, "--git-path", l)
	}
	out, _, err := wt.run(ctx, 16<<10, append([]string{"rev-parse"}, args...)...)
	if err != nil {
		return nil, err
	}
	paths := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(paths) != len(locks) {
		return nil, fmt.Errorf("git named %d paths for %d locks", len(paths), len(locks))
	}
	var removed []string
	for i, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(wt.Dir, p)
		}
		_, gone, err := removeStaleLock(ctx, p)
		if err != nil {
			return removed, err
		}
		if gone {
			removed = append(removed, locks[i])
		}
	}
	return removed, nil
}

// maxCommitMessage bounds the message ReadCommit reads.
const maxCommitMessage = 64 << 10

// ReadCommit reads a commit's parents and message with git's own plumbing (cat-file), bounded.
func (g Git) ReadCommit(ctx context.Context, rev string) ([]string, string, error) {
	sha, err := g.Resolve(ctx, rev)
	if err != nil {
		return nil, "", err
	}
	out, _, err := g.run(ctx, maxCommitMessage+8<<10, "cat-file", "commit", sha)
	if err != nil {
		return nil, "", err
	}
	header, message, _ := strings.Cut(string(out), "\n\n")
	var parents []string
	for _, line := range strings.Split(header, "\n") {
		if p, ok := strings.CutPrefix(line, "parent "); ok {
			parents = append(parents, p)
		}
	}
	if len(message) > maxCommitMessage {
		message = message[:maxCommitMessage]
	}
	return parents, message, nil
}

func commitRefusal(dir, what string, err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return refusal.New(refusal.CodeCommitFailed, dir, "git could not "+what+": "+ee.stderr, "look at the worktree with git status; the step falls back to the host")
	}
	return err
}

// Restore puts the worktree at dir back on branch at commit: HEAD names the branch again, the branch
// and the files are at commit, and what git neither tracks nor ignores is removed.
func (g Git) Restore(ctx context.Context, dir, branch, commit string) error {
	wt, err := g.worktree(dir)
	if err != nil {
		return err
	}
	if _, _, err := wt.run(ctx, 4<<10, "check-ref-format", "--branch", branch); err != nil {
		return refusal.New(refusal.CodeBranchInvalid, branch, "is not a valid branch name", "this is a bug in abcd's branch naming; report it")
	}
	if !isCommitID(commit) {
		return fmt.Errorf("restore: %q is not a commit id", text.Clip(commit))
	}
	steps := [][]string{
		{"symbolic-ref", "HEAD", "refs/heads/" + branch},
		{"reset", "--quiet", "--hard", commit},
		{"clean", "-ffdq"},
	}
	for _, s := range steps {
		if _, _, err := wt.run(ctx, 64<<10, hookless(s...)...); err != nil {
			return commitRefusal(dir, "put the lane back where its step started", err)
		}
	}
	return nil
}

// isCommitID is a full commit id (SHA-1 or SHA-256), which git cannot read as an option.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
