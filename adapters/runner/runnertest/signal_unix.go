//go:build unix

package runnertest

import (
	"os"
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, out of the fake's process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// raise has the fake CLI end itself by the signal named (KILL or SEGV), as a crashing CLI does.
func raise(name string) {
	sig := map[string]syscall.Signal{"KILL": syscall.SIGKILL, "SEGV": syscall.SIGSEGV}[name]
	_ = syscall.Kill(os.Getpid(), sig)
}
