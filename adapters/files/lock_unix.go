//go:build unix

package files

import (
	"errors"
	"os"
	"syscall"
)

// lockHandle is the folder itself: flock locks a folder, so nothing is created to lock.
func (f *folder) lockHandle() (*os.File, error) { return f.root.Open(".") }

// tryLock takes an exclusive flock without blocking: held is false when another holds it. flock and
// its errors are the same on linux and darwin.
func tryLock(d *os.File) (held bool, err error) {
	for {
		err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

func unlockFile(d *os.File) { _ = syscall.Flock(int(d.Fd()), syscall.LOCK_UN) }
