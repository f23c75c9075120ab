package files

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"
)

const workerRun = "run-2611300000000001"

// workerHelperEnv names the repository a helper process takes a worker lock in, prints its name,
// and sleeps until it is killed.
const workerHelperEnv = "ABCD_FILES_WORKER_HELPER"

func workerHelper(repo string) {
	_, name, _, err := Runs{Dir: repo}.HoldWorker(context.Background(), workerRun)
	if err != nil {
		fmt.Println("error", err) //nolint:forbidigo // a helper process: stdout is how it answers its parent test
		os.Exit(1)
	}
	fmt.Println(name) //nolint:forbidigo // a helper process: stdout is how it answers its parent test
	time.Sleep(time.Hour)
}

func workerRepo(t *testing.T) Runs {
	dir := fs.NewDir(t, "workers", fs.WithDir(".git"))
	r := Runs{Dir: dir.Path()}
	created, err := r.Create(context.Background(), workerRun)
	assert.NilError(t, err)
	assert.Assert(t, created)
	return r
}

// A worker lock is held while its holder lives, even when another descriptor of the same process
// asks, and is free (and gone) once released.
func TestAWorkerLockIsHeldUntilReleased(t *testing.T) {
	r := workerRepo(t)
	ctx := context.Background()
	pid, name, release, err := r.HoldWorker(ctx, workerRun)
	assert.NilError(t, err)
	assert.Equal(t, pid, os.Getpid())
	assert.Assert(t, strings.HasPrefix(name, fmt.Sprint(pid)+"-"))
	held, err := r.WorkerHeld(ctx, workerRun, name)
	assert.NilError(t, err)
	assert.Assert(t, held)
	release()
	held, err = r.WorkerHeld(ctx, workerRun, name)
	assert.NilError(t, err)
	assert.Assert(t, !held)
	for _, bad := range []string{"", ".", "..", "../x", "a/b"} {
		held, err := r.WorkerHeld(ctx, workerRun, bad)
		assert.NilError(t, err, bad)
		assert.Assert(t, !held, bad)
	}
	_, _, _, err = r.HoldWorker(ctx, "run-2611300000000009")
	assert.ErrorContains(t, err, "run-2611300000000009")
}

// A process killed with SIGKILL while it holds a worker lock lets go of it: the next look finds it
// free and removes what it left; a pid reused since changes nothing, since the lock is the kernel's.
func TestAWorkerKilledLetsGoOfItsLock(t *testing.T) {
	r := workerRepo(t)
	self, err := os.Executable()
	assert.NilError(t, err)
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), workerHelperEnv+"="+r.Dir)
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	name, err := bufio.NewReader(out).ReadString('\n')
	assert.NilError(t, err)
	name = strings.TrimSpace(name)
	assert.Assert(t, strings.HasPrefix(name, fmt.Sprint(cmd.Process.Pid)+"-"), name)
	held, err := r.WorkerHeld(context.Background(), workerRun, name)
	assert.NilError(t, err)
	assert.Assert(t, held, "held while the helper lives")
	assert.NilError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	held, err = r.WorkerHeld(context.Background(), workerRun, name)
	assert.NilError(t, err)
	assert.Assert(t, !held, "free once the helper is killed")
	_, err = os.Lstat(r.Dir + "/.abcd/.work.local/run/" + workerRun + "/workers/" + name)
	assert.Assert(t, os.IsNotExist(err), "what it left is removed")
}
