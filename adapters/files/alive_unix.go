//go:build unix

package files

import (
	"errors"
	"syscall"
)

// running reports whether a process with pid exists: signal 0 checks without sending, and a
// process of another user answers EPERM.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
