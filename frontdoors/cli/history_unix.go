//go:build unix

package cli

import (
	"os"
	"os/exec"
	"syscall"
)

// appendNoFollow opens path to append, creating it 0600, never through a link.
func appendNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
}

// detach puts the capture in a session of its own, so it outlives the harness that ran the hook.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
