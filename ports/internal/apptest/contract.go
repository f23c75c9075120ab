package apptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
)

// laneWorld is a spec run of the given steps, started and stepped, on the host route.
type laneWorld struct {
	A    *app.App
	G    *fake.Git
	Rs   *fake.Runs
	Diag *fake.Diag
	Run  string
	seq  int
}

func NewLaneWorld(t *testing.T, steps string) *laneWorld {
	t.Helper()
	r := fake.NewRecords()
	a := RecApp(r)
	intent := RecNewIntent(t, a, r, "Faster cold start", true).ID
	p := RecRun[record.IntentPlanResult](t, a, "intent_plan", map[string]any{"ref": intent})
	RecEdit(t, r, p.Spec.Path, "Steps", steps)
	g := fake.NewGit(VBase)
	rs := fake.NewRuns()
	diag := &fake.Diag{}
	a.Git, a.Runs, a.Diag = g, rs, diag
	a.Journal = fake.NewJournal(a.Records.(*fake.Records), rs)
	a.Config = fake.Config{Files: ports.ConfigFiles{
		RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"build":{"dod":"true"}}`)}}}
	a.Roster = fake.Roster{R: LoopRoster(t)}
	start := RecRun[loopuc.StepResult](t, a, "implement_start", map[string]any{"spec": p.Spec.ID})
	w := &laneWorld{A: a, G: g, Rs: rs, Diag: diag, Run: start.Run.Run}
	RecRun[loopuc.StepResult](t, a, "implement_step", map[string]any{"run": w.Run})
	return w
}

func (w *laneWorld) Status(t *testing.T) loopuc.RunView {
	t.Helper()
	return RecRun[loopuc.ImplementStatusResult](t, w.A, "implement_status", map[string]any{"run": w.Run}).Runs[0]
}

func (w *laneWorld) Await(t *testing.T, lane, role string) loopuc.AwaitView {
	t.Helper()
	for _, aw := range w.Status(t).Awaits {
		if aw.Lane == lane && aw.Role == role {
			return aw
		}
	}
	t.Fatalf("no open await for %s on %s", role, lane)
	return loopuc.AwaitView{}
}

// Implement commits on the lane's branch and writes a receipt as the brief asks, with edit changing
// its JSON members before it is written; it returns the report's text.
func (w *laneWorld) Implement(t *testing.T, aw loopuc.AwaitView, extra string, commit bool) string {
	t.Helper()
	w.seq++
	lane := ""
	for _, l := range w.Status(t).Lanes {
		if l.ID == aw.Lane {
			lane = l.Branch
		}
	}
	dir := loop.LaneDir(w.Run, aw.Lane)
	sub := strings.TrimPrefix(strings.TrimSuffix(aw.Return, "/receipt.json"), dir+"/")
	commits := ""
	if commit {
		sha := fmt.Sprintf("%040x", 0xabc000+w.seq)
		w.G.Commit(lane, sha)
		commits = fmt.Sprintf(`"commits":[%q],`, sha)
	}
	report := fmt.Sprintf("Report %d of %s.", w.seq, aw.Lane)
	w.Rs.Files[dir+"/"+sub+"/dod-output.txt"] = []byte("ok")
	// Every round writes its report over the same file: abcd's copies keep each round's.
	w.Rs.Files[dir+"/report.md"] = []byte(report)
	w.Rs.Files[aw.Return] = []byte(fmt.Sprintf(`{"schema_version":1,"run":%q,"lane":%q,"branch":%q,%s`+
		`"dod":{"command":"true","exit_code":0,"output":%q},"report":"report.md","model":"m"%s}`, w.Run, aw.Lane, lane, commits, sub+"/dod-output.txt", extra))
	return report
}

func (w *laneWorld) Receipt(t *testing.T, path string) loopuc.StepResult {
	t.Helper()
	return RecRun[loopuc.StepResult](t, w.A, "implement_receipt", map[string]any{"path": path})
}

func (w *laneWorld) Review(t *testing.T, lane, role, word string) loopuc.StepResult {
	t.Helper()
	aw := w.Await(t, lane, role)
	w.Rs.Files[aw.Return] = []byte("Read it.\n\n## Verdict\n" + word + "\n\n### F1. A finding of " + lane + "\n")
	return w.Receipt(t, aw.Return)
}

func Stages(v loopuc.RunView) string {
	var out []string
	for _, l := range v.Lanes {
		out = append(out, l.ID+":"+l.Stage)
	}
	return strings.Join(out, " ")
}

// PassLane has a lane implemented and both its reviewers pass it.
func (w *laneWorld) PassLane(t *testing.T, lane string) string {
	t.Helper()
	impl := w.Await(t, lane, loop.RoleImplementer)
	w.Implement(t, impl, "", true)
	w.Receipt(t, impl.Return)
	w.Review(t, lane, loop.RoleRuthless, "SHIP")
	w.Review(t, lane, loop.RoleSecurity, "APPROVE")
	for _, l := range w.Status(t).Lanes {
		if l.ID == lane {
			return l.Head
		}
	}
	return ""
}

// MergeByHand is a person making the merge in the lane's worktree: a merge commit of head onto the
// branch.
func (w *laneWorld) MergeByHand(branch, head string) {
	w.seq++
	sha := fmt.Sprintf("%040x", 0xdd0000+w.seq)
	if w.G.Second == nil {
		w.G.Second = map[string]string{}
	}
	w.G.Parents[sha], w.G.Second[sha] = w.G.Branches[branch], head
	w.G.Branches[branch] = sha
}
