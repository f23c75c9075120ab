package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/frontdoors/abcdtest"
)

// abcdBinary is $ABCD_BIN when make set it, else abcd built for this test.
func abcdBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ABCD_BIN"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	bins, err := abcdtest.Build(t.TempDir(), "", "../../frontdoors/cmd/abcd")
	assert.NilError(t, err)
	return bins[0]
}

// TestTheWalkthroughRunsTheLoopToTheEnd runs `make run`'s walkthrough (it takes about a second, so
// -short runs it too): a finished run with one failed round and its fix, the auditor's pass, the
// record printed, every lane merged, nothing left in a worktree, and the scratch repository's path
// last, under the folder it was given.
func TestTheWalkthroughRunsTheLoopToTheEnd(t *testing.T) {
	parent := t.TempDir()
	var out, progress bytes.Buffer
	res, err := Run(Options{ABCD: abcdBinary(t), Parent: parent, Out: &out, Progress: &progress})
	assert.NilError(t, err, out.String())
	real, err := filepath.EvalSymlinks(parent)
	assert.NilError(t, err)
	assert.Check(t, strings.HasPrefix(res.Repo, real+string(filepath.Separator)), "the scratch repository %s is under %s", res.Repo, real)

	for _, want := range []string{
		"(spec, finished)",
		"lane-1 round 1 ruthless-reviewer: FIX FIRST",
		"An empty name greets nobody",
		"lane-1 round 2 ruthless-reviewer: SHIP",
		"integration round 1 intent-auditor: PASS",
		"route host: 9 verdicts, 8 passed, 1 failed",
	} {
		assert.Check(t, is.Contains(res.Record, want))
	}
	assert.Check(t, is.Regexp(`lane-1\s+done\s+round 2`, res.Record))
	text := out.String()
	assert.Check(t, is.Contains(text, "$ abcd ahoy install --yes"))
	assert.Check(t, is.Contains(text, "did: lane-3: started on abcd/"+res.Run+"/lane-3"), "the dependent lane starts once its steps are done")
	assert.Check(t, is.Contains(text, "0 errors, 0 warnings"), "the record lints clean")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	assert.Check(t, is.Equal(lines[len(lines)-1], res.Repo), "the last line is the path to explore")
	assert.Check(t, !strings.Contains(text, "demo ["), "progress never goes to the walkthrough's output")
	assert.Check(t, is.Contains(progress.String(), "demo [8/8] done in"))

	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = res.Repo
		b, err := cmd.CombinedOutput()
		assert.NilError(t, err, "git %v: %s", args, b)
		return strings.TrimSpace(string(b))
	}
	merged := git("ls-tree", "-r", "--name-only", "abcd/"+res.Run+"/integration")
	for _, f := range []string{"greet.sh", "args.sh", "hello", "tests/hello_test.sh"} {
		assert.Check(t, is.Contains(merged, f))
	}
	assert.Check(t, is.Contains(git("show", "abcd/"+res.Run+"/integration:greet.sh"), "${1:-world}"), "the fix is what was merged")
	assert.Check(t, is.Equal(len(strings.Split(git("worktree", "list"), "\n")), 1), "every worktree is removed")
	log := git("log", "--format=%s", "abcd/"+res.Run+"/lane-1")
	assert.Check(t, is.Contains(log, "review round 1"), "the fix is its own commit on the lane")
}

func TestAMissingBinaryIsNamed(t *testing.T) {
	_, err := Run(Options{ABCD: filepath.Join(t.TempDir(), "nope"), Parent: t.TempDir(), Out: &bytes.Buffer{}})
	assert.ErrorContains(t, err, "run make build first")
}
