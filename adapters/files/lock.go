package files

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
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

// lock takes an exclusive flock on the folder f itself, so nothing is created to lock and the kernel
// releases it when the process ends (a crash never leaves a stale lock). It tries again with a
// jittered, growing backoff until wait has passed (wait <= 0: one attempt), then returns errBusy;
// ctx ends the wait at once with ctx's error. flock and its errors are the same on linux and darwin.
func (f *folder) lock(ctx context.Context, wait time.Duration) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := f.root.Open(".")
	if err != nil {
		return nil, err
	}
	fd := int(d.Fd())
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
		ferr := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case ferr == nil:
			// Once: a second call must not unlock whatever file reuses the descriptor number.
			var once sync.Once
			return func() {
				once.Do(func() {
					_ = syscall.Flock(fd, syscall.LOCK_UN)
					_ = d.Close()
				})
			}, nil
		case errors.Is(ferr, syscall.EINTR):
			continue
		case !errors.Is(ferr, syscall.EWOULDBLOCK):
			return nil, ferr
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
