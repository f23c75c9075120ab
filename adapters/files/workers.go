package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
)

// workersDir is the folder of a run that holds the locks of the processes calling its routes.
const workersDir = "workers"

// HoldWorker makes this process's worker lock in the run's folder, workers/<pid>-<random>: a folder
// it holds an flock on for as long as it calls routes for the run's awaits. The kernel lets an flock
// go when its process ends, however it ends (SIGKILL included), and no other process can take it
// meanwhile, whatever pid it has: so a lock found free names a process that is gone, never one that
// merely reused the pid. release lets go of it and removes the folder.
func (r Runs) HoldWorker(ctx context.Context, run string) (pid int, name string, release func(), err error) {
	dir, err := r.walk(loop.RunDir(run), false)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, "", nil, loop.UnknownRun(run)
	}
	if err != nil {
		return 0, "", nil, err
	}
	defer dir.Close()
	pid = os.Getpid()
	name = fmt.Sprintf("%d-%08x", pid, rand.Uint32())
	w, err := r.walk(loop.RunDir(run)+"/"+workersDir+"/"+name, true)
	if err != nil {
		return 0, "", nil, err
	}
	defer w.Close()
	unlock, err := w.lock(ctx, 0)
	if err != nil {
		return 0, "", nil, err
	}
	return pid, name, func() {
		unlock()
		_ = r.RemoveAll(context.WithoutCancel(ctx), loop.RunDir(run)+"/"+workersDir+"/"+name)
	}, nil
}

// WorkerHeld reports whether the process that made the worker lock name in the run's folder still
// holds it. A lock found free (or gone) is removed: its process has ended.
func (r Runs) WorkerHeld(ctx context.Context, run, name string) (bool, error) {
	if name == "" || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return false, nil
	}
	rel := loop.RunDir(run) + "/" + workersDir + "/" + name
	w, err := r.walk(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	unlock, err := w.lock(ctx, 0)
	w.Close()
	if errors.Is(err, errBusy) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	unlock()
	return false, r.RemoveAll(ctx, rel)
}
