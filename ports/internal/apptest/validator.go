package apptest

import (
	"fmt"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
)

const (
	VBase = "1111111111111111111111111111111111111111"
	VWork = "2222222222222222222222222222222222222222"
)

// LoopWorld is a planned, ready intent with a one-step spec, a machine config routing reviews to
// rp at a loopback address, and a run whose lane has its implementer's receipt recorded.
type LoopWorld struct {
	A   *app.App
	G   *fake.Git
	Rs  *fake.Runs
	Run string
}

func NewLoopWorld(t *testing.T, v ports.Validator) LoopWorld {
	t.Helper()
	r := fake.NewRecords()
	a := RecApp(r)
	intent := RecNewIntent(t, a, r, "Faster cold start", true).ID
	spec := RecPlan(t, a, r, intent, true).Spec.ID
	g := fake.NewGit(VBase)
	rs := fake.NewRuns()
	a.Git, a.Runs = g, rs
	a.Journal = fake.NewJournal(a.Records.(*fake.Records), rs)
	a.Config = fake.Config{Files: ports.ConfigFiles{
		RepoConfig:    ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"oracle":{"review":"rp"},"build":{"dod":"true"}}`)},
		MachineConfig: ports.ConfigFile{Path: "/home/ada/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"oracle":{"rp":{"url":"http://127.0.0.1:8765/mcp"}}}`)},
	}}
	a.Roster = fake.Roster{R: LoopRoster(t)}
	a.Diag = &fake.Diag{}
	if v != nil {
		a.Validators = map[string]ports.Validator{"rp": v}
	}
	start := RecRun[loopuc.StepResult](t, a, "implement_start", map[string]any{"spec": spec})
	run := start.Run.Run
	step := RecRun[loopuc.StepResult](t, a, "implement_step", map[string]any{"run": run})
	impl := step.Run.Awaits[0]
	g.Commit(start.Run.Lanes[0].Branch, VWork)
	lane := loop.LaneDir(run, "lane-1")
	rs.Files[lane+"/dod.txt"] = []byte("ok")
	rs.Files[lane+"/report.md"] = []byte("done")
	rs.Files[impl.Return] = []byte(fmt.Sprintf(`{"schema_version":1,"run":%q,"lane":"lane-1","branch":%q,"commits":[%q],`+
		`"dod":{"command":"true","exit_code":0,"output":"dod.txt"},"report":"report.md","model":"m"}`, run, start.Run.Lanes[0].Branch, VWork))
	return LoopWorld{A: a, G: g, Rs: rs, Run: run}
}

func (w LoopWorld) Receipt(t *testing.T) loopuc.StepResult {
	t.Helper()
	return RecRun[loopuc.StepResult](t, w.A, "implement_receipt", map[string]any{"path": loop.LaneDir(w.Run, "lane-1") + "/implement/receipt.json"})
}

func (w LoopWorld) Record(t *testing.T) loopuc.ImplementRecordResult {
	t.Helper()
	return RecRun[loopuc.ImplementRecordResult](t, w.A, "implement_record", map[string]any{"run": w.Run})
}

// LoopRoster is the three shipped agents by name.
func LoopRoster(t *testing.T) roster.Roster {
	t.Helper()
	var agents []roster.Agent
	for _, n := range []string{loop.RoleAuditor, loop.RoleRuthless, loop.RoleSecurity} {
		agents = append(agents, roster.Agent{FrontMatter: roster.FrontMatter{Name: n}})
	}
	r, err := roster.New(agents)
	assert.NilError(t, err)
	return r
}
