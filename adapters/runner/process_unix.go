//go:build unix

package runner

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/adapters/internal/group"
	"github.com/abcd-dev/abcd/adapters/sandbox"
)

// process is one CLI in its own process group: the group, not the CLI alone, is what a step ends.
type process struct {
	cmd     *exec.Cmd
	pgid    int
	exited  chan struct{} // closed once the CLI exited and was reaped
	state   *os.ProcessState
	waitErr error
	// mark is the variable (NAME=value) in the CLI's environment, and so in everything it starts,
	// that names this process's tree wherever its members went (see sweep).
	mark string
	// fenced is the fence the CLI runs in (its network's forwarders); nil when unconfined.
	fenced *sandbox.Running
}

// start runs path directly (no shell) as the leader of a new process group, with stdin from the
// prompt file and stdout and stderr to the pipes given; on Linux it also dies when abcd does. With a
// fence it starts inside it (adapters/sandbox: the leader of a session of its own, the same group id).
func start(path string, args, env []string, dir string, stdin *os.File, stdout, stderr *os.File, fence *fencing) (*process, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	mark := MarkVar + "=" + hex.EncodeToString(id[:])
	env = append(env[:len(env):len(env)], mark)
	cmd := &exec.Cmd{Path: path, Args: append([]string{path}, args...), Env: env, Dir: dir, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	var fenced *sandbox.Running
	if fence != nil {
		var err error
		if fenced, err = fence.fence.Start(cmd, fence.policy); err != nil {
			return nil, err
		}
	} else if err := group.Start(cmd); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, pgid: cmd.Process.Pid, exited: make(chan struct{}), mark: mark, fenced: fenced}
	go func() {
		p.waitErr = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, nil
}

// signalGroup sends sig to every process of the group; a group already gone is not an error.
func (p *process) signalGroup(sig syscall.Signal) {
	if err := syscall.Kill(-p.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		// EPERM here would mean a member changed its credentials (a setuid program); SIGKILL to the
		// leader below still ends the CLI itself.
		_ = p.cmd.Process.Signal(sig)
	}
}

// end ends the group: SIGTERM, up to grace for the CLI to exit, then SIGKILL to whatever of the group
// remains (children that ignore SIGTERM, or that the CLI left behind), and to whatever the CLI started
// that left the group (sweep). It returns once the CLI was reaped, or after a further grace if it
// cannot be (a process in uninterruptible sleep). It names what of the CLI's tree it could not end
// (sweep), nil when nothing is left.
func (p *process) end(grace time.Duration) (left []string) {
	defer func() { left = sweep(p.mark) }()
	select {
	case <-p.exited:
	default:
		p.signalGroup(syscall.SIGTERM)
		t := time.NewTimer(grace)
		select {
		case <-p.exited:
		case <-t.C:
		}
		t.Stop()
	}
	p.signalGroup(syscall.SIGKILL)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
	}
	return nil // the sweep, deferred, says what is left
}

// exit is the CLI's exit code, or -1 and the signal that ended it; -1 and "" while it runs.
func (p *process) exit() (int, string) {
	select {
	case <-p.exited:
	default:
		return -1, ""
	}
	if p.state == nil {
		return -1, ""
	}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, signalName(ws.Signal())
	}
	return p.state.ExitCode(), ""
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return "signal"
}

// openNoFollow opens path read-only without following a symbolic link, and without blocking when it
// is a FIFO with no writer (the caller refuses anything but a regular file once it is open).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
