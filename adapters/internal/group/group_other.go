//go:build unix && !linux

package group

import (
	"os/exec"
	"syscall"
)

// Start starts cmd as the leader of a new process group. Only Linux has a parent-death signal;
// elsewhere the group is ended by the adapter itself (every path, and Ctrl-C or SIGTERM through its
// context).
func Start(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Start()
}
