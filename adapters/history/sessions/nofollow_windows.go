//go:build windows

package sessions

import (
	"os"
	"syscall"
)

// openNoFollow opens path read-only, refusing a symbolic link as Unix's O_NOFOLLOW does (ELOOP):
// Windows has no such flag, so the name is looked at first.
func openNoFollow(path string) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return os.Open(path)
}
