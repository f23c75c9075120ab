package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// stepConfig is what opening awaits reads of the configuration, read once per pass.
type stepConfig struct {
	routing     routing
	conns       ports.Connections
	runners     *runner.Machine
	reviewRoute string // oracle.review: host or rp
	// rpURL and rpTool name the RepoPrompt server, read only when reviews take rp.
	rpURL, rpTool string
}

// readStepConfig reads both configuration families, the machine's connections and oracle.review's
// route. Starting a run calls it first, so a fault in them refuses before anything is written.
func (a *Deps) readStepConfig(ctx context.Context) (stepConfig, error) {
	files, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return stepConfig{}, err
	}
	rt, err := a.loadRouting(files)
	if err != nil {
		return stepConfig{}, err // a verb about to ask for a model refuses on a table it cannot read
	}
	conns, err := a.connectionsOf(stack)
	if err != nil {
		return stepConfig{}, err
	}
	_, runners, err := core.MachineRoutes(stack)
	if err != nil {
		return stepConfig{}, err
	}
	reviewRoute, err := config.Get[string](stack, "oracle.review")
	if err != nil {
		return stepConfig{}, core.ConfigRefusal(err)
	}
	c := stepConfig{routing: rt, conns: conns, runners: runners, reviewRoute: reviewRoute.V}
	if c.reviewRoute == "rp" {
		// The server block is read only when reviews take rp: a fault in it never refuses a step in
		// a repository that has not opted in.
		rpURL, err := config.Get[string](stack, "oracle.rp.url")
		if err != nil {
			return stepConfig{}, core.ConfigRefusal(err)
		}
		rpTool, err := config.Get[string](stack, "oracle.rp.tool")
		if err != nil {
			return stepConfig{}, core.ConfigRefusal(err)
		}
		c.rpURL, c.rpTool = rpURL.V, rpTool.V
	}
	return c, nil
}

// open opens the awaits of one pass of plans. A step a route beside the host takes is opened for the
// host as well (its brief and return path, told by every step) and queued in the step's jobs: the
// route is called once the run's lock is released (dispatch.go), so a long review blocks no other
// step.
func (st *step) open(ctx context.Context, plans []loop.Plan, routes map[string]oracle.FlagRoute) ([]string, error) {
	cfg, err := st.readStepConfig(ctx)
	if err != nil {
		return nil, err
	}
	var did []string
	for _, p := range plans {
		line, err := st.openOne(ctx, cfg, p, routes)
		if err != nil {
			return nil, err
		}
		did = append(did, line)
	}
	return did, nil
}

// openOne opens one planned await: its route, its brief written beside its return path, and, for a
// route beside the host, the request queued for it.
func (st *step) openOne(ctx context.Context, cfg stepConfig, p loop.Plan, routes map[string]oracle.FlagRoute) (string, error) {
	s := &st.state
	lane := s.Lanes[p.Lane]
	routing, route, flagConn, err := st.awaitRouting(cfg, p, lane, routes)
	if err != nil {
		return "", err
	}
	brief, ret := loop.AwaitPaths(s.Run, lane.ID, p)
	body, err := st.renderBrief(ctx, lane, p, ret, routing.Tier)
	if err != nil {
		return "", err
	}
	if err := st.Runs.Write(ctx, brief, []byte(body)); err != nil {
		return "", err
	}
	tg := targetOf(p.Role, p.Kind, route, flagConn, cfg.reviewRoute)
	var v ports.Validator
	var why review.FallbackReason
	if tg.kind == toRP || tg.kind == toProvider {
		if v, why, err = st.validatorFor(ctx, cfg, tg); err != nil {
			return "", err
		}
		if v == nil && why == "" {
			tg.kind = toHost // a connection a test wires that the machine does not configure
		}
	}
	if tg.kind == toHost {
		aw := s.Open(p, brief, ret, routing, st.Now())
		return fmt.Sprintf("%s: opened %s for %s (round %d)", lane.ID, aw.Kind, aw.Role, aw.Round), nil
	}
	routing.Route = tg.name
	aw := s.Open(p, brief, ret, routing, st.Now())
	if tg.kind == toRunner {
		job, f, err := st.runnerJob(ctx, cfg, lane, aw, body, route, tg.name)
		if err != nil {
			return "", err
		}
		if f != nil {
			return st.fallBackRunner(aw, lane.ID, tg.name, f, nil), nil
		}
		st.jobs = append(st.jobs, job)
		return fmt.Sprintf("%s: sent %s's %s (round %d) to runner %s (%s)", lane.ID, aw.Role, aw.Kind, aw.Round, tg.name, tg.why), nil
	}
	if v == nil {
		return st.fallBack(aw, lane.ID, tg.name, why, ""), nil
	}
	req, err := st.composeRequest(ctx, lane, p, aw, body, route)
	if err != nil {
		return st.fallBack(aw, lane.ID, tg.name, review.Failed, refusalWhy(err)), nil
	}
	st.jobs = append(st.jobs, dispatch{await: aw.ID, Lane: lane.ID, role: aw.Role, round: aw.Round, ret: ret, route: tg.name, req: req, caps: loop.Caps{Untimed: true},
		call: func(ctx context.Context) (ports.ReviewOutcome, error) { return v.Review(ctx, req) }})
	return fmt.Sprintf("%s: sent %s's %s (round %d) to %s; until it answers, the host may take it too", lane.ID, aw.Role, aw.Kind, aw.Round, tg.name), nil
}

// awaitRouting is the route an await asks for. The implementer is the harness's own agent, not a
// roster agent: it has no routing row and takes no --route flag, and goes to the host unless the
// machine sends it to a runner (routeOf says so, as for every role). A validator's route comes from
// routeOf, with the tier a failed round escalated it to; flagConn says a --route flag named its
// connection.
func (a *Deps) awaitRouting(cfg stepConfig, p loop.Plan, lane loop.Lane, routes map[string]oracle.FlagRoute) (loop.Routing, oracle.Route, bool, error) {
	if p.Role == loop.RoleImplementer {
		route, err := a.routeOf(p.Role, cfg.routing, cfg.conns, nil, "")
		if err != nil {
			return loop.Routing{}, oracle.Route{}, false, err
		}
		route.Row = oracle.Row{Tier: oracle.HostDecides, FanOut: 1}
		rt := loop.Routing{Agent: p.Role, Tier: string(oracle.HostDecides), FanOut: 1, Route: "host", Ran: "host",
			Connection: oracle.HarnessName, Source: string(oracle.SourceNone)}
		if route.Connection.Runner {
			rt.Connection = route.Connection.Name
		} else {
			route.Connection = oracle.Harness()
		}
		return rt, route, false, nil
	}
	var flag *oracle.FlagRoute
	if fr, ok := routes[p.Role]; ok {
		flag = &fr
	}
	route, err := a.routeOf(p.Role, cfg.routing, cfg.conns, flag, oracle.Tier(lane.Tiers[p.Role]))
	if err != nil {
		return loop.Routing{}, oracle.Route{}, false, err
	}
	req := route.Request()
	// A tier no connection serves (an accepted proposal with no provider) is the expected path, not
	// news at every step: the await's routing keeps it as data, and the board says it once.
	return loop.Routing{Agent: req.Agent, Tier: string(req.Tier), FanOut: req.FanOut, Source: string(req.Source),
			Origin: req.Origin, Override: req.Override, Connection: req.Connection, Fallback: req.Fallback, Route: "host", Ran: "host"},
		route, flag != nil && flag.Connection != "", nil
}

// validatorFor opens the review route a target names beside the host: RepoPrompt or a provider. A
// route that cannot be called at all (rp with no server configured) comes back nil with the
// fallback reason; nil with none is a provider this machine does not configure (a test's static
// connections), which leaves the step to the host.
func (a *Deps) validatorFor(ctx context.Context, cfg stepConfig, tg target) (ports.Validator, review.FallbackReason, error) {
	if tg.kind == toRP {
		if v, ok := a.Validators["rp"]; ok {
			return v, "", nil
		}
		if cfg.rpURL == "" {
			return nil, review.Absent, nil
		}
		if a.RP == nil {
			return nil, review.Failed, nil
		}
		return a.RP.RP(cfg.rpURL, cfg.rpTool), "", nil
	}
	v, ok, err := a.ProviderValidator(ctx, tg.name)
	if err != nil || !ok {
		return nil, "", err
	}
	return v, "", nil
}

// fallBack records that a route did not take an await's step: the host takes it with the same brief
// and return path, and the record says why in abcd's own words.
func (st *step) fallBack(aw loop.Await, lane, route string, reason review.FallbackReason, detail string) string {
	return st.fallBackSaying(aw, lane, route, reason, detail, reason.Sentence())
}

// fallBackSaying is fallBack warning the person with why: the reason's sentence, or a runner's
// cause's, which says more (a CLI that ignored abcd's settings, not a request abcd could not compose).
func (st *step) fallBackSaying(aw loop.Await, lane, route string, reason review.FallbackReason, detail, why string) string {
	s := &st.state
	if detail == "" {
		detail = reason.Sentence()
	}
	f := review.FallbackReceipt{At: st.Now(), Run: s.Run, Lane: lane, Round: aw.Round, Role: review.Role(aw.Role), Asked: route,
		Reason: reason, Detail: text.ClipAt(oneLine(detail), review.DetailBytes), Ran: review.RanHost}
	if f.Check() != nil {
		// The receipt's own check refuses what must never reach the record (an address): say it in
		// abcd's words instead.
		f.Detail = reason.Sentence()
	}
	s.FallBack(aw.ID, loop.Fallback{At: f.At, Lane: lane, Round: aw.Round, Role: aw.Role,
		Asked: route, Reason: string(reason), Detail: f.Detail, Ran: review.RanHost})
	if st.Diag != nil {
		st.Diag.Warn(fmt.Sprintf("%s %s: %s did not take the step (%s); the host takes it", lane, aw.Role, route, why))
	}
	return fmt.Sprintf("%s: %s's %s (round %d) is the host's: %s fell back (%s)", lane, aw.Role, aw.Kind, aw.Round, route, reason)
}

// fallBackRunner records that a runner did not take an await's step, as fallBack does, with the
// runner's cause and its receipt (nil when the step never reached the CLI).
func (st *step) fallBackRunner(aw loop.Await, lane, route string, f *runner.Failure, receipt *runner.Receipt) string {
	line := st.fallBackSaying(aw, lane, route, f.Cause.Reason(), fmt.Sprintf("runner %s (%s): %s", route, f.Cause, f.Detail), f.Cause.Sentence())
	st.noteCause(f.Cause, receipt)
	return line
}

// noteCause adds a runner's cause and receipt to the fallback receipt just recorded.
func (st *step) noteCause(c runner.Cause, receipt *runner.Receipt) {
	fs := st.state.Fallbacks
	if len(fs) == 0 {
		return
	}
	fs[len(fs)-1].Cause, fs[len(fs)-1].Runner = string(c), receipt
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
