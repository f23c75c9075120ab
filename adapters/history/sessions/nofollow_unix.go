//go:build unix

package sessions

import (
	"os"
	"syscall"
)

// openNoFollow opens path read-only without following a symbolic link (the open fails with ELOOP).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
