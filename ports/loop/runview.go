package loop

import (
	"context"
	"github.com/abcd-dev/abcd/ports/loop/view"
	"sort"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/history"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

func ImplementRecord(ctx context.Context, a *Deps, in *RunInput) (ImplementRecordResult, error) {
	if root, git := a.RepoRoot(); !git {
		return ImplementRecordResult{}, core.NotARepository("implement_record", root)
	}
	run, err := a.pickAnyRun(ctx, "implement_record", in.Run)
	if err != nil {
		return ImplementRecordResult{}, err
	}
	s, err := a.LoadRun(ctx, run)
	if err != nil {
		return ImplementRecordResult{}, err
	}
	res := ImplementRecordResult{Run: a.runView(s), Implementations: []ImplementationView{}, Verdicts: []RecordVerdictView{},
		Fallbacks: []FallbackView{}, ByRoute: []Count{}, ByRole: []Count{}, History: a.History.RunHistory(ctx, s.Run), Started: s.Created}
	routes, roles := map[string]*Count{}, map[string]*Count{}
	bump := func(m map[string]*Count, name string, pass bool) {
		c, ok := m[name]
		if !ok {
			c = &Count{Name: name}
			m[name] = c
		}
		c.Total++
		if pass {
			c.Passed++
		} else {
			c.Failed++
		}
	}
	for _, l := range s.Lanes {
		for _, im := range l.Implementations {
			implementer := oracle.Route{Agent: loop.RoleImplementer, Row: oracle.Row{Tier: oracle.HostDecides}}
			ran := oracle.HarnessName
			var receipt *runner.Receipt
			if im.Answered != nil {
				ran, receipt = im.Answered.Route, im.Answered.Runner
			}
			tried, reason := s.ImplementerFallback(l.ID, im.Round)
			if tried == "" || im.Answered != nil {
				tried, reason = ran, ""
			}
			res.Implementations = append(res.Implementations, ImplementationView{Lane: l.ID, Round: im.Round, Commits: im.Commits, Head: im.Head, Model: im.Model,
				Receipt: implementer.Receipt(tried, ran, reason, im.Model), Runner: receipt, Sessions: history.StepSessions(res.History, l.ID, im.Receipt), At: im.At})
		}
		for _, r := range l.Rounds {
			for _, v := range r.Verdicts {
				view := RecordVerdictView{Lane: l.ID, Round: r.N, Role: v.Role, Word: v.Word, Pass: v.Pass,
					Tier: v.Routing.Tier, Route: v.Routing.Route, Ran: v.Routing.Ran, Return: v.Return, SHA256: v.SHA256, Findings: v.Findings,
					Receipt: s.RouteReceipt(l.ID, r.N, v), Call: view.CallOf(v), Runner: v.Answered.Runner, Sessions: history.StepSessions(res.History, l.ID, v.Return),
					At: v.At, Criteria: []review.CriterionVerdict{}}
				res.Verdicts = append(res.Verdicts, view)
				bump(routes, v.Routing.Ran, v.Pass)
				bump(roles, v.Role, v.Pass)
			}
		}
	}
	for _, f := range s.Fallbacks {
		res.Fallbacks = append(res.Fallbacks, FallbackView{At: f.At, Lane: f.Lane, Round: f.Round, Role: f.Role, Asked: f.Asked, Reason: f.Reason,
			Detail: f.Detail, Ran: f.Ran, Cause: runner.Cause(f.Cause), Runner: f.Runner})
	}
	for _, m := range []struct {
		src map[string]*Count
		dst *[]Count
	}{{routes, &res.ByRoute}, {roles, &res.ByRole}} {
		for _, c := range m.src {
			*m.dst = append(*m.dst, *c)
		}
		sort.Slice(*m.dst, func(i, j int) bool { return (*m.dst)[i].Name < (*m.dst)[j].Name })
	}
	return res, nil
}

// runView is a run's standing, every path in it absolute so an agent in any folder can follow it.
func (a *Deps) runView(s loop.State) RunView {
	v := RunView{Run: s.Run, Kind: string(s.Kind), Spec: s.Spec, Intent: s.Intent, Base: s.Base, Finished: s.Finished(), Lanes: []LaneView{}, Awaits: []AwaitView{}}
	v.FallbacksByRoute, v.FallbacksByRole = view.FallbackCounts(s)
	v.Unfenced = s.Unfenced()
	v.Spend = loop.SpendOf(s)
	v.Finish = s.Finish
	root := a.Root()
	for _, l := range s.Lanes {
		lv := LaneView{ID: l.ID, Step: l.Step, Text: l.Text, Branch: l.Branch, Stage: string(l.Stage), Round: l.Round, Failed: l.Failed, Head: l.Head,
			After: append([]string{}, l.After...), Integration: l.Integration, Start: l.Start, Findings: l.Findings, KeptFrom: l.KeptFrom}
		if l.Worktree != "" {
			lv.Worktree = loop.Abs(root, l.Worktree)
		}
		v.Lanes = append(v.Lanes, lv)
		for _, aw := range l.Awaits {
			aw = aw.Under(root)
			v.Awaits = append(v.Awaits, AwaitView{ID: aw.ID, Lane: l.ID, Kind: string(aw.Kind), Role: aw.Role, Round: aw.Round, Brief: aw.Brief, Return: aw.Return,
				Routing: aw.Routing.Request(), Next: loop.Next(aw)})
		}
	}
	return v
}

// nextSteps says what the harness does next for a run, every path absolute.
func (a *Deps) nextSteps(s loop.State) []hint.Next { return loop.NextSteps(s, a.Root()) }
