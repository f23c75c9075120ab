package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// resolve turns a slash-separated path relative to the root into a real path, refusing one that
// leaves the root or passes through a symbolic link.
func (s Setup) resolve(rel string) (string, error) {
	root, _ := s.Root()
	clean := filepath.Clean(filepath.FromSlash(rel))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("setup: %q leaves the repository", rel)
	}
	p := root
	for _, part := range strings.Split(clean, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", refusal.New("symlink_refused", p, "is a symbolic link, and abcd does not write through links",
				"replace the link with a real folder or file")
		}
	}
	return filepath.Join(root, clean), nil
}

// MkdirAll creates rel and its parents (0755), reporting whether it created the last.
func (s Setup) MkdirAll(rel string) (bool, error) {
	full, err := s.resolve(rel)
	if err != nil {
		return false, err
	}
	st, err := os.Lstat(full)
	if err == nil {
		if !st.IsDir() {
			return false, refusal.New("not_a_folder", full, "exists and is not a folder", "move it aside")
		}
		return false, nil
	}
	if err := os.MkdirAll(full, 0o755); err != nil {
		return false, err
	}
	return true, nil
}

// CreateFile writes rel (0644) only when nothing stands there.
func (s Setup) CreateFile(rel string, data []byte) (bool, error) {
	full, err := s.resolve(rel)
	if err != nil {
		return false, err
	}
	return createOnly(full, data, 0o644)
}

// Exists reports whether anything stands at rel.
func (s Setup) Exists(rel string) (bool, error) {
	full, err := s.resolve(rel)
	if err != nil {
		return false, err
	}
	return lexists(full)
}

// RemoveEmptyDir removes rel when it is an empty folder.
func (s Setup) RemoveEmptyDir(rel string) (bool, error) {
	full, err := s.resolve(rel)
	if err != nil {
		return false, err
	}
	st, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !st.IsDir()) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := os.Remove(full); err != nil {
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// RemoveFileIf removes rel only when it holds exactly data, so a file the person edited stays.
func (s Setup) RemoveFileIf(rel string, data []byte) (bool, error) {
	full, err := s.resolve(rel)
	if err != nil {
		return false, err
	}
	got, present, err := ReadGuarded(full, false)
	if err != nil || !present || !bytes.Equal(got, data) {
		return false, err
	}
	return true, os.Remove(full)
}

// MachinePath is the path of a machine file.
func (s Setup) MachinePath(name string) string { return filepath.Join(s.Home, name) }

// MachineExists reports whether the machine file exists.
func (s Setup) MachineExists(name string) (bool, error) { return lexists(s.MachinePath(name)) }

// CreateMachineFile writes a machine file 0600 in a 0700 $ABCD_HOME, only when none stands there.
func (s Setup) CreateMachineFile(name string, data []byte) (bool, error) {
	st, err := os.Lstat(s.Home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(s.Home, 0o700); err != nil {
			return false, err
		}
	case err != nil:
		return false, err
	case st.Mode()&fs.ModeSymlink != 0:
		return false, refusal.New("symlink_refused", s.Home, "is a symbolic link, and abcd keeps its machine files in a real folder",
			"replace the link with a folder, or point ABCD_HOME at one")
	case !st.IsDir():
		return false, refusal.New("not_a_folder", s.Home, "is not a folder", "move it aside, or point ABCD_HOME at a folder")
	case st.Mode().Perm()&0o077 != 0:
		return false, refusal.New("machine_folder_open", s.Home,
			fmt.Sprintf("is open to group or others (mode %04o), and abcd keeps its machine files in a folder only you can enter", st.Mode().Perm()),
			fmt.Sprintf("run `chmod 700 %s`", s.Home))
	}
	return createOnly(s.MachinePath(name), data, 0o600)
}

func lexists(p string) (bool, error) {
	_, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// createOnly writes data to a temporary file beside path, syncs it, and links it to path, so the
// name never holds part of the data and an existing file is never replaced.
func createOnly(path string, data []byte, mode os.FileMode) (bool, error) {
	if ok, err := lexists(path); err != nil || ok {
		return false, err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".abcd-tmp-*")
	if err != nil {
		return false, err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return false, err
	}
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		_ = tmp.Close()
		return false, err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) && !errors.Is(err, syscall.ENOSYS) {
			return false, err
		}
		// A filesystem with no hard links (FAT, some network mounts): create exclusively instead.
		return createExclusive(path, data, mode)
	}
	syncDir(dir)
	return true, nil
}

func createExclusive(path string, data []byte, mode os.FileMode) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return false, err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return false, err
	}
	return true, f.Close()
}
