package core

import (
	"context"
	"time"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
)

func (a *Core) Now() string { return a.Clock.Now().UTC().Format(time.RFC3339) }

func StatePath(run string) string { return loop.RunDir(run) + "/state.json" }

// loadRun reads a run's state, strictly.
func (a *Core) LoadRun(ctx context.Context, run string) (loop.State, error) {
	data, err := a.Runs.Read(ctx, StatePath(run), loop.MaxStateBytes)
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == refusal.CodeReturnMissing {
			return loop.State{}, loop.UnknownRun(run)
		}
		return loop.State{}, err
	}
	s, err := loop.Decode(StatePath(run), data)
	if err == nil {
		err = s.Check()
	}
	if err != nil {
		return loop.State{}, refusal.New(refusal.CodeRunStateInvalid, StatePath(run), err.Error(), "the state file was edited by hand; restore it from the last good copy")
	}
	return s, nil
}
