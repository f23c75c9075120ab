//go:build linux && (amd64 || arm64)

package runner

import "syscall"

// The pidfd calls, numbered alike on amd64 and arm64 (the standard library's syscall package names
// neither).
const (
	sysPidfdSendSignal = 424
	sysPidfdOpen       = 434
)

// killMarked sends SIGKILL to pid if it still carries the step's mark. It holds the process by a
// pidfd while it looks again, so a pid the kernel gave to another process since the sweep read it is
// never signalled: the look reads that other process (no mark, no signal), and the signal goes to
// the process the pidfd holds or to none. Before Linux 5.3 (no pidfd) the look and kill(2) remain,
// with the small window between them; so where a seccomp filter forbids pidfd_open.
func killMarked(pid int, marked func() bool) error {
	fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	// ENOSYS: a kernel without it; EPERM: a seccomp filter that forbids it (pidfd_open itself asks
	// for no permission).
	if e == syscall.ENOSYS || e == syscall.EPERM {
		if !marked() {
			return nil
		}
		return syscall.Kill(pid, syscall.SIGKILL)
	}
	if e != 0 {
		return e
	}
	defer syscall.Close(int(fd))
	if !marked() {
		return nil
	}
	if _, _, e := syscall.Syscall6(sysPidfdSendSignal, fd, uintptr(syscall.SIGKILL), 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}
