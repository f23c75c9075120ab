package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	recorduc "github.com/abcd-dev/abcd/ports/record"
)

// newRun is a run to create: its kind and options, its lanes, and the route flags it keeps.
type newRun struct {
	kind   loop.Kind
	opts   loop.Options
	lanes  func(run string) []loop.LaneSpec
	routes []oracle.RouteText
	// branches: create each lane's branch at the base (a spec run); a review or audit run works on
	// the branch that is checked out.
	branches bool
	// carried is what a spec run takes over from the spec's last run (its kept lanes made done).
	carried loop.Carried
}

// createRun writes a new run under the record lock rec: its folder, then its state, with the first
// awaits of a review or audit run opened before the state is first written (nobody can see the run
// before then, so a kill never leaves it without them); a spec run's lanes start at its first step.
// It returns the routes beside the host those awaits queued, for the caller to call once the record
// lock is released. Everything that can refuse has been checked by the caller; a failure part way
// takes back what was made, so no orphan stands as the newest run. Runs are created under the record
// lock, so a run folder with no state seen under it is a start a kill interrupted: it is removed.
func (a *Deps) createRun(ctx context.Context, rec *recorduc.RecordLock, n newRun, w *routeWorker) (StepResult, queued, error) {
	orphans, err := a.Runs.Unstarted(ctx)
	if err != nil {
		return StepResult{}, queued{}, err
	}
	for _, id := range orphans {
		if err := a.Runs.RemoveAll(ctx, loop.RunDir(id)); err != nil {
			return StepResult{}, queued{}, err
		}
	}
	runID, err := a.freshRun(ctx, rec.Verb)
	if err != nil {
		return StepResult{}, queued{}, err
	}
	st, err := a.openStep(ctx, rec.Verb, runID, rec, w)
	if err == nil {
		var res StepResult
		res, err = st.start(ctx, n)
		st.release()
		if err == nil {
			return res, st.queued(), nil
		}
	}
	// What this start made goes; a failure to remove it is told beside the start's own.
	return StepResult{}, queued{}, errors.Join(err, a.Runs.RemoveAll(ctx, loop.RunDir(runID)))
}

// start makes the new run's state, opens a review or audit run's first awaits, and saves it.
func (st *step) start(ctx context.Context, n newRun) (StepResult, error) {
	n.opts.Run, n.opts.Created = st.run, st.Now()
	if n.branches {
		n.opts.IntegrationBranch = integrationBranch(n.opts.Run)
	}
	st.state = loop.New(n.kind, n.opts, n.lanes(n.opts.Run))
	st.state.Routes = oracle.Texts(n.routes)
	if n.branches {
		// A lane's branch is made when the lane starts; a name already taken refuses the run now.
		for _, ln := range st.state.Lanes {
			if _, err := st.Git.Resolve(ctx, ln.Branch); err == nil {
				return StepResult{}, refusal.New(refusal.CodeBranchExists, ln.Branch, "already exists", "delete the stale branch, or start the run again for a new id")
			}
		}
	}
	did := []string{created(st.state)}
	if words := n.carried.Words(st.state.Lanes); words != "" {
		did = append(did, words)
	}
	made, err := st.keptBranches(ctx)
	if err != nil {
		return StepResult{}, err
	}
	if n.kind != loop.KindSpec {
		opened, err := st.advance(ctx, nil)
		if err != nil {
			return StepResult{}, err
		}
		did = append(did, opened...)
	}
	if err := st.save(ctx); err != nil {
		// The run is not made: neither are its kept lanes' branches.
		for _, b := range made {
			err = errors.Join(err, st.Git.DeleteBranch(ctx, b))
		}
		return StepResult{}, err
	}
	return st.result(StepResult{Did: did}), nil
}

// keptBranches makes each kept lane's branch at its head, so the work the run took over stands on a
// branch of the run (the earlier run's may be pruned); it returns the branches it made.
func (st *step) keptBranches(ctx context.Context) ([]string, error) {
	var made []string
	for _, ln := range st.state.Lanes {
		if ln.KeptFrom == "" {
			continue
		}
		if err := st.Git.CreateBranch(ctx, ln.Branch, ln.Head); err != nil {
			for _, b := range made {
				err = errors.Join(err, st.Git.DeleteBranch(ctx, b))
			}
			return nil, err
		}
		made = append(made, ln.Branch)
	}
	return made, nil
}

// created says what a new run is.
func created(s loop.State) string {
	if s.Kind != loop.KindSpec {
		return fmt.Sprintf("created %s run %s over %s..%s", s.Kind, s.Run, loop.Short(s.Base), loop.Short(s.Lanes[0].Head))
	}
	return fmt.Sprintf("created run %s with %s from %s", s.Run, text.Count(len(s.Lanes)-1, "lane", "lanes"), loop.Short(s.Base)) // the integration lane is not a step
}

// freshRun creates a new run's folder under a fresh id, retrying with new random digits when two
// invocations drew the same id in the same second.
func (a *Deps) freshRun(ctx context.Context, verb string) (string, error) {
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
	return "", refusal.Busy(refusal.CodeRunIDContention, "", "no free run id after 16 tries", "run it again").On(verb, "")
}

// newRunID is run-<yymmddhhmmss><4 random digits>, sorting by time like record ids.
func (a *Deps) newRunID() string {
	return "run-" + a.Clock.Now().UTC().Format("060102150405") + fmt.Sprintf("%04d", a.Random.Uint32()%10000)
}

// save writes the run's state; with what the step changed beside it, as one change under the record
// lock (the step's own, or one taken for the commit alone).
func (st *step) save(ctx context.Context) error {
	if err := st.claimJobs(ctx); err != nil {
		return err
	}
	s := st.state
	data := loop.Encode(s)
	if len(data) > loop.MaxStateBytes {
		return refusal.New(refusal.CodeRunStateTooLarge, s.Run, fmt.Sprintf("recording this would grow the run's state to %d bytes, past its %d-byte bound", len(data), loop.MaxStateBytes),
			"shorten the return (its findings) and hand it in again; nothing was recorded")
	}
	if !st.edited() {
		if err := st.Runs.Write(ctx, core.StatePath(s.Run), data); err != nil {
			return err
		}
		// Each lane's .git file the state names is denied to Claude Code's sandbox, where abcd turned it
		// on, before the worktree stands and any agent works in it.
		return st.RefreshHarnessSandbox(ctx)
	}
	rec := st.rec
	if rec == nil {
		held, unlock, err := st.Record.LockRecord(ctx, st.verb)
		if err != nil {
			return err
		}
		defer unlock()
		rec = held
	}
	records, err := st.recordChanges(ctx)
	if err != nil {
		return err
	}
	files := append(append(records, st.files...), recorduc.Write(core.StatePath(s.Run), data))
	if err := st.Record.Commit(ctx, rec, s.Run, files...); err != nil {
		return err
	}
	return st.RefreshHarnessSandbox(ctx)
}

// recordChanges applies the step's record edits, in order, to the record as it stands; the record
// lock is held.
func (st *step) recordChanges(ctx context.Context) ([]ports.FileChange, error) {
	var out []ports.FileChange
	for _, re := range st.edits {
		l, err := st.Record.Resolve(ctx, re.fam, st.verb, "", record.Ref(re.ref))
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(out, func(f ports.FileChange) bool { return f.Path == l.File.Path })
		var data []byte
		if i >= 0 {
			data = out[i].Data
		} else if data, err = st.Record.ReadFull(ctx, l.File.Path); err != nil {
			return nil, err
		}
		if data, err = re.edit(l.File.Path, data); err != nil {
			return nil, err
		}
		if i >= 0 {
			out[i].Data = data
		} else {
			out = append(out, recorduc.Write(l.File.Path, data))
		}
	}
	return out, nil
}

// runIDs is one named run, or every run.
func (a *Deps) runIDs(ctx context.Context, run loop.RunID) ([]string, error) {
	if run != "" {
		return []string{string(run)}, nil
	}
	return a.Runs.Runs(ctx)
}

// pickRun is the named run, or the one unfinished run. Several unfinished runs are refused rather
// than one picked silently: the person names the run.
func (a *Deps) pickRun(ctx context.Context, verb string, run loop.RunID) (string, error) {
	if run != "" {
		return string(run), nil
	}
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return "", err
	}
	var active []string
	for _, id := range ids {
		s, err := a.LoadRun(ctx, id)
		if err == nil && !s.Finished() {
			active = append(active, id)
		}
	}
	switch len(active) {
	case 0:
		return "", refusal.New(refusal.CodeNoRun, "", "no unfinished run in this repository",
			"start one: ", refusal.Run("implement_start", refusal.Hole("spec", "spec"))).On(verb, "")
	case 1:
		return active[0], nil
	}
	return "", refusal.New(refusal.CodeRunAmbiguous, "", fmt.Sprintf("%d runs are unfinished: %s", len(active), strings.Join(active, ", ")),
		"name one with ", refusal.Field(verb, "run"), "; ", refusal.Run("implement_status"), " shows them").On(verb, "")
}

// pickAnyRun is the named run, or the newest run of any standing.
func (a *Deps) pickAnyRun(ctx context.Context, verb string, run loop.RunID) (string, error) {
	if run != "" {
		return string(run), nil
	}
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", refusal.New(refusal.CodeNoRun, "", "no run in this repository",
			"start one: ", refusal.Run("implement_start", refusal.Hole("spec", "spec")), ", or ", refusal.Run("review")).On(verb, "")
	}
	return ids[len(ids)-1], nil
}

// settleFinished finishes, for every finished run, the removal of its worktrees a kill interrupted
// (a half-deleted folder, an entry git lists as prunable, which keeps the run's branches from being
// checked out elsewhere): so the next command that touches runs clears them, not only the next on
// that run. Each such run is settled under its own lock, as its own step would settle it, and says
// so with its id; one another invocation holds is left to it. A run whose state cannot be read is
// passed over here: its own verbs and lint say what is wrong with it.
func (a *Deps) settleFinished(ctx context.Context, verb string) ([]string, error) {
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var did []string
	for _, id := range ids {
		s, err := a.LoadRun(ctx, id)
		if err != nil || !s.Finished() || !slices.ContainsFunc(s.Lanes, func(l loop.Lane) bool { return l.Worktree != "" }) {
			continue
		}
		res, _, err := a.withRun(ctx, verb, id, nil, func(context.Context, *step) (StepResult, bool, error) {
			return StepResult{}, false, nil
		})
		if r, ok := refusal.As(err); ok && r.Kind == refusal.Contention {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, d := range res.Did {
			if d != nothingNew {
				did = append(did, "finished run "+id+": "+d)
			}
		}
	}
	return did, nil
}

// settledFirst runs a verb that touches runs after settleFinished, and puts what settling did before
// what the verb did.
func (a *Deps) settledFirst(ctx context.Context, verb string, do func() (StepResult, error)) (StepResult, error) {
	did, err := a.settleFinished(ctx, verb)
	if err != nil {
		return StepResult{}, err
	}
	res, err := do()
	if err == nil && len(did) > 0 {
		res.Did = append(did, res.Did...)
	}
	return res, err
}

// settlingFirst is a verb that touches runs, settling every finished run first (settleFinished).
func settlingFirst[I any](verb string, run func(context.Context, *Deps, *I) (StepResult, error)) func(context.Context, *Deps, *I) (StepResult, error) {
	return func(ctx context.Context, a *Deps, in *I) (StepResult, error) {
		return a.settledFirst(ctx, verb, func() (StepResult, error) { return run(ctx, a, in) })
	}
}
