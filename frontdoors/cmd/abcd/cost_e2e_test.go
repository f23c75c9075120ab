//go:build unix

package main

// What a run costs, end to end through the built binary: the fake CLI plays Claude Code for every
// role, each call reporting 0.25 USD and 1,000 input tokens; the record sums them, status shows them,
// and a budget stops the run cleanly before the step that would go over it.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	dloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/loop"
)

// paidResult is a successful result line costing 0.25 USD and 1,000 input tokens.
func paidResult(t *testing.T, final string, structured any) string {
	t.Helper()
	ev := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": final, "num_turns": 1,
		"total_cost_usd": 0.25, "usage": map[string]any{"input_tokens": 1000, "output_tokens": 0, "cache_read_input_tokens": 10, "cache_creation_input_tokens": 5},
		"permission_denials": []any{}, "terminal_reason": "completed", "api_error_status": nil, "session_id": "sess-1"}
	if structured != nil {
		ev["structured_output"] = structured
	}
	b, err := json.Marshal(ev)
	assert.NilError(t, err)
	return string(b)
}

// paidAgents is w.agents with every call paid for.
func (w runnerWorld) paidAgents(t *testing.T) []runnertest.Directive {
	var out []runnertest.Directive
	for _, d := range w.agents(t) {
		if strings.Contains(d.Out, `"type":"result"`) {
			var ev map[string]any
			assert.NilError(t, json.Unmarshal([]byte(d.Out), &ev))
			final, _ := ev["result"].(string)
			d.Out = paidResult(t, final, ev["structured_output"])
		}
		out = append(out, d)
	}
	return out
}

const twoLanes = "1. Part one of the work.\n2. Part two of the work."

// calls counts the runner receipts a record holds: every call a runner took.
func calls(r loop.ImplementRecordResult) int {
	n := 0
	for _, im := range r.Implementations {
		if im.Runner != nil {
			n++
		}
	}
	for _, v := range r.Verdicts {
		if v.Runner != nil {
			n++
		}
	}
	for _, f := range r.Fallbacks {
		if f.Runner != nil {
			n++
		}
	}
	return n
}

// Seven runner calls at 0.25 USD and 1,000 input tokens each sum to 1.75 USD and 7,000 tokens in the
// record, per lane, role and route too, and status shows the spend.
func TestARunsRecordSumsWhatEveryRunnerCallCost(t *testing.T) {
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	assert.Assert(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
	assert.Check(t, is.Equal(out.Routed, 7), "two implementers, four reviews, one audit")

	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Check(t, is.Equal(calls(story), 7))
	for _, im := range story.Implementations {
		assert.Check(t, is.Equal(im.Runner.CostSource, runner.CostReported))
		assert.Check(t, is.Equal(im.Runner.Usage.CacheWrite, int64(5)))
	}
	sp := story.Run.Spend
	assert.Check(t, is.Equal(sp.Run.Steps, 7))
	assert.Check(t, is.Equal(sp.Run.USD, 1.75))
	assert.Check(t, is.Equal(sp.Run.Input, int64(7000)))
	assert.Check(t, is.Equal(sp.Run.Tokens(), int64(7000)))
	assert.Check(t, is.Equal(sp.Run.CacheRead, int64(70)))
	assert.Check(t, is.Equal(sp.Run.Unknown, 0))
	byName := func(ns []dloop.NamedSpend) map[string]float64 {
		m := map[string]float64{}
		for _, n := range ns {
			m[n.Name] = n.Spend.USD
		}
		return m
	}
	assert.Check(t, is.DeepEqual(byName(sp.Routes), map[string]float64{"cc": 0.5, "rv": 1.25}))
	assert.Check(t, is.DeepEqual(byName(sp.Lanes), map[string]float64{"lane-1": 0.75, "lane-2": 0.75, "integration": 0.25}))
	assert.Check(t, is.DeepEqual(byName(sp.Roles), map[string]float64{"implementer": 0.5, "ruthless-reviewer": 0.5, "security-reviewer": 0.5, "intent-auditor": 0.25}))

	text := w.abcd(t, "implement", "record", "--run", out.Run.Run)
	text.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(text.Stdout(), "spent: 1.75 USD over 7 steps; 7000 input and 0 output tokens"))
	assert.Check(t, is.Contains(text.Stdout(), "spent by route rv: 1.25 USD over 5 steps"))
	status := w.abcd(t, "implement", "status", "--run", out.Run.Run)
	status.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(status.Stdout(), "spent: 1.75 USD over 7 steps"))
	var st loop.ImplementStatusResult
	w.c.abcd(t, 0, &st, "implement", "status", "--run", out.Run.Run)
	assert.Check(t, is.Equal(st.Runs[0].Spend.Run.USD, 1.75))
}

// A 0.60 USD budget ends the run `budget` after at most three calls, with what was spent and what is
// left, every lane where it was; the same command with a bigger budget finishes it.
func TestABudgetStopsARunCleanlyAndABiggerOneGoesOn(t *testing.T) {
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	res := w.abcd(t, "implement", "run", w.spec, "--budget-usd", "0.60", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	assert.Assert(t, is.Equal(out.Ended, loop.EndedBudget), "%+v", out)
	assert.Check(t, !out.Run.Finished)
	assert.Check(t, is.Equal(out.Budget.USD, 0.6))
	assert.Check(t, is.Contains(out.Budget.Stopped, "of the budget's 0.60 is spent"))
	assert.Check(t, is.Contains(out.Budget.Left, "of 0.60 USD"))
	assert.Check(t, is.Contains(res.Stderr(), "stopped by its budget"))

	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	n := calls(story)
	assert.Check(t, n >= 1 && n <= 3, "%d calls", n)
	assert.Check(t, is.Equal(story.Run.Spend.Run.USD, 0.25*float64(n)))
	assert.Check(t, story.Run.Spend.Run.USD >= 0.6, "stopped only once the budget was spent")
	// No runner was left working, and every implementer's lane is as it was: its worktree clean.
	for _, l := range story.Run.Lanes {
		if l.Worktree == "" {
			continue
		}
		st := icmd.RunCmd(icmd.Command("git", "-C", l.Worktree, "status", "--porcelain"))
		st.Assert(t, icmd.Success)
		assert.Check(t, is.Equal(st.Stdout(), ""), "%s", l.ID)
	}
	for _, f := range story.Fallbacks {
		if f.Runner == nil {
			assert.Check(t, is.Equal(f.Reason, "interrupted"))
			assert.Check(t, is.Contains(f.Detail, "not started: the run's budget stopped it"))
		}
	}

	again := w.abcd(t, "implement", "run", w.spec, "--budget-usd", "5", "--json")
	again.Assert(t, icmd.Expected{ExitCode: 0})
	var done loop.ImplementRunResult
	decodeOne(t, again.Stdout(), &done)
	assert.Assert(t, is.Equal(done.Ended, loop.EndedFinished), "%+v", done)
	assert.Check(t, done.Run.Finished)
	assert.Check(t, is.Equal(done.Run.Run, out.Run.Run), "the same run went on")
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Check(t, is.Equal(calls(story), 7))
	assert.Check(t, is.Equal(story.Run.Spend.Run.USD, 1.75))
	assert.Check(t, is.Contains(done.Budget.Left, "3.25 of 5.00 USD"))
}

// tree is every file under the folders, by path, with its mode and content digest.
func tree(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		assert.NilError(t, filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			v := info.Mode().String()
			if e.Type().IsRegular() {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				sum := sha256.Sum256(data)
				v += " " + hex.EncodeToString(sum[:])
			}
			out[p] = v
			return nil
		}))
	}
	return out
}

// A budget that is not a number within its bounds is refused, exit 2, naming the remedy, and nothing
// is written: not a run, not a branch, not a file.
func TestABadBudgetIsRefusedAndNothingIsWritten(t *testing.T) {
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	before := tree(t, w.c.dir, w.c.home)
	for _, args := range [][]string{
		{"--budget-usd", "0"}, {"--budget-usd", "-1"}, {"--budget-usd", "abc"}, {"--budget-usd", "1e3"}, {"--budget-usd", "100001"},
		{"--budget-usd", "0.001"}, {"--budget-tokens", "0"}, {"--budget-tokens", "1.5"}, {"--budget-minutes", "100001"},
	} {
		res := w.abcd(t, append([]string{"implement", "run", w.spec}, args...)...)
		res.Assert(t, icmd.Expected{ExitCode: 2})
		assert.Check(t, is.Contains(res.Stderr(), "--"+strings.TrimPrefix(args[0], "--")), "%v", args)
		assert.Check(t, is.DeepEqual(tree(t, w.c.dir, w.c.home), before), "%v wrote something", args)
	}
	// The configuration's bound is checked as strictly, naming the file.
	w.c.write(t, ".abcd/config.json", `{"schema_version": 1, "build": {"dod": "true", "budget": {"usd": 0}}}`)
	before = tree(t, w.c.dir, w.c.home)
	res := w.abcd(t, "implement", "run", w.spec)
	res.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(res.Stderr(), "build.budget.usd"))
	assert.Check(t, is.DeepEqual(tree(t, w.c.dir, w.c.home), before))
}
