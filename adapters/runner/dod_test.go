package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

func TestTheDefinitionOfDoneRunsInItsFolder(t *testing.T) {
	dir := t.TempDir()
	d := runner.DoD{Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH"), "WHO=ada"} }}
	res, err := d.Run(context.Background(), ports.DoDRun{Dir: dir, Command: "pwd; echo $WHO; echo oops >&2; cat; exit 3", Timeout: time.Minute, MaxOutput: 1 << 10})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 3))
	real, _ := filepath.EvalSymlinks(dir)
	assert.Check(t, is.Equal(string(res.Output), real+"\nada\noops\n"), "stdin is empty, stderr is kept with stdout")
	assert.Check(t, !res.Cut && !res.TimedOut && !res.Interrupted)

	res, err = d.Run(context.Background(), ports.DoDRun{Dir: dir, Command: "yes abcdefgh | head -c 100000", Timeout: time.Minute, MaxOutput: 64})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 0))
	assert.Check(t, is.Len(res.Output, 64))
	assert.Check(t, res.Cut, "the last bytes are kept, and it says so")
}

// A definition of done that hangs, or that leaves a process behind ignoring SIGTERM, ends with its
// bound, or with the caller's ctx, and nothing of it is left.
func TestTheDefinitionOfDoneLeavesNoProcess(t *testing.T) {
	dir := t.TempDir()
	d := runner.DoD{Grace: 100 * time.Millisecond}
	pidfile := filepath.Join(dir, "pid")
	stray := "sh -c 'trap \"\" TERM; echo $$ > " + pidfile + "; exec sleep 300' & "
	res, err := d.Run(context.Background(), ports.DoDRun{Dir: dir, Command: stray + "sleep 300", Timeout: 500 * time.Millisecond, MaxOutput: 1 << 10})
	assert.NilError(t, err)
	assert.Check(t, res.TimedOut)
	assert.Check(t, is.Equal(res.ExitCode, -1))
	strayGone(t, pidfile)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err = d.Run(ctx, ports.DoDRun{Dir: dir, Command: stray + "sleep 300", Timeout: time.Minute, MaxOutput: 1 << 10})
	assert.NilError(t, err)
	assert.Check(t, res.Interrupted)
	strayGone(t, pidfile)

	// A command that exits at once leaves its background process to the group's end too.
	res, err = d.Run(context.Background(), ports.DoDRun{Dir: dir, Command: stray + "sleep 0.2; exit 0", Timeout: time.Minute, MaxOutput: 1 << 10})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 0))
	strayGone(t, pidfile)
}

func strayGone(t *testing.T, pidfile string) {
	t.Helper()
	var pid int
	for i := 0; i < 100; i++ {
		data, err := os.ReadFile(pidfile)
		if err == nil && strings.TrimSpace(string(data)) != "" {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	assert.Assert(t, pid > 0, "the stray process wrote its pid")
	for i := 0; i < 100; i++ {
		if !live(pid) {
			assert.NilError(t, os.Remove(pidfile))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d outlived the definition of done", pid)
}

// A runner takes at most its concurrency of steps at once, across adapters (processes) that share
// the runners' folder: the next step waits for a slot, says so, and runs once one is free; a step
// interrupted while it waits is interrupted and started nothing.
func TestARunnerTakesItsConcurrencyAtOnce(t *testing.T) {
	w := newWorld(t)
	w.r.Concurrency = 2
	w.script(append([]runnertest.Directive{{SleepMS: 600}}, lines(initLine, success)...)...)
	other := runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}}, Environ: func() []string { return w.env }, TempDir: w.dir,
		Drain: 100 * time.Millisecond, Grace: 200 * time.Millisecond})
	var mu sync.Mutex
	running, most, waited := 0, 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		a := w.a
		if i%2 == 1 {
			a = other // a second abcd on the same machine
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead, Limits: w.r.Limits,
				Waiting: func() { mu.Lock(); waited++; mu.Unlock() },
				Started: func(int) {
					mu.Lock()
					running++
					most = max(most, running)
					mu.Unlock()
				}}
			o, err := a.Step(context.Background(), req)
			mu.Lock()
			running--
			mu.Unlock()
			assert.Check(t, err)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
		}()
	}
	wg.Wait()
	assert.Check(t, is.Equal(most, 2), "never more than the runner's concurrency at once")
	assert.Check(t, waited >= 3, "the steps past the concurrency waited: %d", waited)

	// Every slot held: a step whose caller gives up while it waits is interrupted, and no CLI ran.
	held := []func(){}
	var holders sync.WaitGroup
	for i := 0; i < 2; i++ {
		done := make(chan struct{})
		release := make(chan struct{})
		holders.Add(1)
		go func() {
			defer holders.Done()
			req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead, Limits: w.r.Limits,
				Started: func(int) { close(done); <-release }}
			_, _ = w.a.Step(context.Background(), req)
		}()
		<-done
		held = append(held, func() { close(release) })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	started := false
	o, err := other.Step(ctx, ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead, Limits: w.r.Limits,
		Started: func(int) { started = true }})
	assert.NilError(t, err)
	assert.Assert(t, o.Failure != nil)
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseInterrupted))
	assert.Check(t, is.Contains(o.Failure.Detail, "slots"))
	assert.Check(t, !started)
	for _, h := range held {
		h()
	}
	holders.Wait()
}
