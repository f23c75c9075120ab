package loop

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// carryOver is what a new run of the spec takes over from its newest finished run (Carry), git
// asked whether each delivered lane's head still stands on its branch.
func (a *Deps) carryOver(ctx context.Context, spec record.Spec) (loop.Carried, error) {
	prev, err := a.LastFinished(ctx, spec.Front.ID)
	if err != nil || prev.Run == "" {
		return loop.Carried{}, err
	}
	var steps []loop.LaneSpec
	for _, st := range spec.Steps {
		steps = append(steps, loop.LaneSpec{Step: st.N, Text: st.Text, After: st.After})
	}
	lost := map[string]string{}
	for _, l := range prev.Lanes {
		if l.Integration || l.Stage != loop.StageDone {
			continue
		}
		tip, err := a.Git.Resolve(ctx, "refs/heads/"+l.Branch)
		if _, refused := refusal.As(err); refused {
			lost[l.ID] = fmt.Sprintf("its branch %s was deleted since %s delivered it", l.Branch, prev.Run)
			continue
		} else if err != nil {
			return loop.Carried{}, err
		}
		// A head no longer on its branch (rewritten, or the commit gone) is work git no longer holds.
		if on, err := a.Git.IsAncestor(ctx, l.Head, tip); err != nil {
			return loop.Carried{}, err
		} else if !on {
			lost[l.ID] = fmt.Sprintf("its branch %s was rewritten since %s delivered it: %s is no longer on it", l.Branch, prev.Run, loop.Short(l.Head))
		}
	}
	return loop.Carry(prev, steps, lost), nil
}

// Abandon ends an unfinished run as implement abandon does, its branches kept (prune --unfinished).
func Abandon(ctx context.Context, a *Deps, run string) (StepResult, error) {
	return implementAbandon(ctx, a, &AbandonInput{Run: loop.RunID(run)})
}
