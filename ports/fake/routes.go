package fake

import (
	"context"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/ports"
)

// Validator answers every review with a fixed outcome, recording the requests.
type Validator struct {
	Name    string
	Outcome ports.ReviewOutcome
	// Answer, when set, answers per request instead of Outcome.
	Answer func(ports.ReviewRequest) ports.ReviewOutcome
	// During, when set, runs while the route "works", before it answers: what another invocation
	// does meanwhile. A non-nil result replaces the answer (an interrupted call, say).
	During   func(context.Context, ports.ReviewRequest) *ports.ReviewOutcome
	Err      error
	mu       sync.Mutex
	Requests []ports.ReviewRequest
}

func (v *Validator) Route() string { return v.Name }

func (v *Validator) Review(ctx context.Context, req ports.ReviewRequest) (ports.ReviewOutcome, error) {
	v.mu.Lock()
	v.Requests = append(v.Requests, req)
	v.mu.Unlock()
	if v.During != nil {
		if out := v.During(ctx, req); out != nil {
			return *out, nil
		}
	}
	if v.Answer != nil {
		return v.Answer(req), v.Err
	}
	return v.Outcome, v.Err
}

// Commands reads command lines with Read, a function a test provides (the real reader lives in
// adapters/shell, which ports may not import); without one, every line runs no command.
type Commands struct {
	Read func(line string) (guard.Line, error)
}

func (c Commands) ReadLine(line string) (guard.Line, error) {
	if c.Read == nil {
		return guard.Line{Commands: []guard.Command{}}, nil
	}
	return c.Read(line)
}

// Providers opens every call as Validator (or a fresh one answering Outcome) and answers Verify
// with Check, recording the calls.
type Providers struct {
	Check     ports.ProviderCheck
	Outcome   ports.ReviewOutcome
	Validator *Validator
	mu        sync.Mutex
	Calls     []ports.ProviderCall
	Verified  []ports.ProviderCall
	OpenErr   error
}

func (p *Providers) Open(call ports.ProviderCall) (ports.Validator, error) {
	p.mu.Lock()
	p.Calls = append(p.Calls, call)
	p.mu.Unlock()
	if p.OpenErr != nil {
		return nil, p.OpenErr
	}
	if p.Validator != nil {
		return p.Validator, nil
	}
	return &Validator{Name: call.Name, Outcome: p.Outcome}, nil
}

func (p *Providers) Verify(_ context.Context, call ports.ProviderCall) (ports.ProviderCheck, error) {
	p.Verified = append(p.Verified, call)
	return p.Check, nil
}

// DoD plays the definition of done: each run is recorded, and Result (nil: exit 0, "ok") says how it
// ended. It stands in for a shell only where the checkout is the fake Git's, which has no folder.
type DoD struct {
	mu     sync.Mutex
	Calls  []DoDCall
	Result func(dir, command string) ports.DoDResult
}

// DoDCall is one run of the definition of done; Fenced holds the fence and the names RunFenced was
// given (nil for Run).
type DoDCall struct {
	Dir, Command string
	Fenced       *ports.DoDRun
}

// RunFenced is Run, recording the fence and the names it was asked for: the fake runs nothing, so it
// has no fence to build.
func (d *DoD) RunFenced(ctx context.Context, run ports.DoDRun) (ports.DoDResult, error) {
	res, err := d.Run(ctx, run.Dir, run.Command, run.Timeout)
	if err == nil {
		d.mu.Lock()
		d.Calls[len(d.Calls)-1].Fenced = &run
		d.mu.Unlock()
	}
	return res, err
}

func (d *DoD) Run(ctx context.Context, dir, command string, _ time.Duration) (ports.DoDResult, error) {
	if err := ctx.Err(); err != nil {
		return ports.DoDResult{}, err
	}
	d.mu.Lock()
	d.Calls = append(d.Calls, DoDCall{Dir: dir, Command: command})
	d.mu.Unlock()
	if d.Result != nil {
		res := d.Result(dir, command)
		if err := ctx.Err(); err != nil {
			return ports.DoDResult{}, err // ended while it ran, as the shell's is
		}
		return res, nil
	}
	return ports.DoDResult{ExitCode: 0, Tail: "ok\n", Lines: 1, Duration: 1500 * time.Millisecond}, nil
}

// Ran is how many times the definition of done ran.
func (d *DoD) Ran() []DoDCall {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]DoDCall(nil), d.Calls...)
}
