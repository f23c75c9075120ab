// Package git implements ports.Git with the git command line, bounded in time, never paging,
// prompting or running an external diff or textconv.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// Timeout bounds each git call.
const Timeout = 30 * time.Second

// Git runs git in the repository containing Dir.
type Git struct {
	Dir string
	// env is what a call adds to git's environment (a scan's own index, GIT_INDEX_FILE).
	env []string
}

func (g Git) run(ctx context.Context, stdoutMax int, args ...string) ([]byte, bool, error) {
	return g.runFor(ctx, Timeout, stdoutMax, args...)
}

// runFor is run with its own bound (a push to a remote takes longer than a local call).
func (g Git) runFor(ctx context.Context, bound time.Duration, stdoutMax int, args ...string) ([]byte, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	full := append([]string{"-c", "core.pager=cat", "-c", "color.ui=false", "-c", "diff.external=", "--no-pager"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.Dir
	dieWithUs(cmd)
	cmd.Env = append(append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"), g.env...)
	out := limitedBuffer{max: stdoutMax}
	errOut := limitedBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, false, fmt.Errorf("git %s took longer than %s", args[0], bound)
	}
	// Past the bound the buffer refuses more, so git stops on a broken pipe: that is a cut, not a fault.
	if errors.Is(err, exec.ErrNotFound) {
		return nil, false, fmt.Errorf("%w: %w", ports.ErrNoGit, err)
	}
	if err != nil && !out.cut {
		var ee *exec.ExitError
		if stderr := string(errOut.Bytes()); errors.As(err, &ee) && ee.ExitCode() == 128 &&
			(strings.Contains(stderr, "not a git repository") || strings.Contains(stderr, "can only be used inside a git repository")) {
			return nil, false, fmt.Errorf("%w: %s is not in a git repository", ports.ErrNoGit, g.Dir)
		}
		if errors.As(err, &ee) {
			return out.Bytes(), out.cut, &exitError{code: ee.ExitCode(), stderr: text.Clip(strings.TrimSpace(string(errOut.Bytes())))}
		}
		return nil, false, fmt.Errorf("git: %w", err)
	}
	return out.Bytes(), out.cut, nil
}

// errBound stops a writer that reached its bound.
var errBound = errors.New("output bound reached")

type exitError struct {
	code   int
	stderr string
}

func (e *exitError) Error() string { return fmt.Sprintf("git exited %d: %s", e.code, e.stderr) }

// limitedBuffer keeps at most max bytes and notes that it cut. It holds its buffer in a field, not
// embedded, so io.Copy cannot reach bytes.Buffer's ReadFrom and bypass the bound.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.max > 0 && b.buf.Len()+len(p) > b.max {
		room := b.max - b.buf.Len()
		if room > 0 {
			b.buf.Write(p[:room])
		}
		b.cut = true
		return max(room, 0), errBound
	}
	return b.buf.Write(p)
}

// Bytes is what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }

// Resolve turns a ref into a commit id.
func (g Git) Resolve(ctx context.Context, ref string) (string, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, " \t\n\x00") {
		return "", refusal.New(refusal.CodeRefInvalid, "git ref", fmt.Sprintf("%q is not a git ref", text.Clip(ref)), "give a branch, tag or commit, such as main")
	}
	out, _, err := g.run(ctx, 1<<10, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	var ee *exitError
	if errors.As(err, &ee) {
		return "", refusal.New(refusal.CodeRefUnknown, "git ref", fmt.Sprintf("%q names no commit in this repository", text.Clip(ref)), "give a branch, tag or commit that exists, such as main")
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// CurrentBranch is the checked-out branch.
func (g Git) CurrentBranch(ctx context.Context) (string, error) {
	out, _, err := g.run(ctx, 1<<10, "symbolic-ref", "--quiet", "--short", "HEAD")
	var ee *exitError
	if errors.As(err, &ee) {
		return "", nil
	}
	return strings.TrimSpace(string(out)), err
}

// CreateBranch creates a branch at a commit, refusing to move an existing one.
func (g Git) CreateBranch(ctx context.Context, name, commit string) error {
	if _, _, err := g.run(ctx, 1<<10, "check-ref-format", "--branch", name); err != nil {
		return refusal.New(refusal.CodeBranchInvalid, name, "is not a valid branch name", "this is a bug in abcd's branch naming; report it")
	}
	_, _, err := g.run(ctx, 1<<10, "branch", "--no-track", "--end-of-options", name, commit)
	var ee *exitError
	if errors.As(err, &ee) {
		return refusal.New(refusal.CodeBranchExists, name, "cannot be created: "+text.Clip(ee.stderr), "delete the stale branch, or start a new run")
	}
	return err
}

// IsAncestor reports whether commit is reachable from head.
func (g Git) IsAncestor(ctx context.Context, commit, head string) (bool, error) {
	_, _, err := g.run(ctx, 1<<10, "merge-base", "--is-ancestor", "--end-of-options", commit, head)
	var ee *exitError
	if errors.As(err, &ee) {
		return false, nil // exit 1: not an ancestor; 128: an unknown commit, which is not reachable either
	}
	return err == nil, err
}

// Diff is the change from base to head, bounded.
func (g Git) Diff(ctx context.Context, base, head string, max int) ([]byte, bool, error) {
	out, cut, err := g.run(ctx, max, "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--end-of-options", base, head)
	return out, cut, err
}

// Committed reads a file as HEAD has it: git ls-tree for its mode (a link is refused), then the
// blob, bounded. A repository without commits, or a path HEAD lacks, is not committed.
func (g Git) Committed(ctx context.Context, path string, max int) ([]byte, bool, error) {
	if path == "" || strings.HasPrefix(path, "/") || strings.HasPrefix(path, "-") || strings.ContainsAny(path, "\x00\n") {
		return nil, false, refusal.New(refusal.CodePathInvalid, "git path", fmt.Sprintf("%q is not a repository path", text.ClipPath(path)), "give a path relative to the repository root")
	}
	out, _, err := g.run(ctx, 4<<10, "ls-tree", "--full-tree", "-z", "HEAD", "--", path)
	var ee *exitError
	if errors.As(err, &ee) {
		return nil, false, nil // no HEAD yet, or not a repository
	}
	if err != nil {
		return nil, false, err
	}
	entry := strings.TrimSuffix(string(out), "\x00")
	if entry == "" {
		return nil, false, nil
	}
	meta, name, ok := strings.Cut(entry, "\t")
	fields := strings.Fields(meta)
	if !ok || name != path || len(fields) != 3 {
		return nil, false, nil
	}
	switch fields[0] {
	case "100644", "100755":
	case "120000":
		return nil, false, refusal.New(refusal.CodeConfigFile, path, "is committed as a symbolic link, which abcd does not follow for configuration", "commit the file itself")
	default:
		return nil, false, refusal.New(refusal.CodeConfigFile, path, "is not committed as a regular file", "commit it as a regular file")
	}
	data, cut, err := g.run(ctx, max, "cat-file", "blob", fields[2])
	if err != nil {
		return nil, false, err
	}
	if cut {
		return nil, false, refusal.New(refusal.CodeConfigFile, path, fmt.Sprintf("is larger than %d bytes at HEAD", max), "shorten it")
	}
	return data, true, nil
}

// AddWorktree checks branch out in a new worktree at dir.
func (g Git) AddWorktree(ctx context.Context, dir, branch string) error {
	if _, have, err := g.worktreeAt(ctx, dir); err != nil {
		return err
	} else if have == "refs/heads/"+branch {
		return nil // a step run again after a kill finds its worktree made
	}
	// The checkout is git's own child of ours, not one `worktree add` starts: a child of that child
	// would outlive a killed abcd and go on writing the worktree the step, run again, makes afresh.
	// No hook runs in a lane's worktree.
	if _, _, err := g.run(ctx, 4<<10, "worktree", "add", "--quiet", "--no-checkout", "--end-of-options", dir, branch); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return refusal.New(refusal.CodeWorktreeFailed, dir, "git could not make the lane's worktree: "+ee.stderr,
				"remove what stands at that path (git worktree prune, then delete the folder) and run the step again")
		}
		return err
	}
	wt := Git{Dir: filepath.Join(g.Dir, dir)}
	if _, _, err := wt.run(ctx, 4<<10, "reset", "--hard", "--quiet"); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return refusal.New(refusal.CodeWorktreeFailed, dir, "git could not check the lane's branch out: "+ee.stderr, "run the step again")
		}
		return err
	}
	return nil
}

// CheckedOut is the branch checked out in the worktree at each of dirs, when git has one there and
// its folder is whole (its .git file stands): "" otherwise. One listing of git's worktrees answers
// every dir.
func (g Git) CheckedOut(ctx context.Context, dirs []string) (map[string]string, error) {
	out := make(map[string]string, len(dirs))
	if len(dirs) == 0 {
		return out, nil
	}
	list, err := g.worktrees(ctx)
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		registered, ref, err := list.at(g.Dir, dir)
		if err != nil {
			return nil, err
		}
		out[dir] = ""
		if !registered {
			continue
		}
		// A folder gone, or a file where it stood, is a worktree that is not whole; any other failure to
		// look (a folder abcd may not read, a link loop) is not an answer about it, and is returned.
		st, err := os.Lstat(filepath.Join(g.Dir, dir, ".git"))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			continue
		}
		out[dir] = strings.TrimPrefix(ref, "refs/heads/")
	}
	return out, nil
}

// worktreeList is git's worktrees, as git worktree list --porcelain says them: each one's path and
// the branch ref checked out in it ("" for none, or a detached or half-made one).
type worktreeList []struct{ path, ref string }

func (g Git) worktrees(ctx context.Context) (worktreeList, error) {
	out, _, err := g.run(ctx, 1<<20, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var list worktreeList
	for _, block := range strings.Split(string(out), "\n\n") {
		var path, ref string
		for _, line := range strings.Split(block, "\n") {
			if p, ok := strings.CutPrefix(line, "worktree "); ok {
				path = p
			}
			if b, ok := strings.CutPrefix(line, "branch "); ok {
				ref = b
			}
		}
		if path != "" {
			list = append(list, struct{ path, ref string }{path, ref})
		}
	}
	return list, nil
}

// at is what the list says of a worktree at dir (relative to root): whether one is registered there,
// and its branch ref.
func (l worktreeList) at(root, dir string) (registered bool, branch string, err error) {
	want, err := filepath.Abs(filepath.Join(root, dir))
	if err != nil {
		return false, "", err
	}
	for _, w := range l {
		if samePath(w.path, want) {
			return true, w.ref, nil
		}
	}
	return false, "", nil
}

// worktreeAt is what git knows of a worktree at dir: whether one is registered there, and the
// branch ref checked out in it ("" for none, or a detached or half-made one).
func (g Git) worktreeAt(ctx context.Context, dir string) (registered bool, branch string, err error) {
	list, err := g.worktrees(ctx)
	if err != nil {
		return false, "", err
	}
	return list.at(g.Dir, dir)
}

// samePath compares two absolute paths, through their links (a temporary folder may be reached
// through one). A path that no longer exists is compared through its folder's links.
func samePath(a, b string) bool {
	return a == b || resolved(a) == resolved(b)
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

// RemoveWorktree removes the worktree at dir and forgets it. One a killed `git worktree add` left
// is locked ("initializing") and may be half written (an empty commondir makes git refuse every
// worktree command): once its folder is gone, its entry is removed here, as prune would remove it
// were it not locked and whole.
//
// A remove a kill interrupted leaves the folder half deleted (its .git file gone, some files left),
// which git no longer takes for a worktree it can remove: the folder is then removed here, and its
// entry forgotten as a missing one's is.
func (g Git) RemoveWorktree(ctx context.Context, dir string) error {
	full := filepath.Join(g.Dir, dir)
	if _, err := os.Lstat(full); err == nil {
		registered, _, err := g.worktreeAt(ctx, dir)
		if err != nil {
			return err
		}
		if registered {
			// git refuses to unlock a worktree that is not locked: only a failure to run git counts.
			_, _, err = g.run(ctx, 4<<10, "worktree", "unlock", "--end-of-options", dir)
			var ee *exitError
			if err != nil && !errors.As(err, &ee) {
				return err
			}
			_, _, err = g.run(ctx, 4<<10, "worktree", "remove", "--force", "--force", "--end-of-options", dir)
			if err != nil && !errors.As(err, &ee) {
				return err
			}
		}
		if err := os.RemoveAll(full); err != nil {
			return err
		}
	}
	return g.forgetMissing(ctx, dir)
}

// forgetMissing removes git's entries for a worktree at dir when dir is gone: an entry whose gitdir
// names dir, or one whose gitdir was never written and whose name is dir's (git names an entry after
// the folder, with digits added when the name is taken). A half-written entry (no commondir) of any
// worktree in the folder of folders dir's lies in (every run's lanes, .abcd-lanes/<run>/<lane>)
// goes too: git refuses every branch and worktree command while one stands, and only a killed abcd
// makes worktrees there.
func (g Git) forgetMissing(ctx context.Context, dir string) error {
	want, err := filepath.Abs(filepath.Join(g.Dir, dir))
	if err != nil {
		return err
	}
	if _, err := os.Lstat(want); err == nil {
		return nil
	}
	out, _, err := g.run(ctx, 4<<10, "rev-parse", "--git-common-dir")
	if err != nil {
		return err
	}
	common := strings.TrimSpace(string(out))
	if !filepath.IsAbs(common) {
		common = filepath.Join(g.Dir, common)
	}
	admin := filepath.Join(common, "worktrees")
	entries, err := os.ReadDir(admin)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no linked worktree at all
	}
	if err != nil {
		return err
	}
	base := filepath.Base(want)
	for _, e := range entries {
		target := small(filepath.Join(admin, e.Name(), "gitdir"))
		ours := target != "" && samePath(filepath.Dir(target), want)
		if target != "" && small(filepath.Join(admin, e.Name(), "commondir")) == "" {
			runs := lanesRoot(want)
			ours = ours || strings.HasPrefix(resolved(filepath.Dir(target)), resolved(runs)+string(filepath.Separator))
		}
		if target == "" {
			rest, named := strings.CutPrefix(e.Name(), base)
			ours = named && strings.Trim(rest, "0123456789") == ""
		}
		if ours && e.IsDir() {
			if err := os.RemoveAll(filepath.Join(admin, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// lanesRoot is the folder of every run's worktrees a lane's worktree want lies in: the lanes' folder
// (.abcd-lanes/<run>/<lane>), or, for a worktree an earlier abcd made inside its run's folder
// (.../run/<run>/worktrees/<lane>), the folder of runs.
func lanesRoot(want string) string {
	if filepath.Base(filepath.Dir(want)) == "worktrees" {
		return filepath.Dir(filepath.Dir(filepath.Dir(want)))
	}
	return filepath.Dir(filepath.Dir(want))
}

// small is a small file's trimmed content; "" when it cannot be read.
func small(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, 8<<10))
	return strings.TrimSpace(string(data))
}

// Merge merges commit into the worktree's branch; a conflict is aborted and reported.
func (g Git) Merge(ctx context.Context, dir, commit, message string) ([]string, error) {
	wt := Git{Dir: filepath.Join(g.Dir, dir)}
	args := hookless("merge", "--no-ff", "--no-edit", "-m", message, "--end-of-options", commit)
	_, _, err := wt.run(ctx, 64<<10, wt.identity(ctx, args)...)
	var ee *exitError
	if !errors.As(err, &ee) {
		return nil, err
	}
	out, _, lerr := wt.run(ctx, 256<<10, "diff", "--name-only", "--diff-filter=U")
	// A merge git began and stopped would stand half done in the lane's worktree: it is aborted, and
	// an abort that fails is an error. One git refused before beginning (no MERGE_HEAD) has nothing to undo.
	_, _, verr := wt.run(ctx, 4<<10, "rev-parse", "-q", "--verify", "MERGE_HEAD")
	var aerr error
	if verr == nil {
		_, _, aerr = wt.run(ctx, 4<<10, hookless("merge", "--abort")...)
	} else if !errors.As(verr, new(*exitError)) {
		aerr = verr
	}
	if err := errors.Join(lerr, aerr); err != nil {
		return nil, err
	}
	conflicts := strings.Fields(string(out))
	if len(conflicts) == 0 {
		return nil, refusal.New(refusal.CodeMergeFailed, dir, "git could not merge "+short(commit)+": "+ee.stderr,
			"look at the worktree with git status, then run the step again")
	}
	return conflicts, nil
}

// Uncommitted lists what git status shows in a worktree: changed, staged, unmerged and untracked
// paths (not ignored ones), relative to the worktree, at most max.
func (g Git) Uncommitted(ctx context.Context, dir string, max int) ([]string, bool, error) {
	wt := Git{Dir: filepath.Join(g.Dir, dir)}
	out, cut, err := wt.run(ctx, 256<<10, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, false, err
	}
	var paths []string
	for _, entry := range strings.Split(string(out), "\x00") {
		// Each entry is two status letters, a space and the path; the last may be cut short.
		if len(entry) < 4 {
			continue
		}
		if len(paths) == max {
			return paths, true, nil
		}
		paths = append(paths, entry[3:])
	}
	return paths, cut, nil
}

// identity prefixes a command that commits with an author and committer when the repository names
// none, so a merge abcd makes never stops to ask who made it.
func (g Git) identity(ctx context.Context, args []string) []string {
	if out, _, err := g.run(ctx, 1<<10, "config", "user.email"); err == nil && strings.TrimSpace(string(out)) != "" {
		return args
	}
	return append([]string{"-c", "user.name=abcd", "-c", "user.email=abcd@localhost"}, args...)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// DefaultBranch is the remote's HEAD, else init.defaultBranch, else main or master.
func (g Git) DefaultBranch(ctx context.Context) (string, error) {
	if out, _, err := g.run(ctx, 1<<10, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil {
		if name := strings.TrimSpace(string(out)); name != "" {
			if _, err := g.Resolve(ctx, name); err == nil {
				return name, nil
			}
		}
	}
	var candidates []string
	if out, _, err := g.run(ctx, 1<<10, "config", "init.defaultBranch"); err == nil {
		if name := strings.TrimSpace(string(out)); name != "" {
			candidates = append(candidates, name)
		}
	}
	for _, name := range append(candidates, "main", "master") {
		if _, err := g.Resolve(ctx, "refs/heads/"+name); err == nil {
			return name, nil
		}
	}
	return "", nil
}

// ClearRefLock removes refs/heads/<name>.lock where git keeps it.
func (g Git) ClearRefLock(ctx context.Context, name string) error {
	out, _, err := g.run(ctx, 4<<10, "rev-parse", "--git-path", "refs/heads/"+name+".lock")
	if err != nil {
		return err
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.Dir, p)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// BranchesUnder lists the branches named prefix/..., sorted: git's own listing of refs/heads/prefix,
// bounded; more than max is refused.
func (g Git) BranchesUnder(ctx context.Context, prefix string, max int) ([]string, error) {
	if prefix == "" || strings.HasPrefix(prefix, "-") || strings.ContainsAny(prefix, " \t\n\x00*?[") {
		return nil, refusal.New(refusal.CodeRefInvalid, "git ref", fmt.Sprintf("%q is not a branch prefix", text.Clip(prefix)), "give a branch folder, such as abcd/run-1")
	}
	out, cut, err := g.run(ctx, (max+1)*300, "for-each-ref", "--format=%(refname)", "--sort=refname", "refs/heads/"+strings.TrimSuffix(prefix, "/")+"/")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, ok := strings.CutPrefix(line, "refs/heads/"); ok {
			names = append(names, name)
		}
	}
	if cut || len(names) > max {
		return nil, refusal.New(refusal.CodeInputInvalid, prefix, fmt.Sprintf("has more than %d branches", max), "delete the ones you no longer need with git branch -D")
	}
	return names, nil
}

// DeleteBranch deletes a branch abcd made; an absent one is not an error.
//
// A git killed while it deleted a branch leaves packed-refs.lock, and git then refuses every deletion
// (it waits a second for the lock, then gives up). A lock that stands unchanged for staleAfter, past
// git's own wait, is one no git is working under: it is removed and the deletion tried again; one a
// git still held (the killed abcd's own git, which runs on) is tried again once that git let go.
// One found after the branch is gone (the kill came once the deletion was done) is removed too, so
// none is left for the person's next git to trip on.
func (g Git) DeleteBranch(ctx context.Context, name string) error {
	if _, err := g.Resolve(ctx, "refs/heads/"+name); err != nil {
		_, err := g.clearStaleLock(ctx, "packed-refs.lock")
		return err
	}
	for try := 0; ; try++ {
		_, _, err := g.run(ctx, 4<<10, "branch", "-D", "--end-of-options", name)
		var ee *exitError
		if !errors.As(err, &ee) {
			return err
		}
		// git's message is clipped (its lock's path may not survive), so the lock is looked for.
		stood, lerr := g.clearStaleLock(ctx, "packed-refs.lock")
		if lerr != nil {
			return lerr
		}
		if stood && try < 3 {
			// Removed as stale, or let go by the git that held it (a killed abcd's git runs on to
			// its end): either way the deletion is tried again, a bounded number of times.
			continue
		}
		remedy := "delete the branch with git branch -D and read what git says"
		if stood {
			remedy = "if no git is running in this repository, remove .git/packed-refs.lock, then delete the branch with git branch -D"
		}
		return refusal.New(refusal.CodeBranchDeleteFailed, name, "git could not delete it: "+ee.stderr, remedy)
	}
}

// staleAfter is how long a lock file of git's must stand unchanged to be taken for one a killed git
// left: git holds its locks for milliseconds, and waits a second for a held one before it fails.
const staleAfter = 2 * time.Second

// clearStaleLock removes the lock file rel (under git's common folder) when it stands unchanged for
// staleAfter, waiting for that at most once; stood says a lock stood when it looked (removed as
// stale, or let go meanwhile by the git that held it).
func (g Git) clearStaleLock(ctx context.Context, rel string) (bool, error) {
	out, _, err := g.run(ctx, 4<<10, "rev-parse", "--git-common-dir")
	if err != nil {
		return false, err
	}
	common := strings.TrimSpace(string(out))
	if !filepath.IsAbs(common) {
		common = filepath.Join(g.Dir, common)
	}
	stood, _, err := removeStaleLock(ctx, filepath.Join(common, rel))
	return stood, err
}

// removeStaleLock removes the lock file at p when it stands unchanged for staleAfter, waiting for
// that at most once: stood says a lock stood when it looked, removed that it was taken for stale
// and removed (not let go meanwhile by the git that held it).
func removeStaleLock(ctx context.Context, p string) (stood, removed bool, err error) {
	first, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	for time.Since(first.ModTime()) < staleAfter {
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, false, ctx.Err()
		case <-t.C:
		}
		now, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return true, false, nil // the git that held it let go
		}
		if err != nil {
			return false, false, err
		}
		if !os.SameFile(first, now) || !now.ModTime().Equal(first.ModTime()) || now.Size() != first.Size() {
			return true, false, nil // a git is working under it
		}
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, false, err
	}
	return true, true, nil
}
