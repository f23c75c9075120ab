package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/loop/notify"
	"github.com/abcd-dev/abcd/ports/verb"
)

// ImplementRunInput names the spec whose run to drive (started when it has none unfinished), or the
// run itself, and the route flags a step takes.
type ImplementRunInput struct {
	Spec record.Ref `json:"spec,omitempty"`
	Run  loop.RunID `json:"run,omitempty"`
	// Base is the commit a new run's lanes start from (as implement start takes it).
	Base   loop.Revision      `json:"base,omitempty"`
	Routes []oracle.RouteText `json:"routes,omitempty" jsonschema:"maxItems=8"`
	// BudgetUSD, BudgetTokens and BudgetMinutes bound what the run may spend in all, for this
	// invocation, over build.budget's.
	BudgetUSD     loop.BudgetUSD     `json:"budget_usd,omitempty"`
	BudgetTokens  loop.BudgetTokens  `json:"budget_tokens,omitempty"`
	BudgetMinutes loop.BudgetMinutes `json:"budget_minutes,omitempty"`
	// Finish is how the run ends once its audit passed, for this invocation, over build.finish's:
	// branch, merge or pr.
	Finish loop.Finish `json:"finish,omitempty"`
}

// RunEnded is why the driver stopped.
type RunEnded string

const (
	// EndedFinished: the run is over (every lane delivered or handed back).
	EndedFinished RunEnded = "finished"
	// EndedHost: only the host's work is left (steps no route beside it takes, or ones a route gave
	// up); next says what to do, and the same command goes on once it is done.
	EndedHost RunEnded = "host"
	// EndedInterrupted: the person (Ctrl-C, SIGTERM) or the caller stopped it; every step a route was
	// taking is recorded as interrupted, and the same command goes on with the run.
	EndedInterrupted RunEnded = "interrupted"
	// EndedBudget: the next step would have gone over the run's budget, so none was started; the
	// steps that ran are recorded, the lanes are where they were, and the same command with a bigger
	// budget goes on.
	EndedBudget RunEnded = "budget"
)

func (RunEnded) SchemaEnum() contract.Rule {
	return contract.Enum(EndedFinished, EndedHost, EndedInterrupted, EndedBudget)
}

// ImplementRunResult is where the driver left the run: the run as it stands, what every step did,
// why it stopped, what the person or harness does next, how many steps routes beside the host were
// asked to take, and how many steps went to the host meanwhile, as the run's record counts them
// (implement record's fallbacks): a route that failed, and a return refused when it was placed.
type ImplementRunResult struct {
	Run      RunView     `json:"run"`
	Did      []string    `json:"did"`
	Next     []hint.Next `json:"next"`
	Ended    RunEnded    `json:"ended"`
	Routed   int         `json:"routed" jsonschema:"minimum=0"`
	FellBack int         `json:"fell_back" jsonschema:"minimum=0"`
	// Budget is the budget the run was driven under; what it spent is Run.Spend.
	Budget loop.BudgetView `json:"budget"`
}

func runVerb() verb.Verb {
	return verb.Declare(verb.Verb{Name: "implement_run", Path: []string{"implement", "run"}, Example: "abcd implement run cache-the-schema\nabcd implement run cache-the-schema --budget-usd 5\nabcd implement run cache-the-schema --finish pr",
		Summary:   "Start or go on with a spec's run and drive it unattended: every step a runner (or another route beside the host) takes, until the run is finished or only the host's work is left",
		OpenWorld: true, Dispatches: validatorAgents, Long: true},
		implementRun)
}

// placeBound bounds one placement of an answer, interrupted or not: the answer is placed or kept.
const placeBound = time.Minute

func implementRun(ctx context.Context, a *Deps, in *ImplementRunInput) (ImplementRunResult, error) {
	const verb = "implement_run"
	routes, err := a.Routes(ctx, verb, in.Routes)
	if err != nil {
		return ImplementRunResult{}, err
	}
	budget, err := a.budgetOf(ctx, in)
	if err != nil {
		return ImplementRunResult{}, err
	}
	settled, err := a.settleFinished(ctx, verb)
	if err != nil {
		return ImplementRunResult{}, err
	}
	run, err := a.runToDrive(ctx, verb, in)
	if err != nil {
		return ImplementRunResult{}, err
	}
	if a.Finisher != nil {
		if err := a.Finisher.Ready(ctx, a, in, run); err != nil {
			return ImplementRunResult{}, err
		}
	}
	res := ImplementRunResult{Did: settled}
	if run == "" {
		// A new run: everything it will use is checked before it is made, as before any lane starts.
		if err := a.checkRunners(ctx, verb, routes, ""); err != nil {
			return ImplementRunResult{}, err
		}
		started, err := implementStart(ctx, a, &ImplementStartInput{Spec: in.Spec, Base: in.Base})
		if err != nil {
			return ImplementRunResult{}, err
		}
		run = started.Run.Run
		res.Did = append(res.Did, started.Did...)
		a.event(ctx, ports.ProgressEvent{Run: run, Kind: "did", Text: "started run " + run + " for " + string(in.Spec)})
	} else {
		s, err := a.LoadRun(ctx, run)
		if err != nil {
			return ImplementRunResult{}, err
		}
		if !s.Finished() {
			if err := a.checkRunners(ctx, verb, routes, s.DoD); err != nil {
				return ImplementRunResult{}, err
			}
		} else if in.Run == "" {
			res.Did = append(res.Did, fmt.Sprintf("run %s of %s finished before, every lane delivered: the spec is done (to run it again, start a run with abcd implement start %s)", run, s.Spec, s.Spec))
		}
	}
	d := &driver{a: a, verb: verb, run: run, routes: routes, given: oracle.Texts(in.Routes), w: &routeWorker{}, res: res, purse: loop.Purse{Budget: budget}}
	defer d.w.done()
	ctx, traced := a.TraceRun(ctx, a.Tracer, loop.RunSpan{Run: run, Spec: string(in.Spec)})
	res, err = d.drive(ctx)
	traced(loop.RunEnd{Ended: string(res.Ended), Routed: res.Routed, FellBack: res.FellBack, Spend: res.Run.Spend.Run}, err)
	if err == nil && res.Ended == EndedFinished && a.Finisher != nil {
		err = a.Finisher.Finish(ctx, a, in, &res)
	}
	a.notifyEnd(ctx, run, string(in.Spec), res, err)
	return res, err
}

// notifyEnd tells the person how the run ended, where it is worth telling (notify.Send); a run the
// caller stopped is not.
func (a *Deps) notifyEnd(ctx context.Context, run, spec string, res ImplementRunResult, err error) {
	if errors.Is(err, context.Canceled) || ctx.Err() != nil && err != nil {
		return
	}
	end := notify.End{Run: run, Spec: cmp.Or(res.Run.Spec, spec), Ended: string(res.Ended), Err: err, Spend: res.Run.Spend.Run, Budget: res.Budget, At: a.Clock.Now()}
	for _, l := range res.Run.Lanes {
		end.Stages = append(end.Stages, l.Stage)
	}
	if len(res.Next) > 0 {
		end.Next = res.Next[len(res.Next)-1].String() // the driver's own, after the awaits' hints
	}
	notify.Send(ctx, a.Core, a.Notifier, func() { a.event(ctx, ports.ProgressEvent{Run: run, Kind: "bell"}) }, end)
}

// runToDrive is the run the input names: the run given; else the spec's one unfinished run ("" when
// it has none, so the driver starts one); else the one unfinished run.
func (a *Deps) runToDrive(ctx context.Context, verb string, in *ImplementRunInput) (string, error) {
	if in.Run != "" {
		s, err := a.LoadRun(ctx, string(in.Run))
		if err != nil {
			return "", err
		}
		if in.Spec != "" && s.Spec != string(in.Spec) {
			return "", refusal.New(refusal.CodeRunMismatch, string(in.Run), fmt.Sprintf("is a run of %s, not of %s", runOf(s), in.Spec),
				"name the spec's run, or leave one of them out").On(verb, "run")
		}
		return string(in.Run), nil
	}
	if in.Spec == "" {
		return a.pickRun(ctx, verb, "")
	}
	_, spec, err := a.Record.Spec(ctx, verb, "spec", in.Spec)
	if err != nil {
		return "", err
	}
	active, err := a.activeRuns(ctx, spec.Front.ID)
	if err != nil {
		return "", err
	}
	switch len(active) {
	case 0:
		// The spec's last run delivered every lane: the spec is done, and the same command run
		// again (its answer lost to a kill as the run ended) reports that run rather than start the
		// spec over. Another run of it is started by implement start.
		return a.deliveredRun(ctx, spec.Front.ID)
	case 1:
		return active[0], nil
	}
	return "", refusal.New(refusal.CodeRunAmbiguous, spec.Front.ID, fmt.Sprintf("has %d unfinished runs: %v", len(active), active),
		"name one with ", refusal.Field(verb, "run")).On(verb, "run")
}

func runOf(s loop.State) string {
	if s.Spec != "" {
		return s.Spec
	}
	return "no spec (a " + string(s.Kind) + " run)"
}

// anyRunner says a runner takes some of the run's steps: the machine sends a role to one, or a route
// flag names one.
func (a *Deps) anyRunner(ctx context.Context, routes map[string]oracle.FlagRoute) (bool, error) {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return false, err
	}
	_, runners, err := core.MachineRoutes(stack)
	if err != nil {
		return false, err
	}
	for _, fr := range routes {
		if _, ok := runners.Runner(fr.Connection); ok {
			return true, nil
		}
	}
	return len(runners.Agents()) > 0, nil
}

// checkRunners checks, before any lane starts, every runner the run's steps may be sent to (the ones
// the machine sends a role to, and any a route flag names): each CLI is the one connected (its
// version, every flag abcd passes); and an implementer sent to a runner needs a definition of done
// to prove its work by (dod is the run's; "" for a new run, which takes build.dod).
func (a *Deps) checkRunners(ctx context.Context, verb string, routes map[string]oracle.FlagRoute, dod string) error {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return err
	}
	_, runners, err := core.MachineRoutes(stack)
	if err != nil {
		return err
	}
	var names []string
	add := func(n string) {
		if _, ok := runners.Runner(n); ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, agent := range runners.Agents() {
		role, _ := runners.Sent(agent)
		add(role.Runner)
	}
	for _, fr := range routes {
		add(fr.Connection)
	}
	if len(names) == 0 {
		return nil
	}
	if err := a.PreflightRunners(ctx, names...); err != nil {
		return err
	}
	if role, ok := runners.Sent(loop.RoleImplementer); ok {
		if dod == "" {
			configured, err := config.Get[string](stack, "build.dod")
			if err != nil {
				return core.ConfigRefusal(err)
			}
			dod = configured.V
		}
		if dod == "" {
			return refusal.New(refusal.CodeRunnerNeedsDoD, "", fmt.Sprintf("the implementer is sent to runner %s, but no definition of done would prove its work", role.Runner),
				"set build.dod in .abcd/config.json (for example \"make test\"), then start the run again; a run keeps the build.dod it started with").On(verb, "")
		}
	}
	return nil
}

// driver drives one run: it keeps every step a route beside the host takes moving, placing each
// answer as soon as it comes.
type driver struct {
	a      *Deps
	verb   string
	run    string
	routes map[string]oracle.FlagRoute
	given  []string
	// w is the invocation's hold on the routes it calls, recorded on each await it takes.
	w    *routeWorker
	res  ImplementRunResult
	last StepResult
	// fallbacksBefore is how many fallbacks the run's record held when the driver took it: the steps
	// that went to the host since are the record's count, whatever gave them back (a route's
	// failure, or a return refused when it was placed).
	fallbacksBefore int
	// purse is the run's budget as its steps start and come back; waiting the steps it holds back
	// until the running ones are done.
	purse   loop.Purse
	waiting []dispatch
}

func (d *driver) drive(ctx context.Context) (ImplementRunResult, error) {
	a := d.a
	// The first step: the route flags kept, the interrupted steps a runner was taking handed back to
	// it, and what is due opened.
	first, jobs, err := a.withRunRetry(ctx, d.verb, d.run, d.w, func(ctx context.Context, st *step) (StepResult, bool, error) {
		changed := false
		d.fallbacksBefore = len(st.state.Fallbacks)
		if len(d.given) > 0 && !slices.Equal(d.given, st.state.Routes) {
			st.state.Routes, changed = d.given, true
		}
		did, err := st.resume(ctx)
		if err != nil {
			return StepResult{}, false, err
		}
		more, err := st.advance(ctx, d.routes)
		did = append(did, more...)
		return StepResult{Did: did}, changed || len(did) > 0, err
	})
	if err != nil {
		return ImplementRunResult{}, err
	}
	d.took(ctx, first)
	results := make(chan came)
	running := 0
	sc := a.Scrubber(ctx)
	start := func(q queued) {
		admitted, stopped := loop.Admit(&d.purse, q.routes, func(j dispatch) string { return j.await },
			func(j dispatch) loop.Caps { return j.caps }, &d.waiting)
		for _, j := range stopped {
			// Not started: recorded as interrupted, so the same command with a bigger budget hands
			// it to its route again.
			running++
			go func() { results <- came{Routes: []answered{{dispatch: j, out: d.budgetStop()}}} }()
		}
		for _, j := range admitted {
			running++
			d.res.Routed++
			a.event(ctx, ports.ProgressEvent{Run: d.run, Lane: j.Lane, Role: j.role, Route: j.route, Kind: "started",
				Text: fmt.Sprintf("%s %s: %s takes the %s (round %d)", j.Lane, j.role, j.route, kindOf(j.ret), j.round)})
			ended := core.TraceStep(ctx, a.Tracer, sc, loop.StepSpan{Run: d.run, Lane: j.Lane, Role: j.role, Round: j.round, Kind: kindOf(j.ret), Route: j.route})
			go func() {
				out, err := j.call(ctx)
				if err == nil && out.FallbackReason == "" && ctx.Err() != nil {
					out = ports.ReviewOutcome{FallbackReason: string(review.Interrupted), Return: out.Return, Runner: out.Runner}
				}
				out, err = core.ScrubOutcome(sc, out), core.ScrubError(sc, err)
				ended(out, err)
				results <- came{Routes: []answered{{dispatch: j, out: out, err: err}}}
			}()
		}
		if len(q.checks) > 0 {
			// The definition of done on each head that waits for it, one after another (runChecks).
			running++
			go func() { results <- came{Checks: a.runChecks(ctx, q.checks)} }()
		}
	}
	start(jobs)
	var placeErr error
	for running > 0 {
		o := gather(results, &running)
		for _, r := range o.Routes {
			d.purse.Came(r.await)
		}
		for _, r := range o.Routes {
			kind := "answered"
			if r.err != nil || r.out.FallbackReason != "" {
				kind = "fell-back"
			}
			ev := ports.ProgressEvent{Run: d.run, Lane: r.Lane, Role: r.role, Route: r.route, Kind: kind}
			if rc := r.out.Runner; rc != nil {
				ev.USD, ev.Cost = rc.CostUSD, rc.SourceOf()
			}
			a.event(ctx, ev)
		}
		if placeErr != nil {
			// Placement stopped: what still comes back is kept aside, never lost.
			a.keepAllAside(context.WithoutCancel(ctx), o.answers())
			continue
		}
		more, next, err := d.place(ctx, o)
		if err != nil {
			placeErr = err
			sayKeptAside(err, a.keepAllAside(context.WithoutCancel(ctx), o.answers()))
			continue
		}
		d.took(ctx, more)
		next.routes = append(d.waiting, next.routes...)
		d.waiting = nil
		start(next)
	}
	if placeErr != nil {
		return ImplementRunResult{}, placeErr
	}
	return d.result(ctx)
}

// SayKeptAside tells a refusal for a busy run where the answers it could not place are kept.
func sayKeptAside(err error, kept []string) {
	r, ok := refusal.As(err)
	switch {
	case !ok || r.Kind != refusal.Contention || len(kept) == 0:
	case len(kept) == 1:
		r.Why += "; the route's answer is kept aside at " + kept[0]
	default:
		r.Why += "; the routes' answers are kept aside at " + strings.Join(kept, ", ")
	}
}

// Came is what the driver's work brought back: routes' answers, and the checks (the definition of
// done) a step queued.
type came struct {
	Routes []answered
	Checks []Checked
}

func (c came) answers() []answered { return c.Routes }

// Gather waits for one piece of work to come back, then takes every other that has come back
// meanwhile (its goroutine is waiting to hand it over), so they are placed in one step: one lock, one
// read and one write of the run's state for all of them, rather than one each while the rest wait.
// running counts the pieces still out.
func gather(results <-chan came, running *int) came {
	o := <-results
	*running--
	for *running > 0 {
		select {
		case more := <-results:
			*running--
			o.Routes = append(o.Routes, more.Routes...)
			o.Checks = append(o.Checks, more.Checks...)
		default:
			return o
		}
	}
	return o
}

// place records what came back under the run's lock and opens what it makes due; when the run was
// interrupted, what that opens is the host's, and the checks it queues wait for the next step.
func (d *driver) place(ctx context.Context, o came) (StepResult, queued, error) {
	placeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), placeBound)
	defer cancel()
	return d.a.withRunRetry(placeCtx, d.verb, d.run, d.w, func(placeCtx context.Context, st *step) (StepResult, bool, error) {
		did := st.recordChecks(o.Checks)
		did = append(did, st.place(placeCtx, o.answers())...)
		adv, err := st.advance(placeCtx, nil)
		if ctx.Err() != nil {
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
}

// took records what a step did, and tells it as it happens.
func (d *driver) took(ctx context.Context, res StepResult) {
	d.last = res
	d.purse.Spent = res.Run.Spend.Run
	for _, line := range res.Did {
		if line == "nothing new: the run is waiting on its open awaits" {
			continue
		}
		d.res.Did = append(d.res.Did, line)
		d.a.event(ctx, ports.ProgressEvent{Run: d.run, Kind: "did", Text: line, Done: settled(res.Run), Total: len(res.Run.Lanes)})
	}
}

// settled counts a run view's lanes that are over.
func settled(v RunView) int {
	n := 0
	for _, l := range v.Lanes {
		if l.Stage == string(loop.StageDone) || l.Stage == string(loop.StageHandedBack) {
			n++
		}
	}
	return n
}

// result is where the driver left the run, read afresh, and what to do next.
func (d *driver) result(ctx context.Context) (ImplementRunResult, error) {
	a := d.a
	s, err := a.LoadRun(context.WithoutCancel(ctx), d.run)
	if err != nil {
		return ImplementRunResult{}, err
	}
	res := d.res
	res.Run, res.Next = a.runView(s), a.nextSteps(s)
	res.FellBack = max(len(s.Fallbacks)-d.fallbacksBefore, 0)
	if res.Did == nil {
		res.Did = []string{}
	}
	again := hint.Do("implement_run", hint.With("run", d.run))
	res.Budget = d.purse.View(res.Run.Spend.Run)
	switch {
	case ctx.Err() != nil:
		res.Ended = EndedInterrupted
		res.Next = append(res.Next, hint.Say("the run was interrupted; every step a route was taking is recorded as interrupted. To go on with it, ", again))
	case d.purse.Stopped != "" && !s.Finished():
		res.Ended = EndedBudget
		res.Next = append(res.Next, hint.Say(fmt.Sprintf("the run's budget stopped it (%s; left: %s); no step was started past it. To go on, give it a bigger budget: ",
			d.purse.Stopped, res.Budget.Left), hint.Do("implement_run", hint.With("run", d.run))))
	case s.Finished():
		res.Ended = EndedFinished
	default:
		res.Ended = EndedHost
		res.Next = append(res.Next, hint.Say("only the host's work is left; once it is handed in, go on with the run: ", again))
		unattended, err := a.anyRunner(context.WithoutCancel(ctx), d.routes)
		if err != nil {
			return ImplementRunResult{}, err
		}
		if !unattended {
			res.Next = append(res.Next, hint.Say("no runner is connected to a role, so every step is your harness's; for abcd to drive them unattended, connect a coding-agent CLI as the implementer's runner (and one for the reviewers and the auditor): ",
				hint.Do("ahoy_connect", hint.Hole("runner", "name"), hint.Hole("cli", "claude|codex|gemini"), hint.With("roles", loop.RoleImplementer))))
		}
	}
	a.event(ctx, ports.ProgressEvent{Run: d.run, Kind: "done", Text: fmt.Sprintf("run %s: %s", d.run, endedWords(res.Ended)),
		Done: settled(res.Run), Total: len(res.Run.Lanes)})
	return res, nil
}

func endedWords(e RunEnded) string {
	switch e {
	case EndedFinished:
		return "finished"
	case EndedInterrupted:
		return "interrupted; the same command goes on with it"
	case EndedBudget:
		return "stopped by its budget; the same command with a bigger budget goes on with it"
	}
	return "only the host's work is left"
}
