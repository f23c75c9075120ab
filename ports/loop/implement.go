package loop

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/verb"
)

// ImplementStartInput names the spec to build and the commit lanes branch from.
type ImplementStartInput struct {
	Spec record.Ref    `json:"spec"`
	Base loop.Revision `json:"base,omitempty"`
	// Again starts a run for a spec that already has one unfinished.
	Again bool `json:"again,omitempty"`
}

// AbandonInput names the run to end, and whether its branches go too.
type AbandonInput struct {
	Run loop.RunID `json:"run,omitempty"`
	// DeleteBranches deletes the run's lane and integration branches; they are kept otherwise.
	DeleteBranches bool `json:"delete_branches,omitempty"`
}

// RunInput optionally names a run (the newest unfinished one otherwise); Open asks implement status
// for the unfinished runs alone (with any whose state cannot be read: it is not known to be over).
type RunInput struct {
	Run  loop.RunID `json:"run,omitempty"`
	Open bool       `json:"open,omitempty"`
}

// StepInput names a run and the --route overrides for the agents it dispatches.
type StepInput struct {
	Run    loop.RunID         `json:"run,omitempty"`
	Routes []oracle.RouteText `json:"routes,omitempty" jsonschema:"maxItems=8"`
}

// ReceiptInput is the path an agent wrote its return to.
type ReceiptInput struct {
	Path loop.ReturnPath `json:"path"`
	Run  loop.RunID      `json:"run,omitempty"`
}

// StepResult is what a step or a receipt did, and what the harness should do next.
type StepResult struct {
	Run      RunView       `json:"run"`
	Did      []string      `json:"did"`
	Next     []hint.Next   `json:"next"`
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

func ImplementVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "implement_start", Path: []string{"implement", "start"}, Example: "abcd implement start cache-the-schema\nabcd implement start cache-the-schema --base main",
			Summary: "Start a build run for an open spec whose intent passes the readiness gate: one lane and branch per step"},
			settlingFirst("implement_start", implementStart)),
		verb.Declare(verb.Verb{Name: "implement_step", Path: []string{"implement", "step"}, Example: "abcd implement step\nabcd implement step --route ruthless-reviewer=economy",
			Summary:    "Perform a run's next action and say what the harness should do next",
			Idempotent: true, OpenWorld: true, Dispatches: validatorAgents},
			settlingFirst("implement_step", implementStep)),
		verb.Declare(verb.Verb{Name: "implement_receipt", Path: []string{"implement", "receipt"}, Example: "abcd implement receipt <return-path>",
			Summary:   "Verify what an agent wrote at an await's return path, record it, and advance the run",
			OpenWorld: true},
			implementReceipt),
		verb.Declare(verb.Verb{Name: "implement_status", Path: []string{"implement", "status"}, Example: "abcd implement status\nabcd implement status --open\nabcd implement status --run <run-id> --json",
			Summary: "Show every run (or one, or the unfinished ones): lanes, stages and open awaits", ReadOnly: true, Idempotent: true},
			implementStatus),
		// implement_record is declared by ports/loop/story, which tells its result as markdown and HTML.
		verb.Declare(verb.Verb{Name: "implement_abandon", Path: []string{"implement", "abandon"}, Example: "abcd implement abandon\nabcd implement abandon --run <run-id> --delete-branches",
			Summary:     "End an unfinished run: its open awaits are dropped and its worktrees removed; its record, and its branches unless asked, stay",
			Destructive: true, Idempotent: true},
			settlingFirst("implement_abandon", implementAbandon)),
		runVerb(),
	}
}

// validatorAgents are the roster agents a spec run dispatches.
var validatorAgents = []string{loop.RoleRuthless, loop.RoleSecurity, loop.RoleAuditor}

// implementStart checks the spec, its intent's readiness, the base and the configuration, then has
// the engine create the run with one lane and branch per step, all under the record lock, so two
// starts never make two runs of one spec.
func implementStart(ctx context.Context, a *Deps, in *ImplementStartInput) (StepResult, error) {
	const verb = "implement_start"
	return recorduc.Locked(ctx, a.Record, verb, func(ctx context.Context, rec *recorduc.RecordLock) (StepResult, error) {
		spec, it, files, err := a.startable(ctx, in)
		if err != nil {
			return StepResult{}, err
		}
		kept, err := a.keptConfig(ctx, verb, in.Base)
		if err != nil {
			return StepResult{}, err
		}
		if err := a.uncommittedRecord(ctx, kept, spec.Front.ID, files); err != nil {
			return StepResult{}, err
		}
		criteria := []string{}
		for _, c := range it.Criteria {
			criteria = append(criteria, c.ID)
		}
		if kept.dod == "" && a.Diag != nil {
			// Loud, not refused: the briefs tell each implementer what to do without one.
			a.Diag.Warn("build.dod is not set, so no command proves a lane done: each implementer is told to run the project's own checks and say which; set build.dod in .abcd/config.json (for example \"make test\") for later runs")
		}
		carried, err := a.carryOver(ctx, spec)
		if err != nil {
			return StepResult{}, err
		}
		res, _, err := a.createRun(ctx, rec, newRun{kind: loop.KindSpec, branches: true, carried: carried,
			opts: loop.Options{Spec: spec.Front.ID, Intent: it.Front.ID, Base: kept.baseSHA, BaseRef: kept.base, DoD: kept.dod, DoDEnv: kept.dodEnv, FixRounds: kept.fixRounds,
				Criteria: criteria, Validators: validatorAgents},
			lanes: func(run string) []loop.LaneSpec {
				var lanes []loop.LaneSpec
				for _, st := range spec.Steps {
					ls := loop.LaneSpec{Step: st.N, Text: st.Text, After: st.After, Branch: fmt.Sprintf("abcd/%s/lane-%d", run, st.N)}
					if k, ok := carried.Kept[st.N]; ok {
						ls.Kept = &k
					}
					lanes = append(lanes, ls)
				}
				return lanes
			}}, nil) // a spec run's first step starts lanes; it calls no route
		if err == nil {
			res.Did = append(res.Did, fmt.Sprintf("the run keeps the configuration it started with: base %s (%s), build.dod %s, build.fix_rounds %d",
				kept.base, loop.Short(kept.baseSHA), dodText(kept.dod), kept.fixRounds))
		}
		return res, err
	})
}

// uncommittedRecord refuses when the spec or its intent is not committed as it stands at the run's
// base: the lanes branch from that commit, so their agents would read the base's version (or none)
// of what they build, and the person would find out only from their work.
func (a *Deps) uncommittedRecord(ctx context.Context, kept runConfig, spec string, files []string) error {
	var changed []string
	for _, f := range files {
		paths, err := a.Git.Changed(ctx, f, kept.baseSHA, false)
		if errors.Is(err, ports.ErrNoGit) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(paths) > 0 {
			changed = append(changed, f)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return refusal.New(refusal.CodeRecordUncommitted, spec,
		fmt.Sprintf("%s %s at the run's base %s (%s), and the lanes branch from that commit, so their agents would read the base's version (or none)",
			strings.Join(changed, " and "), map[bool]string{true: "is not committed as it stands", false: "are not committed as they stand"}[len(changed) == 1], kept.base, loop.Short(kept.baseSHA)),
		fmt.Sprintf("commit the record on %s (git add .abcd && git commit -m 'The record for %s'), then ", kept.base, spec),
		refusal.Run("implement_start", refusal.With("spec", spec)))
}

// startable is the spec to start a run for and its intent, and their files: an open spec with
// steps, whose intent passes the readiness gate, with no unfinished run unless another is asked for.
func (a *Deps) startable(ctx context.Context, in *ImplementStartInput) (record.Spec, record.Intent, []string, error) {
	const verb = "implement_start"
	l, spec, err := a.Record.Spec(ctx, verb, "spec", in.Spec)
	if err != nil {
		return record.Spec{}, record.Intent{}, nil, err
	}
	if l.Summary.Lifecycle != "open" {
		return record.Spec{}, record.Intent{}, nil, refusal.New(refusal.CodeSpecClosed, spec.Front.ID, "is closed",
			"start a run for an open spec (", refusal.Run("spec_list", refusal.With("lifecycle", "open")), " lists them)")
	}
	if len(spec.Steps) == 0 {
		return record.Spec{}, record.Intent{}, nil, refusal.New(refusal.CodeSpecNoSteps, spec.Front.ID, "has no steps, so the run would have no lanes",
			"write the ## Steps of "+l.File.Path+" as a numbered list")
	}
	il, it, err := a.Record.Intent(ctx, verb, "spec", record.Ref(spec.Front.Implements))
	files := []string{l.File.Path, il.File.Path}
	if err != nil {
		return record.Spec{}, record.Intent{}, nil, err
	}
	ready, err := a.Record.Readiness(ctx, il, it)
	if err != nil {
		return record.Spec{}, record.Intent{}, nil, err
	}
	if !ready.Ready {
		var failing []string
		for _, c := range ready.Checks {
			if !c.OK {
				failing = append(failing, c.Name+" ("+c.Detail+")")
			}
		}
		return record.Spec{}, record.Intent{}, nil, refusal.New(refusal.CodeIntentNotReady, it.Front.ID, "does not pass the readiness gate: "+strings.Join(failing, "; "),
			refusal.Run("intent_ready", refusal.With("ref", it.Front.ID)), " for each check's remedy")
	}
	if in.Again {
		return spec, it, files, nil
	}
	if active, err := a.activeRuns(ctx, spec.Front.ID); err != nil {
		return record.Spec{}, record.Intent{}, nil, err
	} else if len(active) > 0 {
		last := active[len(active)-1]
		return record.Spec{}, record.Intent{}, nil, refusal.New(refusal.CodeRunActive, spec.Front.ID, "already has an unfinished run, "+strings.Join(active, ", "),
			"go on with it (", refusal.Run("implement_step", refusal.With("run", last)), "), end it (",
			refusal.Run("implement_abandon", refusal.With("run", last)), "), or start another beside it (",
			refusal.Run("implement_start", refusal.With("spec", spec.Front.ID), refusal.With("again", true)), ")")
	}
	return spec, it, files, nil
}

// runConfig is the configuration a spec run keeps from its start.
type runConfig struct {
	base, baseSHA string
	dod           string
	dodEnv        []string
	fixRounds     int
}

// keptConfig reads what a spec run keeps (its base, build.dod, build.fix_rounds) and checks what
// opening its awaits will read, so everything that can refuse is checked before anything is written.
func (a *Deps) keptConfig(ctx context.Context, verb string, given loop.Revision) (runConfig, error) {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return runConfig{}, err
	}
	base, baseSHA, err := a.baseOf(ctx, verb, given, stack)
	if err != nil {
		return runConfig{}, err
	}
	dod, err := config.Get[string](stack, "build.dod")
	if err != nil {
		return runConfig{}, core.ConfigRefusal(err)
	}
	fix, err := config.Get[int](stack, "build.fix_rounds")
	if err != nil {
		return runConfig{}, core.ConfigRefusal(err)
	}
	dodEnv, err := stack.Union("build.dod_env")
	if err != nil {
		return runConfig{}, core.ConfigRefusal(err)
	}
	if _, err := a.readStepConfig(ctx); err != nil {
		return runConfig{}, err
	}
	return runConfig{base: base, baseSHA: baseSHA, dod: dod.V, dodEnv: dodEnv, fixRounds: fix.V}, nil
}

func dodText(dod string) string {
	if dod == "" {
		return "unset"
	}
	return fmt.Sprintf("%q", dod)
}

// baseOf is the commit a run starts from: the one given, else build.base, else the repository's
// default branch. A repository with none of them is refused with the remedy.
func (a *Deps) baseOf(ctx context.Context, verb string, given loop.Revision, stack *config.Stack) (string, string, error) {
	base := string(given)
	if base == "" {
		configured, err := config.Get[string](stack, "build.base")
		if err != nil {
			return "", "", core.ConfigRefusal(err)
		}
		base = configured.V
	}
	if base == "" {
		def, err := a.Git.DefaultBranch(ctx)
		if err != nil {
			return "", "", err
		}
		if def == "" {
			return "", "", refusal.New(refusal.CodeBaseUnknown, "", "this repository has no default branch (no remote HEAD, no init.defaultBranch, no main or master)",
				"give the commit to start from with ", refusal.Field(verb, "base"), ", or set build.base in .abcd/config.json").On(verb, "")
		}
		base = def
	}
	sha, err := a.Git.Resolve(ctx, base)
	if err != nil {
		if r, ok := refusal.As(err); ok {
			r.Remedy = refusal.Say("give the commit to start from with ", refusal.Field(verb, "base"), " (a branch, a tag, a commit, HEAD~3), or set build.base in .abcd/config.json")
			return "", "", r
		}
		return "", "", err
	}
	return base, sha, nil
}

// activeRuns are the unfinished runs of a spec, oldest first.
func (a *Deps) activeRuns(ctx context.Context, spec string) ([]string, error) {
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		s, err := a.LoadRun(ctx, id)
		if err == nil && s.Spec == spec && !s.Finished() {
			out = append(out, id)
		}
	}
	return out, nil
}

// deliveredRun is the spec's last run when every lane of it was delivered ("" otherwise: work is left
// for a new run); asked when the spec has no unfinished run, so its last run is its last finished.
func (a *Deps) deliveredRun(ctx context.Context, spec string) (string, error) {
	last, err := a.LastFinished(ctx, spec)
	if err != nil || slices.ContainsFunc(last.Lanes, func(l loop.Lane) bool { return l.Stage != loop.StageDone }) {
		return "", err
	}
	return last.Run, nil
}

// implementAbandon ends an unfinished run: every lane still moving is handed back, its awaits
// dropped, its worktrees removed. The record stays, and the branches unless asked. The run is over
// (and saved so) before any branch is deleted: a kill part way leaves a run that no step works on,
// and abandon run again deletes what is left, finishing.
func implementAbandon(ctx context.Context, a *Deps, in *AbandonInput) (StepResult, error) {
	const verb = "implement_abandon"
	run, err := a.pickRun(ctx, verb, in.Run)
	if err != nil {
		return StepResult{}, err
	}
	var branches []string
	res, _, err := a.withRun(ctx, verb, run, nil, func(ctx context.Context, st *step) (StepResult, bool, error) {
		s := &st.state
		var did []string
		if !s.Finished() {
			s.Abandon(loop.AbandonedFindings)
			did = append(did, "abandoned the run: every lane still moving is handed back and its awaits are dropped")
		}
		did = append(did, st.clearWorktrees(ctx)...)
		if in.DeleteBranches && s.Kind == loop.KindSpec {
			for _, ln := range s.Lanes {
				branches = append(branches, ln.Branch)
			}
		}
		return StepResult{Did: did}, true, nil
	})
	if err != nil {
		return res, err
	}
	if len(res.Did) > 0 && res.Did[0] == nothingNew {
		res.Did = res.Did[1:]
	}
	deleted := false
	for _, b := range branches {
		if err := a.Git.ClearRefLock(ctx, b); err != nil {
			return res, err
		}
		if err := a.Git.DeleteBranch(ctx, b); err != nil {
			return res, err
		}
		res.Did, deleted = append(res.Did, "deleted "+b), true
	}
	if len(res.Did) == 0 && !deleted {
		res.Did = []string{"the run was over already; nothing to do"}
	}
	return res, nil
}

// implementStep opens what the run needs now. Route flags given to a step are kept in the run, so
// awaits a later receipt opens are routed by them too.
func implementStep(ctx context.Context, a *Deps, in *StepInput) (StepResult, error) {
	const verb = "implement_step"
	routes, err := a.Routes(ctx, verb, in.Routes)
	if err != nil {
		return StepResult{}, err
	}
	run, err := a.pickRun(ctx, verb, in.Run)
	if err != nil {
		return StepResult{}, err
	}
	given := oracle.Texts(in.Routes)
	return a.drive(ctx, verb, run, func(ctx context.Context, st *step) (StepResult, bool, error) {
		changed := false
		if len(given) > 0 && !slices.Equal(given, st.state.Routes) {
			st.state.Routes, changed = given, true
		}
		did, err := st.advance(ctx, routes)
		return StepResult{Did: did}, changed || len(did) > 0, err
	})
}

// implementReceipt finds the run the path names and records what was written there in the run's
// step (receive.go).
func implementReceipt(ctx context.Context, a *Deps, in *ReceiptInput) (StepResult, error) {
	p := strings.TrimPrefix(path.Clean(strings.ReplaceAll(string(in.Path), "\\", "/")), "./")
	// An absolute path inside the repository (as an agent may print it) names the same await.
	if strings.HasPrefix(p, "/") {
		if root, _ := a.RepoRoot(); root != "" {
			if rel, ok := strings.CutPrefix(p, path.Clean(strings.ReplaceAll(root, "\\", "/"))+"/"); ok {
				p = rel
			}
		}
	}
	run := string(in.Run)
	if run == "" {
		rest, ok := strings.CutPrefix(p, layout.Runs+"/")
		id, _, _ := strings.Cut(rest, "/")
		if !ok || !loop.ValidRunID(id) {
			return StepResult{}, refusal.New(refusal.CodeReceiptPathInvalid, fmt.Sprintf("%q", text.ClipPath(string(in.Path))),
				"is not a return path of a run", "give the path an await names (", refusal.Run("implement_status"), " lists them)")
		}
		run = id
	}
	var recorded RecordedView
	res, err := a.drive(ctx, "implement_receipt", run, func(ctx context.Context, st *step) (StepResult, bool, error) {
		return st.receive(ctx, p, string(in.Path), &recorded)
	})
	if err != nil {
		return StepResult{}, err
	}
	res.Recorded = &recorded
	return res, nil
}

func implementStatus(ctx context.Context, a *Deps, in *RunInput) (ImplementStatusResult, error) {
	if root, git := a.RepoRoot(); !git {
		return ImplementStatusResult{}, core.NotARepository("implement_status", root)
	}
	ids, err := a.runIDs(ctx, in.Run)
	if err != nil {
		return ImplementStatusResult{}, err
	}
	res := ImplementStatusResult{Runs: []RunView{}}
	for _, id := range ids {
		s, err := a.LoadRun(ctx, id)
		if err != nil {
			if in.Run != "" {
				return ImplementStatusResult{}, err
			}
			// One broken run is reported beside the others, never instead of them.
			res.Runs = append(res.Runs, RunView{Run: id, Kind: runUnknown, Problem: core.ProblemText(err), Lanes: []LaneView{}, Awaits: []AwaitView{},
				FallbacksByRoute: []FallbackCount{}, FallbacksByRole: []FallbackCount{}, Unfenced: []string{}, Spend: loop.SpendOf(loop.State{})})
			continue
		}
		if !in.Open || !s.Finished() {
			res.Runs = append(res.Runs, a.runView(s))
		}
	}
	return res, nil
}
