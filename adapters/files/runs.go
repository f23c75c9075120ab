package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// runRoot is where runs live, relative to the repository root.
const runRoot = layout.Runs

// Runs implements ports.RunStore in the repository containing Dir. Its folders are 0700 and its
// files 0600: a run's briefs and returns are the person's alone.
type Runs struct {
	Dir string
}

// runPath checks the form of a run path: slash-separated, canonical and under the run folder. Where
// it may lead is the root's to refuse.
func runPath(rel string) error {
	if filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))) != rel || !strings.HasPrefix(rel+"/", runRoot+"/") {
		return refusal.New(refusal.CodeRunPathInvalid, rel, "is not a path under "+runRoot+"/", "give the path an await names (abcd implement status lists them)")
	}
	return nil
}

// lanesPath checks the form of a path in the lanes' folder: slash-separated, canonical, and a run's
// folder of worktrees or below it (never the lanes' folder itself, nor its .gitignore).
func lanesPath(rel string) bool {
	run, _, _ := strings.Cut(strings.TrimPrefix(rel, layout.Lanes+"/"), "/")
	return filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))) == rel && strings.HasPrefix(rel, layout.Lanes+"/") &&
		strings.HasPrefix(run, "run-")
}

// MakeLanes makes the folders a worktree wt in the lanes' folder is added in: the lanes' folder and
// the run's in it, each 0700 and never through a link. The lanes' folder holds its .gitignore ("*"),
// written when it is missing, so git status of the repository never shows the worktrees and the
// person's own ignore files stay untouched. A worktree an earlier abcd made inside its run's folder
// needs none; any other path is refused.
func (r Runs) MakeLanes(ctx context.Context, wt string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if runPath(wt) == nil && path.Base(path.Dir(wt)) == "worktrees" {
		return nil // an earlier abcd's worktree: its run's folder stands
	}
	rest, _ := strings.CutPrefix(wt, layout.Lanes+"/")
	run, lane, _ := strings.Cut(rest, "/")
	if !lanesPath(wt) || lane == "" || strings.Contains(lane, "/") {
		return refusal.New(refusal.CodeRunPathInvalid, wt, "is not a lane's worktree in "+layout.Lanes+"/", "run the step again")
	}
	repo, err := openRepo(r.Dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	lanes, _, err := repo.walk(layout.Lanes, 0o700)
	if err != nil {
		return err
	}
	defer lanes.Close()
	ignore := path.Base(layout.LanesIgnore)
	st, err := lanes.noLink(ignore)
	if err != nil {
		return err
	}
	if st == nil {
		// Create-only: a .gitignore another abcd wrote meanwhile stands as it is.
		if _, err := lanes.writeFile(ignore, []byte(layout.LanesIgnoreText), 0o600, false); err != nil {
			return err
		}
	}
	dir, _, err := lanes.walk(run, 0o700)
	if err != nil {
		return err
	}
	dir.Close()
	return nil
}

// walk opens the run folder rel (made 0700 with mkdir).
func (r Runs) walk(rel string, mkdir bool) (*folder, error) {
	if err := runPath(rel); err != nil {
		return nil, err
	}
	return openPrivate(r.Dir, rel, mkdir)
}

// openPrivate opens the folder rel of the repository containing dir, one of abcd's own (a run's, the
// journal's); with mkdir, missing folders are made 0700: they are the person's alone.
func openPrivate(dir, rel string, mkdir bool) (*folder, error) {
	repo, err := openRepo(dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	perm := fs.FileMode(0)
	if mkdir {
		perm = 0o700
	}
	f, _, err := repo.walk(rel, perm)
	return f, err
}

// parent opens the folder holding the run file rel (made 0700 with mkdir) and returns its name.
func (r Runs) parent(rel string, mkdir bool) (*folder, string, error) {
	i := strings.LastIndexByte(rel, '/')
	if err := runPath(rel); err != nil || i < 0 {
		return nil, "", err
	}
	f, err := r.walk(rel[:i], mkdir)
	return f, rel[i+1:], err
}

// Lock takes the run's lock (an flock on its folder) with a bounded wait. An unknown run is refused
// before anything is created.
func (r Runs) Lock(ctx context.Context, run string, wait time.Duration) (func(), error) {
	dir, err := r.walk(runRoot+"/"+run, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, loop.UnknownRun(run)
	}
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	unlock, err := dir.lock(ctx, wait)
	if errors.Is(err, errBusy) {
		return nil, heldOn(refusal.CodeRunLocked, run, "the run's", wait)
	}
	return unlock, err
}

// Runs lists run ids, sorted (ids sort by time).
func (r Runs) Runs(ctx context.Context) ([]string, error) { return r.folders(true) }

// Unstarted lists the run folders holding no state, sorted.
func (r Runs) Unstarted(ctx context.Context) ([]string, error) { return r.folders(false) }

// folders lists the run folders that hold a state (stated) or that hold none.
func (r Runs) folders(stated bool) ([]string, error) {
	dir, err := r.walk(runRoot, false)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	entries, err := dir.readDir()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "run-") {
			st, err := dir.lstat(e.Name() + "/state.json")
			if err == nil && (st != nil) == stated {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Create makes a run's folder, 0700.
func (r Runs) Create(ctx context.Context, run string) (bool, error) {
	dir, name, err := r.parent(runRoot+"/"+run, true)
	if err != nil {
		return false, err
	}
	defer dir.Close()
	if err := dir.root.Mkdir(name, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, dir.fault(name, err)
	}
	return true, nil
}

// Write replaces a run file atomically, 0600, making its folders 0700.
func (r Runs) Write(ctx context.Context, rel string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err // the caller's end came before the write began: nothing is written
	}
	dir, name, err := r.parent(rel, true)
	if err != nil {
		return err
	}
	defer dir.Close()
	if _, err := dir.noLink(name); err != nil {
		return err
	}
	_, err = stagedWrite(r.Dir, rel, dir, name, data, 0o600, true)
	return err
}

// CreateFile writes a new run file atomically, create-only (stagedWrite without replace: linked to
// its name, or made exclusively where the file system has no hard links); false when it is taken.
func (r Runs) CreateFile(ctx context.Context, rel string, data []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err // the caller's end came before the write began: nothing is written
	}
	dir, name, err := r.parent(rel, true)
	if err != nil {
		return false, err
	}
	defer dir.Close()
	if _, err := dir.noLink(name); err != nil {
		return false, err
	}
	return stagedWrite(r.Dir, rel, dir, name, data, 0o600, false)
}

// Read reads a run file: regular, not a link, bounded.
func (r Runs) Read(ctx context.Context, rel string, max int) ([]byte, error) {
	missing := refusal.New(refusal.CodeReturnMissing, rel, "does not exist yet", "let the agent write it, then run the command again")
	dir, name, err := r.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if _, err := dir.noLink(name); err != nil {
		return nil, err
	}
	data, _, fault, err := dir.readRegular(name, int64(max), false)
	switch fault {
	case faultNone:
		return data, nil
	case faultLink:
		return nil, refusal.New(refusal.CodeReturnRefused, rel, "is a symbolic link, which abcd does not follow", "write the file itself at that path")
	case faultMissing:
		return nil, missing
	case faultNotRegular:
		return nil, refusal.New(refusal.CodeReturnRefused, rel, "is not a regular file", "write a regular file at that path")
	case faultTooLarge:
		return nil, refusal.New(refusal.CodeReturnTooLarge, rel, fmt.Sprintf("is larger than %d bytes", max), "shorten it")
	case faultChanged:
		return nil, refusal.New(refusal.CodeReturnRefused, rel, "changed while it was being read", "run the command again")
	}
	return nil, refusal.New(refusal.CodeReturnRefused, rel, "cannot be read: "+errText(err), "check the file's permissions")
}

// CheckFile says what is wrong with path as a file inside dir.
func (r Runs) CheckFile(ctx context.Context, dir, path string) string {
	if !strings.HasPrefix(path, dir+"/") {
		return fmt.Sprintf("%s is not inside %s", path, dir)
	}
	f, name, err := r.parent(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("%s does not exist", path)
	}
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, err := f.noLink(name)
	switch {
	case err != nil:
		return err.Error()
	case st == nil:
		return fmt.Sprintf("%s does not exist", path)
	case !st.Mode().IsRegular():
		return fmt.Sprintf("%s is not a regular file", path)
	}
	return ""
}

// RemoveAll deletes a folder under the run folder, or a run's folder of worktrees or one of them in
// the lanes' folder, whole; the root removes a link inside as a link, never what it points at.
func (r Runs) RemoveAll(ctx context.Context, rel string) error {
	if rel == runRoot {
		return refusal.New(refusal.CodeRunPathInvalid, rel, "is the folder of every run", "name one run's folder")
	}
	var dir *folder
	var name string
	var err error
	if lanesPath(rel) {
		i := strings.LastIndexByte(rel, '/')
		dir, err = openPrivate(r.Dir, rel[:i], false)
		name = rel[i+1:]
	} else {
		dir, name, err = r.parent(rel, false)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := dir.root.RemoveAll(name); err != nil {
		return dir.fault(name, err)
	}
	dir.sync()
	if lanesPath(rel) && path.Dir(rel) != layout.Lanes {
		// A worktree: the run's folder of worktrees goes with the last of them.
		return r.dropEmpty(path.Dir(rel))
	}
	return nil
}

// dropEmpty removes the run's folder of worktrees rel when it holds nothing more; one that does
// stays.
func (r Runs) dropEmpty(rel string) error {
	dir, err := openPrivate(r.Dir, path.Dir(rel), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	name := path.Base(rel)
	if err := dir.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) && !errors.Is(err, syscall.ENOTEMPTY) {
		return dir.fault(name, err)
	}
	return nil
}

// Remove deletes a run file.
func (r Runs) Remove(ctx context.Context, rel string) error {
	dir, name, err := r.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	if _, err := dir.noLink(name); err != nil {
		return err
	}
	if err := dir.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return dir.fault(name, err)
	}
	return nil
}
