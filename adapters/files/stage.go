package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// A write inside the repository stages its temporary file in abcd's own temporary folder, which
// .abcd/.gitignore keeps out of git (it lies under .work.local/) and which is on the record's file
// system, then renames it into place across folders inside .abcd. A writer killed mid-write leaves
// its temp there, where `git add -A` never sees it, and the next writer removes it once its writer
// is gone.
const (
	abcdRel    = layout.Root
	stagingRel = layout.LocalName + "/" + layout.StagingName // layout.Staging, relative to .abcd
	// staleAfter is the age past which a temp is a dead writer's whatever its name says: a write
	// takes milliseconds, and a pid may be reused.
	staleAfter = time.Minute
	// strayDepth bounds how deep StrayTemps looks under .abcd (the deepest record folder is 3 below).
	strayDepth = 4
)

// tempName is a new temporary file's name: the prefix, the writer's pid (so the next writer can
// tell a dead writer's temp from a live one's) and a random part.
func tempName() string {
	return fmt.Sprintf("%s%d-%016x", tempPrefix, os.Getpid(), rand.Uint64())
}

// tempWriter is the pid a temporary file's name carries; false for a name without one (written by
// an abcd from before names carried it).
func tempWriter(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return 0, false
	}
	digits, _, found := strings.Cut(rest, "-")
	// Plain decimal, as tempName writes it: no sign, no leading zero, no more digits than a pid has.
	if !found || digits == "" || digits[0] == '0' || len(digits) > 10 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// alive reports whether a process with pid runs on this machine (one of another user counts).
func alive(pid int) bool { return pid == os.Getpid() || running(pid) }

// stale reports whether a temporary file is a dead writer's: its writer is gone, or it is older
// than any write takes.
func stale(name string, st fs.FileInfo, now time.Time) bool {
	if now.Sub(st.ModTime()) > staleAfter {
		return true
	}
	pid, ok := tempWriter(name)
	return ok && !alive(pid)
}

// staleTemps lists the temporary files in f whose writers are gone.
func (f *folder) staleTemps(now time.Time) []string {
	entries, err := f.readDir()
	if err != nil {
		return nil
	}
	return staleAmong(entries, now)
}

// staleAmong picks the dead writers' temporary files out of a folder's entries.
func staleAmong(entries []os.DirEntry, now time.Time) []string {
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) || !e.Type().IsRegular() {
			continue
		}
		if st, err := e.Info(); err == nil && stale(e.Name(), st, now) {
			out = append(out, e.Name())
		}
	}
	return out
}

// cleanTemps removes the temporary files in f whose writers are gone. One it cannot remove stays
// for lint to report.
func (f *folder) cleanTemps() {
	for _, name := range f.staleTemps(time.Now()) {
		_ = f.root.Remove(name)
	}
}

// stagedWrite is the atomic write of a file of the repository: rel is its path from the repository
// root (under .abcd/), dir the folder holding it, already open, and name its last element. The temp
// is written in the staging folder, synced, then renamed over name (replace) or hard-linked to it
// (create-only, which never replaces); what then stands at name is checked to be that file, so a
// folder swapped for a link meanwhile is refused. Where the staging folder is on another file system,
// the temp is written beside name as before.
func stagedWrite(repoDir, rel string, dir *folder, name string, data []byte, perm os.FileMode, replace bool) (bool, error) {
	inner, ok := strings.CutPrefix(rel, abcdRel+"/")
	if !ok || path.Base(rel) != name {
		return false, fmt.Errorf("%s: not a file under %s/", rel, abcdRel)
	}
	repo, err := openRepo(repoDir)
	if err != nil {
		return false, err
	}
	defer repo.Close()
	abcd, _, err := repo.walk(abcdRel, 0)
	if err != nil {
		return false, err
	}
	defer abcd.Close()
	stage, _, err := abcd.walk(stagingRel, 0o700)
	if err != nil {
		return false, err
	}
	defer stage.Close()
	tmp, written, err := stage.filledTemp(data, perm)
	if err != nil {
		return false, err
	}
	kept := false
	defer func() {
		if !kept {
			_ = stage.root.Remove(tmp)
		}
	}()
	from := stagingRel + "/" + tmp
	if replace {
		err = abcd.root.Rename(from, inner)
	} else {
		err = abcd.root.Link(from, inner)
	}
	switch {
	case err == nil:
	case errors.Is(err, syscall.EXDEV):
		return dir.writeFile(name, data, perm, replace)
	case !replace && errors.Is(err, fs.ErrExist):
		return false, nil
	case !replace && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.ENOSYS)):
		// A file system with no hard links (FAT, some network mounts): create exclusively instead.
		return dir.createExclusive(name, data, perm)
	default:
		return false, abcd.fault(inner, err)
	}
	kept = replace // a rename moved the temp; a link leaves it to remove
	dir.sync()
	if got, err := dir.root.Lstat(name); err != nil || !os.SameFile(written, got) {
		return false, refusal.New(refusal.CodePathChanged, dir.join(name), "changed while abcd was writing it (a folder on its way was replaced)",
			"run the command again")
	}
	return true, nil
}

// filledTemp writes data to a new temporary file in f (a killed writer's temps there removed first)
// and says which file it wrote, so the caller can check that what it puts in place is that file. On
// an error the temp is gone; otherwise it is the caller's to place or remove.
func (f *folder) filledTemp(data []byte, perm os.FileMode) (string, os.FileInfo, error) {
	f.cleanTemps()
	tmp, file, err := f.createTemp(perm)
	if err != nil {
		return "", nil, err
	}
	written, err := file.Stat()
	if err != nil {
		_ = file.Close() // the Stat's error is the one that counts
	} else {
		err = fill(file, data, perm)
	}
	if err != nil {
		_ = f.root.Remove(tmp)
		return "", nil, err
	}
	return tmp, written, nil
}

// createTemp makes a new, empty temporary file in f, never following or reusing a name.
func (f *folder) createTemp(perm os.FileMode) (string, *os.File, error) {
	for range 100 {
		name := tempName()
		file, err := f.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, file, err
	}
	return "", nil, fmt.Errorf("%s: no free temporary name", f.path)
}

// StrayTemps lists the temporary files under .abcd/ whose writers are gone: in the staging folder
// (git-ignored; the next writer removes them, so one listed there is one no writer has removed yet
// or could not), and anywhere git would see them (beside a record, left by an abcd from before
// writes were staged, or by a write across file systems). It removes nothing: lint reads.
func (r Records) StrayTemps(_ context.Context) ([]ports.StrayTemp, error) {
	repo, err := openRepo(r.Dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	abcd, _, err := repo.walk(abcdRel, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return []ports.StrayTemp{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer abcd.Close()
	now := time.Now()
	out := []ports.StrayTemp{}
	if stage, _, err := abcd.walk(stagingRel, 0); err == nil {
		for _, name := range stage.staleTemps(now) {
			out = append(out, ports.StrayTemp{Path: abcdRel + "/" + stagingRel + "/" + name, Ignored: true})
		}
		stage.Close()
	}
	var visit func(f *folder, rel string, depth int)
	visit = func(f *folder, rel string, depth int) {
		entries, err := f.readDir()
		if err != nil {
			return
		}
		for _, name := range staleAmong(entries, now) {
			out = append(out, ports.StrayTemp{Path: rel + "/" + name})
		}
		if depth == strayDepth {
			return
		}
		for _, e := range entries {
			// .work.local is git-ignored and holds the runs: not walked (the worktrees are in .abcd-lanes/).
			if !e.IsDir() || e.Name() == layout.LocalName || e.Name() == ".git" {
				continue
			}
			if sub, _, _, err := f.enter(e.Name(), 0); err == nil {
				visit(sub, rel+"/"+e.Name(), depth+1)
				sub.Close()
			}
		}
	}
	visit(abcd, abcdRel, 0)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
