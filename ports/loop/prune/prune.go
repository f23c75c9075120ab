// Package prune holds implement prune: the branches and worktree folders of runs that are over go,
// their record stays.
package prune

import (
	"context"
	"errors"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/internal/core"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/verb"
)

// Input names the runs to prune: every run that is over, or the one given; Unfinished abandons the
// unfinished ones first and prunes them too; DryRun says what would go and removes nothing.
type Input struct {
	Run loop.RunID `json:"run,omitempty"`
	// Unfinished abandons each unfinished run no invocation holds (as implement abandon does), then
	// prunes it; without it, an unfinished run is left as it is.
	Unfinished bool `json:"unfinished,omitempty"`
	DryRun     bool `json:"dry_run,omitempty"`
}

// Result is what prune did to each run it looked at (or, with dry_run, would do).
type Result struct {
	DryRun bool      `json:"dry_run"`
	Runs   []RunDone `json:"runs"`
}

// RunDone is one run: its standing before prune (finished, abandoned, unfinished, in use or
// unreadable), the branches and worktrees removed, the branches kept with why, and why the run was
// left whole ("" when it was pruned).
type RunDone struct {
	Run      string   `json:"run"`
	Standing Standing `json:"standing"`
	// Abandoned: the run was unfinished and --unfinished abandoned it first (or, dry, would).
	Abandoned bool     `json:"abandoned"`
	Removed   []string `json:"removed"`
	Kept      []string `json:"kept"`
	Left      string   `json:"left"`
}

// Standing is where a run stood when prune looked at it.
type Standing string

const (
	StandingFinished   Standing = "finished"   // every lane delivered or handed back by its reviews
	StandingAbandoned  Standing = "abandoned"  // ended by implement abandon
	StandingUnfinished Standing = "unfinished" // a lane still moves
	StandingInUse      Standing = "in-use"     // another invocation holds its lock
	StandingUnreadable Standing = "unreadable" // its state cannot be read
)

func (Standing) SchemaEnum() contract.Rule {
	return contract.Enum(StandingFinished, StandingAbandoned, StandingUnfinished, StandingInUse, StandingUnreadable)
}

// maxBranches bounds the branches of one run prune lists: a lane each, the integration, and the
// attempts a runner's failed steps were kept on.
const maxBranches = 4096

// Verb declares implement_prune in the loop's family, beside implement abandon.
func Verb() verb.Verb {
	return verb.Declare(verb.Verb{Name: "implement_prune", Path: []string{"implement", "prune"},
		Example:     "abcd implement prune --dry-run\nabcd implement prune\nabcd implement prune --run <run-id> --unfinished",
		Summary:     "Remove the branches and worktree folders of runs that are over (finished or abandoned); their record stays, and delivered work not yet in the base is kept",
		Destructive: true, Idempotent: true},
		implementPrune)
}

func implementPrune(ctx context.Context, a *loopuc.Deps, in *Input) (Result, error) {
	const verbName = "implement_prune"
	if err := a.Initialized(verbName); err != nil {
		return Result{}, err
	}
	ids := []string{string(in.Run)}
	if in.Run == "" {
		var err error
		if ids, err = a.Runs.Runs(ctx); err != nil {
			return Result{}, err
		}
	}
	all, err := a.Runs.Runs(ctx)
	if err != nil {
		return Result{}, err
	}
	res := Result{DryRun: in.DryRun, Runs: []RunDone{}}
	for _, id := range ids {
		done, err := pruneRun(ctx, a, id, all, in)
		if err != nil {
			return res, err
		}
		res.Runs = append(res.Runs, done)
	}
	return res, nil
}

// pruneRun prunes one run under its lock, taken with one try: a run another invocation holds is in
// use, and left. An unfinished run is abandoned first when asked, outside the lock, since abandon
// takes it itself.
func pruneRun(ctx context.Context, a *loopuc.Deps, id string, all []string, in *Input) (RunDone, error) {
	done := RunDone{Run: id, Removed: []string{}, Kept: []string{}}
	s, err := a.LoadRun(ctx, id)
	if err != nil {
		if in.Run != "" {
			return done, err
		}
		done.Standing, done.Left = StandingUnreadable, "its state cannot be read: "+core.ProblemText(err)
		return done, nil
	}
	done.Standing = standing(s)
	if !s.Finished() {
		if !in.Unfinished {
			done.Left = "it is unfinished: go on with it, or give --unfinished to abandon it and prune it"
			return done, nil
		}
		if !in.DryRun {
			if _, err := loopuc.Abandon(ctx, a, id); err != nil {
				if r, ok := refusal.As(err); ok && r.Kind == refusal.Contention {
					done.Standing, done.Left = StandingInUse, "another invocation holds its lock; run prune again once it is done"
					return done, nil
				}
				return done, err
			}
			if s, err = a.LoadRun(ctx, id); err != nil {
				return done, err
			}
		}
		done.Abandoned = true
	}
	unlock, err := a.Runs.Lock(ctx, id, 0)
	if r, ok := refusal.As(err); ok && r.Kind == refusal.Contention {
		done.Standing, done.Left = StandingInUse, "another invocation holds its lock; run prune again once it is done"
		return done, nil
	} else if err != nil {
		return done, err
	}
	defer unlock()
	keep, err := deliveredWork(ctx, a, s, all)
	if err != nil {
		return done, err
	}
	if err := removeWorktrees(ctx, a, s, in.DryRun, &done); err != nil {
		return done, err
	}
	branches, err := a.Git.BranchesUnder(ctx, "abcd/"+id, maxBranches)
	if err != nil {
		return done, err
	}
	for _, b := range branches {
		if why := keep[b]; why != "" {
			done.Kept = append(done.Kept, b+": "+why)
			continue
		}
		if !in.DryRun {
			if err := errors.Join(a.Git.ClearRefLock(ctx, b), a.Git.DeleteBranch(ctx, b)); err != nil {
				return done, err
			}
		}
		done.Removed = append(done.Removed, "branch "+b)
	}
	return done, nil
}

// standing is a readable run's: abandoned when implement abandon handed a lane back.
func standing(s loop.State) Standing {
	if !s.Finished() {
		return StandingUnfinished
	}
	for _, l := range s.Lanes {
		if l.Stage == loop.StageHandedBack && l.Findings == loop.AbandonedFindings {
			return StandingAbandoned
		}
	}
	return StandingFinished
}

// removeWorktrees removes every lane's worktree folder and git's entry for it: the folder first, as
// the loop clears them, so a half-removed one goes too. Each one git had checked out is said.
func removeWorktrees(ctx context.Context, a *loopuc.Deps, s loop.State, dry bool, done *RunDone) error {
	// Each lane's worktree where abcd makes it, and where an earlier abcd made it (inside the run's
	// folder): a run's state may name either.
	var dirs []string
	recorded := map[string]bool{}
	for _, l := range s.Lanes {
		dirs = append(dirs, loop.WorktreeDir(s.Run, l.ID), loop.OldWorktreeDir(s.Run, l.ID))
		recorded[l.Worktree] = l.Worktree != ""
	}
	checked, err := a.Git.CheckedOut(ctx, dirs)
	if err != nil {
		return err
	}
	for _, dir := range dirs {
		if checked[dir] == "" && !recorded[dir] {
			continue
		}
		done.Removed = append(done.Removed, "worktree "+loop.Abs(a.Root(), dir))
		if dry {
			continue
		}
		if err := errors.Join(a.Runs.RemoveAll(ctx, dir), a.Git.RemoveWorktree(ctx, dir)); err != nil {
			return err
		}
	}
	if dry {
		return nil
	}
	return errors.Join(a.Runs.RemoveAll(ctx, layout.LanesDir(s.Run)), a.Runs.RemoveAll(ctx, loop.RunDir(s.Run)+"/worktrees"))
}

// deliveredWork is the branches of a run that hold delivered work found nowhere else, by branch with
// why they stay: the integration of a run that delivered every lane, until its head is in the base;
// a run finished as a pull request leaves its integration to the remote it was pushed to; and the
// lanes delivered by the spec's newest run when it handed others back, which the spec's
// next run keeps (implement start goes on from them), until their heads are in the base. A newer
// run of the spec made branches of its own at what it kept, so an older run's go.
func deliveredWork(ctx context.Context, a *loopuc.Deps, s loop.State, all []string) (map[string]string, error) {
	keep := map[string]string{}
	if s.Kind != loop.KindSpec {
		return keep, nil
	}
	base, err := baseTip(ctx, a, s)
	if err != nil {
		return nil, err
	}
	var integrated bool
	for _, l := range s.Lanes {
		integrated = integrated || l.Integration && l.Stage == loop.StageDone
	}
	newest, err := newestOfSpec(ctx, a, s, all)
	if err != nil {
		return nil, err
	}
	for _, l := range s.Lanes {
		var why string
		switch {
		case l.Stage != loop.StageDone || l.Head == "":
			continue
		case l.Integration:
			pushed, err := pushedAsPR(ctx, a, s, l)
			if err != nil {
				return nil, err
			} else if pushed {
				continue
			}
			why = "the run's delivered work, not in " + baseName(s) + " yet: merge it (or delete it with git branch -D)"
		case !integrated && newest:
			why = "delivered, and the spec's next run keeps it (implement start goes on from it)"
		default:
			continue
		}
		if base != "" {
			if in, err := a.Git.IsAncestor(ctx, l.Head, base); err != nil {
				return nil, err
			} else if in {
				continue
			}
		}
		keep[l.Branch] = why
	}
	return keep, nil
}

// pushedAsPR reports whether the run finished as a pull request of lane's branch and the branch
// still stands where it was pushed: the remote holds that work, so the local branch may go.
func pushedAsPR(ctx context.Context, a *loopuc.Deps, s loop.State, l loop.Lane) (bool, error) {
	f := s.Finish
	if f == nil || f.As != loop.FinishPR || f.Branch != l.Branch || f.Head == "" {
		return false, nil
	}
	tip, err := a.Git.Resolve(ctx, "refs/heads/"+l.Branch)
	if _, refused := refusal.As(err); refused {
		return false, nil
	}
	return err == nil && tip == f.Head, err
}

// baseTip is the commit the run's base branch names now ("" when it names none any more).
func baseTip(ctx context.Context, a *loopuc.Deps, s loop.State) (string, error) {
	if s.BaseRef == "" {
		return "", nil
	}
	tip, err := a.Git.Resolve(ctx, s.BaseRef)
	if _, refused := refusal.As(err); refused {
		return "", nil
	}
	return tip, err
}

// newestOfSpec reports whether no run of the spec was created after s (an unreadable one is passed
// over).
func newestOfSpec(ctx context.Context, a *loopuc.Deps, s loop.State, all []string) (bool, error) {
	for _, id := range all {
		if id == s.Run {
			continue
		}
		o, err := a.LoadRun(ctx, id)
		if err != nil {
			continue
		}
		if o.Spec == s.Spec && (o.Created > s.Created || o.Created == s.Created && o.Run > s.Run) {
			return false, nil
		}
	}
	return true, nil
}

func baseName(s loop.State) string {
	if s.BaseRef == "" {
		return "the base"
	}
	return s.BaseRef
}
