package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// plannedRepo is a repository with abcd installed and one planned spec of steps, its record
// committed: ready for implement start of the spec it returns.
func plannedRepo(t *testing.T, steps string) (teamClone, string) {
	t.Helper()
	root := realDir(t)
	c := teamClone{name: "ada", dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home")}
	assert.NilError(t, os.MkdirAll(c.home, 0o700))
	assert.NilError(t, os.MkdirAll(c.dir, 0o755))
	c.git(t, "init", "-q", "-b", "main")
	c.git(t, "commit", "-q", "--allow-empty", "-m", "base")
	c.abcd(t, 0, nil, "ahoy", "install", "--yes")
	var it record.RecordCreated
	c.abcd(t, 0, &it, "intent", "new", "Faster cold start")
	c.fill(t, it.Record.Path, "Press Release", "abcd starts fast.")
	c.fill(t, it.Record.Path, "Acceptance Criteria", "- ac-1: Given a binary, when I run it, then it answers quickly.")
	var plan record.IntentPlanResult
	c.abcd(t, 0, &plan, "intent", "plan", it.Record.ID)
	c.fill(t, plan.Spec.Path, "Steps", steps)
	c.git(t, "add", "-A")
	c.git(t, "commit", "-q", "-m", "the record")
	return c, plan.Spec.ID
}

// sandboxDeny is the denyWrite list of the repository's Claude Code settings.
func sandboxDeny(t *testing.T, c teamClone) []string {
	t.Helper()
	var doc struct {
		Sandbox struct {
			Filesystem struct {
				DenyWrite []string `json:"denyWrite"`
			} `json:"filesystem"`
		} `json:"sandbox"`
	}
	assert.NilError(t, json.Unmarshal([]byte(c.read(t, setup.ClaudeSettingsRel)), &doc))
	return doc.Sandbox.Filesystem.DenyWrite
}

// A run's start writes abcd's sandbox block again so it denies each lane's .git file in the lanes'
// folder before the worktree stands; .abcd is denied whole, the worktrees never. The step that makes
// the worktrees finds the block as the start left it, the worktrees self-ignored in git status. Run
// again, nothing changes; a block of the person's own is never touched; uninstall takes out the block
// as the runs left it.
func TestHarnessSandboxBlockFollowsTheRuns(t *testing.T) {
	c, spec := plannedRepo(t, "1. Part one.\n2. Part two.")

	var on setup.AhoySandboxResult
	c.abcd(t, 0, &on, "ahoy", "sandbox")
	assert.Check(t, is.Equal(on.Status, "created"))
	assert.DeepEqual(t, sandboxDeny(t, c), []string{".git", ".claude", ".abcd", ".abcd-lanes/.gitignore"})

	var started loop.StepResult
	c.abcd(t, 0, &started, "implement", "start", spec)
	run := started.Run.Run
	lanes := ".abcd-lanes/" + run
	afterStart := sandboxDeny(t, c)
	want := []string{".git", ".claude", ".abcd", ".abcd-lanes/.gitignore"}
	for _, l := range started.Run.Lanes {
		want = append(want, lanes+"/"+l.ID+"/.git")
	}
	slices.Sort(want[4:])
	assert.DeepEqual(t, afterStart, want)

	var stepped loop.StepResult
	c.abcd(t, 0, &stepped, "implement", "step", "--run", run)
	assert.DeepEqual(t, sandboxDeny(t, c), afterStart)
	worktrees, err := os.ReadDir(filepath.Join(c.dir, filepath.FromSlash(lanes)))
	assert.NilError(t, err)
	assert.Assert(t, len(worktrees) > 0)
	for _, wt := range worktrees {
		assert.Check(t, is.Contains(afterStart, lanes+"/"+wt.Name()+"/.git"))
		_, err := os.Stat(filepath.Join(c.dir, filepath.FromSlash(lanes), wt.Name(), ".git"))
		assert.Check(t, err, "a worktree stands")
	}
	for _, d := range []string{".abcd-lanes", lanes} {
		st, err := os.Lstat(filepath.Join(c.dir, d))
		assert.NilError(t, err)
		assert.Check(t, is.Equal(st.Mode().Perm(), os.FileMode(0o700)), d)
	}
	status := c.git(t, "status", "--porcelain", "--untracked-files=all", "--ignored=no")
	assert.Check(t, !strings.Contains(status, ".abcd-lanes"), "git status shows nothing of the worktrees:\n%s", status)
	c.git(t, "-C", filepath.Join(c.dir, ".abcd-lanes"), "check-ignore", "-q", "--no-index", "x")

	// Run again, abcd's block is found and left as it is.
	settings := c.read(t, setup.ClaudeSettingsRel)
	var again setup.AhoySandboxResult
	c.abcd(t, 0, &again, "ahoy", "sandbox")
	assert.Check(t, is.Equal(again.Status, "present"))
	assert.Check(t, is.Equal(c.read(t, setup.ClaudeSettingsRel), settings))

	// Uninstall takes out the block as the runs left it, and the file it made.
	c.abcd(t, 0, nil, "ahoy", "uninstall")
	_, err = os.Stat(filepath.Join(c.dir, filepath.FromSlash(setup.ClaudeSettingsRel)))
	assert.Check(t, os.IsNotExist(err), "uninstall left the settings file")
}

// A sandbox block of the person's own is never rewritten when a run starts.
func TestHarnessSandboxBlockOfThePersonsOwnIsNotRewrittenByARun(t *testing.T) {
	c, spec := plannedRepo(t, "1. Part one.")
	assert.NilError(t, os.MkdirAll(filepath.Join(c.dir, ".claude"), 0o755))
	mine := "{\n  \"sandbox\": {\"enabled\": true, \"filesystem\": {\"denyWrite\": [\".abcd/x\", \"secrets\"]}}\n}\n"
	c.write(t, setup.ClaudeSettingsRel, mine)

	var started loop.StepResult
	c.abcd(t, 0, &started, "implement", "start", spec)
	c.abcd(t, 0, nil, "implement", "step", "--run", started.Run.Run)
	assert.Equal(t, c.read(t, setup.ClaudeSettingsRel), mine)
}
