package core

import (
	"context"
	"time"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
)

func (a *Core) Now() string { return a.Clock.Now().UTC().Format(time.RFC3339) }

func StatePath(run string) string { return loop.RunDir(run) + "/state.json" }

// LoadRun reads a run's state, strictly.
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

// LastFinished is the spec's newest finished run (zero for none); an unreadable run is passed over.
func (a *Core) LastFinished(ctx context.Context, spec string) (loop.State, error) {
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return loop.State{}, err
	}
	var last loop.State
	for _, id := range ids {
		s, err := a.LoadRun(ctx, id)
		if err != nil || s.Spec != spec || s.Kind != loop.KindSpec || !s.Finished() {
			continue
		}
		if last.Run == "" || s.Created > last.Created || (s.Created == last.Created && s.Run > last.Run) {
			last = s
		}
	}
	return last, nil
}

// IntegrationOf is a spec run's integration lane.
func IntegrationOf(s loop.State) (loop.Lane, bool) {
	for _, l := range s.Lanes {
		if l.Integration {
			return l, true
		}
	}
	return loop.Lane{}, false
}

// MaxRunsLooked bounds how many runs status reads, newest first.
const MaxRunsLooked = 64
