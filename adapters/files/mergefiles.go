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
	"github.com/abcd-dev/abcd/ports"
)

// MergeFiles reads and writes the temporary files git hands the record's merge driver (%O, %A, %B),
// by the paths git gave: relative to the folder git runs the driver in, or absolute.
type MergeFiles struct{}

// mergeTempDir is the folder, in the repository's git folder (the common one, where worktrees
// share it), that holds the merge driver's temporary files: git never lists what lies in its own
// folder, so a driver killed mid-write leaves nothing `git add -A` would commit, and the folder is
// on the work tree's file system, so the temp is renamed into place in one step.
const mergeTempDir = "abcd-tmp"

// beforePlace, when set by a test, runs with the temporary file's path once it is written whole,
// before it is put in place: the moment a kill leaves it behind.
var beforePlace func(tmp string)

// Read reads one of them: a regular file, never through a link, at most max bytes.
func (MergeFiles) Read(p string, max int) ([]byte, error) {
	f, err := openFolder(filepath.Dir(p))
	if err != nil {
		return nil, mergeFileFault(p, err)
	}
	defer f.Close()
	data, _, fault, err := f.readRegular(filepath.Base(p), int64(max), false)
	switch fault {
	case faultNone:
		return data, nil
	case faultLink:
		return nil, refusal.New(refusal.CodeMergeFileUnreadable, p, "is a symbolic link", "git hands a merge driver regular files: run the merge with git")
	case faultTooLarge:
		return nil, refusal.New(refusal.CodeMergeFileUnreadable, p, fmt.Sprintf("is larger than %d bytes", max), "merge the file by hand")
	case faultNotRegular, faultMissing:
		return nil, refusal.New(refusal.CodeMergeFileUnreadable, p, "is not a regular file", "git hands a merge driver regular files: run the merge with git")
	}
	return nil, mergeFileFault(p, err)
}

// Replace puts data in place of the file at p in one step, keeping its mode. The temporary file is
// written in the git folder's abcd-tmp (see mergeTempDir) and renamed over p; only where there is no
// git folder above p, or it is on another file system, is it written beside p as before.
func (MergeFiles) Replace(p string, data []byte) error {
	f, err := openFolder(filepath.Dir(p))
	if err != nil {
		return mergeFileFault(p, err)
	}
	defer f.Close()
	name := filepath.Base(p)
	st, err := f.noLink(name)
	if err != nil {
		return err
	}
	if st == nil || !st.Mode().IsRegular() {
		return refusal.New(refusal.CodeMergeFileUnreadable, p, "is not a regular file", "git hands a merge driver regular files: run the merge with git")
	}
	if placed, err := replaceFromGitDir(f, name, data, st.Mode().Perm()); placed || err != nil {
		return err
	}
	_, err = f.writeFile(name, data, st.Mode().Perm(), true)
	return err
}

// replaceFromGitDir writes data to a temporary file in the git folder's abcd-tmp and renames it over
// name in dir. placed is false, with no error, when it could not be tried: no git folder above dir,
// or one on another file system (the temp is then gone).
func replaceFromGitDir(dir *folder, name string, data []byte, perm os.FileMode) (placed bool, err error) {
	// Both folders as the system resolves them (a repository under a linked /tmp, a worktree's
	// pointer naming the link's side), so the one root below holds them with no link on the way. A
	// folder that cannot be resolved has no git folder abcd can use: the temp goes beside the file.
	at, err := filepath.Abs(dir.path)
	if err == nil {
		at, err = filepath.EvalSymlinks(at)
	}
	if err != nil {
		return false, nil
	}
	gitDir, ok := commonGitDir(at)
	if !ok {
		return false, nil
	}
	if gitDir, err = filepath.EvalSymlinks(gitDir); err != nil {
		return false, nil
	}
	// One root holds both folders, so the rename is one step inside it, refused where a name on the
	// way climbs out.
	top := commonAncestor(gitDir, at)
	root, err := openFolder(top)
	if err != nil {
		return false, err
	}
	defer root.Close()
	tmpRel, targetRel := slashRel(top, filepath.Join(gitDir, mergeTempDir)), slashRel(top, at)
	tmpDir, _, err := root.walk(tmpRel, 0o700)
	if err != nil {
		return false, err
	}
	defer tmpDir.Close()
	tmp, written, err := tmpDir.filledTemp(data, perm) // a killed driver's temp is removed by the next one
	if err != nil {
		return false, err
	}
	moved := false
	defer func() {
		if !moved {
			_ = tmpDir.root.Remove(tmp)
		}
	}()
	if beforePlace != nil {
		beforePlace(tmpDir.join(tmp))
	}
	target := name
	if targetRel != "." {
		target = targetRel + "/" + name
	}
	switch err := root.root.Rename(tmpRel+"/"+tmp, target); {
	case errors.Is(err, syscall.EXDEV):
		return false, nil
	case err != nil:
		return false, root.fault(target, err)
	}
	moved = true
	dir.sync()
	if got, err := dir.root.Lstat(name); err != nil || !os.SameFile(written, got) {
		return false, refusal.New(refusal.CodePathChanged, dir.join(name), "changed while abcd was writing it (a folder on its way was replaced)",
			"run the merge again")
	}
	return true, nil
}

// commonGitDir is the git folder of the work tree holding dir, the one every worktree of the
// repository shares: .git above dir, or, where .git is a file (a linked worktree, a submodule), the
// folder it names, and that folder's commondir when it names one. Every read is bounded and none
// follows a link at .git.
func commonGitDir(dir string) (string, bool) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		if st, err := os.Lstat(p); err == nil {
			switch {
			case st.IsDir():
				return p, true
			case !st.Mode().IsRegular():
				return "", false
			}
			named, ok := pointer(p, "gitdir: ")
			if !ok {
				return "", false
			}
			if !filepath.IsAbs(named) {
				named = filepath.Join(d, named)
			}
			if common, ok := pointer(filepath.Join(named, "commondir"), ""); ok {
				if !filepath.IsAbs(common) {
					common = filepath.Join(named, common)
				}
				return filepath.Clean(common), true
			}
			return filepath.Clean(named), true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// pointer reads the one line a git pointer file holds (.git's "gitdir: ...", a worktree's
// commondir) after prefix: a regular file, at most 4 KiB.
func pointer(p, prefix string) (string, bool) {
	f, err := openFolder(filepath.Dir(p))
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, _, fault, _ := f.readRegular(filepath.Base(p), 4096, false)
	if fault != faultNone {
		return "", false
	}
	line, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), prefix)
	if !ok || line == "" || strings.ContainsAny(line, "\r\n") {
		return "", false
	}
	return filepath.FromSlash(line), true
}

// commonAncestor is the deepest folder holding both a and b (absolute, cleaned).
func commonAncestor(a, b string) string {
	for {
		if b == a || strings.HasPrefix(b, strings.TrimSuffix(a, string(filepath.Separator))+string(filepath.Separator)) {
			return a
		}
		parent := filepath.Dir(a)
		if parent == a {
			return a
		}
		a = parent
	}
}

// slashRel is p relative to base (which holds it), with forward slashes, "." for base itself.
func slashRel(base, p string) string {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return "."
	}
	return filepath.ToSlash(rel)
}

// MergeTemps lists the temporary files killed merge drivers left (ports.RecordStore): in the git
// folder's abcd-tmp (git never sees them there; the next merge removes them), and beside the files
// git hands the driver at the top of the work tree, where an abcd from before the temps moved, or a
// merge with its git folder on another file system, left them and `git add -A` would commit them.
// Paths are relative to the repository's top where they lie below it. It removes nothing.
func (r Records) MergeTemps(_ context.Context) ([]ports.StrayTemp, error) {
	top, _ := RepoRoot(r.Dir)
	top, err := filepath.Abs(top)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := []ports.StrayTemp{}
	show := func(dir, name string) string {
		if rel := slashRel(top, filepath.Join(dir, name)); !strings.HasPrefix(rel, "../") && rel != ".." {
			return rel
		}
		return filepath.Join(dir, name)
	}
	if gitDir, ok := commonGitDir(top); ok {
		tmp := filepath.Join(gitDir, mergeTempDir)
		if f, err := openFolder(tmp); err == nil {
			for _, name := range f.staleTemps(now) {
				out = append(out, ports.StrayTemp{Path: show(tmp, name), Ignored: true})
			}
			f.Close()
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	f, err := openFolder(top)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for _, name := range f.staleTemps(now) {
		out = append(out, ports.StrayTemp{Path: show(top, name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func mergeFileFault(p string, err error) error {
	return refusal.New(refusal.CodeMergeFileUnreadable, p, "cannot be read: "+errText(err), "check the file's permissions")
}
