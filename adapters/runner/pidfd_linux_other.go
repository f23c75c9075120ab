//go:build linux && !(amd64 || arm64)

package runner

import "syscall"

// killMarked sends SIGKILL to pid if it still carries the step's mark. Here abcd knows no pidfd call
// numbers, so a small window stays between the look and kill(2).
func killMarked(pid int, marked func() bool) error {
	if !marked() {
		return nil
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}
