package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// Setup implements ports.Setup: create-only atomic writes under the repository root and $ABCD_HOME,
// never through a symbolic link.
type Setup struct {
	Dir  string
	Home string
}

// Root is the repository holding Dir.
func (s Setup) Root() (string, bool) { return RepoRoot(s.Dir) }

// parent opens the folder holding rel (relative to the root; made 0755 with mkdir) and returns
// rel's last element, refusing a link anywhere on the way, the last element included. The path is
// cleaned first; the root refuses one that still climbs out, or is absolute, before anything is made.
func (s Setup) parent(rel string, mkdir bool) (*folder, string, error) {
	repo, err := openRepo(s.Dir)
	if err != nil {
		return nil, "", err
	}
	defer repo.Close()
	perm := fs.FileMode(0)
	if mkdir {
		perm = 0o755
	}
	f, name, err := repo.parent(filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))), perm)
	if err != nil {
		return nil, "", err
	}
	if _, err := f.noLink(name); err != nil {
		f.Close()
		return nil, "", err
	}
	return f, name, nil
}

// MkdirAll creates rel and its parents (0755), reporting whether it created the last.
func (s Setup) MkdirAll(rel string) (bool, error) {
	repo, err := openRepo(s.Dir)
	if err != nil {
		return false, err
	}
	defer repo.Close()
	f, created, err := repo.walk(filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))), 0o755)
	if err != nil {
		return false, err
	}
	f.Close()
	return created, nil
}

// CreateFile writes rel (0644) only when nothing stands there.
func (s Setup) CreateFile(rel string, data []byte) (bool, error) {
	f, name, err := s.parent(rel, false)
	if err != nil {
		return false, err
	}
	defer f.Close()
	// An install killed mid-write left its temp here; run again, it finds the file made or makes it,
	// and either way sweeps the dead writer's temp.
	f.cleanTemps()
	if st, err := f.lstat(name); err != nil || st != nil {
		return false, err
	}
	return f.writeFile(name, data, 0o644, false)
}

// Exists reports whether anything stands at rel.
func (s Setup) Exists(rel string) (bool, error) {
	f, name, err := s.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.lstat(name)
	return st != nil, err
}

// RemoveEmptyDir removes rel when it is an empty folder.
func (s Setup) RemoveEmptyDir(rel string) (bool, error) {
	f, name, err := s.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.lstat(name)
	if err != nil || st == nil || !st.IsDir() {
		return false, err
	}
	if err := f.root.Remove(name); err != nil {
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return false, nil
		}
		// Windows says a folder is not empty in its own error number: look.
		if held, lerr := holdsAnything(f.root, name); lerr == nil && held {
			return false, nil
		}
		return false, f.fault(name, err)
	}
	return true, nil
}

// holdsAnything says whether the folder name has at least one entry.
func holdsAnything(root *os.Root, name string) (bool, error) {
	d, err := root.Open(name)
	if err != nil {
		return false, err
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	return len(names) > 0, err
}

// Names are the names in the folder rel, sorted, read through the folder itself (never a link on the
// way); nothing when nothing, or a file, stands at rel; a folder holding more than max is refused.
func (s Setup) Names(rel string, max int) ([]string, error) {
	f, name, err := s.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.lstat(name)
	if err != nil || st == nil || !st.IsDir() {
		return nil, err
	}
	d, err := f.root.Open(name)
	if err != nil {
		return nil, f.fault(name, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(max + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, f.fault(name, err)
	}
	if len(names) > max {
		return nil, fmt.Errorf("%s holds more than %d names, more than abcd makes there", rel, max)
	}
	slices.Sort(names)
	return names, nil
}

// RemoveFileIf removes rel only when it holds exactly data, so a file the person edited stays.
func (s Setup) RemoveFileIf(rel string, data []byte) (bool, error) {
	f, name, err := s.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	got, present, err := f.readGuarded(name, f.join(name), false)
	if err != nil || !present || !bytes.Equal(got, data) {
		return false, err
	}
	if err := f.root.Remove(name); err != nil {
		return false, f.fault(name, err)
	}
	return true, nil
}

// ReadFile reads rel through the guarded reader; absent is nil, false.
func (s Setup) ReadFile(rel string) ([]byte, bool, error) {
	f, name, err := s.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	return f.readGuarded(name, f.join(name), false)
}

// ReplaceFile puts data at rel (0644) in one step, whatever stood there.
func (s Setup) ReplaceFile(rel string, data []byte) error {
	f, name, err := s.parent(rel, false)
	if err != nil {
		return err
	}
	defer f.Close()
	f.cleanTemps()
	_, err = f.writeFile(name, data, 0o644, true)
	return err
}

// MachinePath is the path of a machine file.
func (s Setup) MachinePath(name string) string { return filepath.Join(s.Home, name) }

// ReadMachineFile reads a machine file through the guarded reader (the person's own, writable by
// nobody else, no link, bounded), without the machine folder's lock.
func (s Setup) ReadMachineFile(name string) ([]byte, bool, error) {
	return ReadGuarded(filepath.Join(s.Home, name), true)
}

// MachineExists reports whether the machine file exists.
func (s Setup) MachineExists(name string) (bool, error) {
	home, err := openFolder(s.Home)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer home.Close()
	st, err := home.lstat(name)
	return st != nil, err
}

// CreateMachineFile writes a machine file 0600 in a 0700 $ABCD_HOME, only when none stands there.
func (s Setup) CreateMachineFile(name string, data []byte) (bool, error) {
	home, err := s.openHome()
	if err != nil {
		return false, err
	}
	defer home.Close()
	if st, err := home.noLink(name); err != nil || st != nil {
		return false, err
	}
	return home.writeFile(name, data, 0o600, false)
}

// openHome holds $ABCD_HOME open, making it 0700 when missing. It must be a real folder only the
// person can enter; the folder checked is the one held.
func (s Setup) openHome() (*folder, error) {
	home := filepath.Clean(s.Home)
	parentPath := filepath.Dir(home)
	if err := os.MkdirAll(parentPath, 0o700); err != nil {
		return nil, err
	}
	parent, err := openFolder(parentPath)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	f, _, st, err := parent.enter(filepath.Base(home), 0o700)
	switch {
	case errors.Is(err, errLink):
		return nil, refusal.New(refusal.CodeSymlinkRefused, home, "is a symbolic link, and abcd keeps its machine files in a real folder",
			"replace the link with a folder, or point ABCD_HOME at one")
	case errors.Is(err, errNotFolder):
		return nil, refusal.New(refusal.CodeNotAFolder, home, "is not a folder", "move it aside, or point ABCD_HOME at a folder")
	case err != nil:
		return nil, parent.refuse(filepath.Base(home), err)
	case modesMean && st.Mode().Perm()&0o077 != 0:
		f.Close()
		return nil, refusal.New(refusal.CodeMachineFolderOpen, home,
			fmt.Sprintf("is open to group or others (mode %04o), and abcd keeps its machine files in a folder only you can enter", st.Mode().Perm()),
			fmt.Sprintf("run `chmod 700 %s`", home))
	}
	return f, nil
}
