package app_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
)

// stateOf is the run's state as the store holds it.
func stateOf(t *testing.T, rs *fake.Runs, run string) loop.State {
	t.Helper()
	s, err := loop.Decode("state.json", rs.Files[loop.RunDir(run)+"/state.json"])
	assert.NilError(t, err)
	return s
}

// An await a route is working on names the process calling it (its pid and the lock it holds),
// saved before the route is called; a step taken meanwhile leaves it with the route, since the lock
// is held; once the routes are placed the lock is let go.
func TestAnAwaitARouteWorksOnNamesItsProcess(t *testing.T) {
	var w loopWorld
	var mu sync.Mutex
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			mu.Lock()
			defer mu.Unlock()
			for _, aw := range stateOf(t, w.rs, w.run).OpenAwaits() {
				if aw.Role == loop.RoleImplementer {
					continue
				}
				assert.Check(t, aw.RouteWorking(), aw.Role)
				assert.Check(t, is.Equal(aw.Routing.Worker.PID, 4242), aw.Role)
				assert.Check(t, aw.Routing.Worker.Lock != "", aw.Role)
				assert.Check(t, w.rs.Workers[w.run+"/"+aw.Routing.Worker.Lock], "the lock it names is held")
			}
			if req.Role == loop.RoleRuthless {
				step := recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": w.run})
				assert.Check(t, !strings.Contains(strings.Join(step.Did, "\n"), "interrupted"), "%v", step.Did)
				assert.Check(t, is.Len(stateOf(t, w.rs, w.run).Fallbacks, 0), "a route still working is left to it")
			}
			return nil
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: verdictFor(req.Role)}
		}}
	w = newLoopWorld(t, v)
	w.receipt(t)
	assert.Check(t, is.Len(w.record(t).Verdicts, 2))
	assert.Check(t, is.Len(w.rs.Workers, 0), "the worker lock is let go once the answers are placed")
}

// A step that finds the process calling a route gone (its lock free: a kill -9) records the
// interrupted fallback, as Ctrl-C does, and hands the review to the host: its next line says so. An
// answer that comes after (it cannot, from a dead process; here the lock was dropped by hand) is
// kept aside, recorded nowhere.
func TestAStepHandsOnAReviewWhoseProcessIsGone(t *testing.T) {
	var w loopWorld
	var mu sync.Mutex
	var step app.StepResult
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			mu.Lock()
			defer mu.Unlock()
			if req.Role == loop.RoleRuthless {
				for k := range w.rs.Workers {
					delete(w.rs.Workers, k) // the process that held it is gone
				}
				step = recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": w.run})
			}
			return nil
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: verdictFor(req.Role)}
		}}
	w = newLoopWorld(t, v)
	res := w.receipt(t)
	did := strings.Join(step.Did, "\n")
	assert.Check(t, is.Contains(did, "ruthless-reviewer's review (round 1) is the host's: rp fell back (interrupted)"))
	assert.Check(t, is.Contains(did, "security-reviewer's review (round 1) is the host's: rp fell back (interrupted)"))
	s := stateOf(t, w.rs, w.run)
	assert.Assert(t, is.Len(s.Fallbacks, 2))
	for _, f := range s.Fallbacks {
		assert.Check(t, is.Equal(f.Reason, "interrupted"))
		assert.Check(t, is.Contains(f.Detail, "the process calling it (pid 4242) ended before it answered"))
	}
	for _, aw := range s.OpenAwaits() {
		assert.Check(t, !aw.RouteWorking())
		if aw.Role != loop.RoleImplementer {
			assert.Check(t, is.Contains(loop.Next(aw).String(), "rp did not take this review"))
		}
	}
	assert.Check(t, is.Len(w.record(t).Verdicts, 0), "the late answers are recorded nowhere")
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "kept aside"), "%v", res.Did)
}

// A state written before awaits named their process (an await a route took, with no worker) is
// handed on by the next step: nothing could ever answer it.
func TestARouteAwaitWithNoWorkerIsHandedOn(t *testing.T) {
	var w loopWorld
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			return &ports.ReviewOutcome{FallbackReason: "interrupted"}
		}}
	w = newLoopWorld(t, v)
	w.receipt(t)
	// Make one of the awaits the route's again, as an older abcd left it.
	s := stateOf(t, w.rs, w.run)
	for i := range s.Lanes {
		for j := range s.Lanes[i].Awaits {
			s.Lanes[i].Awaits[j].Routing.FellBack, s.Lanes[i].Awaits[j].Routing.Worker = "", loop.Worker{}
		}
	}
	w.rs.Files[loop.RunDir(w.run)+"/state.json"] = loop.Encode(s)
	step := recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": w.run})
	assert.Check(t, is.Contains(strings.Join(step.Did, "\n"), "rp fell back (interrupted)"), "%v", step.Did)
	for _, aw := range stateOf(t, w.rs, w.run).OpenAwaits() {
		assert.Check(t, !aw.RouteWorking())
	}
}
