package app

import (
	"context"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
)

// lockWaitKey is the configuration key that bounds how long a writer waits for a held lock.
const lockWaitKey = "lock.wait_ms"

// forCall is the core one invocation runs on: a copy of a whose lock wait is read once, under ctx,
// when the call first takes a lock, and never when it takes none.
func (a *App) forCall(ctx context.Context) *App {
	c := *a
	c.wait = sync.OnceValues(func() (time.Duration, error) { return a.readLockWait(ctx) })
	return &c
}

// lockWait is how long this call waits for the record's, a run's or the machine folder's lock
// before it reports contention: lock.wait_ms, whose default (3 s) the configuration registry holds.
func (a *App) lockWait(ctx context.Context) (time.Duration, error) {
	if a.wait != nil {
		return a.wait()
	}
	return a.readLockWait(ctx)
}

// readLockWait reads lock.wait_ms. A value that fails its check refuses the write, naming the file;
// a fault elsewhere in the files is for the verbs that read those keys and leaves the wait at its
// default, so a broken provider block never stops a capture.
func (a *App) readLockWait(ctx context.Context) (time.Duration, error) {
	stack := config.NewStack(nil, nil, nil) // the bundled default alone
	if a.Config != nil {
		if _, s, err := a.loadConfig(ctx); err == nil {
			stack = s
		}
	}
	v, err := config.Get[int](stack, lockWaitKey)
	if err != nil {
		return 0, configRefusal(err)
	}
	return time.Duration(v.V) * time.Millisecond, nil
}

// lockRun takes a run's lock, waiting what lock.wait_ms says.
func (a *App) lockRun(ctx context.Context, run string) (func(), error) {
	wait, err := a.lockWait(ctx)
	if err != nil {
		return nil, err
	}
	return a.Runs.Lock(ctx, run, wait)
}

// updateMachineFile is Setup.UpdateMachineFile under the machine folder's lock, waiting what
// lock.wait_ms says.
func (a *App) updateMachineFile(ctx context.Context, name string, update func(old []byte, present bool) ([]byte, error)) error {
	wait, err := a.lockWait(ctx)
	if err != nil {
		return err
	}
	return a.Setup.UpdateMachineFile(ctx, name, wait, update)
}
