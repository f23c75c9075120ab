//go:build unix

package dod

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/abcd-dev/abcd/adapters/internal/group"
	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/ports"
)

// errNoShell is a machine with no /bin/sh to run build.dod through.
var errNoShell = errors.New("no shell")

// process is the shell running the command, the leader of its own process group: the group, not
// the shell alone, is what abcd ends.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	state  *os.ProcessState
}

// start runs the command through the shell with env, as the leader of its own process group; inside
// the fence policy describes when it is not nil (its own session then: the same group id).
func start(dir, command string, out *os.File, in []byte, env []string, fence *sandbox.Fence, policy *ports.SandboxPolicy) (*process, *sandbox.Running, error) {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		return nil, nil, errNoShell
	}
	cmd := &exec.Cmd{Path: sh, Args: []string{sh, "-c", command}, Dir: dir, Stdout: out, Stderr: out, Env: env}
	if in != nil {
		// The input is handed through a pipe Wait stops copying to a second after the shell exits,
		// so a command that never reads it holds nothing.
		cmd.Stdin, cmd.WaitDelay = bytes.NewReader(in), time.Second
	}
	var fenced *sandbox.Running
	if policy != nil {
		var err error
		if fenced, err = fence.Start(cmd, *policy); err != nil {
			return nil, nil, err
		}
	} else if err := group.Start(cmd); err != nil {
		return nil, nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the exit is read from the process state
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, fenced, nil
}

func (p *process) signal(sig syscall.Signal) {
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = p.cmd.Process.Signal(sig)
	}
}

// end asks the group to stop, then kills what is left of it after grace.
func (p *process) end(grace time.Duration) {
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
	}
	p.signal(syscall.SIGKILL)
	<-p.exited
}

// endGroup kills whatever the command left running in its group once the shell exited.
func (p *process) endGroup() { p.signal(syscall.SIGKILL) }

// exit is the shell's exit code, or -1 and the signal that ended it.
func (p *process) exit() (int, string) {
	<-p.exited
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return p.state.ExitCode(), ""
}
