package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

// runLockWait bounds how long a step waits for another invocation holding the run's lock.
const runLockWait = 3 * time.Second

// maxDiffBytes bounds the diff a reviewer's brief carries.
const maxDiffBytes = 512 << 10

// validatorAgents are the roster agents the loop dispatches.
var validatorAgents = []string{loop.RoleRuthless, loop.RoleSecurity, loop.RoleAuditor}

// ImplementStartInput names the spec to build and the commit lanes branch from.
type ImplementStartInput struct {
	Spec string `json:"spec" jsonschema:"minLength=1,maxLength=200"`
	Base string `json:"base,omitempty" jsonschema:"maxLength=255"`
}

// RunInput optionally names a run; the newest unfinished one otherwise.
type RunInput struct {
	Run string `json:"run,omitempty" jsonschema:"maxLength=64"`
}

// StepInput names a run and the --route overrides for the agents it dispatches.
type StepInput struct {
	Run    string   `json:"run,omitempty" jsonschema:"maxLength=64"`
	Routes []string `json:"routes,omitempty" jsonschema:"maxItems=8"`
}

// ReceiptInput is the path an agent wrote its return to.
type ReceiptInput struct {
	Path string `json:"path" jsonschema:"minLength=1,maxLength=1024"`
	Run  string `json:"run,omitempty" jsonschema:"maxLength=64"`
}

// AwaitView is an open await: who is waited on, the brief to hand them and where they write.
type AwaitView struct {
	ID      string                `json:"id"`
	Lane    string                `json:"lane"`
	Kind    string                `json:"kind" jsonschema:"enum=implement,enum=fix,enum=review,enum=audit"`
	Role    string                `json:"role"`
	Round   int                   `json:"round" jsonschema:"minimum=0"`
	Brief   string                `json:"brief"`
	Return  string                `json:"return"`
	Routing oracle.RequestRouting `json:"routing"`
	Next    string                `json:"next"`
}

// LaneView is a lane's standing.
type LaneView struct {
	ID     string `json:"id"`
	Step   int    `json:"step" jsonschema:"minimum=0"`
	Text   string `json:"text"`
	Branch string `json:"branch"`
	Stage  string `json:"stage" jsonschema:"enum=brief,enum=implement,enum=validate,enum=fix,enum=done,enum=handed-back"`
	Round  int    `json:"round" jsonschema:"minimum=0"`
	Failed int    `json:"failed" jsonschema:"minimum=0"`
	Head   string `json:"head"`
}

// RunView is one run's standing.
type RunView struct {
	Run      string `json:"run"`
	Kind     string `json:"kind" jsonschema:"enum=spec,enum=review,enum=audit,enum=unknown"`
	Spec     string `json:"spec"`
	Intent   string `json:"intent"`
	Base     string `json:"base"`
	Finished bool   `json:"finished"`
	// Problem says why a run could not be read ("" for every readable run).
	Problem string      `json:"problem"`
	Lanes   []LaneView  `json:"lanes"`
	Awaits  []AwaitView `json:"awaits"`
}

// StepResult is what a step or a receipt did, and what the harness should do next.
type StepResult struct {
	Run      RunView       `json:"run"`
	Did      []string      `json:"did"`
	Next     []string      `json:"next"`
	Recorded *RecordedView `json:"recorded,omitempty"`
}

// RecordedView is what a receipt recorded.
type RecordedView struct {
	Await string `json:"await"`
	Lane  string `json:"lane"`
	Role  string `json:"role"`
	Kind  string `json:"kind"`
	Word  string `json:"word"`
	Pass  bool   `json:"pass"`
	Route string `json:"route"`
}

// ImplementStatusResult lists runs.
type ImplementStatusResult struct {
	Runs []RunView `json:"runs"`
}

func implementVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "implement_start", Path: []string{"implement", "start"},
			Summary: "Start a build run for an open spec whose intent passes the readiness gate: one lane and branch per step"},
			implementStart),
		declare(Verb{Name: "implement_step", Path: []string{"implement", "step"},
			Summary:    "Perform a run's next action and say what the harness should do next",
			Idempotent: true, Dispatches: validatorAgents},
			func(ctx context.Context, a *App, in *StepInput) (StepResult, error) {
				routes, err := a.Routes("implement_step", in.Routes)
				if err != nil {
					return StepResult{}, err
				}
				run, err := a.pickRun(ctx, in.Run)
				if err != nil {
					return StepResult{}, err
				}
				return a.withRun(ctx, run, func(s *loop.State) (StepResult, bool, error) {
					changed := false
					if len(in.Routes) > 0 && !slices.Equal(in.Routes, s.Routes) {
						// Kept in the run: awaits a receipt opens later are routed by them too.
						s.Routes, changed = in.Routes, true
					}
					did, err := a.advance(ctx, s, routes)
					return StepResult{Did: did}, changed || len(did) > 0, err
				})
			}),
		declare(Verb{Name: "implement_receipt", Path: []string{"implement", "receipt"},
			Summary: "Verify what an agent wrote at an await's return path, record it, and advance the run"},
			implementReceipt),
		declare(Verb{Name: "implement_status", Path: []string{"implement", "status"},
			Summary: "Show every run (or one): lanes, stages and open awaits", ReadOnly: true, Idempotent: true},
			func(ctx context.Context, a *App, in *RunInput) (ImplementStatusResult, error) {
				ids, err := a.runIDs(ctx, in.Run)
				if err != nil {
					return ImplementStatusResult{}, err
				}
				res := ImplementStatusResult{Runs: []RunView{}}
				for _, id := range ids {
					s, err := a.loadRun(ctx, id)
					if err != nil {
						if in.Run != "" {
							return ImplementStatusResult{}, err
						}
						// One broken run is reported beside the others, never instead of them.
						res.Runs = append(res.Runs, RunView{Run: id, Kind: "unknown", Problem: problemText(err), Lanes: []LaneView{}, Awaits: []AwaitView{}})
						continue
					}
					res.Runs = append(res.Runs, runView(s))
				}
				return res, nil
			}),
		declare(Verb{Name: "implement_record", Path: []string{"implement", "record"},
			Summary: "Show a run's whole story: every round's verdicts with their routes, fallbacks and counts", ReadOnly: true, Idempotent: true},
			implementRecord),
	}
}

func implementStart(ctx context.Context, a *App, in *ImplementStartInput) (StepResult, error) {
	return locked(ctx, a, "abcd implement start", func() (StepResult, error) {
		l, spec, err := a.spec(ctx, "abcd implement start", in.Spec)
		if err != nil {
			return StepResult{}, err
		}
		if l.summary.Lifecycle != "open" {
			return StepResult{}, refusal.New("spec_closed", spec.Front.ID, "is closed", "start a run for an open spec (abcd spec list --lifecycle open)")
		}
		if len(spec.Steps) == 0 {
			return StepResult{}, refusal.New("spec_no_steps", spec.Front.ID, "has no steps, so the run would have no lanes",
				"write the ## Steps of "+l.file.Path+" as a numbered list")
		}
		il, it, err := a.intent(ctx, "abcd implement start", spec.Front.Implements)
		if err != nil {
			return StepResult{}, err
		}
		ready, err := a.readiness(ctx, il, it)
		if err != nil {
			return StepResult{}, err
		}
		if !ready.Ready {
			var failing []string
			for _, c := range ready.Checks {
				if !c.OK {
					failing = append(failing, c.Name+" ("+c.Detail+")")
				}
			}
			return StepResult{}, refusal.New("intent_not_ready", it.Front.ID, "does not pass the readiness gate: "+strings.Join(failing, "; "),
				"run `abcd intent ready "+it.Front.ID+"` for each check's remedy")
		}
		base := in.Base
		if base == "" {
			base = "HEAD"
		}
		baseSHA, err := a.Git.Resolve(ctx, base)
		if err != nil {
			return StepResult{}, err
		}
		files, stack, err := a.loadConfig(ctx)
		if err != nil {
			return StepResult{}, err
		}
		dod, err := config.Get[string](stack, "build.dod")
		if err != nil {
			return StepResult{}, configRefusal(err)
		}
		fix, err := config.Get[int](stack, "build.fix_rounds")
		if err != nil {
			return StepResult{}, configRefusal(err)
		}
		// Everything that can refuse is checked before anything is written.
		if _, err := a.loadRouting(files); err != nil {
			return StepResult{}, err
		}
		runID, err := a.freshRun(ctx)
		if err != nil {
			return StepResult{}, err
		}
		var lanes []loop.LaneSpec
		for _, st := range spec.Steps {
			lanes = append(lanes, loop.LaneSpec{Step: st.N, Text: st.Text, Branch: fmt.Sprintf("abcd/%s/lane-%d", runID, st.N)})
		}
		for _, ln := range lanes {
			if _, err := a.Git.Resolve(ctx, ln.Branch); err == nil {
				_ = a.Runs.Remove(ctx, loop.RunDir(runID)) // the empty folder freshRun made
				return StepResult{}, refusal.New("branch_exists", ln.Branch, "already exists", "delete the stale branch, or start the run again for a new id")
			}
		}
		criteria := []string{}
		for _, c := range it.Criteria {
			criteria = append(criteria, c.ID)
		}
		s := loop.New(loop.KindSpec, loop.Options{Run: runID, Spec: spec.Front.ID, Intent: it.Front.ID, Base: baseSHA,
			Created: a.now(), DoD: dod.V, FixRounds: fix.V, Criteria: criteria,
			Validators: []string{loop.RoleRuthless, loop.RoleSecurity, loop.RoleAuditor}}, lanes)
		for _, ln := range s.Lanes {
			if err := a.Git.CreateBranch(ctx, ln.Branch, baseSHA); err != nil {
				return StepResult{}, err
			}
		}
		if err := a.saveRun(ctx, s); err != nil {
			return StepResult{}, err
		}
		return StepResult{Run: runView(s), Did: []string{fmt.Sprintf("created run %s with %d lanes from %s", runID, len(s.Lanes), short(baseSHA))},
			Next: []string{fmt.Sprintf("run `abcd implement step --run %s` to hand out the first briefs", runID)}}, nil
	})
}

func (a *App) now() string { return a.Clock.Now().UTC().Format(time.RFC3339) }

// freshRun creates a new run's folder under a fresh id, retrying with new random digits when two
// invocations drew the same id in the same second.
func (a *App) freshRun(ctx context.Context) (string, error) {
	for try := 0; try < 16; try++ {
		id := a.newRunID()
		created, err := a.Runs.Create(ctx, id)
		if err != nil {
			return "", err
		}
		if created {
			return id, nil
		}
	}
	return "", refusal.Busy("run_id_contention", "abcd implement", "no free run id after 16 tries", "run the command again")
}

// newRunID is run-<yymmddhhmmss><4 random digits>, sorting by time like record ids.
func (a *App) newRunID() string {
	return "run-" + a.Clock.Now().UTC().Format("060102150405") + fmt.Sprintf("%04d", a.Random.Uint32()%10000)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func statePath(run string) string { return loop.RunDir(run) + "/state.json" }

func (a *App) loadRun(ctx context.Context, run string) (loop.State, error) {
	data, err := a.Runs.Read(ctx, statePath(run), loop.MaxStateBytes)
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == "return_missing" {
			return loop.State{}, refusal.New("run_unknown", run, "is not a run in this repository", "run `abcd implement status` to list the runs")
		}
		return loop.State{}, err
	}
	s, err := loop.Decode(statePath(run), data)
	if err == nil {
		err = s.Check()
	}
	if err != nil {
		return loop.State{}, refusal.New("run_state_invalid", statePath(run), err.Error(), "the state file was edited by hand; restore it from the last good copy")
	}
	return s, nil
}

func (a *App) saveRun(ctx context.Context, s loop.State) error {
	data := loop.Encode(s)
	if len(data) > loop.MaxStateBytes {
		return refusal.New("run_state_too_large", s.Run, fmt.Sprintf("recording this would grow the run's state to %d bytes, past its %d-byte bound", len(data), loop.MaxStateBytes),
			"shorten the return (its findings) and hand it in again; nothing was recorded")
	}
	return a.Runs.Write(ctx, statePath(s.Run), data)
}

// runIDs is one named run, or every run.
func (a *App) runIDs(ctx context.Context, run string) ([]string, error) {
	if run != "" {
		if err := checkRunID(run); err != nil {
			return nil, err
		}
		return []string{run}, nil
	}
	return a.Runs.Runs(ctx)
}

func checkRunID(run string) error {
	ok := strings.HasPrefix(run, "run-") && len(run) <= 64
	for _, c := range run {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			ok = false
		}
	}
	if !ok {
		return refusal.New("run_invalid", fmt.Sprintf("%q", clip(run)), "is not a run id (run-<digits>)", "run `abcd implement status` to list the runs")
	}
	return nil
}

// pickRun is the named run, or the newest unfinished one.
func (a *App) pickRun(ctx context.Context, run string) (string, error) {
	if run != "" {
		return run, checkRunID(run)
	}
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return "", err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		s, err := a.loadRun(ctx, ids[i])
		if err == nil && !s.Finished() {
			return ids[i], nil
		}
	}
	return "", refusal.New("no_run", "abcd implement", "no unfinished run in this repository", "start one: `abcd implement start <spec>`")
}

// withRun runs f on a run's state under its lock and saves the state when f changed it.
func (a *App) withRun(ctx context.Context, run string, f func(*loop.State) (StepResult, bool, error)) (StepResult, error) {
	if err := a.initialized("abcd implement"); err != nil {
		return StepResult{}, err
	}
	unlock, err := a.Runs.Lock(ctx, run, runLockWait)
	if err != nil {
		return StepResult{}, err
	}
	defer unlock()
	s, err := a.loadRun(ctx, run)
	if err != nil {
		return StepResult{}, err
	}
	res, changed, err := f(&s)
	if err != nil {
		return StepResult{}, err
	}
	if changed {
		if err := a.saveRun(ctx, s); err != nil {
			return StepResult{}, err
		}
	}
	res.Run = runView(s)
	if res.Did == nil {
		res.Did = []string{}
	}
	if len(res.Did) == 0 {
		res.Did = append(res.Did, "nothing new: the run is waiting on its open awaits")
	}
	res.Next = nextSentences(s)
	return res, nil
}

func nextSentences(s loop.State) []string {
	next := []string{}
	for _, aw := range s.OpenAwaits() {
		next = append(next, loop.Next(aw))
	}
	switch {
	case len(next) == 0 && s.Finished():
		next = append(next, fmt.Sprintf("the run is finished: `abcd implement record --run %s` tells its whole story", s.Run))
	case len(next) == 0:
		next = append(next, fmt.Sprintf("run `abcd implement step --run %s` to open what is due", s.Run))
	}
	return next
}

// advance opens every await the loop needs now: resolving each agent's route, writing its brief,
// and recording a fallback when a route asked for cannot take the step.
func (a *App) advance(ctx context.Context, s *loop.State, routes map[string]oracle.FlagRoute) ([]string, error) {
	if routes == nil && len(s.Routes) > 0 {
		var err error
		if routes, err = a.Routes(routeVerb(s.Kind), s.Routes); err != nil {
			return nil, err
		}
	}
	var did []string
	// A route that answers at once records verdicts that can make more awaits due (the next round,
	// the auditor), so open until nothing new is planned. Each pass opens or records at least one
	// await, and a run has finitely many, so this ends; the bound is a guard against a bug.
	for pass := 0; pass < 64; pass++ {
		plans := loop.Pending(*s)
		if len(plans) == 0 {
			return did, nil
		}
		more, err := a.open(ctx, s, plans, routes)
		if err != nil {
			return nil, err
		}
		did = append(did, more...)
	}
	return did, nil
}

// routeVerb is the verb whose dispatches a run's kept --route flags are checked against.
func routeVerb(k loop.Kind) string {
	switch k {
	case loop.KindReview:
		return "review"
	case loop.KindAudit:
		return "intent_audit"
	}
	return "implement_step"
}

// open opens the awaits of one pass of plans.
func (a *App) open(ctx context.Context, s *loop.State, plans []loop.Plan, routes map[string]oracle.FlagRoute) ([]string, error) {
	files, stack, err := a.loadConfig(ctx)
	if err != nil {
		return nil, err
	}
	rt, err := a.loadRouting(files)
	if err != nil {
		return nil, err // a verb about to ask for a model refuses on a table it cannot read
	}
	reviewRoute, err := config.Get[string](stack, "oracle.review")
	if err != nil {
		return nil, configRefusal(err)
	}
	rpURL, err := config.Get[string](stack, "oracle.rp.url")
	if err != nil && reviewRoute.V == "rp" {
		return nil, configRefusal(err)
	}
	var did []string
	for _, p := range plans {
		lane := s.Lanes[p.Lane]
		// The implementer is the harness's own agent, not a roster agent: it has no routing row.
		routing := loop.Routing{Agent: p.Role, Tier: string(oracle.HostDecides), FanOut: 1, Route: "host", Ran: "host",
			Connection: oracle.HarnessName, Source: string(oracle.SourceNone)}
		if p.Role != loop.RoleImplementer {
			layers := rt.layers
			if fr, ok := routes[p.Role]; ok {
				layers.Flag = &fr
			}
			route, err := oracle.Resolve(p.Role, layers, a.connections(), nil)
			if err != nil {
				return nil, refusal.New("route_invalid", p.Role, err.Error(), "fix the routing table or the --route flag")
			}
			if t, ok := lane.Tiers[p.Role]; ok && t != "" {
				route.Row.Tier = oracle.Tier(t) // escalated after a failed round
			}
			req := route.Request()
			routing = loop.Routing{Agent: req.Agent, Tier: string(req.Tier), FanOut: req.FanOut, Source: string(req.Source),
				Origin: req.Origin, Override: req.Override, Connection: req.Connection, Fallback: req.Fallback, Route: "host", Ran: "host"}
			if route.Fallback != "" && a.Diag != nil {
				a.Diag.Warn(fmt.Sprintf("%s: %s", p.Role, route.Fallback))
			}
		}
		brief, ret := loop.AwaitPaths(s.Run, lane.ID, p)
		text, err := a.renderBrief(ctx, *s, lane, p, ret)
		if err != nil {
			return nil, err
		}
		if err := a.Runs.Write(ctx, brief, []byte(text)); err != nil {
			return nil, err
		}
		// Reviews (not audits) take oracle.review's route. A route that does not return hands the
		// same brief to the host, with a fallback receipt.
		if p.Kind == loop.AwaitReview && reviewRoute.V == "rp" {
			routing.Route = "rp"
			aw := s.Open(p, brief, ret, routing, a.now())
			line, err := a.viaValidator(ctx, s, aw, lane.ID, text, rpURL.Set)
			if err != nil {
				return nil, err
			}
			did = append(did, line)
			continue
		}
		aw := s.Open(p, brief, ret, routing, a.now())
		did = append(did, fmt.Sprintf("%s: opened %s for %s (round %d)", lane.ID, aw.Kind, aw.Role, aw.Round))
	}
	return did, nil
}

// viaValidator sends an opened review to the rp validator. Its verified answer is recorded as the
// route's; anything else leaves the await open for the host and records why.
func (a *App) viaValidator(ctx context.Context, s *loop.State, aw loop.Await, lane, brief string, configured bool) (string, error) {
	reason, detail := review.NotAvailable, "this build of abcd has no RepoPrompt adapter wired"
	v, wired := a.Validators["rp"]
	switch {
	case !configured:
		reason, detail = review.Absent, "oracle.review is rp but this machine names no oracle.rp.url"
	case wired:
		out, err := v.Review(ctx, ports.ReviewRequest{Run: s.Run, Lane: lane, Role: aw.Role, Round: aw.Round, Brief: []byte(brief)})
		switch {
		case err != nil:
			reason, detail = review.Failed, err.Error()
		case out.FallbackReason != "":
			reason, detail = review.FallbackReason(out.FallbackReason), out.FallbackDetail
		default:
			if err := a.Runs.Write(ctx, aw.Return, out.Return); err != nil {
				return "", err
			}
			if err := a.recordReturn(ctx, s, aw.Return, "rp"); err != nil {
				// Take the route's answer back off the path, so the host's agent writes there.
				_ = a.Runs.Remove(ctx, aw.Return)
				reason, detail = review.Invalid, refusalWhy(err)
				break
			}
			return fmt.Sprintf("%s: %s reviewed round %d over rp", lane, aw.Role, aw.Round), nil
		}
	}
	s.Fallbacks = append(s.Fallbacks, loop.Fallback{At: a.now(), Lane: lane, Round: aw.Round, Role: aw.Role,
		Asked: "rp", Reason: string(reason), Detail: config.Clip(detail), Ran: "host"})
	if a.Diag != nil {
		a.Diag.Warn(fmt.Sprintf("%s %s: the rp route did not take the review (%s); the host takes it", lane, aw.Role, reason.Sentence()))
	}
	return fmt.Sprintf("%s: opened review for %s (round %d) on the host after rp fell back: %s", lane, aw.Role, aw.Round, reason), nil
}

func refusalWhy(err error) string {
	if r, ok := refusal.As(err); ok {
		return r.Why
	}
	return err.Error()
}

func (a *App) connections() oracle.Connections {
	if a.Connections == nil {
		return oracle.NoConnections{}
	}
	return a.Connections
}

// renderBrief gathers what a brief needs: the spec's path, the intent's criteria and the lane's diff.
func (a *App) renderBrief(ctx context.Context, s loop.State, lane loop.Lane, p loop.Plan, ret string) (string, error) {
	c := loop.BriefContext{State: s, Lane: lane, Plan: p, Return: ret, AgentFile: "agents/" + p.Role + ".md"}
	if s.Intent != "" {
		_, it, err := a.intent(ctx, "abcd implement step", s.Intent)
		if err != nil {
			return "", err
		}
		c.IntentID, c.IntentTitle = it.Front.ID, it.Front.Title
		for _, cr := range it.Criteria {
			c.Criteria = append(c.Criteria, cr.ID+": "+cr.Text)
		}
	}
	if s.Spec != "" {
		if l, err := a.resolve(ctx, record.Specs, "abcd implement step", s.Spec); err == nil {
			c.SpecPath = l.file.Path
		}
	}
	if p.Kind == loop.AwaitReview || p.Kind == loop.AwaitAudit {
		diff, cut, err := a.Git.Diff(ctx, s.Base, lane.Head, maxDiffBytes)
		if err != nil {
			return "", err
		}
		c.Diff = string(diff)
		if cut {
			c.Diff += fmt.Sprintf("\n[the diff is longer than %d bytes and was cut here; read the rest with git diff %s %s]", maxDiffBytes, short(s.Base), short(lane.Head))
		}
	}
	return loop.Brief(c), nil
}

func implementReceipt(ctx context.Context, a *App, in *ReceiptInput) (StepResult, error) {
	p := strings.TrimPrefix(path.Clean(strings.ReplaceAll(in.Path, "\\", "/")), "./")
	// An absolute path inside the repository (as an agent may print it) names the same await.
	if strings.HasPrefix(p, "/") && a.Setup != nil {
		root, _ := a.Setup.Root()
		if rel, ok := strings.CutPrefix(p, path.Clean(strings.ReplaceAll(root, "\\", "/"))+"/"); ok {
			p = rel
		}
	}
	run := in.Run
	if run == "" {
		rest, ok := strings.CutPrefix(p, ".abcd/.work.local/run/")
		id, _, _ := strings.Cut(rest, "/")
		if !ok || id == "" {
			return StepResult{}, refusal.New("receipt_path_invalid", fmt.Sprintf("%q", clip(in.Path)),
				"is not a return path of a run", "give the path an await names (abcd implement status lists them)")
		}
		run = id
	}
	if err := checkRunID(run); err != nil {
		return StepResult{}, err
	}
	var recorded RecordedView
	res, err := a.withRun(ctx, run, func(s *loop.State) (StepResult, bool, error) {
		lane, idx, ok := s.Find(p)
		if !ok {
			var open []string
			for _, aw := range s.OpenAwaits() {
				open = append(open, aw.Return)
			}
			remedy := "no await is open: run `abcd implement step --run " + run + "`"
			if len(open) > 0 {
				remedy = "the open awaits' return paths: " + strings.Join(open, ", ")
			}
			return StepResult{}, false, refusal.New("receipt_not_awaited", fmt.Sprintf("%q", clip(in.Path)), "is not the return path of an open await of "+run, remedy)
		}
		aw := s.Lanes[lane].Awaits[idx]
		if err := a.recordReturn(ctx, s, p, "host"); err != nil {
			return StepResult{}, false, err
		}
		recorded = RecordedView{Await: aw.ID, Lane: s.Lanes[lane].ID, Role: aw.Role, Kind: string(aw.Kind), Route: "host"}
		if v, ok := lastVerdict(*s, lane, aw); ok {
			recorded.Word, recorded.Pass = v.Word, v.Pass
		} else {
			recorded.Word, recorded.Pass = "RECEIPT", true
		}
		did := []string{fmt.Sprintf("%s: recorded the %s's %s", s.Lanes[lane].ID, aw.Role, map[bool]string{true: "receipt", false: "return"}[aw.Role == loop.RoleImplementer])}
		more, err := a.advance(ctx, s, nil)
		if err != nil {
			return StepResult{}, false, err
		}
		return StepResult{Did: append(did, more...)}, true, nil
	})
	if err != nil {
		return StepResult{}, err
	}
	res.Recorded = &recorded
	return res, nil
}

func lastVerdict(s loop.State, lane int, aw loop.Await) (loop.Verdict, bool) {
	for _, r := range s.Lanes[lane].Rounds {
		if r.N != aw.Round {
			continue
		}
		for _, v := range r.Verdicts {
			if v.Role == aw.Role {
				return v, true
			}
		}
	}
	return loop.Verdict{}, false
}

// recordReturn verifies what stands at an await's return path and records it. Nothing is recorded
// when it does not verify; the refusal names every problem.
func (a *App) recordReturn(ctx context.Context, s *loop.State, ret, ran string) error {
	lane, idx, ok := s.Find(ret)
	if !ok {
		return fmt.Errorf("no open await returns to %s", ret)
	}
	aw := s.Lanes[lane].Awaits[idx]
	ln := s.Lanes[lane]
	refuse := func(err error) error {
		var re *review.ReturnError
		if errors.As(err, &re) {
			return refusal.New("return_refused", ret, strings.Join(re.Problems, "; "), "fix the return and run `abcd implement receipt "+ret+"` again; nothing was recorded")
		}
		return err
	}
	switch aw.Kind {
	case loop.AwaitImplement, loop.AwaitFix:
		data, err := a.Runs.Read(ctx, ret, review.MaxReceiptBytes)
		if err != nil {
			return err
		}
		rc, err := review.DecodeImplementerReceipt(data)
		if err != nil {
			return refuse(err)
		}
		laneDir := loop.LaneDir(s.Run, ln.ID)
		facts := review.ReceiptFacts{Run: s.Run, Lane: ln.ID, Branch: ln.Branch,
			OutputProblem: a.Runs.CheckFile(ctx, laneDir, laneDir+"/"+rc.DoD.Output),
			ReportProblem: a.Runs.CheckFile(ctx, laneDir, laneDir+"/"+rc.Report)}
		head, err := a.Git.Resolve(ctx, ln.Branch)
		if err != nil {
			return err
		}
		for _, c := range rc.Commits {
			if ok, err := a.Git.IsAncestor(ctx, c, head); err != nil {
				return err
			} else if !ok {
				facts.Unreachable = append(facts.Unreachable, c)
			}
			if ok, err := a.Git.IsAncestor(ctx, c, s.Base); err != nil {
				return err
			} else if ok {
				facts.FromBase = append(facts.FromBase, c)
			}
		}
		if err := review.CheckReceiptFacts(rc, facts); err != nil {
			return refuse(err)
		}
		return s.RecordImplementation(lane, idx, loop.Implementation{Commits: rc.Commits, Head: head, Model: rc.Model, Receipt: ret, At: a.now()})
	case loop.AwaitReview:
		data, err := a.Runs.Read(ctx, ret, review.MaxReturnBytes)
		if err != nil {
			return err
		}
		v, err := review.ParseReviewerReturn(review.Role(aw.Role), data)
		if err != nil {
			return refuse(err)
		}
		return a.recordVerdict(s, lane, idx, v, ret, data, ran)
	default:
		data, err := a.Runs.Read(ctx, ret, review.MaxReturnBytes)
		if err != nil {
			return err
		}
		audit, v, err := review.ParseAuditReturn(data, s.Intent, s.Criteria)
		if err != nil {
			return refuse(err)
		}
		var notes string
		if s.Kind == loop.KindAudit {
			if notes, err = a.auditNotes(s, audit, v, ret); err != nil {
				return err
			}
			// The intent is written first: a refusal there leaves the run as it was.
			if err := a.writeAuditNotes(ctx, s, notes); err != nil {
				return err
			}
		}
		return a.recordVerdict(s, lane, idx, v, ret, data, ran)
	}
}

func (a *App) recordVerdict(s *loop.State, lane, idx int, v review.Verdict, ret string, data []byte, ran string) error {
	sum := sha256.Sum256(data)
	aw := s.Lanes[lane].Awaits[idx]
	routing := aw.Routing
	routing.Ran = ran
	s.Lanes[lane].Awaits[idx].Routing = routing
	return s.RecordVerdict(lane, idx, loop.Verdict{Word: v.Word, Pass: v.Pass, Findings: v.Findings, Return: ret,
		SHA256: hex.EncodeToString(sum[:]), At: a.now()})
}

func requestRouting(r loop.Routing) oracle.RequestRouting {
	return oracle.RequestRouting{Agent: r.Agent, Tier: oracle.Tier(r.Tier), FanOut: r.FanOut, Source: oracle.Source(r.Source),
		Origin: r.Origin, Override: r.Override, Connection: r.Connection, Fallback: r.Fallback}
}
