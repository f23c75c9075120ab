package loop

import (
	"context"
)

// lockRun takes a run's lock, waiting what lock.wait_ms says.
func (a *Deps) lockRun(ctx context.Context, run string) (func(), error) {
	wait, err := a.LockWait(ctx)
	if err != nil {
		return nil, err
	}
	return a.Runs.Lock(ctx, run, wait)
}
