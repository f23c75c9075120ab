package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// Dispatch is a step a route beside the host takes, queued while the run's lock is held and called
// once it is released.
type dispatch struct {
	await, Lane, role string
	round             int
	ret               string // the await's return path, relative to the repository
	route             string // rp, or a connection's name
	req               ports.ReviewRequest
	// call is the route's call: a review route's Review, or a runner's step (runnerroute.go).
	call func(context.Context) (ports.ReviewOutcome, error)
	// caps is what the step may spend at most of each bound its route holds it to (a runner's
	// limits.budget_usd where its CLI enforces it, Claude Code's --max-budget-usd, and its wall
	// clock); a review route's step is untimed, since a minutes budget counts runners' wall time.
	caps loop.Caps
}

// Answered is a dispatch and what its route said.
type answered struct {
	dispatch
	out ports.ReviewOutcome
	err error
}

// placeTries bounds how often the answer's placement waits for a lock another invocation holds.
const placeTries = 5

// callAndPlace calls the routes jobs names and runs the checks it queued, outside the run's lock, and
// places what they answer under it, round after round, adding to res what each placement did.
func (a *Deps) callAndPlace(ctx context.Context, verb, run string, w *routeWorker, res StepResult, jobs queued) (StepResult, error) {
	for round := 0; !jobs.empty() && round < 16; round++ {
		var checks []Checked
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			checks = a.runChecks(ctx, jobs.checks)
		}()
		outs := a.callRoutes(ctx, jobs.routes)
		wg.Wait()
		// Placing what came back must happen even when the person interrupted the step: the
		// fallback receipt says so, and the await stays the host's.
		placeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		more, next, err := a.withRunRetry(placeCtx, verb, run, w, func(placeCtx context.Context, st *step) (StepResult, bool, error) {
			did := st.recordChecks(checks)
			did = append(did, st.place(placeCtx, outs)...)
			adv, err := st.advance(placeCtx, nil)
			if ctx.Err() != nil {
				// Interrupted: the awaits this placement opened are the host's, and the checks it
				// queued wait for the next step.
				s := &st.state
				for _, j := range st.jobs {
					if i, k, ok := s.FindID(j.await); ok {
						did = append(did, st.fallBack(s.Lanes[i].Awaits[k], j.Lane, j.route, review.Interrupted, ""))
					}
				}
				st.jobs, st.checks = nil, nil
			}
			return StepResult{Did: append(did, adv...)}, true, err
		})
		cancel()
		if err != nil {
			if kept := a.keepAllAside(context.WithoutCancel(ctx), outs); len(kept) > 0 {
				if r, ok := refusal.As(err); ok && r.Kind == refusal.Contention {
					r.Why += "; the routes' answers are kept aside at " + strings.Join(kept, ", ")
				}
			}
			return res, err
		}
		res.Did = append(res.Did, more.Did...)
		res.Run, res.Next = more.Run, more.Next
		jobs = next
	}
	return res, nil
}

// callRoutes calls every queued route at once and waits for them all; each is bounded by its
// adapter and by ctx. Every text a route says is scrubbed of every credential abcd holds before
// anything else reads it.
func (a *Deps) callRoutes(ctx context.Context, jobs []dispatch) []answered {
	sc := a.Scrubber(ctx)
	outs := make([]answered, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := j.call(ctx)
			if err == nil && out.FallbackReason == "" && ctx.Err() != nil {
				out = ports.ReviewOutcome{FallbackReason: string(review.Interrupted), Return: out.Return, Runner: out.Runner}
			}
			outs[i] = answered{dispatch: j, out: core.ScrubOutcome(sc, out), err: core.ScrubError(sc, err)}
		}()
	}
	wg.Wait()
	return outs
}

// withRunRetry is withRun, waiting out another invocation's hold on the lock a few times more: an
// answer that came back must be placed or said, not lost to a busy lock.
func (a *Deps) withRunRetry(ctx context.Context, verb, run string, w *routeWorker, do func(context.Context, *step) (StepResult, bool, error)) (StepResult, queued, error) {
	for try := 1; ; try++ {
		res, jobs, err := a.withRun(ctx, verb, run, w, do)
		if r, ok := refusal.As(err); !ok || r.Kind != refusal.Contention || try == placeTries {
			return res, jobs, err
		}
	}
}

// place records what each route said, under the run's lock. An answer goes to the return path the
// host's agent would write, only while the await still asks this route and nothing stands there;
// it is verified and recorded as a host return is, with the route's name and its digest in the same
// state write. A return the host's agent wrote first stands, and the answer is kept aside. Anything
// else the route said is a fallback receipt; the await stays the host's.
func (st *step) place(ctx context.Context, outs []answered) []string {
	s := &st.state
	var did []string
	for _, o := range outs {
		lane, idx, ok := s.FindID(o.await)
		if !ok || s.Lanes[lane].Awaits[idx].Routing.Route != o.route || s.Lanes[lane].Awaits[idx].Routing.FellBack != "" {
			// The review stopped being the route's (recorded from the host, abandoned, handed on
			// as this process's when it seemed gone): an answer is kept aside, recorded nowhere.
			if len(o.out.Return) > 0 {
				did = append(did, st.keepAnswer(ctx, o, fmt.Sprintf("%s answered %s's %s after it was settled", o.route, o.role, kindOf(o.ret))))
			}
			continue
		}
		aw := s.Lanes[lane].Awaits[idx]
		if st.Runs.CheckFile(ctx, path.Dir(o.ret), o.ret) == "" {
			// The host's agent wrote the return first: it stands, and its receipt records it. What the
			// route said (an answer, or why it gave up: an interruption, say) is recorded nowhere; an
			// answer is kept aside.
			if len(o.out.Return) > 0 {
				did = append(did, st.keepAnswer(ctx, o, fmt.Sprintf("the host's return for %s stands", o.role)))
			}
			continue
		}
		switch {
		case o.err != nil:
			did = append(did, st.fallBack(aw, o.Lane, o.route, review.Failed, "the route failed: "+o.err.Error()))
			continue
		case o.out.FallbackReason != "":
			reason := review.FallbackReason(o.out.FallbackReason)
			if !reason.Valid() {
				reason = review.Failed
			}
			did = append(did, st.fallBack(aw, o.Lane, o.route, reason, o.out.FallbackDetail))
			if r := o.out.Runner; r != nil {
				st.noteCause(r.Cause, r)
			}
			if len(o.out.Return) > 0 {
				// An answer that came back after the step was interrupted is not placed, and never lost.
				did = append(did, st.keepAnswer(ctx, o, fmt.Sprintf("%s answered %s's %s after the step was interrupted", o.route, o.role, kindOf(o.ret))))
			}
			continue
		}
		// The answer is written with the state that records it, as one change: a kill between never
		// leaves the route's answer standing as though the host's agent wrote it.
		st.stage(o.ret, o.out.Return)
		sum := sha256.Sum256(o.out.Return)
		digest := hex.EncodeToString(sum[:])
		s.Lanes[lane].Awaits[idx].Answered = loop.Answer{Route: o.route, SHA256: digest, ModelAsked: o.out.ModelAsked,
			ModelReported: o.out.ModelReported, SchemaEnforced: o.out.SchemaEnforced, TokensIn: o.out.Usage.Prompt, TokensOut: o.out.Usage.Completion,
			CostUSD: o.out.CostUSD, CostSource: o.out.CostSource, Settings: o.req.Settings, Runner: o.out.Runner}
		if err := st.recordReturn(ctx, o.ret, o.route); err != nil {
			// The route's own answer is not written, so the host's agent writes there.
			st.unstage(o.ret)
			if i, j, ok := s.FindID(o.await); ok {
				s.Lanes[i].Awaits[j].Answered = loop.Answer{}
				did = append(did, st.fallBack(s.Lanes[i].Awaits[j], o.Lane, o.route, review.Invalid, refusalWhy(err)))
				if r := o.out.Runner; r != nil {
					cause := runner.CauseSchema // an answer whose return does not verify
					if o.role == loop.RoleImplementer {
						cause = "" // abcd's own receipt of the runner's work, refused: no cause of the runner's
					}
					st.noteCause(cause, r)
				}
			}
			continue
		}
		if aw.Role == loop.RoleImplementer {
			did = append(did, fmt.Sprintf("%s: the implementer's step (round %d) was taken by runner %s; abcd committed its work and the definition of done passed", o.Lane, aw.Round, o.route))
			did = append(did, st.recordRunnerCheck(lane, o.out)...)
			continue
		}
		word := ""
		if v, ok := lastVerdict(*s, lane, aw); ok {
			word = ": " + v.Word
		}
		did = append(did, fmt.Sprintf("%s: %s's %s (round %d) was answered by %s%s", o.Lane, o.role, kindOf(o.ret), o.round, o.route, word))
	}
	return did
}

// keepAnswer keeps a route's answer aside (keepAside) and says so after what happened: where it is
// kept, or why it could not be.
func (st *step) keepAnswer(ctx context.Context, o answered, happened string) string {
	kept, err := st.keepAside(ctx, o.ret, o.route, o.out.Return)
	if err != nil {
		return fmt.Sprintf("%s: %s; the answer could not be kept aside: %s", o.Lane, happened, err)
	}
	return fmt.Sprintf("%s: %s; the answer is kept aside at %s", o.Lane, happened, st.abs(kept))
}

func kindOf(ret string) string {
	switch {
	case strings.HasSuffix(ret, "/receipt.json"):
		return "step"
	case strings.HasSuffix(ret, ".json"):
		return "audit"
	}
	return "review"
}

// keepAside writes a route's answer beside the return path, create-only, under the next free name
// (rp-return.md, rp-return-2.md, ...): a name taken, even between a look and the write, is never
// replaced, and a name the step reports never holds part of an answer.
func (a *Deps) keepAside(ctx context.Context, ret, route string, data []byte) (string, error) {
	ext := path.Ext(ret)
	dir := path.Dir(ret)
	for n := 1; n < 100; n++ {
		name := fmt.Sprintf("%s/%s-return%s", dir, route, ext)
		if n > 1 {
			name = fmt.Sprintf("%s/%s-return-%d%s", dir, route, n, ext)
		}
		created, err := a.Runs.CreateFile(ctx, name, data)
		if err != nil {
			return "", err
		}
		if created {
			return name, nil
		}
	}
	return "", errors.New("no free name to keep the answer aside")
}

// keepAllAside keeps every answer of outs aside, for placements a busy lock stopped; an answer that
// could not be kept is said as a warning, never dropped in silence.
func (a *Deps) keepAllAside(ctx context.Context, outs []answered) []string {
	var kept []string
	for _, o := range outs {
		if o.err != nil || len(o.out.Return) == 0 {
			continue
		}
		p, err := a.keepAside(ctx, o.ret, o.route, o.out.Return)
		if err != nil {
			a.Warn(fmt.Sprintf("%s: %s's answer for %s could not be kept aside: %s", o.Lane, o.route, o.role, err))
			continue
		}
		kept = append(kept, a.Abs(p))
	}
	return kept
}

// routeWorker is an invocation's hold on the routes it calls. The first await it queues for a route
// beside the host takes a worker lock in the run's folder (RunStore.HoldWorker: an flock the system
// lets go when the process ends, however it ends), and each such await records it with the pid
// before the state that opens it is saved. The lock is let go once the routes' answers are placed.
// A later step that finds the lock free knows the process calling the route is gone (SIGKILL, a
// crash, a machine that stopped) and hands the step on (handOnGone), as Ctrl-C would have.
type routeWorker struct {
	held map[string]heldWorker // by run
}

type heldWorker struct {
	worker  loop.Worker
	release func()
}

// claim is the invocation's worker lock in run's folder, taken on first use.
func (w *routeWorker) claim(ctx context.Context, runs ports.RunStore, run string) (loop.Worker, error) {
	if h, ok := w.held[run]; ok {
		return h.worker, nil
	}
	pid, name, release, err := runs.HoldWorker(ctx, run)
	if err != nil {
		return loop.Worker{}, err
	}
	if w.held == nil {
		w.held = map[string]heldWorker{}
	}
	h := heldWorker{worker: loop.Worker{PID: pid, Lock: name}, release: release}
	w.held[run] = h
	return h.worker, nil
}

// done lets go of every worker lock the invocation took.
func (w *routeWorker) done() {
	for run, h := range w.held {
		h.release()
		delete(w.held, run)
	}
}

// claimJobs records the invocation's worker on every await the step queued for a route, before the
// state that opens them is saved: from then on a later step can tell whether its process still runs.
func (st *step) claimJobs(ctx context.Context) error {
	s := &st.state
	for _, j := range st.jobs {
		i, k, ok := s.FindID(j.await)
		if !ok {
			continue
		}
		aw := &s.Lanes[i].Awaits[k]
		if !aw.RouteWorking() || aw.Routing.Worker.Lock != "" {
			continue
		}
		if st.worker == nil {
			return errors.New("a step queued a route for " + aw.ID + " with no worker to hold it")
		}
		w, err := st.worker.claim(ctx, st.Runs, st.run)
		if err != nil {
			return err
		}
		aw.Routing.Worker = w
	}
	return nil
}

// handOnGone hands to the host every await a route was taking for a process that is gone: its
// worker lock is free (or it names none, as a state from before workers were recorded). The
// interrupted fallback is recorded, as Ctrl-C records it, and the step is the host's.
func (st *step) handOnGone(ctx context.Context) ([]string, error) {
	s := &st.state
	held := map[string]bool{}
	var did []string
	for _, ln := range s.Lanes {
		for _, aw := range ln.Awaits {
			if !aw.RouteWorking() {
				continue
			}
			lock := aw.Routing.Worker.Lock
			alive, seen := held[lock]
			if !seen {
				var err error
				if alive, err = st.Runs.WorkerHeld(ctx, st.run, lock); err != nil {
					return nil, err
				}
				held[lock] = alive
			}
			if alive {
				continue
			}
			why := "the process calling it ended before it answered"
			if pid := aw.Routing.Worker.PID; pid > 0 {
				why = fmt.Sprintf("the process calling it (pid %d) ended before it answered", pid)
			}
			did = append(did, st.fallBack(aw, ln.ID, aw.Routing.Route, review.Interrupted, why))
		}
	}
	return did, nil
}

// recordRunnerCheck records the definition of done abcd ran on a runner implementer's commit as the
// check of the lane's head for its round, when that commit is the head the check is due on: the
// command is not run twice on the same commit.
func (st *step) recordRunnerCheck(lane int, out ports.ReviewOutcome) []string {
	if out.DoD == nil || out.Runner == nil || len(out.Runner.Commits) != 1 {
		return nil
	}
	s := &st.state
	l := s.Lanes[lane]
	r := out.DoD
	c := loop.Check{Round: l.Round, Head: out.Runner.Commits[0], Command: s.DoD, ExitCode: r.ExitCode, Tail: r.Tail, Lines: r.Lines,
		Millis: r.Duration.Milliseconds(), Problem: r.Problem}
	if !s.RecordCheck(l.ID, c) {
		return nil
	}
	return []string{fmt.Sprintf("%s: abcd ran build.dod %s after the runner's step; it is the head's check", l.ID, c.Sentence())}
}
