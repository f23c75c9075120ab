//go:build linux

package runner

import (
	"os/exec"
	"runtime"
	"syscall"
)

// dieWithParent has the kernel kill the CLI when abcd dies (even by SIGKILL).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// startLocked starts cmd on a thread that stays alive while the goroutine runs: Linux sends the
// parent-death signal when the thread that forked the child exits, not the process.
func startLocked(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}
