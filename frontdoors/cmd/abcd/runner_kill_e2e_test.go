//go:build unix

package main

// What the kill -9 campaigns on implement run (tools/soak runnerrun_test.go) found, each held here
// to one deterministic case: a kill right after abcd's commit of a runner's work, while git still
// finishes that commit, leaves git's locks in the lane's worktree; a kill after the run finished,
// before implement run answered, leaves a finished run the same command must report.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/setup"
)

// A kill right after abcd commits a runner's work ends the git still finishing that commit, which
// leaves its index's and HEAD's locks in the lane's worktree (the campaign saw both), and git then
// refuses every commit there: the fix round the ruthless reviewer asks for could not be committed,
// and the lane went to the host. The same command run again removes the locks (they stand unchanged
// past git's own wait), records the commit, and the fix round is committed on it.
func TestLocksAGitKilledRightAfterTheCommitLeftAreCleared(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs: in make test, not under -short")
	}
	w := newRunnerWorld(t, "1. Part one of the work.")
	marks := t.TempDir()
	killed := filepath.Join(marks, "killed")
	// The definition of done kills abcd the first time it runs on the lane's work, then passes.
	dod := fmt.Sprintf("test -f DONE-1 && { test -e %[1]s || { : > %[1]s; kill -9 $PPID; sleep 5; }; }", killed)
	cfg, err := json.Marshal(map[string]any{"schema_version": 1, "setup_version": setup.SetupVersion, "build": map[string]any{"dod": dod}})
	assert.NilError(t, err)
	w.c.write(t, ".abcd/config.json", string(cfg)+"\n")
	w.c.git(t, "commit", "-q", "-am", "the kill-once definition of done")
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	ship := rnResult(t, "", map[string]any{"summary": "Read the fix.", "verdict": "SHIP", "findings": []any{}})
	fixFirst := rnResult(t, "", map[string]any{"summary": "Read the change.", "verdict": "FIX FIRST", "findings": []any{
		map[string]any{"title": "Say more", "location": "DONE-1:1", "severity": "major", "what": "one word", "fix": "write FIX-1"}}})
	agents := w.agents(t)
	w.play(t, append([]runnertest.Directive{agents[0],
		{When: []string{impl, "# Fix round 1: "}, Write: "FIX-1", Content: "fixed\n"},
		{When: []string{answer, "# ruthless-reviewer: ", ", round 2\n"}, Out: ship},
		{When: []string{answer, "# ruthless-reviewer: ", ", round 2\n"}, ExitZero: true},
		{When: []string{answer, "# ruthless-reviewer: "}, Out: fixFirst},
		{When: []string{answer, "# ruthless-reviewer: "}, ExitZero: true}}, agents[1:]...)...)
	first := w.abcd(t, "implement", "run", w.spec, "--json")
	assert.Assert(t, first.ExitCode != 0, "the first run was killed: %s", first.Stderr())
	var status loop.ImplementStatusResult
	w.c.abcd(t, 0, &status, "implement", "status")
	assert.Assert(t, is.Len(status.Runs, 1))
	ln := status.Runs[0].Lanes[0]
	// What the kill left of the git it ended, left a while ago.
	gitDir := strings.TrimSpace(w.c.git(t, "-C", ln.Worktree, "rev-parse", "--absolute-git-dir"))
	left := time.Now().Add(-time.Minute)
	for _, lock := range []string{"index.lock", "HEAD.lock"} {
		p := filepath.Join(gitDir, lock)
		assert.NilError(t, os.WriteFile(p, nil, 0o644))
		assert.NilError(t, os.Chtimes(p, left, left))
	}
	again := w.abcd(t, "implement", "run", w.spec, "--json")
	again.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, again.Stdout(), &out)
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%+v\n%s", out, again.Stderr())
	assert.Check(t, is.Equal(out.FellBack, 0), "%s", again.Stderr())
	assert.Check(t, is.Contains(strings.Join(out.Did, "\n"), "lane-1: removed index.lock, HEAD.lock, left in its worktree by a git the kill ended"), "%v", out.Did)
	assert.Check(t, is.Equal(w.c.git(t, "rev-list", "--count", ln.Start+".."+ln.Branch), "2"), "the step's commit and its fix round's")
	assert.Check(t, is.Equal(w.c.git(t, "show", ln.Branch+":FIX-1"), "fixed"))
	for _, lock := range []string{"index.lock", "HEAD.lock"} {
		_, err := os.Lstat(filepath.Join(gitDir, lock))
		assert.Check(t, os.IsNotExist(err), "%s is left", lock)
	}
}

// A kill after the run finished, before implement run answered, leaves a finished run whose lanes
// were all delivered: the same command run again reports that run, finished, and never starts the
// spec over (a second run, every step taken again, the Progress and the audit written twice).
func TestTheSameRunAgainAfterItFinishedReportsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs: in make test, not under -short")
	}
	w := newRunnerWorld(t, "1. Part one of the work.")
	calls := filepath.Join(t.TempDir(), "calls")
	agents := w.agents(t)
	w.play(t, append([]runnertest.Directive{agents[0], {Run: []string{"sh", "-c", "echo call >> " + calls}}}, agents[1:]...)...)
	first := w.abcd(t, "implement", "run", w.spec, "--json")
	first.Assert(t, icmd.Expected{ExitCode: 0})
	var was loop.ImplementRunResult
	decodeOne(t, first.Stdout(), &was)
	assert.Assert(t, is.Equal(was.Ended, loop.EndedFinished))
	records := w.c.records(t)
	before, err := os.ReadFile(calls)
	assert.NilError(t, err)

	again := w.abcd(t, "implement", "run", w.spec, "--json")
	again.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, again.Stdout(), &out)
	assert.Check(t, is.Equal(out.Run.Run, was.Run.Run), "the run it finished, not a new one")
	assert.Check(t, is.Equal(out.Ended, loop.EndedFinished))
	assert.Check(t, is.Equal(out.Routed, 0))
	assert.Check(t, is.Contains(strings.Join(out.Did, "\n"), "finished before, every lane delivered: the spec is done (to run it again, start a run with abcd implement start "+w.spec+")"))
	var status loop.ImplementStatusResult
	w.c.abcd(t, 0, &status, "implement", "status")
	assert.Check(t, is.Len(status.Runs, 1), "one run")
	after, err := os.ReadFile(calls)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(after), string(before)), "no runner was called again")
	assert.Check(t, is.DeepEqual(w.c.records(t), records), "the record is as the run left it: its Progress and audit notes once")

	// A person who does mean to run the spec again commits what the run wrote in the record (a run's
	// lanes read the record at its base) and starts a run for it.
	w.c.git(t, "add", ".abcd")
	w.c.git(t, "commit", "-q", "-m", "the run's notes")
	var started loop.StepResult
	w.c.abcd(t, 0, &started, "implement", "start", w.spec)
	assert.Check(t, started.Run.Run != was.Run.Run)
}
