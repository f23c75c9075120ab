package loop

import (
	"context"
	"slices"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	recorduc "github.com/abcd-dev/abcd/ports/record"
)

// step is one run's step, under the run's lock. What the step changes beside the run's state (the
// record edits and run files it queues) is committed with the state as one change when the step is
// saved; the routes it queues are called once the lock is released. What changes a run takes a step,
// so an edit outside a step does not compile.
type step struct {
	*Deps
	// verb is the verb that asked for the step: the changes it commits, and its refusals, name it.
	verb string
	// run is the run's id; state is its state, read (or, for a new run, made) once the lock is held.
	run   string
	state loop.State
	// root is the repository root (forward slashes), under which the step makes paths absolute.
	root string
	// rec is the record lock when the step runs under it (a run created under the record lock), nil
	// when the step takes it only for its commit.
	rec *recorduc.RecordLock
	// finished is the change a killed writer left that taking the locks finished (zero for none).
	finished ports.Change
	// files and edits are what the step changes beside the state: run files it places (a route's
	// answer) and edits of the record (a Progress line, the Audit Notes).
	files []ports.FileChange
	edits []recordEdit
	// jobs are the routes beside the host to call once the run's lock is released (dispatch.go);
	// worker is the invocation's hold on the routes it calls, recorded on each await a job is for
	// when the step is saved (nil where the verb calls no route).
	jobs   []dispatch
	worker *routeWorker
	// checks are the runs of build.dod to make once the run's lock is released (checks.go).
	checks []CheckJob
	// diffs are the diffs between two commits the step read (briefs.go: diff).
	diffs  map[[2]string]stepDiff
	unlock func()
}

// recordEdit is one queued edit of a record file. It is applied at the step's commit, under the
// record lock, to the record as it then stands: the lock is held for the commit alone, never across
// the step's git work, and no edit is made to a copy another writer changed meanwhile.
type recordEdit struct {
	fam  record.Family
	ref  string
	edit func(path string, data []byte) ([]byte, error)
}

// openStep takes run's lock and makes its step: the one function that does either. rec is the record
// lock when the caller holds it (a run being created); otherwise a change a killed writer left is
// finished first, since it may hold this run's state. The caller reads or makes the state, and
// releases the step.
func (a *Deps) openStep(ctx context.Context, verb, run string, rec *recorduc.RecordLock, w *routeWorker) (*step, error) {
	unlock, err := a.lockRun(ctx, run)
	if err != nil {
		return nil, err
	}
	st := &step{Deps: a, verb: verb, run: run, rec: rec, root: a.Root(), unlock: unlock, worker: w}
	if rec != nil {
		st.finished = rec.Finished
		return st, nil
	}
	if st.finished, err = a.Record.FinishPending(ctx, verb); err != nil {
		unlock()
		return nil, err
	}
	return st, nil
}

// abs is a repository-relative path as an absolute one, for a brief or a line an agent in any folder
// follows literally.
func (st *step) abs(rel string) string { return loop.Abs(st.root, rel) }

// release lets go of the run's lock.
func (st *step) release() { st.unlock() }

// finishedFor is the change a killed run of this step's verb on the run left, when taking the locks
// finished it.
func (st *step) finishedFor(run string) (ports.Change, bool) {
	c := st.finished
	return c, c.Verb == st.verb && c.Record == run
}

// editRecord queues an edit of the record ref names, applied at the step's commit.
func (st *step) editRecord(fam record.Family, ref string, edit func(path string, data []byte) ([]byte, error)) {
	st.edits = append(st.edits, recordEdit{fam: fam, ref: ref, edit: edit})
}

// stage keeps a run file's new content for the step's commit.
func (st *step) stage(p string, data []byte) {
	for i := range st.files {
		if st.files[i].Path == p {
			st.files[i].Data = data
			return
		}
	}
	st.files = append(st.files, ports.FileChange{Path: p, Data: data})
}

// unstage drops a file the step staged.
func (st *step) unstage(p string) {
	st.files = slices.DeleteFunc(st.files, func(f ports.FileChange) bool { return f.Path == p })
}

// staged is what the step staged at p, if anything.
func (st *step) staged(p string) ([]byte, bool) {
	for _, f := range st.files {
		if f.Path == p {
			return f.Data, true
		}
	}
	return nil, false
}

// edited reports whether the step changed anything beside the state.
func (st *step) edited() bool { return len(st.files) > 0 || len(st.edits) > 0 }

// withRun runs do on run's step, under its lock, and saves the state when do changed it or queued
// an edit. It returns what do did, with the run as it now stands and what to do next, and the routes
// do queued (w holds them; nil where the verb calls none). First, every await a route was taking
// for a process that is gone is handed to the host (handOnGone).
func (a *Deps) withRun(ctx context.Context, verb, run string, w *routeWorker, do func(context.Context, *step) (StepResult, bool, error)) (StepResult, queued, error) {
	if err := a.Initialized(verb); err != nil {
		return StepResult{}, queued{}, err
	}
	st, err := a.openStep(ctx, verb, run, nil, w)
	if err != nil {
		return StepResult{}, queued{}, err
	}
	defer st.release()
	if st.state, err = a.LoadRun(ctx, run); err != nil {
		return StepResult{}, queued{}, err
	}
	settled, err := st.settle(ctx)
	if err != nil {
		return StepResult{}, queued{}, err
	}
	if len(settled) > 0 {
		// Saved now, whatever the verb then does: a refusal of its own must not undo it.
		if err := st.save(ctx); err != nil {
			return StepResult{}, queued{}, err
		}
	}
	res, changed, err := do(ctx, st)
	if err != nil {
		return StepResult{}, queued{}, err
	}
	res.Did = append(settled, res.Did...)
	if changed || st.edited() {
		if err := st.save(ctx); err != nil {
			return StepResult{}, queued{}, err
		}
	}
	if len(res.Did) == 0 {
		res.Did = []string{nothingNew}
	}
	return st.result(res), st.queued(), nil
}

// queued is what a step leaves to do once the run's lock is released: the routes to call and the
// runs of build.dod to make.
type queued struct {
	routes []dispatch
	checks []CheckJob
}

func (q queued) empty() bool { return len(q.routes) == 0 && len(q.checks) == 0 }

func (st *step) queued() queued { return queued{routes: st.jobs, checks: st.checks} }

// settle clears what a killed invocation left of the run before the verb's part runs: an await a
// route was taking for a process that is gone is handed to the host (handOnGone), and a finished
// run's worktrees a kill left standing, or half removed, go (clearWorktrees).
func (st *step) settle(ctx context.Context) ([]string, error) {
	did, err := st.handOnGone(ctx)
	if err != nil {
		return nil, err
	}
	if st.state.Finished() {
		did = append(did, st.clearWorktrees(ctx)...)
	}
	return did, nil
}

// nothingNew is what a step that did nothing says.
const nothingNew = "nothing new: the run is waiting on its open awaits"

// result is what the step did, with the run as it now stands and what to do next.
func (st *step) result(res StepResult) StepResult {
	if res.Did == nil {
		res.Did = []string{}
	}
	res.Run = st.runView(st.state)
	res.Next = st.nextSteps(st.state)
	return res
}

// drive runs do on the run's step, then calls every route the step queued, outside the lock, and
// places their answers in a step of their own (dispatch.go); an answer can make more awaits due (the
// next round, the integration), whose routes are called in turn. It returns the run as the last
// placement left it.
func (a *Deps) drive(ctx context.Context, verb, run string, do func(context.Context, *step) (StepResult, bool, error)) (StepResult, error) {
	w := &routeWorker{}
	defer w.done()
	res, jobs, err := a.withRun(ctx, verb, run, w, do)
	if err != nil {
		return res, err
	}
	return a.callAndPlace(ctx, verb, run, w, res, jobs)
}

// refusalWhy is a refusal's reason, or the error's text.
func refusalWhy(err error) string {
	if r, ok := refusal.As(err); ok {
		return r.Why
	}
	return err.Error()
}
