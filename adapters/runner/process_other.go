//go:build unix && !linux

package runner

import (
	"os/exec"
	"syscall"
)

// dieWithParent: only Linux has a parent-death signal; elsewhere the group is ended by abcd itself
// (every path of a step, and Ctrl-C or SIGTERM through the step's context).
func dieWithParent(*syscall.SysProcAttr) {}

func startLocked(cmd *exec.Cmd) error { return cmd.Start() }
