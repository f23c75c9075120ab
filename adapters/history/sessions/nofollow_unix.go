//go:build unix

package sessions

import (
	"os"
	"syscall"
)

// openNoFollow opens path read-only without following a symbolic link (the open fails with ELOOP)
// and without waiting: a FIFO put at the name opens at once (without O_NONBLOCK its open waits for a
// writer), for openRegular to refuse.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
