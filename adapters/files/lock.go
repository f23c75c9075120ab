package files

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// Backoff bounds between two attempts at a held lock: short at first, since most holders finish in
// milliseconds, and capped so a waiter notices a release soon after it happens.
const (
	lockBackoffMin = time.Millisecond
	lockBackoffMax = 25 * time.Millisecond
)

// errBusy is a lock still held when the wait ran out.
var errBusy = errors.New("the lock is held")

// heldOn is the contention refusal of a lock still held when the wait ran out: whose lock, and how
// long was waited (none: one try).
func heldOn(code refusal.Code, what, whose string, wait time.Duration) error {
	why := fmt.Sprintf("another abcd held %s lock for more than %s", whose, wait)
	if wait <= 0 {
		why = fmt.Sprintf("another abcd holds %s lock right now", whose)
	}
	return refusal.Busy(code, what, why, "run the command again in a moment")
}

// lock takes an exclusive lock on the folder f (lockHandle: the folder itself where the system can
// lock one, a lock file in it elsewhere), which the kernel releases when the process ends, so a
// crash never leaves a stale lock. It tries again with a jittered, growing backoff until wait has
// passed (wait <= 0: one attempt), then returns errBusy; ctx ends the wait at once with ctx's error.
func (f *folder) lock(ctx context.Context, wait time.Duration) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := f.lockHandle()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	backoff := lockBackoffMin
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if err != nil {
			_ = d.Close()
		}
	}()
	for {
		held, lerr := tryLock(d)
		switch {
		case lerr != nil:
			return nil, lerr
		case held:
			// Once: a second call must not unlock whatever file reuses the descriptor.
			var once sync.Once
			return func() {
				once.Do(func() {
					unlockFile(d)
					_ = d.Close()
				})
			}, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, errBusy
		}
		// Full jitter keeps waiters that started together from retrying in step.
		sleep := min(lockBackoffMin+rand.N(backoff), left)
		if timer == nil {
			timer = time.NewTimer(sleep)
		} else {
			timer.Reset(sleep)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
		backoff = min(backoff*2, lockBackoffMax)
	}
}
