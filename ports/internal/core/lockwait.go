package core

import (
	"context"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
)

// lockWaitKey is the configuration key that bounds how long a writer waits for a held lock.
const lockWaitKey = "lock.wait_ms"

// LockWait is how long this call waits for the record's, a run's or the machine folder's lock
// before it reports contention: lock.wait_ms, whose default (3 s) the configuration registry holds.
func (a *Core) LockWait(ctx context.Context) (time.Duration, error) {
	if a.wait != nil {
		return a.wait()
	}
	return a.ReadLockWait(ctx)
}

// ReadLockWait reads lock.wait_ms. A value that fails its check refuses the write, naming the file;
// a fault elsewhere in the files is for the verbs that read those keys and leaves the wait at its
// default, so a broken provider block never stops a capture.
func (a *Core) ReadLockWait(ctx context.Context) (time.Duration, error) {
	stack := config.NewStack(nil, nil, nil) // the bundled default alone
	if a.Config != nil {
		if _, s, err := a.LoadConfig(ctx); err == nil {
			stack = s
		}
	}
	v, err := config.Get[int](stack, lockWaitKey)
	if err != nil {
		return 0, ConfigRefusal(err)
	}
	return time.Duration(v.V) * time.Millisecond, nil
}

// UpdateMachineFile is Setup.UpdateMachineFile under the machine folder's lock, waiting what
// lock.wait_ms says.
func (a *Core) UpdateMachineFile(ctx context.Context, name string, update func(old []byte, present bool) ([]byte, error)) error {
	wait, err := a.LockWait(ctx)
	if err != nil {
		return err
	}
	return a.Setup.UpdateMachineFile(ctx, name, wait, update)
}
