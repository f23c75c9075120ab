package loop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The build loop hands the repository's rules on: an implementer's brief carries the rules its step
// and its lane's files call for; a reviewer's brief asks that the change be checked against them.
func TestBriefsCarryTheRulesTheStepCallsFor(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	intent := apptest.RecNewIntent(t, a, r, "Faster cold start", true).ID
	spec := apptest.RecPlan(t, a, r, intent, true).Spec.ID
	g := fake.NewGit(apptest.VBase)
	rs := fake.NewRuns()
	a.Git, a.Runs = g, rs
	a.Journal = fake.NewJournal(a.Records.(*fake.Records), rs)
	a.Config = fake.Config{Files: ports.ConfigFiles{RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true,
		Data: []byte(`{"schema_version":1,"build":{"dod":"true"}}`)}}}
	a.Roster = fake.Roster{R: apptest.LoopRoster(t)}
	a.Diag = &fake.Diag{}
	a.Rules = fake.Rules{Files: ports.RuleFiles{Repository: ports.ConfigFile{Path: "/work/repo/.abcd/rules.json", Present: true,
		Data: []byte(`{"schema_version":1,"domains":[{"name":"configuration","recall":["config"],"rules":[{"id":"once","text":"Read the configuration once, at first use."}]},
		{"name":"payments","recall":["payment"],"rules":[{"id":"cents","text":"Money is whole cents."}]}]}`)}}}

	start := apptest.RecRun[loopuc.StepResult](t, a, "implement_start", map[string]any{"spec": spec})
	step := apptest.RecRun[loopuc.StepResult](t, a, "implement_step", map[string]any{"run": start.Run.Run})
	impl := step.Run.Awaits[0]
	brief := string(rs.Files[impl.Brief])
	assert.Check(t, is.Contains(brief, "## The repository's conventions\n\nThe rules this step and the files it touches call for"))
	assert.Check(t, is.Contains(brief, "[configuration] recalled by \"config\"\n- Read the configuration once, at first use."), brief)
	assert.Check(t, is.Contains(brief, "Follow them: your reviewers check the change against them."))
	assert.Check(t, !strings.Contains(brief, "Money is whole cents"), "only the rules the step calls for")

	// The implementer hands in; the reviewers' briefs ask for the change to be checked against them.
	g.Commit(start.Run.Lanes[0].Branch, apptest.VWork)
	lane := loop.LaneDir(start.Run.Run, "lane-1")
	rs.Files[lane+"/dod.txt"] = []byte("ok")
	rs.Files[lane+"/report.md"] = []byte("done")
	rs.Files[impl.Return] = []byte(fmt.Sprintf(`{"schema_version":1,"run":%q,"lane":"lane-1","branch":%q,"commits":[%q],`+
		`"dod":{"command":"true","exit_code":0,"output":"dod.txt"},"report":"report.md","model":"m"}`, start.Run.Run, start.Run.Lanes[0].Branch, apptest.VWork))
	res := apptest.RecRun[loopuc.StepResult](t, a, "implement_receipt", map[string]any{"path": impl.Return})
	reviewers := 0
	for _, aw := range res.Run.Awaits {
		if aw.Role == "implementer" {
			continue
		}
		reviewers++
		b := string(rs.Files[aw.Brief])
		assert.Check(t, is.Contains(b, "[configuration] recalled by \"config\""), aw.Role)
		assert.Check(t, is.Contains(b, "Check the change against each of them: a change that breaks one is a finding, with the rule it breaks."), aw.Role)
	}
	assert.Check(t, reviewers > 0, "%+v", res.Run.Awaits)

	// Rules that cannot be read are said in the brief, and stop no step.
	a.Rules = fake.Rules{Files: ports.RuleFiles{Repository: ports.ConfigFile{Path: "/work/repo/.abcd/rules.json", Present: true, Data: []byte(`{`)}}}
	start2 := apptest.RecRun[loopuc.StepResult](t, a, "implement_start", map[string]any{"spec": spec, "again": true})
	step2 := apptest.RecRun[loopuc.StepResult](t, a, "implement_step", map[string]any{"run": start2.Run.Run})
	b := string(rs.Files[step2.Run.Awaits[0].Brief])
	assert.Check(t, is.Contains(b, "The repository's rules (abcd rules) could not be read: "), b)
}
