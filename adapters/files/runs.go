package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// runRoot is where runs live, relative to the repository root.
const runRoot = ".abcd/.work.local/run"

// Runs implements ports.RunStore in the repository containing Dir.
type Runs struct {
	Dir string
}

func (r Runs) root() string { root, _ := RepoRoot(r.Dir); return root }

// abs resolves a run path: under .abcd/.work.local/run/, through no symbolic link.
func (r Runs) abs(rel string) (string, error) {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if clean != rel || !strings.HasPrefix(clean+"/", runRoot+"/") {
		return "", refusal.New("run_path_invalid", rel, "is not a path under "+runRoot+"/", "give the path an await names (abcd implement status lists them)")
	}
	return Setup{Dir: r.Dir}.resolve(clean)
}

// mkdirPrivate makes dir and its parents 0700.
func mkdirPrivate(dir string) error { return os.MkdirAll(dir, 0o700) }

// Lock takes the run's lock (an flock on its folder) with a bounded wait. An unknown run is refused
// before anything is created.
func (r Runs) Lock(ctx context.Context, run string, wait time.Duration) (func(), error) {
	dir, err := r.abs(runRoot + "/" + run)
	if err != nil {
		return nil, err
	}
	unlock, err := flockDir(dir, wait)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, refusal.New("run_unknown", run, "is not a run in this repository", "run `abcd implement status` to list the runs")
	case errors.Is(err, syscall.EWOULDBLOCK):
		return nil, refusal.Busy("run_locked", run, fmt.Sprintf("another abcd held the run's lock for more than %s", wait),
			"run the command again in a moment")
	}
	return unlock, err
}

// Runs lists run ids, sorted (ids sort by time).
func (r Runs) Runs(ctx context.Context) ([]string, error) {
	dir, err := r.abs(runRoot)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "run-") {
			if _, err := os.Lstat(filepath.Join(dir, e.Name(), "state.json")); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Create makes a run's folder, 0700.
func (r Runs) Create(ctx context.Context, run string) (bool, error) {
	dir, err := r.abs(runRoot + "/" + run)
	if err != nil {
		return false, err
	}
	if err := mkdirPrivate(filepath.Dir(dir)); err != nil {
		return false, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// Write replaces a run file atomically, 0600, making its folders 0700.
func (r Runs) Write(ctx context.Context, rel string, data []byte) error {
	full, err := r.abs(rel)
	if err != nil {
		return err
	}
	if err := mkdirPrivate(filepath.Dir(full)); err != nil {
		return err
	}
	return replaceAtomic(full, data, 0o600)
}

// Read reads a run file: regular, not a link, bounded.
func (r Runs) Read(ctx context.Context, rel string, max int) ([]byte, error) {
	full, err := r.abs(rel)
	if err != nil {
		return nil, err
	}
	data, fault, err := readRegular(full, int64(max), false)
	switch fault {
	case faultNone:
		return data, nil
	case faultLink:
		return nil, refusal.New("return_refused", rel, "is a symbolic link, which abcd does not follow", "write the file itself at that path")
	case faultMissing:
		return nil, refusal.New("return_missing", rel, "does not exist yet", "let the agent write it, then run the command again")
	case faultNotRegular:
		return nil, refusal.New("return_refused", rel, "is not a regular file", "write a regular file at that path")
	case faultTooLarge:
		return nil, refusal.New("return_too_large", rel, fmt.Sprintf("is larger than %d bytes", max), "shorten it")
	}
	return nil, refusal.New("return_refused", rel, "cannot be read: "+errText(err), "check the file's permissions")
}

// CheckFile says what is wrong with path as a file inside dir.
func (r Runs) CheckFile(ctx context.Context, dir, path string) string {
	if !strings.HasPrefix(path, dir+"/") {
		return fmt.Sprintf("%s is not inside %s", path, dir)
	}
	full, err := r.abs(path)
	if err != nil {
		return err.Error()
	}
	st, err := os.Lstat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s does not exist", path)
	case err != nil:
		return fmt.Sprintf("%s cannot be read: %s", path, errText(err))
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Sprintf("%s is a symbolic link", path)
	case !st.Mode().IsRegular():
		return fmt.Sprintf("%s is not a regular file", path)
	}
	return ""
}

// Remove deletes a run file.
func (r Runs) Remove(ctx context.Context, rel string) error {
	full, err := r.abs(rel)
	if err != nil {
		return err
	}
	if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
