package fake

import (
	"context"
	"sync"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// Runners is ports.Runners answering as told: Report for every Check (with Executable filled from
// the runner, or Found when the runner names none), Outcome for every Step; it keeps what it was
// asked.
type Runners struct {
	Report  ports.RunnerReport
	Found   string
	Outcome runner.Outcome
	Err     error
	// OnStep, when set, is what the step does while it runs (an implementer writing its worktree).
	OnStep func(req ports.RunnerStep)

	mu      sync.Mutex
	Checked []ports.RunnerCheck
	Steps   []ports.RunnerStep
}

var _ ports.Runners = (*Runners)(nil)

func (r *Runners) Check(_ context.Context, req ports.RunnerCheck) (ports.RunnerReport, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Checked = append(r.Checked, req)
	rep := r.Report
	rep.Executable = req.Runner.Executable
	if rep.Executable == "" {
		rep.Executable = r.Found
	}
	if req.Prove && req.Sandbox != nil && rep.Sandbox == nil {
		// The fence the proving call was asked to run in, as the adapter's receipt names it.
		kind := runner.SandboxLinux
		if req.Sandbox.Off {
			kind = runner.SandboxOff
		}
		rep.Sandbox = &runner.Sandbox{Kind: kind, Writable: []string{}, Hidden: req.Sandbox.Hide, Network: []string{}, Refused: []string{}}
	}
	return rep, r.Err
}

func (r *Runners) Step(_ context.Context, req ports.RunnerStep) (runner.Outcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Steps = append(r.Steps, req)
	if r.OnStep != nil {
		r.OnStep(req)
	}
	return r.Outcome, r.Err
}
