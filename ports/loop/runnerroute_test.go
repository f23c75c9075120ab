package loop_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
)

// runnerKey is the credential the runner is given, which abcd holds.
const runnerKey = "sk-ant-api03-LoOpCaNaRy7Qx2Zp9Kr4Wt8Vn3Bj6"

// runnerWorld is a planned spec of one step and a machine whose runner cc takes the implementer's
// steps: the fake runner does what step says in the lane's worktree, and ends with success.
type runnerWorld struct {
	a    *app.App
	g    *fake.Git
	rs   *fake.Runs
	rn   *fake.Runners
	spec string
}

func newRunnerWorld(t *testing.T, step func(g *fake.Git, dir string)) runnerWorld {
	t.Helper()
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	intent := apptest.RecNewIntent(t, a, r, "Faster cold start", true).ID
	spec := apptest.RecPlan(t, a, r, intent, true).Spec.ID
	g := fake.NewGit(apptest.VBase)
	rs := fake.NewRuns()
	a.Git, a.Runs = g, rs
	a.Journal = fake.NewJournal(a.Records.(*fake.Records), rs)
	a.Setup = fake.NewSetup("/work/repo", "/home/ada")
	a.Config = fake.Config{Files: ports.ConfigFiles{
		RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"build":{"dod":"true"}}`)},
		MachineConfig: ports.ConfigFile{Path: "/home/ada/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"oracle":{` +
			`"runner":{"cc":{"cli":"claude","executable":"/usr/local/bin/claude","version":"2.1.332","sandbox":"off","credential_env":["ANTHROPIC_API_KEY"]}},` +
			`"roles":{"implementer":{"runner":"cc"}}}}`)},
	}}
	a.Credentials = fake.Credentials{Values: []string{runnerKey}}
	a.Roster = fake.Roster{R: apptest.LoopRoster(t)}
	a.Diag = &fake.Diag{}
	a.Commands = fake.Commands{}
	a.DoD = &fake.DoD{}
	rn := &fake.Runners{Report: ports.RunnerReport{Version: "2.1.332", ModelReported: "claude-x"},
		Outcome: runner.Outcome{Final: "Do the part\n\nWrote it.", Receipt: runner.Receipt{Runner: "cc", CLI: runner.Claude, CLIVersion: "2.1.332",
			ModelsReported: []string{"claude-x"}, Commits: []string{}}}}
	rn.OnStep = func(req ports.RunnerStep) {
		for dir := range g.Worktrees {
			if strings.HasSuffix(req.Dir, dir) {
				step(g, dir)
			}
		}
	}
	a.Runners = rn
	return runnerWorld{a: a, g: g, rs: rs, rn: rn, spec: spec}
}

// writes is a step that leaves a file holding text in the worktree.
func writes(path, text string) func(g *fake.Git, dir string) {
	return func(g *fake.Git, dir string) {
		if g.Dirty == nil {
			g.Dirty, g.Changes = map[string][]runner.Entry{}, map[string]string{}
		}
		g.Dirty[dir] = append(g.Dirty[dir], runner.Entry{Path: path, Kind: runner.EntryFile})
		g.Changes[dir] += "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + path + "\n@@ -0,0 +1 @@\n+" + text + "\n"
	}
}

// A runner's change that carries a credential abcd holds is never committed: the step falls back to
// the host with the cause credential_in_change, the lane is put back where it started, no branch is
// made, what is kept is a patch with the credential taken out, and no reviewer is asked anything.
func TestAChangeCarryingACredentialFallsBackAndIsNeverCommitted(t *testing.T) {
	for name, text := range map[string]string{
		"as it is":     "ANTHROPIC_API_KEY=" + runnerKey,
		"in base64":    "k: " + base64.StdEncoding.EncodeToString([]byte(runnerKey)),
		"cut in parts": `"sk-ant-" + "api03-L" + "oOpCaNaRy7Qx2Zp9Kr4Wt8Vn3Bj6"`,
	} {
		t.Run(name, func(t *testing.T) {
			w := newRunnerWorld(t, writes("config/.env", text))
			out := apptest.RecRun[loopuc.ImplementRunResult](t, w.a, "implement_run", map[string]any{"spec": w.spec})
			assert.Check(t, is.Equal(out.Ended, loopuc.EndedHost), "%+v", out)
			lanes := out.Run.Lanes[:len(out.Run.Lanes)-1] // the integration has no implementer
			assert.Check(t, is.Equal(out.FellBack, len(lanes)))
			assert.Check(t, is.Len(w.rn.Steps, len(lanes)))
			for _, st := range w.rn.Steps {
				assert.Check(t, is.Equal(st.Policy, runner.PolicyImplement), "only the implementers ran: no reviewer was asked")
			}
			for _, aw := range out.Run.Awaits {
				assert.Check(t, is.Equal(aw.Role, loop.RoleImplementer), "the host's implementer is next, no review: %+v", aw)
			}
			for _, ln := range lanes {
				assert.Check(t, is.Equal(w.g.Branches[ln.Branch], ln.Start), "%s is put back", ln.ID)
				assert.Check(t, is.Len(w.g.Dirty[loop.WorktreeDir(out.Run.Run, ln.ID)], 0))
			}
			for b := range w.g.Branches {
				assert.Check(t, !strings.Contains(b, "/attempts/"), "no attempts branch: %s", b)
			}
			assert.Check(t, is.Len(w.g.Messages, 0), "abcd committed nothing")

			story := apptest.RecRun[loopuc.ImplementRecordResult](t, w.a, "implement_record", map[string]any{"run": out.Run.Run})
			assert.Assert(t, is.Len(story.Fallbacks, len(lanes)))
			for _, f := range story.Fallbacks {
				assert.Check(t, is.Equal(string(f.Cause), "credential_in_change"), "%+v", f)
				assert.Check(t, is.Equal(f.Reason, "invalid"))
				assert.Check(t, is.Contains(f.Detail, `the step's change carries a credential abcd holds (in "config/.env")`))
				assert.Check(t, is.Contains(f.Detail, "what it did is kept as a patch with the credentials abcd holds taken out: "))
			}
			assert.Check(t, is.Len(story.Implementations, 0), "no implementation is recorded")

			sc := secret.NewScrubber(runnerKey)
			patches := 0
			for p, data := range w.rs.Files {
				assert.Check(t, !sc.Carries(string(data)), "%s carries the credential:\n%s", p, data)
				if strings.HasSuffix(p, "/runner-attempt.patch") {
					patches++
					assert.Check(t, is.Contains(string(data), "+++ b/config/.env"))
					assert.Check(t, is.Contains(string(data), secret.Mark))
				}
			}
			assert.Check(t, is.Equal(patches, len(lanes)), "each attempt is kept as one patch")
		})
	}
}

// A change too large to scan whole fails closed: nothing of it is committed or kept.
func TestAChangeTooLargeToScanFailsClosed(t *testing.T) {
	w := newRunnerWorld(t, writes("big.txt", strings.Repeat("x", runner.MaxChangeBytes)))
	out := apptest.RecRun[loopuc.ImplementRunResult](t, w.a, "implement_run", map[string]any{"spec": w.spec})
	assert.Check(t, is.Equal(out.Ended, loopuc.EndedHost), "%+v", out)
	story := apptest.RecRun[loopuc.ImplementRecordResult](t, w.a, "implement_record", map[string]any{"run": out.Run.Run})
	assert.Assert(t, len(story.Fallbacks) > 0)
	f := story.Fallbacks[0]
	assert.Check(t, is.Equal(string(f.Cause), "credential_in_change"))
	assert.Check(t, is.Contains(f.Detail, "larger than the 32 MiB abcd scans"))
	assert.Check(t, is.Contains(f.Detail, "what it did is kept nowhere"))
	assert.Check(t, is.Len(w.g.Messages, 0), "abcd committed nothing")
	for p := range w.rs.Files {
		assert.Check(t, !strings.HasSuffix(p, ".patch"), p)
	}
}

// A clean change is committed as before, once the scan read it.
func TestACleanChangeIsCommitted(t *testing.T) {
	w := newRunnerWorld(t, writes("DONE-1", "one"))
	out := apptest.RecRun[loopuc.ImplementRunResult](t, w.a, "implement_run", map[string]any{"spec": w.spec})
	lanes := len(out.Run.Lanes) - 1
	assert.Check(t, is.Len(w.g.Messages, lanes), "%+v", out)
	assert.Check(t, w.g.WorkChanges >= lanes, "each change was read before its commit")
	story := apptest.RecRun[loopuc.ImplementRecordResult](t, w.a, "implement_record", map[string]any{"run": out.Run.Run})
	assert.Check(t, is.Len(story.Implementations, lanes))
	assert.Check(t, is.Len(story.Fallbacks, 0))
}
