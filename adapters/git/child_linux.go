package git

import (
	"os/exec"
	"syscall"
)

// dieWithUs has the kernel kill git when abcd dies: a harness that kills abcd (SIGKILL on a timeout)
// must not leave git writing a worktree that the command, run again, is about to make afresh.
func dieWithUs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
