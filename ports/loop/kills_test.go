package loop_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// An await a route is working on names the process calling it (its pid and the lock it holds),
// saved before the route is called; a step taken meanwhile leaves it with the route, since the lock
// is held; once the routes are placed the lock is let go.
func TestAnAwaitARouteWorksOnNamesItsProcess(t *testing.T) {
	var w apptest.LoopWorld
	var mu sync.Mutex
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			mu.Lock()
			defer mu.Unlock()
			for _, aw := range apptest.RunStateOf(t, w.Rs, w.Run).OpenAwaits() {
				if aw.Role == loop.RoleImplementer {
					continue
				}
				assert.Check(t, aw.RouteWorking(), aw.Role)
				assert.Check(t, is.Equal(aw.Routing.Worker.PID, 4242), aw.Role)
				assert.Check(t, aw.Routing.Worker.Lock != "", aw.Role)
				assert.Check(t, w.Rs.Workers[w.Run+"/"+aw.Routing.Worker.Lock], "the lock it names is held")
			}
			if req.Role == loop.RoleRuthless {
				step := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
				assert.Check(t, !strings.Contains(strings.Join(step.Did, "\n"), "interrupted"), "%v", step.Did)
				assert.Check(t, is.Len(apptest.RunStateOf(t, w.Rs, w.Run).Fallbacks, 0), "a route still working is left to it")
			}
			return nil
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: apptest.VerdictFor(req.Role)}
		}}
	w = apptest.NewLoopWorld(t, v)
	w.Receipt(t)
	assert.Check(t, is.Len(w.Record(t).Verdicts, 2))
	assert.Check(t, is.Len(w.Rs.Workers, 0), "the worker lock is let go once the answers are placed")
}

// A step that finds the process calling a route gone (its lock free: a kill -9) records the
// interrupted fallback, as Ctrl-C does, and hands the review to the host: its next line says so. An
// answer that comes after (it cannot, from a dead process; here the lock was dropped by hand) is
// kept aside, recorded nowhere.
func TestAStepHandsOnAReviewWhoseProcessIsGone(t *testing.T) {
	var w apptest.LoopWorld
	var mu sync.Mutex
	var step loopuc.StepResult
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			mu.Lock()
			defer mu.Unlock()
			if req.Role == loop.RoleRuthless {
				for k := range w.Rs.Workers {
					delete(w.Rs.Workers, k) // the process that held it is gone
				}
				step = apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
			}
			return nil
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: apptest.VerdictFor(req.Role)}
		}}
	w = apptest.NewLoopWorld(t, v)
	res := w.Receipt(t)
	did := strings.Join(step.Did, "\n")
	assert.Check(t, is.Contains(did, "ruthless-reviewer's review (round 1) is the host's: rp fell back (interrupted)"))
	assert.Check(t, is.Contains(did, "security-reviewer's review (round 1) is the host's: rp fell back (interrupted)"))
	s := apptest.RunStateOf(t, w.Rs, w.Run)
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
	assert.Check(t, is.Len(w.Record(t).Verdicts, 0), "the late answers are recorded nowhere")
	assert.Check(t, is.Contains(strings.Join(res.Did, "\n"), "kept aside"), "%v", res.Did)
}

// A state written before awaits named their process (an await a route took, with no worker) is
// handed on by the next step: nothing could ever answer it.
func TestARouteAwaitWithNoWorkerIsHandedOn(t *testing.T) {
	var w apptest.LoopWorld
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			return &ports.ReviewOutcome{FallbackReason: "interrupted"}
		}}
	w = apptest.NewLoopWorld(t, v)
	w.Receipt(t)
	// Make one of the awaits the route's again, as an older abcd left it.
	s := apptest.RunStateOf(t, w.Rs, w.Run)
	for i := range s.Lanes {
		for j := range s.Lanes[i].Awaits {
			s.Lanes[i].Awaits[j].Routing.FellBack, s.Lanes[i].Awaits[j].Routing.Worker = "", loop.Worker{}
		}
	}
	w.Rs.Files[loop.RunDir(w.Run)+"/state.json"] = loop.Encode(s)
	step := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run})
	assert.Check(t, is.Contains(strings.Join(step.Did, "\n"), "rp fell back (interrupted)"), "%v", step.Did)
	for _, aw := range apptest.RunStateOf(t, w.Rs, w.Run).OpenAwaits() {
		assert.Check(t, !aw.RouteWorking())
	}
}
