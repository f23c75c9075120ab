package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/runner"
)

// A runner takes at most its concurrency of steps at once, on the whole machine: several runs, and
// several abcd processes, share a CLI's state files (Claude Code's ~/.claude.json is corrupted by
// parallel sessions). Each step holds a slot: an flock on one of the runner's slot files in the
// runners' folder, which the system lets go however the process ends. Without a folder (a test's
// adapter) the slots are this process's alone.

// slotPoll is the first wait between two tries for a free slot; it doubles up to slotPollMax.
const (
	slotPoll    = 25 * time.Millisecond
	slotPollMax = 500 * time.Millisecond
)

// localSlots are the slots of an adapter with no folder, by runner name.
type localSlots struct {
	mu   sync.Mutex
	busy map[string]int
}

// slot waits for one of the runner's slots, calling waiting once when it must wait, and returns its
// release; ctx ending first is interrupted.
func (a *Adapter) slot(ctx context.Context, r runner.Runner, waiting func()) (func(), *runner.Failure, error) {
	n := max(r.Concurrency, 1)
	try := a.tryLocal
	if a.temp != "" {
		dir := filepath.Join(a.temp, "slots")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("making the runners' slot folder: %w", err)
		}
		try = func(name string, n int) (func(), error) { return tryFiles(dir, name, n) }
	}
	wait := slotPoll
	told := false
	for {
		release, err := try(r.Name, n)
		if err != nil {
			return nil, nil, err
		}
		if release != nil {
			return release, nil, nil
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, runner.Failf(runner.CauseInterrupted, "the step was interrupted while it waited for one of runner %s's %d slots (%s)", r.Name, n, ctxWords(ctx)), nil
		case <-t.C:
		}
		wait = min(wait*2, slotPollMax)
	}
}

func (a *Adapter) tryLocal(name string, n int) (func(), error) {
	a.local.mu.Lock()
	defer a.local.mu.Unlock()
	if a.local.busy == nil {
		a.local.busy = map[string]int{}
	}
	if a.local.busy[name] >= n {
		return nil, nil
	}
	a.local.busy[name]++
	return sync.OnceFunc(func() {
		a.local.mu.Lock()
		a.local.busy[name]--
		a.local.mu.Unlock()
	}), nil
}
