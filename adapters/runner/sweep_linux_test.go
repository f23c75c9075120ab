package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// A process the CLI started that left its process group (a session of its own, as Claude Code's and
// Codex's tool shells are, or a daemon) and ignores SIGTERM is gone after the step all the same: it
// carries the step's mark in its environment, which abcd looks for once the group is ended.
func TestAProcessThatLeftTheGroupIsGoneAfterTheStep(t *testing.T) {
	w := newWorld(t)
	pidfile := filepath.Join(w.dir, "detached.pid")
	w.script(append([]runnertest.Directive{{Detached: pidfile}}, append(lines(initLine, success), runnertest.Directive{Hang: true})...)...)
	var pgid int
	o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Started = func(id int) { pgid = id } })
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed))
	data, err := os.ReadFile(pidfile)
	assert.NilError(t, err)
	pid, err := strconv.Atoi(string(data))
	assert.NilError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // a failed test leaves nothing behind
	_, group, ok := stat(strconv.Itoa(pid))
	assert.Check(t, !ok || group != pgid, "the detached process had left the CLI's group")
	assertGone(t, pidfile, pgid)
}
