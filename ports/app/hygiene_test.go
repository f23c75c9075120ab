package app_test

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
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
	w := newLoopWorld(t, nil)
	spec := specOf(t, w)
	_, err := w.a.Call(t.Context(), "implement_start", map[string]any{"spec": spec})
	r := refusalCode(t, err)
	assert.Check(t, is.Equal(r.Code, "run_active"))
	assert.Check(t, is.Contains(r.Why, w.run))
	var verbs []string
	for _, inv := range r.Remedy.Runs() {
		verbs = append(verbs, inv.Verb)
	}
	assert.Check(t, is.DeepEqual(verbs, []string{"implement_step", "implement_abandon", "implement_start"}))

	second := recRun[app.StepResult](t, w.a, "implement_start", map[string]any{"spec": spec, "again": true})
	assert.Check(t, second.Run.Run != w.run)
	_, err = w.a.Call(t.Context(), "implement_step", map[string]any{})
	r = refusalCode(t, err)
	assert.Check(t, is.Equal(r.Code, "run_ambiguous"))
	assert.Check(t, strings.Contains(r.Why, w.run) && strings.Contains(r.Why, second.Run.Run), r.Why)
	recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": second.Run.Run})
}

// Abandon ends the run: awaits dropped, worktrees removed, the record and the branches kept (or
// the branches deleted when asked); abandoning again changes nothing.
func TestAbandonEndsARun(t *testing.T) {
	w := newLoopWorld(t, nil)
	before := recRun[app.ImplementStatusResult](t, w.a, "implement_status", map[string]any{"run": w.run}).Runs[0]
	assert.Check(t, before.Lanes[0].Worktree != "", "the lane has a worktree while the run moves")
	assert.Check(t, len(w.g.Worktrees) == len(before.Lanes)-1, "a worktree per step lane: %v", w.g.Worktrees)
	res := recRun[app.StepResult](t, w.a, "implement_abandon", map[string]any{})
	assert.Check(t, res.Run.Finished)
	assert.Check(t, is.Len(res.Run.Awaits, 0))
	for _, l := range res.Run.Lanes {
		assert.Check(t, is.Equal(l.Stage, "handed-back"), l.ID)
		assert.Check(t, is.Equal(l.Worktree, ""), l.ID)
	}
	assert.Check(t, is.Len(w.g.Worktrees, 0))
	_, kept := w.g.Branches[before.Lanes[0].Branch]
	assert.Check(t, kept, "the lane's branch stays")
	story := recRun[app.ImplementRecordResult](t, w.a, "implement_record", map[string]any{"run": w.run})
	assert.Check(t, is.Equal(story.Run.Run, w.run), "the record stays")

	again := recRun[app.StepResult](t, w.a, "implement_abandon", map[string]any{"run": w.run, "delete_branches": true})
	assert.Check(t, again.Run.Finished)
	_, kept = w.g.Branches[before.Lanes[0].Branch]
	assert.Check(t, !kept, "asked, the branches go")
	_, err := w.a.Call(t.Context(), "implement_abandon", map[string]any{})
	assert.Check(t, is.Equal(refusalCode(t, err).Code, "no_run"), "with no unfinished run, there is nothing to name")
}

// A run starts from the base given, else build.base, else the repository's default branch; with none
// of them it is refused with the remedy, and nothing is written.
func TestTheBaseDefaultsToTheDefaultBranch(t *testing.T) {
	w := newLoopWorld(t, nil)
	spec := specOf(t, w)
	w.g.Branches["trunk"] = vWork
	w.g.Default = "trunk"
	res := recRun[app.StepResult](t, w.a, "implement_start", map[string]any{"spec": spec, "again": true})
	assert.Check(t, is.Equal(res.Run.Base, vWork), "the default branch")
	assert.Check(t, strings.Contains(strings.Join(res.Did, "\n"), "base trunk"), "the run says what it keeps: %v", res.Did)

	w.a.Config = fake.Config{Files: ports.ConfigFiles{RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true,
		Data: []byte(`{"schema_version":1,"build":{"base":"main","dod":"true"}}`)}}}
	res = recRun[app.StepResult](t, w.a, "implement_start", map[string]any{"spec": spec, "again": true})
	assert.Check(t, is.Equal(res.Run.Base, vBase), "build.base wins over the default branch")

	w.a.Config = fake.Config{}
	w.g.Default = ""
	delete(w.g.Branches, "main")
	dirs := len(w.rs.Dirs)
	_, err := w.a.Call(t.Context(), "implement_start", map[string]any{"spec": spec, "again": true})
	r := refusalCode(t, err)
	assert.Check(t, is.Equal(r.Code, "base_unknown"))
	assert.Check(t, is.Contains(r.Remedy.String(), "the base argument"))
	assert.Check(t, is.Equal(len(w.rs.Dirs), dirs), "nothing written")
}

// With no build.dod the start says so out loud and the briefs say what to do instead.
func TestAnUnsetDoDIsLoud(t *testing.T) {
	w := newLoopWorld(t, nil)
	w.a.Config = fake.Config{}
	d := &fake.Diag{}
	w.a.Diag = d
	res := recRun[app.StepResult](t, w.a, "implement_start", map[string]any{"spec": specOf(t, w), "again": true})
	assert.Check(t, strings.Contains(strings.Join(d.Warnings, "\n"), "build.dod is not set"), "%v", d.Warnings)
	assert.Check(t, strings.Contains(strings.Join(res.Did, "\n"), "build.dod unset"), "%v", res.Did)
	step := recRun[app.StepResult](t, w.a, "implement_step", map[string]any{"run": res.Run.Run})
	brief := string(w.rs.Files[step.Run.Awaits[0].Brief])
	assert.Check(t, is.Contains(brief, "was unset when this run started"))
}

// Once abcd is set up, bare abcd points at the first intent, not at install again; once the record
// holds one, that suggestion goes.
func TestStatusAfterInstallSuggestsTheFirstIntent(t *testing.T) {
	r := fake.NewRecords()
	a := recApp(r)
	st := recRun[app.StatusResult](t, a, "status", map[string]any{})
	var cmds []string
	for _, n := range st.Next {
		cmds = append(cmds, recStep(n.Next))
	}
	assert.Check(t, is.DeepEqual(cmds, []string{"intent_new title=<title> fill=title"}))
	recRun[app.RecordCreated](t, a, "intent_new", map[string]any{"title": "Faster cold start"})
	st = recRun[app.StatusResult](t, a, "status", map[string]any{})
	for _, n := range st.Next {
		assert.Check(t, !strings.HasPrefix(recStep(n.Next), "intent_new"), "%+v", st.Next)
	}
}

// Status looks at the runs: a spec whose run is under way points at the run, not at a second start;
// once that run is over without delivering, starting again is the suggestion.
func TestStatusPointsAtARunUnderWay(t *testing.T) {
	w := newLoopWorld(t, nil)
	commands := func() []string {
		st := recRun[app.StatusResult](t, w.a, "status", map[string]any{})
		var out []string
		for _, n := range st.Next {
			out = append(out, recStep(n.Next))
		}
		return out
	}
	got := commands()
	assert.Check(t, is.Contains(got, "implement_status run="+w.run))
	for _, c := range got {
		assert.Check(t, !strings.HasPrefix(c, "implement_start"), "%v", got)
	}
	recRun[app.StepResult](t, w.a, "implement_abandon", map[string]any{"run": w.run})
	got = commands()
	assert.Check(t, is.Contains(got, "implement_start spec="+specOf(t, w)), "%v", got)
}

// A run id that names no run is one refusal, worded once, whichever part finds it: the run store
// taking its lock (implement step) or the loop reading its state (implement status).
func TestAnUnknownRunIsOneRefusal(t *testing.T) {
	w := newLoopWorld(t, nil)
	want := loop.UnknownRun("run-1")
	for _, verb := range []string{"implement_step", "implement_status", "implement_record", "implement_abandon"} {
		_, err := w.a.Call(t.Context(), verb, map[string]any{"run": "run-1"})
		r := refusalCode(t, err)
		assert.Check(t, is.Equal(r.Code, want.Code), verb)
		assert.Check(t, is.Equal(r.Why, want.Why), verb)
		assert.Check(t, is.DeepEqual(r.Remedy, want.Remedy), verb)
	}
}
