package group

import (
	"os/exec"
	"runtime"
	"syscall"
)

// Start starts cmd as the leader of a new process group that the kernel kills when abcd dies (even
// by SIGKILL). It forks on a thread locked for the call: Linux sends the parent-death signal when the
// thread that forked the child exits, not the process, and Go retires threads at will.
func Start(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}
