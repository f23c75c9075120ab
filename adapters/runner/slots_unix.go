//go:build unix

package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// tryFiles takes the first free slot file of the runner's n, without waiting; nil when all are held.
func tryFiles(dir, name string, n int) (func(), error) {
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%s.%d.lock", name, i))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("opening a runner's slot file: %s", pathless(err))
		}
		// A slot file holds no data: closing it only releases the lock, and its error loses nothing.
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			_ = f.Close()
			if err == syscall.EWOULDBLOCK || err == syscall.EINTR {
				continue
			}
			return nil, fmt.Errorf("locking a runner's slot file: %w", err)
		}
		return sync.OnceFunc(func() { _ = f.Close() }), nil
	}
	return nil, nil
}
