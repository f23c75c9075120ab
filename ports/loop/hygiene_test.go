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
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func refusalCode(t *testing.T, err error) *refusal.Error {
	t.Helper()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal, got %v", err)
	return r
}

// One unfinished run per spec: a second start is refused naming the run and the three ways on;
// --again starts one beside it; then a verb without --run refuses to pick between them.
func TestOneActiveRunPerSpec(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	spec := apptest.SpecOf(t, w)
	_, err := w.A.Call(t.Context(), "implement_start", map[string]any{"spec": spec})
	r := refusalCode(t, err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRunActive))
	assert.Check(t, is.Contains(r.Why, w.Run))
	var verbs []string
	for _, inv := range r.Remedy.Runs() {
		verbs = append(verbs, inv.Verb)
	}
	assert.Check(t, is.DeepEqual(verbs, []string{"implement_step", "implement_abandon", "implement_start"}))

	second := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_start", map[string]any{"spec": spec, "again": true})
	assert.Check(t, second.Run.Run != w.Run)
	_, err = w.A.Call(t.Context(), "implement_step", map[string]any{})
	r = refusalCode(t, err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRunAmbiguous))
	assert.Check(t, strings.Contains(r.Why, w.Run) && strings.Contains(r.Why, second.Run.Run), r.Why)
	apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": second.Run.Run})
}

// Abandon ends the run: awaits dropped, worktrees removed, the record and the branches kept (or
// the branches deleted when asked); abandoning again changes nothing.
func TestAbandonEndsARun(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	before := apptest.RecRun[loopuc.ImplementStatusResult](t, w.A, "implement_status", map[string]any{"run": w.Run}).Runs[0]
	assert.Check(t, before.Lanes[0].Worktree != "", "the lane has a worktree while the run moves")
	assert.Check(t, len(w.G.Worktrees) == len(before.Lanes)-1, "a worktree per step lane: %v", w.G.Worktrees)
	res := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_abandon", map[string]any{})
	assert.Check(t, res.Run.Finished)
	assert.Check(t, is.Len(res.Run.Awaits, 0))
	for _, l := range res.Run.Lanes {
		assert.Check(t, is.Equal(l.Stage, "handed-back"), l.ID)
		assert.Check(t, is.Equal(l.Worktree, ""), l.ID)
	}
	assert.Check(t, is.Len(w.G.Worktrees, 0))
	_, kept := w.G.Branches[before.Lanes[0].Branch]
	assert.Check(t, kept, "the lane's branch stays")
	story := apptest.RecRun[loopuc.ImplementRecordResult](t, w.A, "implement_record", map[string]any{"run": w.Run})
	assert.Check(t, is.Equal(story.Run.Run, w.Run), "the record stays")

	again := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_abandon", map[string]any{"run": w.Run, "delete_branches": true})
	assert.Check(t, again.Run.Finished)
	_, kept = w.G.Branches[before.Lanes[0].Branch]
	assert.Check(t, !kept, "asked, the branches go")
	_, err := w.A.Call(t.Context(), "implement_abandon", map[string]any{})
	assert.Check(t, is.Equal(refusalCode(t, err).Code, refusal.CodeNoRun), "with no unfinished run, there is nothing to name")
}

// A run starts from the base given, else build.base, else the repository's default branch; with none
// of them it is refused with the remedy, and nothing is written.
func TestTheBaseDefaultsToTheDefaultBranch(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	spec := apptest.SpecOf(t, w)
	w.G.Branches["trunk"] = apptest.VWork
	w.G.Default = "trunk"
	res := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_start", map[string]any{"spec": spec, "again": true})
	assert.Check(t, is.Equal(res.Run.Base, apptest.VWork), "the default branch")
	assert.Check(t, strings.Contains(strings.Join(res.Did, "\n"), "base trunk"), "the run says what it keeps: %v", res.Did)

	w.A.Config = fake.Config{Files: ports.ConfigFiles{RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true,
		Data: []byte(`{"schema_version":1,"build":{"base":"main","dod":"true"}}`)}}}
	res = apptest.RecRun[loopuc.StepResult](t, w.A, "implement_start", map[string]any{"spec": spec, "again": true})
	assert.Check(t, is.Equal(res.Run.Base, apptest.VBase), "build.base wins over the default branch")

	w.A.Config = fake.Config{}
	w.G.Default = ""
	delete(w.G.Branches, "main")
	dirs := len(w.Rs.Dirs)
	_, err := w.A.Call(t.Context(), "implement_start", map[string]any{"spec": spec, "again": true})
	r := refusalCode(t, err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeBaseUnknown))
	assert.Check(t, is.Contains(r.Remedy.String(), "the base argument"))
	assert.Check(t, is.Equal(len(w.Rs.Dirs), dirs), "nothing written")
}

// With no build.dod the start says so out loud and the briefs say what to do instead.
func TestAnUnsetDoDIsLoud(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.A.Config = fake.Config{}
	d := &fake.Diag{}
	w.A.Diag = d
	res := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_start", map[string]any{"spec": apptest.SpecOf(t, w), "again": true})
	assert.Check(t, strings.Contains(strings.Join(d.Warnings, "\n"), "build.dod is not set"), "%v", d.Warnings)
	assert.Check(t, strings.Contains(strings.Join(res.Did, "\n"), "build.dod unset"), "%v", res.Did)
	step := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_step", map[string]any{"run": res.Run.Run})
	brief := string(w.Rs.Files[step.Run.Awaits[0].Brief])
	assert.Check(t, is.Contains(brief, "was unset when this run started"))
}

// Once abcd is set up, bare abcd points at the first intent, not at install again; once the record
// holds one, that suggestion goes.
func TestStatusAfterInstallSuggestsTheFirstIntent(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	st := apptest.RecRun[setup.StatusResult](t, a, "status", map[string]any{})
	var cmds []string
	for _, n := range st.Next {
		cmds = append(cmds, apptest.RecStep(n.Next))
	}
	assert.Check(t, is.DeepEqual(cmds, []string{"intent_new title=<title> fill=title"}))
	apptest.RecRun[record.RecordCreated](t, a, "intent_new", map[string]any{"title": "Faster cold start"})
	st = apptest.RecRun[setup.StatusResult](t, a, "status", map[string]any{})
	for _, n := range st.Next {
		assert.Check(t, !strings.HasPrefix(apptest.RecStep(n.Next), "intent_new"), "%+v", st.Next)
	}
}

// Status looks at the runs: a spec whose run is under way points at the run, not at a second start;
// once that run is over without delivering, starting again is the suggestion.
func TestStatusPointsAtARunUnderWay(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	commands := func() []string {
		st := apptest.RecRun[setup.StatusResult](t, w.A, "status", map[string]any{})
		var out []string
		for _, n := range st.Next {
			out = append(out, apptest.RecStep(n.Next))
		}
		return out
	}
	got := commands()
	assert.Check(t, is.Contains(got, "implement_status run="+w.Run))
	for _, c := range got {
		assert.Check(t, !strings.HasPrefix(c, "implement_start"), "%v", got)
	}
	apptest.RecRun[loopuc.StepResult](t, w.A, "implement_abandon", map[string]any{"run": w.Run})
	got = commands()
	assert.Check(t, is.Contains(got, "implement_start spec="+apptest.SpecOf(t, w)), "%v", got)
}

// A run id that names no run is one refusal, worded once, whichever part finds it: the run store
// taking its lock (implement step) or the loop reading its state (implement status).
func TestAnUnknownRunIsOneRefusal(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	want := loop.UnknownRun("run-1")
	for _, verb := range []string{"implement_step", "implement_status", "implement_record", "implement_abandon"} {
		_, err := w.A.Call(t.Context(), verb, map[string]any{"run": "run-1"})
		r := refusalCode(t, err)
		assert.Check(t, is.Equal(r.Code, want.Code), verb)
		assert.Check(t, is.Equal(r.Why, want.Why), verb)
		assert.Check(t, is.DeepEqual(r.Remedy, want.Remedy), verb)
	}
}
