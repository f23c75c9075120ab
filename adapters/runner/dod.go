package runner

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// DoD runs a lane's definition of done (ports.DoD): the person's own command, through the system
// shell, in its own process group (which ends with it: a server a test left running does not outlive
// the run), stdin empty, stdout and stderr kept together, the last bytes only.
type DoD struct {
	// Shell runs the command (/bin/sh when empty); Environ is the environment (os.Environ when nil).
	Shell   string
	Environ func() []string
	// Grace is how long the group has between SIGTERM and SIGKILL (runner.Grace when 0).
	Grace time.Duration
}

var _ ports.DoD = DoD{}

// Run runs the command in req.Dir until it exits, its bound runs out or ctx ends.
func (d DoD) Run(ctx context.Context, req ports.DoDRun) (ports.DoDResult, error) {
	begun := time.Now()
	sh := cmp.Or(d.Shell, "/bin/sh")
	env := os.Environ()
	if d.Environ != nil {
		env = d.Environ()
	}
	// The person's own environment, with a git that never prompts: nothing can answer one.
	env = append(slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GIT_TERMINAL_PROMPT=") }), "GIT_TERMINAL_PROMPT=0")
	null, err := os.Open(os.DevNull)
	if err != nil {
		return ports.DoDResult{}, err
	}
	defer null.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return ports.DoDResult{}, err
	}
	p, err := start(sh, []string{"-c", req.Command}, env, req.Dir, null, outW, outW)
	outW.Close()
	if err != nil {
		outR.Close()
		return ports.DoDResult{}, fmt.Errorf("the definition of done could not be started: %s", pathless(err))
	}
	out := &ring{max: max(req.MaxOutput, 1)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 32<<10)
		for {
			n, err := outR.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	var res ports.DoDResult
	bound := time.NewTimer(req.Timeout)
	defer bound.Stop()
	select {
	case <-p.exited:
	case <-bound.C:
		res.TimedOut = true
	case <-ctx.Done():
		res.Interrupted = true
	}
	// Whatever the command left running in its group goes with it.
	p.end(cmp.Or(d.Grace, runner.Grace))
	outR.Close()
	<-read
	res.ExitCode, res.Signal = p.exit()
	if res.TimedOut || res.Interrupted {
		res.ExitCode = -1
	}
	res.Output, res.Cut, res.Duration = []byte(out.String()), out.cut(), time.Since(begun)
	return res, nil
}
