package fake

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// Runs is an in-memory run store keyed by path.
type Runs struct {
	Files map[string][]byte
	Dirs  map[string]bool
	// Held names runs whose lock another process holds.
	Held map[string]bool
	// Waited is the wait the last Lock was given.
	Waited time.Duration
	// Workers are the worker locks held, by run and name; a test drops one to play a process killed
	// while a route worked.
	Workers map[string]bool
	// Lanes are the worktrees MakeLanes made folders for.
	Lanes   map[string]bool
	workerN int
}

// NewRuns is an empty run store.
func NewRuns() *Runs {
	return &Runs{Files: map[string][]byte{}, Dirs: map[string]bool{}, Held: map[string]bool{}, Workers: map[string]bool{}}
}

// HoldWorker holds a worker lock named after a fixed pid and a counter.
func (r *Runs) HoldWorker(_ context.Context, run string) (int, string, func(), error) {
	if !r.Dirs[run] {
		return 0, "", nil, loop.UnknownRun(run)
	}
	r.workerN++
	name := fmt.Sprintf("4242-%08x", r.workerN)
	if r.Workers == nil {
		r.Workers = map[string]bool{}
	}
	r.Workers[run+"/"+name] = true
	return 4242, name, func() { delete(r.Workers, run+"/"+name) }, nil
}

func (r *Runs) WorkerHeld(_ context.Context, run, name string) (bool, error) {
	return r.Workers[run+"/"+name], nil
}

const runRoot = layout.Runs + "/"

func (r *Runs) Lock(_ context.Context, run string, wait time.Duration) (func(), error) {
	r.Waited = wait
	if !r.Dirs[run] {
		return nil, loop.UnknownRun(run)
	}
	if r.Held[run] {
		return nil, refusal.Busy(refusal.CodeRunLocked, run, "another abcd holds the run's lock", "try again")
	}
	r.Held[run] = true
	return func() { r.Held[run] = false }, nil
}

func (r *Runs) Runs(context.Context) ([]string, error) {
	out := []string{}
	for run := range r.Dirs {
		if _, ok := r.Files[runRoot+run+"/state.json"]; ok {
			out = append(out, run)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *Runs) Create(_ context.Context, run string) (bool, error) {
	if r.Dirs[run] {
		return false, nil
	}
	r.Dirs[run] = true
	return true, nil
}

func (r *Runs) Write(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !strings.HasPrefix(p, runRoot) {
		return refusal.New(refusal.CodeRunPathInvalid, p, "is not under "+runRoot, "use a run path")
	}
	r.Files[p] = append([]byte(nil), data...)
	return nil
}

func (r *Runs) CreateFile(ctx context.Context, p string, data []byte) (bool, error) {
	if _, taken := r.Files[p]; taken {
		return false, ctx.Err()
	}
	return true, r.Write(ctx, p, data)
}

func (r *Runs) Read(_ context.Context, p string, max int) ([]byte, error) {
	data, ok := r.Files[p]
	if !ok {
		return nil, refusal.New(refusal.CodeReturnMissing, p, "does not exist yet", "let the agent write it")
	}
	if len(data) > max {
		return nil, refusal.New(refusal.CodeReturnTooLarge, p, "is too large", "shorten it")
	}
	return append([]byte(nil), data...), nil
}

func (r *Runs) CheckFile(_ context.Context, dir, p string) string {
	if !strings.HasPrefix(p, dir+"/") || strings.Contains(p, "..") {
		return p + " is not inside " + dir
	}
	if _, ok := r.Files[p]; !ok {
		return p + " does not exist"
	}
	return ""
}

func (r *Runs) RemoveAll(_ context.Context, p string) error {
	for f := range r.Files {
		if strings.HasPrefix(f, p+"/") {
			delete(r.Files, f)
		}
	}
	if run, ok := strings.CutPrefix(p, runRoot); ok && !strings.Contains(run, "/") {
		delete(r.Dirs, run)
	}
	return nil
}

func (r *Runs) MakeLanes(_ context.Context, wt string) error {
	if r.Lanes == nil {
		r.Lanes = map[string]bool{}
	}
	r.Lanes[wt] = true
	return nil
}

func (r *Runs) Unstarted(context.Context) ([]string, error) {
	out := []string{}
	for run := range r.Dirs {
		if _, ok := r.Files[runRoot+run+"/state.json"]; !ok {
			out = append(out, run)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *Runs) Remove(_ context.Context, p string) error {
	delete(r.Files, p)
	if run, ok := strings.CutPrefix(p, runRoot); ok && !strings.Contains(run, "/") {
		delete(r.Dirs, run)
	}
	return nil
}
