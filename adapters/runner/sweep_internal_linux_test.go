package runner

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// sleeper starts a process that waits a minute with exactly env, and ends it when the test does.
func sleeper(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "60")
	cmd.Env = env
	if env == nil {
		cmd.Env = []string{}
	}
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // ended already is as good
		_ = cmd.Wait()         // killed by the sweep or just now: its status says nothing here
	})
	return cmd
}

// testMark is a mark of the test's own, as a step's is: a test running beside it (another package's,
// another person's) never carries it.
func testMark(t *testing.T) string {
	t.Helper()
	var id [16]byte
	_, err := rand.Read(id[:])
	assert.NilError(t, err)
	return MarkVar + "=" + hex.EncodeToString(id[:])
}

// alive reports whether a child still runs; one that ended is reaped here, once and for all.
func alive(t *testing.T, cmd *exec.Cmd) bool {
	t.Helper()
	var ws syscall.WaitStatus
	pid, err := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil)
	assert.NilError(t, err)
	return pid == 0
}

// The sweep ends what carries the step's mark, wherever the mark stands in the environment, and
// nothing else: a process with another step's mark, with a longer value, or with no mark at all runs on.
func TestTheSweepEndsOnlyTheStepsOwn(t *testing.T) {
	mark := testMark(t)
	first := sleeper(t, mark, "PATH=/bin")
	inner := sleeper(t, "PATH=/bin", mark, "HOME=/nowhere")
	other := sleeper(t, testMark(t))
	longer := sleeper(t, mark+"0")
	none := sleeper(t)
	assert.Check(t, is.Len(sweep(mark), 0), "nothing is left")
	assert.Check(t, !alive(t, first))
	assert.Check(t, !alive(t, inner))
	assert.Check(t, alive(t, other), "another step's process")
	assert.Check(t, alive(t, longer), "a mark that only begins like this one")
	assert.Check(t, alive(t, none), "a process with no mark")
}

// What the sweep could not end is named, bounded, with why: a kill refused, or a process that is
// still there after its last round (here the kill is held back, as a process in uninterruptible
// sleep, which a test cannot make, holds it off).
func TestTheSweepNamesWhatItCouldNotEnd(t *testing.T) {
	mark := testMark(t)
	stuck := sleeper(t, mark)
	sent := 0
	left := sweepWith(mark, func(pid int, marked func() bool) error {
		sent++
		assert.Check(t, marked())
		return nil
	})
	assert.Check(t, is.DeepEqual(left, []string{fmt.Sprintf("pid %d: still running after SIGKILL", stuck.Process.Pid)}))
	assert.Check(t, is.Equal(sent, sweepRounds), "a kill each round")

	left = sweepWith(mark, func(int, func() bool) error { return syscall.EPERM })
	assert.Check(t, is.DeepEqual(left, []string{fmt.Sprintf("pid %d: SIGKILL refused: operation not permitted", stuck.Process.Pid)}))

	for i := 0; i < maxLeftover+1; i++ {
		sleeper(t, mark)
	}
	left = sweepWith(mark, func(int, func() bool) error { return nil })
	assert.Check(t, is.Len(left, maxLeftover+1))
	assert.Check(t, is.Equal(left[maxLeftover], "and 2 more"))

	// A process gone between the look and the kill is as good as ended.
	assert.Check(t, is.Len(sweepWith(mark, func(int, func() bool) error { return syscall.ESRCH }), maxLeftover+1), "still there, but no refusal")
	assert.Check(t, !strings.Contains(strings.Join(sweepWith(mark, func(int, func() bool) error { return syscall.ESRCH }), "\n"), "refused"))
	assert.Check(t, is.Len(sweep(mark), 0), "the real kill ends them all")
}

// The kill looks again at the process it holds before it signals: a pid that no longer carries the
// mark (the kernel gave it to another process) is not signalled.
func TestTheKillLooksAgainBeforeItSignals(t *testing.T) {
	cmd := sleeper(t)
	assert.NilError(t, killMarked(cmd.Process.Pid, func() bool { return false }))
	assert.Check(t, alive(t, cmd))
	assert.NilError(t, killMarked(cmd.Process.Pid, func() bool { return true }))
	err := cmd.Wait()
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee), "%v", err)
	ws := ee.Sys().(syscall.WaitStatus)
	assert.Check(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL, "%v", err)
	assert.Check(t, is.ErrorIs(killMarked(1<<22+1, func() bool { return true }), syscall.ESRCH), "no such process")
}
