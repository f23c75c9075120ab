//go:build windows

package files

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	"github.com/abcd-dev/abcd/domain/layout"
)

// Windows cannot lock a folder, so a lock there is LockFileEx on a lock file inside it, which the
// kernel releases when the process ends as flock's is. The record's lock file lives in the
// git-ignored local folder, so git never sees it; the machine folder and a run's folder are abcd's
// own.
const lockFileName = ".abcd-lock"

var (
	kernel32       = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx = kernel32.NewProc("LockFileEx")
	procUnlockFile = kernel32.NewProc("UnlockFileEx")
)

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	errLockViolation        = syscall.Errno(33)  // ERROR_LOCK_VIOLATION
	errIOPending            = syscall.Errno(997) // ERROR_IO_PENDING
)

func (f *folder) lockHandle() (*os.File, error) {
	dir := f
	if filepath.Base(f.path) == layout.Root {
		local, _, err := f.walk(layout.LocalName, 0o700)
		if err != nil {
			return nil, err
		}
		defer local.Close()
		dir = local
	}
	return dir.root.OpenFile(lockFileName, os.O_RDWR|os.O_CREATE, 0o600)
}

// tryLock takes an exclusive lock on the file's first byte without blocking: held is false when
// another holds it.
func tryLock(d *os.File) (held bool, err error) {
	var ol syscall.Overlapped
	r, _, e := procLockFileEx.Call(d.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r != 0 {
		return true, nil
	}
	if errors.Is(e, errLockViolation) || errors.Is(e, errIOPending) {
		return false, nil
	}
	return false, e
}

func unlockFile(d *os.File) {
	var ol syscall.Overlapped
	_, _, _ = procUnlockFile.Call(d.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
}
