//go:build unix

package main

// A spec's runs over their life, through the binary with the fake runners: a run that hands a lane
// back, the next run that keeps what the first delivered and does only the rest again, and prune.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/loop/prune"
)

// lcSteps: lane-3 builds on lane-2, which the first run's reviewer fails.
const lcSteps = "1. Part one of the work.\n2. Part two of the work.\n3. (after 2) Part three of the work."

// handBackTwo is a script in which the ruthless reviewer fails step two (one failed round hands a lane
// back: build.fix_rounds is 1) and passes the others; everyone else does their part well.
func (w runnerWorld) handBackTwo(t *testing.T) []runnertest.Directive {
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	ship := map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}}
	fix := map[string]any{"summary": "Not yet.", "verdict": "FIX FIRST", "findings": []any{map[string]any{
		"title": "Part two is wrong", "location": "DONE-2:1", "severity": "major", "what": "it says two", "fix": "say it right"}}}
	approve := map[string]any{"summary": "Nothing to fear.", "verdict": "APPROVE", "findings": []any{}}
	return []runnertest.Directive{
		{Out: rnInit},
		{When: []string{impl, "Part one"}, Write: "DONE-1", Content: "one\n"},
		{When: []string{impl, "Part two"}, Write: "DONE-2", Content: "two\n"},
		{When: []string{impl}, Out: rnResult(t, "Do the part\n\nWrote the part's file.", nil)},
		{When: []string{answer, "# ruthless-reviewer:", "The lane implements step 1 "}, Out: rnResult(t, "", ship)},
		{When: []string{answer, "# ruthless-reviewer:", "The lane implements step 2 "}, Out: rnResult(t, "", fix)},
		{When: []string{answer, "# security-reviewer:"}, Out: rnResult(t, "", approve)},
	}
}

// firstRunHandsBackTwo runs the spec once with step two failed: lane-1 delivered, lane-2 handed back
// and lane-3 with it; the record it wrote is committed, as a person does before the next run.
func firstRunHandsBackTwo(t *testing.T) (runnerWorld, loop.RunView) {
	t.Helper()
	w := newRunnerWorld(t, lcSteps)
	w.c.write(t, ".abcd/config.json", strings.Replace(w.c.read(t, ".abcd/config.json"), `"build": {`, `"build": {"fix_rounds": 1, `, 1))
	w.c.git(t, "commit", "-q", "-am", "one failed round hands a lane back")
	w.play(t, w.handBackTwo(t)...)
	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var first loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &first)
	assert.Assert(t, first.Run.Finished, "%+v", first)
	stages := map[string]string{}
	for _, l := range first.Run.Lanes {
		stages[l.ID] = l.Stage
	}
	assert.Assert(t, is.DeepEqual(stages, map[string]string{"lane-1": "done", "lane-2": "handed-back", "lane-3": "handed-back", "integration": "handed-back"}))
	w.c.git(t, "add", ".abcd")
	w.c.git(t, "commit", "-q", "-m", "the first run's record")
	return w, first.Run
}

func laneOf(r loop.RunView, id string) loop.LaneView {
	for _, l := range r.Lanes {
		if l.ID == id {
			return l
		}
	}
	return loop.LaneView{}
}

// TestANewRunKeepsWhatTheLastDeliveredAndRedoesWhatWasHandedBack: the second run of a spec whose
// first handed lane-2 back keeps lane-1 (its commits, not implemented or reviewed again), does lane-2
// and lane-3 again, says which in one line, and integrates all three.
func TestANewRunKeepsWhatTheLastDeliveredAndRedoesWhatWasHandedBack(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs: in make test, not under -short")
	}
	w, first := firstRunHandsBackTwo(t)
	delivered := laneOf(first, "lane-1")

	w.play(t, w.agents(t)...)
	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var second loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &second)
	assert.Check(t, is.Equal(second.Ended, loop.EndedFinished), "%+v", second)
	run := second.Run.Run
	line := fmt.Sprintf("goes on from %s: keeps lane-1 (step 1) at %s, as that run delivered them (not done again); does again lane-2 (step 2: handed back in %s); lane-3 (step 3: handed back in %s)",
		first.Run, delivered.Head[:12], first.Run, first.Run)
	assert.Check(t, is.Contains(second.Did, line), "%q", second.Did)
	// Two implementers, their four reviews and the audit: nothing of lane-1's.
	assert.Check(t, is.Equal(second.Routed, 7), "%+v", second)
	kept := laneOf(second.Run, "lane-1")
	assert.Check(t, is.Equal(kept.Stage, "done"))
	assert.Check(t, is.Equal(kept.KeptFrom, first.Run+"/lane-1"))
	assert.Check(t, is.Equal(kept.Head, delivered.Head))
	assert.Check(t, is.Equal(w.c.git(t, "rev-parse", "abcd/"+run+"/lane-1"), delivered.Head), "the kept work stands on the new run's branch")
	for _, id := range []string{"lane-2", "lane-3", "integration"} {
		assert.Check(t, is.Equal(laneOf(second.Run, id).Stage, "done"), id)
		assert.Check(t, is.Equal(laneOf(second.Run, id).KeptFrom, ""), id)
	}
	text := w.c.cmd(binary, "implement", "status", "--run", run)
	text.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(text.Stdout(), "Part one of the work.  (kept from "+first.Run+"/lane-1)\n"))
	// The integration holds the kept lane's commit and the redone lanes' work.
	integration := laneOf(second.Run, "integration")
	assert.Check(t, is.Equal(w.c.git(t, "merge-base", "--is-ancestor", delivered.Head, integration.Head), ""))
	assert.Check(t, is.Equal(w.c.git(t, "show", integration.Head+":DONE-2"), "two"))
	// The record tells no implementer's receipt or verdict of lane-1 in the second run, and the spec's
	// Progress has lane-1's line once, from the run that delivered it.
	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", run)
	for _, im := range story.Implementations {
		assert.Check(t, im.Lane != "lane-1", "%+v", im)
	}
	for _, v := range story.Verdicts {
		assert.Check(t, v.Lane != "lane-1", "%+v", v)
	}
	spec := w.c.read(t, w.c.pathOf(t, w.spec))
	assert.Check(t, is.Equal(strings.Count(spec, ", step 1 (Part one of the work.): delivered"), 1), spec)
	assert.Check(t, is.Contains(spec, "- Run "+run+" integrated on"))
}

// TestANewRunRedoesAKeptLaneWhoseBranchWasLost: a delivered lane whose branch was deleted, or
// rewritten so its head is no longer on it, is done again, saying why; a lane built on it with it.
func TestANewRunRedoesAKeptLaneWhoseBranchWasLost(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs a case: in make test, not under -short")
	}
	for _, tc := range []struct {
		name string
		lose func(t *testing.T, w runnerWorld, branch string)
		why  string
	}{
		{"deleted", func(t *testing.T, w runnerWorld, branch string) { w.c.git(t, "branch", "-D", branch) }, "its branch %s was deleted since %s delivered it"},
		{"rewritten", func(t *testing.T, w runnerWorld, branch string) { w.c.git(t, "branch", "-f", branch, "main") }, "its branch %s was rewritten since %s delivered it: %s is no longer on it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, first := firstRunHandsBackTwo(t)
			delivered := laneOf(first, "lane-1")
			tc.lose(t, w, delivered.Branch)
			w.play(t, w.agents(t)...)
			var second loop.StepResult
			w.c.abcd(t, 0, &second, "implement", "start", w.spec)
			why := fmt.Sprintf(tc.why, delivered.Branch, first.Run, delivered.Head[:12])
			if tc.name == "deleted" {
				why = fmt.Sprintf(tc.why, delivered.Branch, first.Run)
			}
			line := fmt.Sprintf("goes on from %s, which delivered no lane this run can keep: every lane is done again: lane-1 (step 1: %s); lane-2 (step 2: handed back in %s); lane-3 (step 3: handed back in %s)",
				first.Run, why, first.Run, first.Run)
			assert.Check(t, is.Contains(second.Did, line), "%q", second.Did)
			for _, l := range second.Run.Lanes {
				assert.Check(t, is.Equal(l.KeptFrom, ""), l.ID)
				assert.Check(t, is.Equal(l.Stage, "waiting"), l.ID)
			}
			// The second run is the one unfinished: implement status --open shows it alone.
			var all, open loop.ImplementStatusResult
			w.c.abcd(t, 0, &all, "implement", "status")
			w.c.abcd(t, 0, &open, "implement", "status", "--open")
			assert.Check(t, is.Len(all.Runs, 2))
			assert.Assert(t, is.Len(open.Runs, 1))
			assert.Check(t, is.Equal(open.Runs[0].Run, second.Run.Run))
			text := w.c.cmd(binary, "implement", "status", "--open")
			text.Assert(t, icmd.Success)
			assert.Check(t, is.Contains(text.Stdout(), "run "+second.Run.Run+" (spec, in progress)"))
			assert.Check(t, !strings.Contains(text.Stdout(), first.Run), text.Stdout())
		})
	}
}

// pruneOf runs implement prune --json with args and returns what it did to each run, by run.
func pruneOf(t *testing.T, w runnerWorld, args ...string) map[string]prune.RunDone {
	t.Helper()
	var res prune.Result
	w.c.abcd(t, 0, &res, append([]string{"implement", "prune"}, args...)...)
	out := map[string]prune.RunDone{}
	for _, r := range res.Runs {
		out[r.Run] = r
	}
	return out
}

func abcdBranches(t *testing.T, w runnerWorld) string {
	t.Helper()
	return w.c.git(t, "for-each-ref", "--format=%(refname:short)", "refs/heads/abcd/")
}

// TestImplementPruneRemovesWhatRunsLeftAndKeepsTheirRecord: prune removes the branches and worktree
// folders of runs that are over and keeps their record (implement record still tells them); it keeps
// delivered work found nowhere else (the lane the spec's next run keeps, an integration not merged),
// leaves an unfinished run whole unless --unfinished, and a run another invocation holds whole
// always; --dry-run says the same and changes nothing.
func TestImplementPruneRemovesWhatRunsLeftAndKeepsTheirRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs: in make test, not under -short")
	}
	w, first := firstRunHandsBackTwo(t)
	one := first.Run
	// The first run handed lane-2 back: its branch goes; lane-1's stays, since the next run keeps it.
	before := tree(t, w.c.dir, w.c.home)
	dry := w.c.cmd(binary, "implement", "prune", "--dry-run")
	dry.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(dry.Stdout(), "run "+one+" (finished)\n  would remove: branch abcd/"+one+"/lane-2\n  kept: abcd/"+one+"/lane-1: delivered, and the spec's next run keeps it"), dry.Stdout())
	assert.Check(t, is.Contains(dry.Stdout(), "(dry run: nothing was removed)"))
	assert.Check(t, is.DeepEqual(tree(t, w.c.dir, w.c.home), before), "a dry run writes nothing")

	// The second run keeps lane-1 and delivers the rest; a third is started and left unfinished.
	w.play(t, w.agents(t)...)
	var second loop.ImplementRunResult
	ran := w.abcd(t, "implement", "run", w.spec, "--json")
	ran.Assert(t, icmd.Success)
	decodeOne(t, ran.Stdout(), &second)
	two := second.Run.Run
	assert.Assert(t, is.Equal(second.Ended, loop.EndedFinished))
	w.c.git(t, "add", ".abcd")
	w.c.git(t, "commit", "-q", "-m", "the second run's record")
	var third loop.StepResult
	w.c.abcd(t, 0, &third, "implement", "start", w.spec)
	three := third.Run.Run

	// The first run's lock held by another invocation: it is left whole, and said so.
	release := holdFolderLock(t, filepath.Join(w.c.dir, ".abcd", ".work.local", "run", one))
	held := pruneOf(t, w, "--run", one)
	release()
	assert.Check(t, is.Equal(held[one].Standing, prune.StandingInUse))
	assert.Check(t, is.Contains(abcdBranches(t, w), "abcd/"+one+"/lane-2"), "nothing of a held run is removed")

	got := pruneOf(t, w)
	assert.Check(t, is.DeepEqual(got[one].Removed, []string{"branch abcd/" + one + "/lane-1", "branch abcd/" + one + "/lane-2"}))
	assert.Check(t, is.Len(got[one].Kept, 0), "a newer run made its own branch at what it kept")
	assert.Check(t, is.DeepEqual(got[two].Removed, []string{"branch abcd/" + two + "/lane-1", "branch abcd/" + two + "/lane-2", "branch abcd/" + two + "/lane-3"}), "%+v", got[two])
	assert.Check(t, is.DeepEqual(got[two].Kept, []string{"abcd/" + two + "/integration: the run's delivered work, not in main yet: merge it (or delete it with git branch -D)"}))
	assert.Check(t, is.Equal(got[three].Standing, prune.StandingUnfinished))
	assert.Check(t, is.Contains(got[three].Left, "give --unfinished"))
	assert.Check(t, is.Equal(abcdBranches(t, w), "abcd/"+two+"/integration"))
	// Their record stays, and tells them.
	for _, run := range []string{one, two} {
		var story loop.ImplementRecordResult
		w.c.abcd(t, 0, &story, "implement", "record", "--run", run)
		assert.Check(t, is.Equal(story.Run.Run, run))
		assert.Check(t, len(story.Implementations) > 0, run)
		md := w.c.cmd(binary, "implement", "record", "--run", run, "--markdown")
		md.Assert(t, icmd.Success)
		_, err := os.Stat(filepath.Join(w.c.dir, ".abcd-lanes", run))
		assert.Check(t, os.IsNotExist(err), "%s's worktree folder: %v", run, err)
	}

	// Once the integration is merged into main, it goes too; pruning again otherwise changes nothing.
	w.c.git(t, "merge", "-q", "--no-edit", "abcd/"+two+"/integration")
	got = pruneOf(t, w)
	assert.Check(t, is.DeepEqual(got[two].Removed, []string{"branch abcd/" + two + "/integration"}))
	assert.Check(t, is.Len(got[one].Removed, 0))
	assert.Check(t, is.Equal(abcdBranches(t, w), ""))

	// Asked, the unfinished run is abandoned and pruned; its record says it was abandoned.
	got = pruneOf(t, w, "--run", three, "--unfinished")
	assert.Check(t, got[three].Abandoned)
	var status loop.ImplementStatusResult
	w.c.abcd(t, 0, &status, "implement", "status", "--open")
	assert.Check(t, is.Len(status.Runs, 0))
	got = pruneOf(t, w, "--run", three)
	assert.Check(t, is.Equal(got[three].Standing, prune.StandingAbandoned))
}

// completeWith runs cobra's hidden __complete through the binary and returns the candidates and the
// directive line it ends with.
func completeWith(t *testing.T, w runnerWorld, args ...string) ([]string, string) {
	t.Helper()
	res := w.c.cmd(binary, append([]string{"__complete"}, args...)...)
	res.Assert(t, icmd.Success)
	lines := strings.Split(strings.TrimSuffix(res.Stdout(), "\n"), "\n")
	assert.Assert(t, len(lines) > 0, res.Stdout())
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// TestCompletionOffersTheRecordsRunsAndReturns: the shell's Tab offers, read from the record and the
// runs and writing nothing, the ids and slugs of records where a REF is taken, the open specs where
// a run starts, run ids for --run and the return paths of open awaits for a receipt.
func TestCompletionOffersTheRecordsRunsAndReturns(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.")
	// No runner: the step's awaits are the host's, with return paths to hand in.
	assert.NilError(t, os.Remove(filepath.Join(w.c.home, ".abcd", "config.json")))
	var started loop.StepResult
	w.c.abcd(t, 0, &started, "implement", "start", w.spec)
	run := started.Run.Run
	var stepped loop.StepResult
	w.c.abcd(t, 0, &stepped, "implement", "step")
	assert.Assert(t, is.Len(stepped.Run.Awaits, 1))
	ret := stepped.Run.Awaits[0].Return

	noFiles := ":4" // cobra.ShellCompDirectiveNoFileComp
	before := tree(t, w.c.dir, w.c.home)
	specPath := w.c.pathOf(t, w.spec)
	slug := strings.TrimPrefix(strings.TrimSuffix(filepath.Base(specPath), ".md"), w.spec+"-")
	got, directive := completeWith(t, w, "spec", "show", "")
	assert.Check(t, is.Equal(directive, noFiles))
	assert.Check(t, is.Contains(got, w.spec+"\tFaster cold start"), "%q", got)
	assert.Check(t, is.Contains(got, slug+"\t"+w.spec), "%q", got)
	got, _ = completeWith(t, w, "intent", "show", slug[:4])
	assert.Check(t, is.DeepEqual(got, []string{slug + "\t" + w.intent}), "only what starts with what was typed")
	got, _ = completeWith(t, w, "implement", "start", "spc-")
	assert.Check(t, is.DeepEqual(got, []string{w.spec + "\tFaster cold start"}))
	got, _ = completeWith(t, w, "spec", "new", "A title", "--intent", "itd-")
	assert.Check(t, is.DeepEqual(got, []string{w.intent + "\tFaster cold start"}))
	got, directive = completeWith(t, w, "implement", "record", "--run", "")
	assert.Check(t, is.Equal(directive, noFiles))
	assert.Check(t, is.DeepEqual(got, []string{run + "\tspec " + w.spec + ", in progress"}))
	got, _ = completeWith(t, w, "implement", "step", "--run", "run-")
	assert.Check(t, is.DeepEqual(got, []string{run + "\tspec " + w.spec + ", in progress"}))
	got, _ = completeWith(t, w, "implement", "receipt", "")
	assert.Check(t, is.DeepEqual(got, []string{ret + "\tlane-1 implementer"}))
	// After the one argument a command takes, nothing; a field abcd cannot list keeps the shell's own.
	got, directive = completeWith(t, w, "implement", "receipt", ret, "")
	assert.Check(t, is.Len(got, 0))
	assert.Check(t, is.Equal(directive, noFiles))
	_, directive = completeWith(t, w, "history", "capture", "")
	assert.Check(t, directive != noFiles, "a transcript is a file: %s", directive)
	assert.Check(t, is.DeepEqual(tree(t, w.c.dir, w.c.home), before), "completing writes nothing")

	// Once the run is abandoned, the verbs that go on with a run offer it no more; record still does.
	w.c.abcd(t, 0, nil, "implement", "abandon")
	got, _ = completeWith(t, w, "implement", "step", "--run", "")
	assert.Check(t, is.Len(got, 0))
	got, _ = completeWith(t, w, "implement", "prune", "--run", "")
	assert.Check(t, is.DeepEqual(got, []string{run + "\tspec " + w.spec + ", finished"}))
	script := w.c.cmd(binary, "completion", "zsh")
	script.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(script.Stdout(), "#compdef abcd"))
}

// TestImplementPruneRefusesWhatItCannotRead: a run whose state cannot be read is told beside the
// others and left whole; named, it is refused (exit 2), as an unknown run is, and nothing is written.
func TestImplementPruneRefusesWhatItCannotRead(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.")
	var started loop.StepResult
	w.c.abcd(t, 0, &started, "implement", "start", w.spec)
	run := started.Run.Run
	state := filepath.Join(w.c.dir, ".abcd", ".work.local", "run", run, "state.json")
	assert.NilError(t, os.WriteFile(state, []byte("{\"schema_version\": 2, \"surprise\": 1}\n"), 0o600))
	before := tree(t, w.c.dir, w.c.home)
	got := pruneOf(t, w)
	assert.Check(t, is.Equal(got[run].Standing, prune.StandingUnreadable))
	assert.Check(t, is.Contains(got[run].Left, "its state cannot be read"))
	for _, args := range [][]string{{"--run", run}, {"--run", "run-2612010000000000"}, {"--run", "not-a-run"}} {
		res := w.c.cmd(binary, append([]string{"implement", "prune", "--json"}, args...)...)
		res.Assert(t, icmd.Expected{ExitCode: 2})
		assert.Check(t, is.Contains(res.Stdout(), `"kind":"refused"`), res.Stdout())
	}
	assert.Check(t, is.DeepEqual(tree(t, w.c.dir, w.c.home), before), "nothing written")
}
