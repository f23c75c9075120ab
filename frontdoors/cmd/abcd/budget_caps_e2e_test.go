//go:build unix

package main

// A step's own caps held against a tokens and a minutes budget, end to end through the built binary:
// every runner call reports 1,000 input tokens, and each runner's wall clock is 60 s.

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/ports/loop"
)

// runUnder runs the spec under the budget flags given and returns the result and the record.
func (w runnerWorld) runUnder(t *testing.T, flags ...string) (loop.ImplementRunResult, loop.ImplementRecordResult) {
	t.Helper()
	res := w.abcd(t, append([]string{"implement", "run", w.spec, "--json"}, flags...)...)
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	return out, story
}

// No route caps a step's tokens, so under a tokens budget a step starts only once the steps running
// are done, and while something is left: with 2,500 tokens the run takes exactly three calls (the
// two implementers would otherwise run at once, and the four reviews after them), ends budget, and
// the same command with a bigger budget finishes it.
func TestATokensBudgetHoldsUncappedStepsToOneAtATime(t *testing.T) {
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	out, story := w.runUnder(t, "--budget-tokens", "2500")
	assert.Assert(t, is.Equal(out.Ended, loop.EndedBudget), "%+v", out)
	assert.Check(t, is.Equal(calls(story), 3), "one call at a time, until 3,000 tokens were spent")
	assert.Check(t, is.Equal(story.Run.Spend.Run.Tokens(), int64(3000)))
	assert.Check(t, is.Contains(out.Budget.Stopped, "3000 tokens of the budget's 2500 are spent"))
	assert.Check(t, is.Contains(out.Budget.Left, "0 of 2500 tokens"))

	done, story := w.runUnder(t, "--budget-tokens", "100000")
	assert.Assert(t, is.Equal(done.Ended, loop.EndedFinished), "%+v", done)
	assert.Check(t, is.Equal(calls(story), 7))
}

// A runner step's wall clock (60 s here, with the drain and the kill's grace after it) is its cap
// against a minutes budget: under one minute no step could end within it, so none starts, the run
// ends budget naming the wall clock, nothing spent; two minutes take every step, one at a time where
// two would go over; the record holds the same seven calls as a run with no budget.
func TestAMinutesBudgetHoldsEachRunnerStepsWallClock(t *testing.T) {
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	out, story := w.runUnder(t, "--budget-minutes", "1")
	assert.Assert(t, is.Equal(out.Ended, loop.EndedBudget), "%+v", out)
	assert.Check(t, is.Contains(out.Budget.Stopped, "this step may take 1m4s more (its runner's limits.wall_clock_s): over the budget's 1 minutes"))
	assert.Check(t, is.Equal(calls(story), 0), "no step started")
	assert.Check(t, is.Equal(story.Run.Spend.Run.USD, 0.0))

	done, story := w.runUnder(t, "--budget-minutes", "2")
	assert.Assert(t, is.Equal(done.Ended, loop.EndedFinished), "%+v", done)
	assert.Check(t, is.Equal(done.Run.Run, out.Run.Run), "the same run went on")
	assert.Check(t, is.Equal(calls(story), 7))
	assert.Check(t, is.Equal(done.Budget.Stopped, ""))
}
