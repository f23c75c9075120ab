package files

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// tempPrefix starts the name of every temporary file abcd writes, so a stray one is recognisable;
// the writer's pid follows (tempName).
const tempPrefix = ".abcd-tmp-"

// writeFile is the atomic write of a file outside the repository (a machine file), and of one whose
// staging folder is on another file system (stagedWrite). It writes data to a temporary file beside
// name in f, sets its mode, syncs it, then puts it in place in one step: renamed over name
// (replace), or, for a create-only name, hard-linked to name, which fails rather than replace what
// stands there. The folder is synced after. name never holds part of the data, and the temporary
// file is gone on every path but a kill. created is false when a create-only name was taken.
func (f *folder) writeFile(name string, data []byte, perm os.FileMode, replace bool) (created bool, err error) {
	// A killed writer's temp beside its target is removed by the next writer into the folder.
	f.cleanTemps()
	tmp, file, err := f.createTemp(perm)
	if err != nil {
		return false, err
	}
	placed := false
	defer func() {
		if !placed || !replace {
			_ = f.root.Remove(tmp)
		}
	}()
	if err := fill(file, data, perm); err != nil {
		return false, err
	}
	if replace {
		if err := f.root.Rename(tmp, name); err != nil {
			return false, f.fault(name, err)
		}
		placed = true
		f.sync()
		return true, nil
	}
	switch err := f.root.Link(tmp, name); {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return false, nil
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOSYS):
		// A file system with no hard links (FAT, some network mounts): create exclusively instead.
		return f.createExclusive(name, data, perm)
	default:
		return false, f.fault(name, err)
	}
	placed = true
	f.sync()
	return true, nil
}

// fill writes data to a new file, gives it exactly perm (the umask may have taken bits), syncs and
// closes it.
func fill(file *os.File, data []byte, perm os.FileMode) error {
	err := file.Chmod(perm)
	if err == nil {
		_, err = file.Write(data)
	}
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

// createExclusive is create-only where hard links are not: the name is made exclusively and filled;
// a failed fill removes it, so the name never holds part of the data for long.
func (f *folder) createExclusive(name string, data []byte, perm os.FileMode) (bool, error) {
	file, err := f.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, f.fault(name, err)
	}
	if err := fill(file, data, perm); err != nil {
		_ = f.root.Remove(name)
		return false, err
	}
	f.sync()
	return true, nil
}
