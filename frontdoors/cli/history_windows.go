//go:build windows

package cli

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// appendNoFollow opens path to append, creating it, never through a link: Windows has no
// O_NOFOLLOW, so the name is looked at first.
func appendNoFollow(path string) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a symbolic link")}
	}
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
}

// detach starts the capture detached from the harness's console, in a process group of its own, so
// it outlives the harness that ran the hook.
func detach(cmd *exec.Cmd) {
	const detachedProcess = 0x00000008
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}
