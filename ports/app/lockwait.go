package app

import (
	"context"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/ports"
)

// lockWaitKey is the configuration key that bounds how long a writer waits for a held lock.
const lockWaitKey = "lock.wait_ms"

// withLockWait hands the stores the wait lock.wait_ms sets (ports.WithLockWait), for the record's
// lock and every run's. The configuration is read at most once per call, and only when the call
// takes a lock. A value that fails its check refuses the write, naming the file; a fault elsewhere
// in the files is for the verbs that read those keys and leaves the wait at its default, so a broken
// provider block never stops a capture.
func (a *App) withLockWait(ctx context.Context) context.Context {
	if a.Config == nil {
		return ctx
	}
	return ports.WithLockWait(ctx, sync.OnceValues(func() (time.Duration, error) {
		_, stack, err := a.loadConfig(ctx)
		if err != nil {
			stack = config.NewStack(nil, nil, nil) // the bundled default alone
		}
		v, err := config.Get[int](stack, lockWaitKey)
		if err != nil {
			return 0, configRefusal(err)
		}
		return time.Duration(v.V) * time.Millisecond, nil
	}))
}
