//go:build unix

package dod

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
)

func TestRunsTheCommandInTheCheckoutThroughTheShell(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "marker"), []byte("here"), 0o600))
	res, err := Runner{}.Run(context.Background(), dir, `cat marker; echo; echo to-stderr >&2; exit 3`, time.Minute)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 3))
	assert.Check(t, is.Equal(res.Problem, ""))
	assert.Check(t, is.Equal(res.Tail, "here\nto-stderr\n"))
	assert.Check(t, is.Equal(res.Lines, 2))
	assert.Check(t, res.Duration > 0)

	res, err = Runner{}.Run(context.Background(), dir, "true", time.Minute)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 0))
	assert.Check(t, is.Equal(res.Tail, ""))
}

// A command that prints a great deal keeps only its last lines, bounded in lines and bytes; every
// line is counted.
func TestOnlyTheLastLinesAreKept(t *testing.T) {
	res, err := Runner{}.Run(context.Background(), t.TempDir(), `i=0; while [ $i -lt 5000 ]; do echo "line $i"; i=$((i+1)); done; printf 'last without newline'`, time.Minute)
	assert.NilError(t, err)
	lines := strings.Split(strings.TrimSuffix(res.Tail, "\n"), "\n")
	assert.Check(t, is.Len(lines, loop.CheckTailLines))
	assert.Check(t, is.Equal(lines[len(lines)-1], "last without newline"))
	assert.Check(t, is.Equal(lines[len(lines)-2], "line 4999"))
	assert.Check(t, is.Equal(res.Lines, 5001))

	res, err = Runner{}.Run(context.Background(), t.TempDir(), `head -c 100000 /dev/zero | tr '\0' x; echo; echo end`, time.Minute)
	assert.NilError(t, err)
	assert.Check(t, len(res.Tail) <= loop.CheckTailBytes, "%d bytes kept", len(res.Tail))
	assert.Check(t, strings.HasSuffix(res.Tail, "x\nend\n"), res.Tail[max(0, len(res.Tail)-20):])
}

// Terminal escapes and control characters never reach a brief; a carriage return ends a line.
func TestTheTailIsPlainText(t *testing.T) {
	res, err := Runner{}.Run(context.Background(), t.TempDir(), `printf '\033[31mred\033[0m ok\r\nprogress 1\rprogress 2\n\001bell\007\n'`, time.Minute)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Tail, "red ok\nprogress 1\nprogress 2\nbell\n"))
}

// A command that does not exit in time is ended with everything it started, and says so.
func TestATimedOutCommandIsEndedWithItsChildren(t *testing.T) {
	t.Parallel() // each waits out its own bound
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	res, err := Runner{}.Run(context.Background(), dir, fmt.Sprintf(`sleep 300 & echo $! > %s; echo started; wait`, pidFile), 500*time.Millisecond)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, -1))
	assert.Check(t, strings.Contains(res.Problem, "did not exit within 500ms"), res.Problem)
	assert.Check(t, is.Equal(res.Tail, "started\n"))
	data, err := os.ReadFile(pidFile)
	assert.NilError(t, err)
	var pid int
	_, err = fmt.Sscan(string(data), &pid)
	assert.NilError(t, err)
	assertGone(t, pid)
}

// A background process the command leaves holding the output open does not hold the run past the
// command's exit.
func TestALeftoverChildDoesNotHoldTheRun(t *testing.T) {
	began := time.Now()
	res, err := Runner{}.Run(context.Background(), t.TempDir(), `sleep 300 & echo done`, time.Minute)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 0))
	assert.Check(t, is.Equal(res.Tail, "done\n"))
	assert.Check(t, time.Since(began) < 30*time.Second)
}

// The person's interrupt ends the command and is the caller's error: nothing is said of a run that
// did not finish.
func TestAnInterruptEndsTheCommand(t *testing.T) {
	t.Parallel() // each waits out its own bound
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := Runner{}.Run(ctx, t.TempDir(), `sleep 300`, time.Minute)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestACheckoutThatIsGoneIsAProblemNotAnError(t *testing.T) {
	res, err := Runner{}.Run(context.Background(), filepath.Join(t.TempDir(), "gone"), "true", time.Minute)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, -1))
	assert.Check(t, strings.Contains(res.Problem, "is not a folder"), res.Problem)
}

// assertGone waits a little for pid to end and fails if it still runs. A process that ended but
// is not yet reaped (a zombie; the machine's init reaps orphans when it gets to them) has ended.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	for range 50 {
		p, err := os.FindProcess(pid)
		assert.NilError(t, err)
		if p.Signal(syscallZero) != nil || zombie(pid) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("process %d still runs after the command was ended", pid)
}

// zombie says /proc holds pid as ended and not yet reaped; false where there is no /proc.
func zombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data) // pid (comm) state ...; comm may hold spaces and parentheses
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// The notifier reads its event on stdin; one that never reads it and never exits is ended with its
// group after its timeout and a second's grace, whatever it started; one that floods its output
// keeps only its last lines.
func TestTheNotifierReadsItsEventAndIsBounded(t *testing.T) {
	res, err := Runner{}.Notify(context.Background(), t.TempDir(), `cat; echo`, []byte(`{"event":"finished"}`), time.Minute)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 0))
	assert.Check(t, is.Equal(res.Tail, "{\"event\":\"finished\"}\n"))

	began := time.Now()
	res, err = Runner{}.Notify(context.Background(), t.TempDir(), `sleep 60 & yes flood`, make([]byte, 1<<20), 200*time.Millisecond)
	took := time.Since(began)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, -1))
	assert.Check(t, is.Contains(res.Problem, "did not exit within 200ms"))
	assert.Check(t, len(res.Tail) <= loop.CheckTailBytes)
	assert.Check(t, took < 10*time.Second, "%s", took)
}
