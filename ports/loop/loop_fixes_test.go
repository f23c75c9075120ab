package loop_test

import (
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// With an rp route that answers at once, the round it settles moves on in the same receipt: a
// passing lane that is not the last is done, a failing one has its fix opened. The run never
// stalls with nothing open and nothing said.
func TestAnsweringRouteOpensWhatItMakesDue(t *testing.T) {
	for _, c := range []struct {
		name  string
		words map[string]string
		want  string
	}{
		{"both pass", map[string]string{loop.RoleRuthless: "SHIP", loop.RoleSecurity: "APPROVE"}, ""},
		{"one fails", map[string]string{loop.RoleRuthless: "FIX FIRST", loop.RoleSecurity: "APPROVE"}, loop.RoleImplementer},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := &fake.Validator{Name: "rp", Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
				return ports.ReviewOutcome{Return: []byte("## Verdict\n\n" + c.words[req.Role] + "\n\nfindings\n")}
			}}
			w := apptest.NewLoopWorld(t, v)
			res := w.Receipt(t)
			var lane1 []loopuc.AwaitView
			for _, aw := range res.Run.Awaits {
				if aw.Lane == "lane-1" {
					lane1 = append(lane1, aw)
				}
			}
			if c.want == "" {
				assert.Check(t, is.Len(lane1, 0))
				assert.Check(t, is.Equal(res.Run.Lanes[0].Stage, "done"))
				return
			}
			assert.Assert(t, is.Len(lane1, 1), "%+v", res.Run.Awaits)
			assert.Check(t, is.Equal(lane1[0].Role, c.want))
			assert.Check(t, is.Equal(res.Run.Lanes[0].Stage, "fix"))
		})
	}
}

// A --route given to step is kept in the run, so the reviewers a later receipt opens are routed by it.
func TestStepRoutesAreKeptForLaterAwaits(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": w.Run, "routes": []string{"ruthless-reviewer=economy"}})
	res := w.Receipt(t)
	var found bool
	for _, aw := range res.Run.Awaits {
		if aw.Role == loop.RoleRuthless {
			found = true
			assert.Check(t, is.Equal(string(aw.Routing.Tier), "economy"))
			assert.Check(t, is.Equal(aw.Routing.Override, "ruthless-reviewer=economy"))
		}
	}
	assert.Assert(t, found)
}

// A receipt whose findings would grow the state past its bound is refused, and nothing is recorded.
func TestStateNeverOutgrowsItsBound(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.Receipt(t)
	path := apptest.StatePathOf(w.Run)
	// Fill the state close to its bound through many fallbacks, then hand in a return.
	data := w.Rs.Files[path]
	s, err := loop.Decode(path, data)
	assert.NilError(t, err)
	pad := loop.Fallback{At: "2026-07-01T12:00:00Z", Lane: "lane-1", Role: loop.RoleRuthless, Asked: "rp", Reason: "timeout",
		Detail: strings.Repeat("d", 500), Ran: "host"}
	// Every fallback encodes to the same number of bytes, so the count that fills the state to
	// just under its bound is found with three encodings, not one per fallback.
	target := loop.MaxStateBytes - 8<<10
	base := len(loop.Encode(s))
	s.Fallbacks = append(s.Fallbacks, pad, pad)
	per := (len(loop.Encode(s)) - base) / 2
	s.Fallbacks = s.Fallbacks[:len(s.Fallbacks)-2]
	for n := (target - base) / per; n > 0; n-- {
		s.Fallbacks = append(s.Fallbacks, pad)
	}
	size := len(loop.Encode(s))
	assert.Assert(t, size <= target && size > target-2*per, "filled to %d bytes of %d", size, target)
	w.Rs.Files[path] = loop.Encode(s)
	before := string(w.Rs.Files[path])
	aw := s.Lanes[0].Awaits[0]
	w.Rs.Files[aw.Return] = []byte("## Verdict\n\nSHIP\n\n" + strings.Repeat("finding ", 2000) + "\n")
	_, err = w.A.Call(t.Context(), "implement_receipt", map[string]any{"path": aw.Return})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRunStateTooLarge))
	assert.Check(t, string(w.Rs.Files[path]) == before, "nothing recorded")
}

// Two runs started in the same second with the same random draw get distinct ids.
func TestRunIDsNeverCollide(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.A.Random = &constRandom{}
	w.G.Branches["feature"] = apptest.VBase
	w.G.Commit("feature", "4444444444444444444444444444444444444444")
	w.G.Head = "feature"
	first := apptest.RecRun[loopuc.StepResult](t, w.A, "review", map[string]any{"base": "main"})
	// Another review (one reviewer, so not the same review run again) draws the same id.
	_, err := w.A.Call(t.Context(), "review", map[string]any{"base": "main", "role": "ruthless-reviewer"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "a second run drawing the same id every time gives up with contention: %v", err)
	assert.Check(t, is.Equal(r.Kind, refusal.Contention))
	assert.Check(t, is.Len(first.Run.Awaits, 2), "the first run's awaits survive")
	again := apptest.RecRun[loopuc.ImplementStatusResult](t, w.A, "implement_status", map[string]any{"run": first.Run.Run})
	assert.Check(t, is.Len(again.Runs[0].Awaits, 2))
}

type constRandom struct{}

func (constRandom) Uint32() uint32 { return 7 }

// A review refused on its configuration leaves no run behind.
func TestRefusedReviewLeavesNoRun(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.G.Branches["feature"] = apptest.VBase
	w.G.Commit("feature", "5555555555555555555555555555555555555555")
	w.G.Head = "feature"
	w.A.Config = fake.Config{Files: ports.ConfigFiles{
		RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"oracle":{"review":"bogus"}}`)}}}
	before, err := w.Rs.Runs(t.Context())
	assert.NilError(t, err)
	_, err = w.A.Call(t.Context(), "review", map[string]any{"base": "main"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeConfigValueInvalid))
	after, _ := w.Rs.Runs(t.Context())
	assert.Check(t, is.DeepEqual(after, before))
}

// implement start on a stale branch name is refused before a run folder or branch is written.
func TestStartRefusedOnAStaleBranchWritesNothing(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.A.Random = &constRandom{}
	dirs := len(w.Rs.Dirs)
	// The id this start draws is fixed by the clock and the constant random.
	id := "run-" + apptest.RecNow.UTC().Format("060102150405") + "0007"
	w.G.Branches["abcd/"+id+"/lane-1"] = apptest.VBase
	_, err := w.A.Call(t.Context(), "implement_start", map[string]any{"spec": apptest.SpecOf(t, w), "again": true})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeBranchExists))
	assert.Check(t, is.Equal(len(w.Rs.Dirs), dirs))
}

// The same review run again while it is unfinished (after a kill, or a harness's timeout) goes on
// with that run: no second run, so no run_ambiguous after it; a different review starts its own.
func TestTheSameReviewAgainGoesOnWithItsRun(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.G.Branches["feature"] = apptest.VBase
	w.G.Commit("feature", "6666666666666666666666666666666666666666")
	w.G.Head = "feature"
	first := apptest.RecRun[loopuc.StepResult](t, w.A, "review", map[string]any{"base": "main"})
	again := apptest.RecRun[loopuc.StepResult](t, w.A, "review", map[string]any{"base": "main"})
	assert.Check(t, is.Equal(again.Run.Run, first.Run.Run))
	assert.Check(t, is.Contains(again.Did[0], "still unfinished: going on with it"))
	assert.Check(t, is.Len(again.Run.Awaits, 2), "its awaits are told again")
	other := apptest.RecRun[loopuc.StepResult](t, w.A, "review", map[string]any{"base": "main", "role": "security-reviewer"})
	assert.Check(t, other.Run.Run != first.Run.Run, "a review of one role is a review of its own")
}
