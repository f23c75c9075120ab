//go:build windows

package dod

import (
	"bytes"
	"os"
	"os/exec"
	"time"

	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/ports"
)

// process is cmd.exe running the command. Windows has no process group abcd ends as one here: the
// shell itself is killed, and a child it started may outlive it.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	state  *os.ProcessState
}

// start runs the command through cmd.exe with env; a fence is refused (sandbox.Fence.Start says why).
func start(dir, command string, out *os.File, in []byte, env []string, fence *sandbox.Fence, policy *ports.SandboxPolicy) (*process, *sandbox.Running, error) {
	cmd := exec.Command("cmd.exe", "/C", command)
	cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.Env = dir, out, out, env
	if in != nil {
		cmd.Stdin, cmd.WaitDelay = bytes.NewReader(in), time.Second
	}
	if policy != nil {
		_, err := fence.Start(cmd, *policy)
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the exit is read from the process state
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, nil, nil
}

func (p *process) end(time.Duration) {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

func (p *process) endGroup() {}

func (p *process) exit() (int, string) {
	<-p.exited
	return p.state.ExitCode(), ""
}
