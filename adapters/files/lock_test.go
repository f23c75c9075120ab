package files

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func lockFolder(t *testing.T) *fs.Dir {
	t.Helper()
	return fs.NewDir(t, "lock")
}

func held(t *testing.T, path string) *folder {
	t.Helper()
	f, err := openFolder(path)
	assert.NilError(t, err)
	t.Cleanup(f.Close)
	return f
}

// queueWait is the wait a writer queues behind others with in these tests: lock.wait_ms's default.
const queueWait = 3 * time.Second

// Eight writers contending for one lock each get it within the default wait, one at a time.
func TestEightContendersEachGetTheLockInTurn(t *testing.T) {
	dir := lockFolder(t)
	const writers, hold = 8, 20 * time.Millisecond
	var inside, most atomic.Int32
	waits := make([]time.Duration, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := held(t, dir.Path()) // each writer its own open folder, as each process has
			start := time.Now()
			unlock, err := f.lock(context.Background(), queueWait)
			if err != nil {
				t.Errorf("writer %d: %v", i, err)
				return
			}
			waits[i] = time.Since(start)
			n := inside.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(hold)
			inside.Add(-1)
			unlock()
		}()
	}
	wg.Wait()
	assert.Equal(t, most.Load(), int32(1), "two writers held the lock at once")
	slices.Sort(waits)
	t.Logf("8 writers holding %s each: waits min %s, median %s, max %s (bound %s)",
		hold, waits[0].Round(time.Millisecond), waits[writers/2].Round(time.Millisecond), waits[writers-1].Round(time.Millisecond), queueWait)
}

// A cancelled context ends the wait at once, long before the bound.
func TestACancelledWaitReturnsAtOnce(t *testing.T) {
	dir := lockFolder(t)
	unlock, err := held(t, dir.Path()).lock(context.Background(), 0)
	assert.NilError(t, err)
	defer unlock()

	const wait = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = held(t, dir.Path()).lock(ctx, wait)
	assert.Assert(t, errors.Is(err, context.Canceled), "%v", err)
	assert.Assert(t, time.Since(start) < wait, "the wait ran to its bound instead of ending with the context")

	// Already cancelled: no attempt at all, even on a free lock.
	done, stop := context.WithCancel(context.Background())
	stop()
	_, err = held(t, fs.NewDir(t, "free").Path()).lock(done, wait)
	assert.Assert(t, errors.Is(err, context.Canceled), "%v", err)
}

// Contention is reported only once the wait has run out, as exit 3.
func TestContentionAfterTheBoundIsExitThree(t *testing.T) {
	dir := recordRepo(t)
	holder := Records{Dir: dir.Path()}
	unlock, err := holder.Lock(context.Background(), 0)
	assert.NilError(t, err)
	t.Cleanup(unlock)

	const wait = 100 * time.Millisecond
	start := time.Now()
	_, err = Records{Dir: dir.Path()}.Lock(context.Background(), wait)
	waited := time.Since(start)
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Kind, refusal.Contention)
	assert.Equal(t, r.Code, refusal.CodeRecordLocked)
	assert.Equal(t, refusal.DocumentOf(err).ExitCode, 3)
	assert.Assert(t, waited >= wait, "contention reported after %s, before the %s bound", waited, wait)

	// A writer that starts waiting gets the lock when the holder lets go within the bound.
	got := make(chan error, 1)
	go func() {
		u, err := Records{Dir: dir.Path()}.Lock(context.Background(), queueWait)
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(30 * time.Millisecond)
	unlock()
	assert.NilError(t, <-got)
}
