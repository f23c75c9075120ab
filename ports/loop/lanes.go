package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/text"
)

// act carries out one change Due asks for: a lane's start (its branch from what it builds on, the
// others merged in, in its own worktree), or the integration of every delivered lane. A merge that
// conflicts leaves the branch and its worktree as they were before it, for a person to make that
// merge by hand; the lane waits (loop.State.Conflicted), and the next step that finds the merge made
// goes on from the branch as they left it, with the merges still due.
//
// A start a kill interrupted may have left the branch, a worktree half checked out or a merge part
// way. The state does not say the lane started, so nothing has used them: the start is made again
// from the beginning, and a step run again ends as one never interrupted.
func (st *step) act(ctx context.Context, act loop.Action) (string, error) {
	s := &st.state
	ln := s.Lanes[act.Lane]
	// A waiting lane that has a worktree in the state (an earlier abcd's, inside the run's folder, too)
	// had a merge made by hand there: its branch is the person's work, never made again.
	byHand := ln.Worktree != ""
	wt := cmp.Or(ln.Worktree, loop.WorktreeDir(s.Run, ln.ID))
	if !byHand {
		if err := st.freshBranch(ctx, wt, ln.Branch, act.From, loop.OldWorktreeDir(s.Run, ln.ID)); err != nil {
			return "", err
		}
	}
	for k, head := range act.Merge {
		if byHand {
			tip, err := st.Git.Resolve(ctx, ln.Branch)
			if err != nil {
				return "", err
			}
			if in, err := st.Git.IsAncestor(ctx, head, tip); err != nil {
				return "", err
			} else if in {
				continue
			}
		}
		msg := fmt.Sprintf("abcd %s: %s builds on %s", s.Run, ln.ID, act.MergeLanes[k])
		if ln.Integration {
			msg = fmt.Sprintf("abcd %s: integrate %s", s.Run, act.MergeLanes[k])
		}
		conflicts, err := st.Git.Merge(ctx, wt, head, msg)
		if err != nil {
			return "", err
		}
		if len(conflicts) > 0 {
			s.Conflicted(act.Lane, act.MergeLanes[k], head, conflicts, wt)
			return fmt.Sprintf("%s: merging %s conflicted on %s; it waits for that merge to be made by hand in %s (on %s), and the next lines say how",
				ln.ID, act.MergeLanes[k], strings.Join(conflicts, ", "), st.abs(wt), ln.Branch), nil
		}
	}
	start, err := st.Git.Resolve(ctx, ln.Branch)
	if err != nil {
		return "", err
	}
	s.Started(act.Lane, start, wt)
	if ln.Integration {
		return fmt.Sprintf("integrated %s on %s at %s, in %s", text.Count(len(act.Merge), "lane", "lanes"), ln.Branch, loop.Short(start), st.abs(wt)), nil
	}
	return fmt.Sprintf("%s: started on %s at %s, in %s", ln.ID, ln.Branch, loop.Short(start), st.abs(wt)), nil
}

// mergedByHand finds each lane waiting for a merge by hand whose merge is now in its branch, and
// records it resolved, so the pass that follows goes on from there. A lane still waiting is said by
// the next lines, not here.
func (st *step) mergedByHand(ctx context.Context) ([]string, error) {
	s := &st.state
	var did []string
	for i, ln := range s.Lanes {
		c := ln.Conflict
		if c.With == "" {
			continue
		}
		tip, err := st.Git.Resolve(ctx, ln.Branch)
		if err != nil {
			return nil, err
		}
		in, err := st.Git.IsAncestor(ctx, c.Head, tip)
		if err != nil {
			return nil, err
		}
		if !in {
			continue
		}
		s.Resolved(i)
		did = append(did, fmt.Sprintf("%s: the merge of %s was made by hand, at %s; the run goes on from there", ln.ID, c.With, loop.Short(tip)))
	}
	return did, nil
}

// freshBranch makes branch anew at from, checked out in its own worktree wt, clearing whatever a
// start a kill interrupted left of either, at wt and at stale (an earlier abcd's worktree).
func (a *Deps) freshBranch(ctx context.Context, wt, branch, from, stale string) error {
	// The folder first: a worktree git half made may not be one it can remove, and once the folder
	// is gone git forgets it.
	for _, dir := range []string{stale, wt} {
		if err := errors.Join(a.Runs.RemoveAll(ctx, dir), a.Git.RemoveWorktree(ctx, dir)); err != nil {
			return err
		}
	}
	if err := a.Git.ClearRefLock(ctx, branch); err != nil {
		return err
	}
	if err := a.Git.DeleteBranch(ctx, branch); err != nil {
		return err
	}
	if err := a.Git.CreateBranch(ctx, branch, from); err != nil {
		return err
	}
	if err := a.Runs.MakeLanes(ctx, wt); err != nil {
		return err
	}
	return a.Git.AddWorktree(ctx, wt, branch)
}

// clearWorktrees removes a finished run's worktrees; its branches stay. The folder goes first, then
// git's entry for it: a removal a kill interrupted left half a folder, which git no longer removes,
// and a run finished so is cleared by the next step of it.
func (st *step) clearWorktrees(ctx context.Context) []string {
	var did []string
	for i := range st.state.Lanes {
		ln := &st.state.Lanes[i]
		if ln.Worktree == "" {
			continue
		}
		if err := errors.Join(st.Runs.RemoveAll(ctx, ln.Worktree), st.Git.RemoveWorktree(ctx, ln.Worktree)); err != nil {
			did = append(did, fmt.Sprintf("%s: could not remove its worktree %s (%s); remove it with git worktree remove", ln.ID, st.abs(ln.Worktree), refusalWhy(err)))
			continue
		}
		did = append(did, fmt.Sprintf("%s: removed its worktree; %s stays", ln.ID, ln.Branch))
		ln.Worktree = ""
		st.state.Changes++
	}
	return did
}

// restoreWorktrees checks out again the worktree of each lane the run still works in whose folder is
// gone or half removed (an abandon a kill interrupted, a person's rm): from its branch, which holds
// every commit the lane made, so no agent is pointed at a folder that is not there.
func (st *step) restoreWorktrees(ctx context.Context) ([]string, error) {
	var did []string
	var lanes []loop.Lane
	var dirs []string
	for _, ln := range st.state.Lanes {
		working := ln.Stage == loop.StageBrief || ln.Stage == loop.StageImplement || ln.Stage == loop.StageValidate || ln.Stage == loop.StageFix
		if ln.Worktree != "" && working {
			lanes, dirs = append(lanes, ln), append(dirs, ln.Worktree)
		}
	}
	if len(lanes) == 0 {
		return nil, nil
	}
	// One look at git's worktrees for every lane: a step is taken often, and a run has many lanes.
	checked, err := st.Git.CheckedOut(ctx, dirs)
	if err != nil {
		return nil, err
	}
	for _, ln := range lanes {
		if checked[ln.Worktree] == ln.Branch {
			continue
		}
		if err := errors.Join(st.Runs.RemoveAll(ctx, ln.Worktree), st.Git.RemoveWorktree(ctx, ln.Worktree)); err != nil {
			return nil, err
		}
		if err := st.Git.ClearRefLock(ctx, ln.Branch); err != nil {
			return nil, err
		}
		if err := st.Runs.MakeLanes(ctx, ln.Worktree); err != nil {
			return nil, err
		}
		if err := st.Git.AddWorktree(ctx, ln.Worktree, ln.Branch); err != nil {
			return nil, err
		}
		did = append(did, fmt.Sprintf("%s: its worktree was gone; checked %s out again in %s", ln.ID, ln.Branch, st.abs(ln.Worktree)))
	}
	return did, nil
}

func integrationBranch(run string) string { return "abcd/" + run + "/integration" }
