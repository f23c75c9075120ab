//go:build unix

package soak

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/layout"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const (
	soakIntent = "itd-2611300000000001"
	soakSpec   = "spc-2611300000000002"
	specFile   = ".abcd/development/specs/open/spc-2611300000000002-faster-cold-start.md"
)

// loopRepo is a repository with a planned intent and an open spec of one step per writer.
func loopRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"build":{"dod":"true"}}`)
	r.write(".abcd/development/intents/planned/itd-2611300000000001-faster-cold-start.md",
		"---\nid: "+soakIntent+"\ntype: intent\ntitle: \"Faster cold start\"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-11-30\n---\n\n"+
			"## Press Release\n\nabcd starts fast.\n\n## Acceptance Criteria\n\n- ac-1: Given a binary, when I run it, then it answers quickly.\n\n"+
			"## Open Questions\n\nNone.\n\n## Audit Notes\n\nNone yet.\n")
	var steps []string
	for i := range writers {
		steps = append(steps, fmt.Sprintf("%d. Part %d of the work.", i+1, i+1))
	}
	r.write(specFile, "---\nid: "+soakSpec+"\ntype: spec\ntitle: \"Faster cold start\"\nlifecycle: open\nimplements: "+soakIntent+
		"\ncreated: 2026-11-30\n---\n\n## Steps\n\n"+strings.Join(steps, "\n")+"\n")
	r.git(r.root, "add", "-A")
	r.git(r.root, "commit", "-q", "-m", "record")
	return r
}

type await struct {
	Lane   string `json:"lane"`
	Role   string `json:"role"`
	Kind   string `json:"kind"`
	Round  int    `json:"round"`
	Return string `json:"return"`
}

type lane struct {
	ID       string `json:"id"`
	Stage    string `json:"stage"`
	Branch   string `json:"branch"`
	Worktree string `json:"worktree"`
}

type runView struct {
	Run      string  `json:"run"`
	Finished bool    `json:"finished"`
	Lanes    []lane  `json:"lanes"`
	Awaits   []await `json:"awaits"`
}

func decode[T any](t *testing.T, v any) T {
	t.Helper()
	data, err := json.Marshal(v)
	assert.NilError(t, err)
	var out T
	assert.NilError(t, json.Unmarshal(data, &out))
	return out
}

// driver is one writer: it plays one lane's agents and files what it notices, as a sub-agent would,
// each step a process of its own.
type driver struct {
	r     *repo
	ty    *tally
	run   string
	lane  string
	filed *int
	mu    *sync.Mutex
}

// retry runs abcd until it does not exit 3 (tally checks that each exit 3 waited its wait).
func (d driver) retry(args ...string) result {
	for {
		res := d.r.run(args...)
		if d.ty.add(res) || res.code != 3 {
			return res
		}
	}
}

// view is the run as implement status shows it.
func (d driver) view() (runView, bool) {
	res := d.retry("implement", "status", "--run", d.run)
	if res.code != 0 {
		return runView{}, false
	}
	runs, _ := res.doc["runs"].([]any)
	if len(runs) != 1 {
		return runView{}, false
	}
	return decode[runView](d.r.t, runs[0]), true
}

func (d driver) awaitOf(role string) (await, lane, bool) {
	v, ok := d.view()
	if !ok {
		return await{}, lane{}, false
	}
	for _, a := range v.Awaits {
		if a.Lane == d.lane && a.Role == role {
			for _, l := range v.Lanes {
				if l.ID == d.lane {
					return a, l, true
				}
			}
		}
	}
	return await{}, lane{}, false
}

func (d driver) capture(what string) {
	if res := d.retry("capture", fmt.Sprintf("%s noticed %s in %s", d.lane, what, d.run)); res.code == 0 {
		d.mu.Lock()
		*d.filed++
		d.mu.Unlock()
	}
}

// drive implements the lane, hands the receipt in, then has both reviewers pass it, filing an issue
// between the steps.
func (d driver) drive() error {
	impl, ln, ok := d.awaitOf("implementer")
	if !ok {
		return fmt.Errorf("%s: no implementer await", d.lane)
	}
	file := fmt.Sprintf("%s-%s.txt", d.run, d.lane)
	if err := os.WriteFile(filepath.Join(ln.Worktree, file), []byte("work of "+d.lane+"\n"), 0o644); err != nil {
		return err
	}
	if _, err := d.r.gitErr(ln.Worktree, "add", file); err != nil {
		return err
	}
	if _, err := d.r.gitErr(ln.Worktree, "commit", "-q", "-m", d.lane); err != nil {
		return err
	}
	sha, err := d.r.gitErr(ln.Worktree, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	laneDir := d.r.path(layout.RunDir(d.run) + "/" + d.lane)
	for name, body := range map[string]string{"dod.txt": "all green\n", "report.md": "Did the step.\n"} {
		if err := os.WriteFile(filepath.Join(laneDir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	receipt, _ := json.Marshal(map[string]any{"schema_version": 1, "run": d.run, "lane": d.lane, "branch": ln.Branch, "commits": []string{sha},
		"dod": map[string]any{"command": "true", "exit_code": 0, "output": "dod.txt"}, "report": "report.md", "model": "soak-agent"})
	if err := os.WriteFile(impl.Return, receipt, 0o644); err != nil {
		return err
	}
	if res := d.retry("implement", "receipt", impl.Return); res.code != 0 {
		return fmt.Errorf("%s: implementer receipt: exit %d: %s", d.lane, res.code, res.raw)
	}
	d.capture("a slow test")
	for role, word := range map[string]string{"ruthless-reviewer": "SHIP", "security-reviewer": "APPROVE"} {
		a, _, ok := d.awaitOf(role)
		if !ok {
			return fmt.Errorf("%s: no %s await", d.lane, role)
		}
		if err := os.WriteFile(a.Return, []byte("# Review\n\nRead the diff.\n\n## Verdict\n\n"+word+"\n\nNo findings.\n"), 0o644); err != nil {
			return err
		}
		if res := d.retry("implement", "receipt", a.Return); res.code != 0 {
			return fmt.Errorf("%s: %s receipt: exit %d: %s", d.lane, role, res.code, res.raw)
		}
	}
	d.capture("a flaky build")
	return nil
}

// TestSoakRecordAndRun: eight writers drive one run at once, each playing one lane's implementer
// and reviewers (a process per step) and filing issues between steps, round after round. Nothing is
// lost: every lane of every run is done, the run's record counts every implementation and verdict,
// the spec's Progress has a line per lane, every issue filed is there with an id of its own, and
// nothing exits 3 unless it waited its whole wait.
func TestSoakRecordAndRun(t *testing.T) {
	if testing.Short() {
		t.Skip("the record and run campaign: without -short")
	}
	r := loopRepo(t)
	ty := &tally{wait: 3 * time.Second}
	var mu sync.Mutex
	filed := 0
	deadline := time.Now().Add(*soakFor)
	var runs []string
	for round := 0; ; round++ {
		start := r.ok("implement", "start", soakSpec)
		run := decode[runView](t, start["run"]).Run
		runs = append(runs, run)
		r.ok("implement", "step", "--run", run)
		errs := make(chan error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- driver{r: r, ty: ty, run: run, lane: fmt.Sprintf("lane-%d", i+1), filed: &filed, mu: &mu}.drive()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			assert.NilError(t, err)
		}
		// Every lane delivered: the auditor audits the integration, and the run is finished.
		d := driver{r: r, ty: ty, run: run, lane: "integration", filed: &filed, mu: &mu}
		audit, _, ok := d.awaitOf("intent-auditor")
		assert.Assert(t, ok, "round %d: no audit await: %+v", round, audit)
		body, _ := json.Marshal(map[string]any{"schema_version": 1, "intent": soakIntent, "summary": "Audited.",
			"verdicts": []map[string]any{{"criterion": "ac-1", "verdict": "MET", "evidence": "the soak shows it", "concerns": ""}}})
		assert.NilError(t, os.WriteFile(audit.Return, body, 0o644))
		last := decode[runView](t, r.ok("implement", "receipt", audit.Return)["run"])
		assert.Check(t, last.Finished, "round %d", round)
		for _, l := range last.Lanes {
			assert.Check(t, is.Equal(l.Stage, "done"), "round %d: %s", round, l.ID)
		}
		story := r.ok("implement", "record", "--run", run)
		assert.Check(t, is.Len(story["implementations"], writers), "round %d: an implementation lost", round)
		assert.Check(t, is.Len(story["verdicts"], 2*writers+1), "round %d: a verdict lost", round)
		if (*soakFor == 0) || time.Now().After(deadline) {
			break
		}
	}
	ty.check(t)
	spec, err := os.ReadFile(r.path(specFile))
	assert.NilError(t, err)
	for _, run := range runs {
		for i := range writers {
			want := fmt.Sprintf("delivered on `abcd/%s/lane-%d`", run, i+1)
			assert.Check(t, is.Equal(strings.Count(string(spec), want), 1), "the spec's Progress: %s", want)
		}
	}
	issues := r.issues()
	assert.Check(t, is.Len(issues, filed))
	ids := map[string]bool{}
	for _, id := range issues {
		assert.Check(t, !ids[id], "id %s twice", id)
		ids[id] = true
	}
	r.noStrays()
	t.Logf("%d runs of %d lanes driven by %d writers at once: %d processes, %d issues filed, %d exited 3 after their wait; the slowest process took %s",
		len(runs), writers, writers, ty.ran, filed, ty.busy, ty.longest)
}
