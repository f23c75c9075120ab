//go:build unix

package soak

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// killsFlag sets how many times each write path is killed.
var killsFlag = flag.Int("kills", 0, "kill each write path this many times (0: 8, or 1,000 with -soak)")

// keepFlag keeps a copy of each killed repository before the command runs again, for a failure's look.
var keepFlag = flag.Bool("keep", false, "keep what each kill left, for a failure's look")

// kills is how many times each write path is killed: a few in `make test`, which proves each path's
// campaign runs and holds its checks, and 1,000 under `make soak`, which is the measurement.
func kills() int {
	if *killsFlag > 0 {
		return *killsFlag
	}
	if *soakFor > 0 {
		return 1000
	}
	return 8
}

// crashPath is one write path of abcd: a repository to start from (made once, copied for each kill),
// the command, and what must hold once the same command has run again after the kill.
type crashPath struct {
	name string
	// setup makes the starting repository and returns the command.
	setup func(r *repo) []string
	// done says whether the change is whole before the command runs again: then running it again may
	// be refused with one of refusedWhenDone, which says it was done.
	done            func(r *repo) bool
	refusedWhenDone []string
	// check is what must hold after the command ran again.
	check func(t *testing.T, r *repo)
	// between, when set, is what must hold after the kill, before the command runs again.
	between func(t *testing.T, r *repo)
	// leftover, when set, names what a kill left for the command run again to clear, for the tally.
	leftover func(r *repo) []string
}

// worktreeLeftovers names what a kill left of git's worktrees: a prunable entry, a folder half
// removed, a folder git no longer lists, a lock git left.
func worktreeLeftovers(r *repo) []string {
	var out []string
	listed := r.git(r.root, "worktree", "list", "--porcelain")
	if strings.Contains(listed, "prunable") {
		out = append(out, "a prunable worktree entry")
	}
	folders, _ := filepath.Glob(r.path(layout.Lanes + "/*/*"))
	for _, f := range folders {
		if _, err := os.Stat(filepath.Join(f, ".git")); err != nil {
			out = append(out, "a half-removed worktree folder")
			break
		}
	}
	for _, f := range folders {
		if !strings.Contains(listed, "worktree "+f+"\n") {
			out = append(out, "a worktree folder git does not list")
			break
		}
	}
	for _, lock := range []string{".git/packed-refs.lock", ".git/index.lock"} {
		if r.exists(lock) {
			out = append(out, lock)
		}
	}
	if locks, _ := filepath.Glob(r.path(".git/refs/heads/abcd/*/*.lock")); len(locks) > 0 {
		out = append(out, "a branch's .lock")
	}
	return out
}

// TestKillNineOnEveryWritePath kills each command that changes more than one file at a random point
// (SIGKILL, uniformly over the time the command takes whole), then runs the same command again, and
// requires that it completes the change: the end is the one an uninterrupted command leaves, no note
// is written twice, every state decodes, lint is clean and no temporary file remains anywhere.
func TestKillNineOnEveryWritePath(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	for _, p := range crashPaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			tpl := newRepo(t)
			args := p.setup(tpl)
			took := tpl.timeWhole(t, args)
			var landed, left int
			leftovers := map[string]int{}
			for i := range kills() {
				r := tpl.clone(t)
				if r.killAtRandom(t, args, took) {
					landed++
				}
				if r.exists(layout.Journal) {
					left++
				}
				if p.leftover != nil {
					for _, what := range p.leftover(r) {
						leftovers[what]++
					}
				}
				wasDone := p.done(r)
				if p.between != nil {
					p.between(t, r)
				}
				var before string
				if *keepFlag {
					before, _ = os.MkdirTemp("", "abcd-crash-before-") //nolint:usetesting // kept past the test when it fails, for a look
					_ = exec.Command("cp", "-a", filepath.Dir(r.root)+"/.", before).Run()
				}
				again := r.run(args...)
				code, _ := again.refusal()
				if again.code != 0 && !(wasDone && again.code == 2 && slices.Contains(p.refusedWhenDone, code)) {
					t.Errorf("kill %d: run again: exit %d: %s", i, again.code, again.raw)
				}
				if !t.Failed() {
					p.check(t, r)
					r.whole(t)
				}
				if t.Failed() {
					// The repository is kept for a look: the test's temporary folder goes with it.
					kept, _ := os.MkdirTemp("", "abcd-crash-") //nolint:usetesting // kept past the test, for a look
					_ = exec.Command("cp", "-a", filepath.Dir(r.root)+"/.", kept).Run()
					t.Fatalf("kill %d of %s (after up to %s) left this; the repository is kept at %s (before the command ran again: %q)", i, strings.Join(args, " "), took, kept, before)
				}
				if before != "" {
					assert.Check(t, os.RemoveAll(before))
				}
				assert.Check(t, os.RemoveAll(filepath.Dir(r.root)))
			}
			t.Logf("%s: %d kills at random over the %s it takes: %d landed while it ran, %d of them after its journal was written; left for the command run again: %v",
				p.name, kills(), took.Round(time.Millisecond), landed, left, leftovers)
		})
	}
}

// killAtRandom starts abcd with args and kills it with SIGKILL at a random moment within took;
// landed says the kill came while it ran.
func (r *repo) killAtRandom(t *testing.T, args []string, took time.Duration) (landed bool) {
	t.Helper()
	cmd := exec.Command(binary, append(args, "--json")...)
	cmd.Dir, cmd.Env = r.root, r.env
	assert.NilError(t, cmd.Start())
	time.Sleep(time.Duration(rand.Int64N(int64(took) + 1)))
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// timeWhole is the shortest of three uninterrupted runs of the command, each on a copy: a kill later
// than the command takes lands after it is done.
func (r *repo) timeWhole(t *testing.T, args []string) time.Duration {
	took := time.Hour
	for range 3 {
		c := r.clone(t)
		res := c.run(args...)
		assert.Assert(t, res.code == 0, "abcd %s: exit %d: %s", strings.Join(args, " "), res.code, res.raw)
		took = min(took, res.took)
		assert.Check(t, os.RemoveAll(filepath.Dir(c.root)))
	}
	return took
}

// clone copies the repository and its home to a new folder and points git's worktrees at the copy.
func (r *repo) clone(t *testing.T) *repo {
	t.Helper()
	from := filepath.Dir(r.root)
	to, err := os.MkdirTemp(filepath.Dir(from), "kill-") //nolint:usetesting // removed after each kill: hundreds of clones would fill the disk before t.TempDir's cleanup
	assert.NilError(t, err)
	out, err := exec.Command("cp", "-a", from+"/.", to).CombinedOutput()
	assert.NilError(t, err, "%s", out)
	c := &repo{t: r.t, root: filepath.Join(to, "repo")}
	for _, e := range r.env {
		c.env = append(c.env, strings.ReplaceAll(e, from, to))
	}
	// The copy's worktrees and git's entries for them name the original's folders: point each at
	// the copy's (git worktree repair, run in the copy, would follow them to the original's).
	links, _ := filepath.Glob(filepath.Join(c.root, ".git/worktrees/*/gitdir"))
	wts, _ := filepath.Glob(filepath.Join(c.root, layout.Lanes+"/*/*/.git"))
	for _, p := range append(links, wts...) {
		if data, err := os.ReadFile(p); err == nil {
			assert.NilError(t, os.WriteFile(p, []byte(strings.ReplaceAll(string(data), from, to)), 0o644))
		}
	}
	return c
}

func (r *repo) exists(rel string) bool {
	_, err := os.Lstat(r.path(rel))
	return err == nil
}

func (r *repo) read(rel string) string {
	r.t.Helper()
	data, err := os.ReadFile(r.path(rel))
	assert.NilError(r.t, err)
	return string(data)
}

// files lists the files of a record folder.
func (r *repo) files(rel string) []string {
	entries, err := os.ReadDir(r.path(rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		panic(fmt.Sprintf("reading %s: %v", rel, err)) // a folder the campaign cannot read is the test's fault, not abcd's
	}
	var out []string
	for _, e := range entries {
		if e.Name() != record.KeepFile {
			out = append(out, e.Name())
		}
	}
	return out
}

// whole is what every path must leave: no journal, no temporary file anywhere, every run's state
// read back by implement status, no run folder without a state, and no error for lint.
func (r *repo) whole(t *testing.T) {
	t.Helper()
	assert.Check(t, !r.exists(layout.Journal), "a journal is left")
	_ = filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".abcd-tmp-") {
			rel, _ := filepath.Rel(r.root, p)
			t.Errorf("a temporary file is left: %s", rel)
		}
		return nil
	})
	for _, run := range r.files(layout.Runs) {
		assert.Check(t, r.exists(layout.RunDir(run)+"/state.json"), "%s has no state", run)
	}
	if status := r.run("implement", "status"); len(r.files(layout.Runs)) > 0 {
		assert.Check(t, status.code == 0, "implement status: exit %d: %s", status.code, status.raw)
	}
	lint := r.run("lint")
	assert.Check(t, is.Equal(lint.doc["errors"], float64(0)), "%s", lint.raw)
	assert.Check(t, !strings.Contains(string(lint.raw), "stray_temp"), "%s", lint.raw)
	r.onlyLiveWorktrees(t)
}

// onlyLiveWorktrees is what git must hold of worktrees: the main checkout and the worktree of each
// lane a run still works in, each whole where the run's state says; nothing prunable, no folder
// in the lanes' folder that git does not list.
func (r *repo) onlyLiveWorktrees(t *testing.T) {
	t.Helper()
	live := map[string]bool{}
	if res := r.run("implement", "status"); res.code == 0 {
		for _, rv := range decode[[]runView](t, res.doc["runs"]) {
			for _, l := range rv.Lanes {
				if l.Worktree != "" {
					assert.Check(t, !rv.Finished, "%s is finished yet keeps %s's worktree", rv.Run, l.ID)
					live[l.Worktree] = true
				}
			}
		}
	}
	listed := r.git(r.root, "worktree", "list", "--porcelain")
	assert.Check(t, !strings.Contains(listed, "prunable"), "git lists a prunable worktree:\n%s", listed)
	seen := 0
	for _, block := range strings.Split(listed, "\n\n") {
		path, _ := strings.CutPrefix(strings.SplitN(block, "\n", 2)[0], "worktree ")
		if path == r.root || path == "" {
			continue
		}
		seen++
		assert.Check(t, live[path], "git lists a worktree no live lane has: %s", path)
		_, err := os.Stat(filepath.Join(path, ".git"))
		assert.Check(t, err == nil, "%s is listed but not whole", path)
	}
	assert.Check(t, is.Equal(seen, len(live)), "every live lane's worktree is listed")
	folders, _ := filepath.Glob(r.path(layout.Lanes + "/*/*"))
	for _, f := range folders {
		assert.Check(t, live[f], "a worktree folder no live lane has: %s", f)
	}
}

const (
	crashIntentFile = ".abcd/development/intents/planned/itd-2611300000000001-faster-cold-start.md"
	crashSpecFile   = ".abcd/development/specs/open/spc-2611300000000002-faster-cold-start.md"
)

// intentText is a planned intent with its press release and a criterion written.
const intentText = "---\nid: itd-2611300000000001\ntype: intent\ntitle: \"Faster cold start\"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-11-30\n---\n\n" +
	"## Press Release\n\nabcd starts fast.\n\n## Acceptance Criteria\n\n- ac-1: Given a binary, when I run it, then it answers quickly.\n\n" +
	"## Open Questions\n\nNone.\n\n## Audit Notes\n\nNone yet.\n"

// plannedRepo holds a planned intent with a criterion and a spec of the given steps, committed, and
// some files for a worktree to check out.
func plannedRepo(r *repo, steps ...string) {
	r.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"build":{"dod":"true"}}`)
	r.write(crashIntentFile, intentText)
	r.write(crashSpecFile, "---\nid: spc-2611300000000002\ntype: spec\ntitle: \"Faster cold start\"\nlifecycle: open\nimplements: itd-2611300000000001"+
		"\ncreated: 2026-11-30\n---\n\n## Steps\n\n"+strings.Join(steps, "\n")+"\n\n## Progress\n\n")
	for i := range 40 {
		r.write(fmt.Sprintf("src/file%02d.go", i), strings.Repeat("package src\n", 200))
	}
	r.git(r.root, "add", "-A")
	r.git(r.root, "commit", "-q", "-m", "record")
}

func runOf(r *repo, doc map[string]any) runView {
	return decode[runView](r.t, doc["run"])
}

// awaitFor is the open await of role, its return path relative to the repository (a copy of the
// repository has its own absolute paths).
func awaitFor(v runView, role string) await {
	for _, a := range v.Awaits {
		if a.Role == role {
			if i := strings.Index(a.Return, layout.Local+"/"); i > 0 {
				a.Return = a.Return[i:]
			}
			return a
		}
	}
	return await{}
}

// theRun is the one run in the repository, as implement status shows it.
func (r *repo) theRun() runView {
	r.t.Helper()
	runs, _ := r.ok("implement", "status")["runs"].([]any)
	assert.Assert(r.t, is.Len(runs, 1))
	return decode[runView](r.t, runs[0])
}

// implemented commits the lane's work in its worktree and writes the implementer's receipt.
func (r *repo) implemented(v runView, laneID string) {
	r.t.Helper()
	var ln lane
	for _, l := range v.Lanes {
		if l.ID == laneID {
			ln = l
		}
	}
	impl := awaitFor(v, "implementer")
	r.write(filepath.Join(ln.Worktree, "work.txt"), "the work\n")
	r.git(ln.Worktree, "add", "work.txt")
	r.git(ln.Worktree, "commit", "-q", "-m", "the work")
	sha := r.git(ln.Worktree, "rev-parse", "HEAD")
	laneDir := layout.RunDir(v.Run) + "/" + laneID
	r.write(laneDir+"/dod.txt", "all green\n")
	r.write(laneDir+"/report.md", "Did the step.\n")
	receipt, _ := json.Marshal(map[string]any{"schema_version": 1, "run": v.Run, "lane": laneID, "branch": ln.Branch, "commits": []string{sha},
		"dod": map[string]any{"command": "true", "exit_code": 0, "output": "dod.txt"}, "report": "report.md", "model": "crash-agent"})
	r.write(impl.Return, string(receipt))
}

func review(word string) string {
	return "# Review\n\nRead the diff.\n\n## Verdict\n\n" + word + "\n\nNo findings.\n"
}

func auditReturn() string {
	body, _ := json.Marshal(map[string]any{"schema_version": 1, "intent": "itd-2611300000000001", "summary": "Audited.",
		"verdicts": []map[string]any{{"criterion": "ac-1", "verdict": "MET", "evidence": "the crash test shows it", "concerns": ""}}})
	return string(body)
}

var crashPaths = []crashPath{
	{
		name: "issue_close",
		setup: func(r *repo) []string {
			id := r.ok("capture", "The status line flickers")["record"].(map[string]any)["id"].(string)
			return []string{"issue", "close", id, "--why", "Fixed in the renderer."}
		},
		done:            func(r *repo) bool { return len(r.files(".abcd/work/issues/closed")) == 1 },
		refusedWhenDone: []string{"transition_refused"},
		check: func(t *testing.T, r *repo) {
			assert.Check(t, is.Len(r.files(".abcd/work/issues/open"), 0))
			closed := r.files(".abcd/work/issues/closed")
			assert.Assert(t, is.Len(closed, 1))
			body := r.read(".abcd/work/issues/closed/" + closed[0])
			assert.Check(t, is.Contains(body, "lifecycle: closed"))
			assert.Check(t, is.Equal(strings.Count(body, "Fixed in the renderer."), 1), "the reason is kept once: %s", body)
		},
	},
	{
		name: "intent_plan",
		setup: func(r *repo) []string {
			r.write(".abcd/development/intents/drafts/itd-2611300000000001-faster-cold-start.md", strings.Replace(intentText, "lifecycle: planned", "lifecycle: drafts", 1))
			return []string{"intent", "plan", "itd-2611300000000001"}
		},
		done:            func(r *repo) bool { return len(r.files(".abcd/development/intents/planned")) == 1 },
		refusedWhenDone: []string{"transition_refused"},
		check: func(t *testing.T, r *repo) {
			assert.Check(t, is.Len(r.files(".abcd/development/intents/drafts"), 0))
			assert.Check(t, is.Len(r.files(".abcd/development/intents/planned"), 1))
			assert.Check(t, is.Len(r.files(".abcd/development/specs/open"), 1), "one spec, never none or two")
		},
	},
	{
		name: "implement_start",
		setup: func(r *repo) []string {
			plannedRepo(r, "1. Make config loading lazy.", "2. Build the binary static.", "3. (after 1, 2) Measure it.")
			return []string{"implement", "start", "spc-2611300000000002"}
		},
		done: func(r *repo) bool {
			return len(r.files(layout.Runs)) == 1 && r.exists(layout.RunDir(r.files(layout.Runs)[0])+"/state.json")
		},
		refusedWhenDone: []string{"run_active"},
		check: func(t *testing.T, r *repo) {
			v := r.theRun()
			assert.Check(t, is.Len(v.Lanes, 4), "three steps and the integration")
		},
	},
	{
		name: "implement_step",
		setup: func(r *repo) []string {
			plannedRepo(r, "1. Make config loading lazy.", "2. Build the binary static.", "3. (after 1, 2) Measure it.")
			run := runOf(r, r.ok("implement", "start", "spc-2611300000000002")).Run
			return []string{"implement", "step", "--run", run}
		},
		done: func(r *repo) bool { return false }, // a step run again after it finished says "nothing new" and exits 0
		check: func(t *testing.T, r *repo) {
			v := r.theRun()
			base := r.git(r.root, "rev-parse", "HEAD")
			started := 0
			for _, l := range v.Lanes {
				if l.Worktree == "" {
					continue
				}
				started++
				assert.Check(t, is.Equal(r.git(l.Worktree, "rev-parse", "HEAD"), base), "%s starts at the base", l.ID)
				assert.Check(t, is.Equal(r.git(l.Worktree, "status", "--porcelain"), ""), "%s's worktree is whole", l.ID)
				assert.Check(t, is.Equal(r.git(l.Worktree, "rev-parse", "--abbrev-ref", "HEAD"), l.Branch))
			}
			assert.Check(t, is.Equal(started, 2), "the two lanes that build on nothing start")
			assert.Check(t, is.Len(v.Awaits, 2), "one implementer await each")
			listed := r.git(r.root, "worktree", "list", "--porcelain")
			assert.Check(t, is.Equal(strings.Count(listed, "worktree "), 3), "the checkout and the two lanes' worktrees: %s", listed)
		},
	},
	{
		name: "receipt_delivers_and_integrates",
		setup: func(r *repo) []string {
			plannedRepo(r, "1. Make config loading lazy.")
			run := runOf(r, r.ok("implement", "start", "spc-2611300000000002")).Run
			v := runOf(r, r.ok("implement", "step", "--run", run))
			r.implemented(v, "lane-1")
			v = runOf(r, r.ok("implement", "receipt", awaitFor(v, "implementer").Return))
			ruthless := awaitFor(v, "ruthless-reviewer")
			r.write(ruthless.Return, review("SHIP"))
			v = runOf(r, r.ok("implement", "receipt", ruthless.Return))
			security := awaitFor(v, "security-reviewer")
			r.write(security.Return, review("APPROVE"))
			return []string{"implement", "receipt", security.Return}
		},
		done:            func(r *repo) bool { return strings.Contains(r.read(crashSpecFile), "step 1 (") },
		refusedWhenDone: []string{"receipt_recorded"},
		check: func(t *testing.T, r *repo) {
			spec := r.read(crashSpecFile)
			assert.Check(t, is.Equal(strings.Count(spec, "step 1 ("), 1), "the lane's Progress line, once: %s", spec)
			v := r.theRun()
			for _, l := range v.Lanes {
				assert.Check(t, is.Equal(l.Stage, map[bool]string{true: "validate", false: "done"}[l.ID == "integration"]), l.ID)
				if l.ID == "integration" {
					assert.Check(t, l.Worktree != "")
					assert.Check(t, is.Equal(r.git(l.Worktree, "status", "--porcelain"), ""), "the integration's worktree is whole")
					assert.Check(t, is.Contains(r.git(l.Worktree, "log", "--format=%s", "-1"), "integrate lane-1"))
				}
			}
			if awaitFor(v, "intent-auditor").Return == "" {
				// Killed after the receipt was recorded but before abcd ran the definition of done on
				// the integration (outside the run's lock): the run waits for that check, and the step
				// every next line names runs it.
				v = runOf(r, r.ok("implement", "step", "--run", v.Run))
			}
			assert.Check(t, awaitFor(v, "intent-auditor").Return != "", "the auditor is asked next")
		},
	},
	{
		name: "abandon_delete_branches",
		setup: func(r *repo) []string {
			plannedRepo(r, "1. Make config loading lazy.", "2. Build the binary static.", "3. (after 1, 2) Measure it.")
			run := runOf(r, r.ok("implement", "start", "spc-2611300000000002")).Run
			v := runOf(r, r.ok("implement", "step", "--run", run))
			r.implemented(v, "lane-1")
			r.ok("implement", "receipt", awaitFor(v, "implementer").Return)
			r.git(r.root, "pack-refs", "--all") // the branches are packed: deleting them rewrites packed-refs
			return []string{"implement", "abandon", "--run", run, "--delete-branches"}
		},
		done:     func(r *repo) bool { return false }, // abandon run again on an abandoned run is whole and exits 0
		leftover: func(r *repo) []string { return append(worktreeLeftovers(r), abandonLeftovers(r)...) },
		between: func(t *testing.T, r *repo) {
			// Until abandon is run again, a step points no agent at a worktree that is gone.
			res := r.run("implement", "step", "--run", r.files(layout.Runs)[0])
			if res.code != 0 {
				return // refused (the run is over, or its lock contended): it points at nothing
			}
			for _, a := range runOf(r, res.doc).Awaits {
				if a.Role == "implementer" {
					for _, l := range runOf(r, res.doc).Lanes {
						if l.ID == a.Lane {
							_, err := os.Stat(filepath.Join(l.Worktree, ".git"))
							assert.Check(t, err == nil, "a step points %s's implementer at %s, which is not whole", l.ID, l.Worktree)
						}
					}
				}
			}
		},
		check: func(t *testing.T, r *repo) {
			v := r.theRun()
			assert.Check(t, v.Finished, "the run is abandoned")
			assert.Check(t, is.Len(v.Awaits, 0))
			assert.Check(t, is.Equal(r.git(r.root, "branch", "--list", "abcd/*"), ""), "every branch of the run is deleted")
			assert.Check(t, !r.exists(".git/packed-refs.lock"), "no lock git left")
		},
	},
	{
		name: "finishing_receipt",
		setup: func(r *repo) []string {
			plannedRepo(r, "1. Make config loading lazy.", "2. Build the binary static.")
			run := runOf(r, r.ok("implement", "start", "spc-2611300000000002")).Run
			v := runOf(r, r.ok("implement", "step", "--run", run))
			for _, id := range []string{"lane-1", "lane-2"} {
				r.implemented(v, id)
				var ret string
				for _, a := range v.Awaits {
					if a.Lane == id && a.Role == "implementer" {
						ret = r.local(a.Return)
					}
				}
				v = runOf(r, r.ok("implement", "receipt", ret))
			}
			for _, role := range []string{"ruthless-reviewer", "security-reviewer"} {
				for _, a := range v.Awaits {
					if a.Role == role {
						ret := r.local(a.Return)
						r.write(ret, review(map[string]string{"ruthless-reviewer": "SHIP", "security-reviewer": "APPROVE"}[role]))
						r.ok("implement", "receipt", ret)
					}
				}
			}
			auditor := awaitFor(r.theRun(), "intent-auditor")
			assert.Assert(r.t, auditor.Return != "", "the integration's audit is open")
			r.write(auditor.Return, auditReturn())
			return []string{"implement", "receipt", auditor.Return}
		},
		done:            func(r *repo) bool { return strings.Contains(r.read(crashIntentFile), "### Audit ") },
		refusedWhenDone: []string{"receipt_recorded"},
		leftover:        worktreeLeftovers,
		check: func(t *testing.T, r *repo) {
			v := r.theRun()
			assert.Check(t, v.Finished)
			intent := r.read(crashIntentFile)
			assert.Check(t, is.Equal(strings.Count(intent, "### Audit "), 1), "the Audit Notes, once: %s", intent)
			for _, l := range v.Lanes {
				assert.Check(t, is.Equal(l.Worktree, ""), "%s's worktree is cleared", l.ID)
			}
			// The integration branch can be checked out: no worktree holds it.
			out, err := r.gitErr(r.root, "worktree", "add", "-q", filepath.Join(filepath.Dir(r.root), "check-out"), "abcd/"+v.Run+"/integration")
			assert.Check(t, err == nil, "%s", out)
			if err == nil {
				r.git(r.root, "worktree", "remove", filepath.Join(filepath.Dir(r.root), "check-out"))
			}
		},
	},
	{
		name: "audit_receipt",
		setup: func(r *repo) []string {
			plannedRepo(r)
			r.write("src/new.go", "package src\n")
			r.git(r.root, "add", "-A")
			r.git(r.root, "commit", "-q", "-m", "the change")
			v := runOf(r, r.ok("intent", "audit", "itd-2611300000000001", "--base", "HEAD~1"))
			auditor := awaitFor(v, "intent-auditor")
			r.write(auditor.Return, auditReturn())
			return []string{"implement", "receipt", auditor.Return}
		},
		done:            func(r *repo) bool { return strings.Contains(r.read(crashIntentFile), "### Audit ") },
		refusedWhenDone: []string{"receipt_recorded"},
		check: func(t *testing.T, r *repo) {
			intent := r.read(crashIntentFile)
			assert.Check(t, is.Equal(strings.Count(intent, "### Audit "), 1), "the Audit Notes, once: %s", intent)
			v := r.theRun()
			assert.Check(t, v.Finished)
			story := r.ok("implement", "record", "--run", v.Run)
			assert.Check(t, is.Len(story["verdicts"], 1))
		},
	},
	{
		name: "review",
		setup: func(r *repo) []string {
			r.git(r.root, "checkout", "-q", "-b", "feature")
			r.write("feature.txt", "a feature\n")
			r.git(r.root, "add", "feature.txt")
			r.git(r.root, "commit", "-q", "-m", "feature")
			return []string{"review", "--base", "main"}
		},
		done: func(r *repo) bool { return false }, // run again, it goes on with its run and exits 0
		check: func(t *testing.T, r *repo) {
			v := r.theRun()
			assert.Check(t, is.Len(v.Awaits, 2), "both reviews are open, once")
		},
	},
	{
		name: "intent_audit",
		setup: func(r *repo) []string {
			plannedRepo(r)
			r.write("src/new.go", "package src\n")
			r.git(r.root, "add", "-A")
			r.git(r.root, "commit", "-q", "-m", "the change")
			return []string{"intent", "audit", "itd-2611300000000001", "--base", "HEAD~1"}
		},
		done: func(r *repo) bool { return false },
		check: func(t *testing.T, r *repo) {
			v := r.theRun()
			assert.Check(t, is.Len(v.Awaits, 1), "the auditor is asked, once")
		},
	},
	{
		name: "ahoy_install",
		setup: func(r *repo) []string {
			// newRepo installed; the path starts from before that.
			assert.NilError(r.t, os.RemoveAll(r.path(".abcd")))
			r.git(r.root, "clean", "-fdxq")
			return []string{"ahoy", "install", "--yes"}
		},
		done: func(r *repo) bool { return false }, // install run again is whole and exits 0
		leftover: func(r *repo) []string {
			var out []string
			if r.exists(".abcd") && !r.exists(".abcd/config.json") {
				out = append(out, "a record whose config was never written")
			}
			if r.exists(".abcd") && !r.exists(".abcd/.gitignore") {
				out = append(out, "no .abcd/.gitignore")
			}
			for _, line := range strings.Split(r.git(r.root, "status", "--porcelain", "--untracked-files=all"), "\n") {
				if strings.Contains(line, ".abcd-tmp-") {
					out = append(out, "a temporary file git sees in "+filepath.Dir(strings.TrimPrefix(line, "?? ")))
				}
			}
			return out
		},
		between: func(t *testing.T, r *repo) {
			// Until install is run again, a capture is refused with the install as its remedy, or, the
			// install being whole, written; lint says the same.
			whole := r.exists(".abcd/config.json") && r.exists(".abcd/.gitignore")
			res := r.run("capture", "Noticed while the install was killed")
			code, _ := res.refusal()
			if whole && res.code == 0 {
				issues := r.files(".abcd/work/issues/open")
				assert.Check(t, is.Len(issues, 1))
				for _, f := range issues {
					assert.NilError(t, os.Remove(r.path(".abcd/work/issues/open/"+f)))
				}
			} else {
				assert.Check(t, res.code == 2 && (code == "not_initialized" || code == "install_incomplete"), "a capture into a half-installed repository: exit %d: %s", res.code, res.raw)
				assert.Check(t, is.Contains(string(res.raw), "abcd ahoy install"), "its remedy is the install: %s", res.raw)
			}
			if !r.exists(".abcd") {
				return
			}
			if whole {
				return
			}
			lint := r.run("lint")
			assert.Check(t, is.Contains(string(lint.raw), "install_incomplete"), "%s", lint.raw)
			for _, f := range decode[[]map[string]any](t, lint.doc["findings"]) {
				if f["level"] == "error" {
					assert.Check(t, is.Contains(f["remedy"].(string), "abcd ahoy install"), "lint's remedy for %v", f)
				}
			}
		},
		check: func(t *testing.T, r *repo) {
			installed.once.Do(func() {
				c := newRepo(t)
				installed.files = c.installFiles()
			})
			assert.Check(t, is.DeepEqual(r.installFiles(), installed.files), "the install is whole")
		},
	},
}

// abandonLeftovers names how far a killed abandon got: the run over with some branches left.
func abandonLeftovers(r *repo) []string {
	var out []string
	branches := r.git(r.root, "branch", "--list", "abcd/*")
	if strings.Contains(r.read(layout.RunDir(r.files(layout.Runs)[0])+"/state.json"), `"stage":"handed-back"`) && branches != "" {
		out = append(out, "the run abandoned, some branches not yet deleted")
	}
	return out
}

// installed is what an uninterrupted install writes, read once.
var installed struct {
	once  sync.Once
	files map[string]string
}

// installFiles is every file the install may write, with its mode and content.
func (r *repo) installFiles() map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.root, p)
		if d.IsDir() && (rel == ".git" || rel == filepath.FromSlash(layout.Local)) {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		entry := info.Mode().String()
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			entry += " " + string(data)
		}
		out[filepath.ToSlash(rel)] = entry
		return nil
	})
	return out
}

// TestKillNineDuringAnswerPlacement kills `abcd review` with reviews routed to RepoPrompt (a stand-in
// on the official MCP TypeScript SDK, started once) at random moments: while the routes are called,
// while their answers are placed. Then the next command that steps the run finishes what the kill
// left. Every state decodes; no return path ever holds part of an answer, and every verdict recorded
// as rp's stands on exactly the bytes whose digest it recorded; no journal or temporary file is left.
func TestKillNineDuringAnswerPlacement(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	url := rpStandIn(t)
	tpl := newRepo(t)
	tpl.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"oracle":{"review":"rp"}}`)
	tpl.write(filepath.Join(filepath.Dir(tpl.root), "home", "config.json"), `{"schema_version":1,"oracle":{"rp":{"url":"`+url+`"}}}`)
	assert.NilError(t, os.Chmod(filepath.Join(filepath.Dir(tpl.root), "home", "config.json"), 0o600))
	tpl.git(tpl.root, "add", "-A")
	tpl.git(tpl.root, "commit", "-q", "-m", "abcd")
	tpl.git(tpl.root, "checkout", "-q", "-b", "feature")
	tpl.write("feature.txt", "a feature\n")
	tpl.git(tpl.root, "add", "feature.txt")
	tpl.git(tpl.root, "commit", "-q", "-m", "feature")
	args := []string{"review", "--base", "main"}
	took := tpl.timeWhole(t, args)
	var landed, placed, none int
	for i := range kills() {
		r := tpl.clone(t)
		if r.killAtRandom(t, args, took) {
			landed++
		}
		if len(r.files(layout.Runs)) == 0 {
			none++
		}
		// The same command again: it removes a run a kill left with no state, and reviews anew.
		again := r.run(args...)
		assert.Check(t, again.code == 0, "kill %d: run again: exit %d: %s", i, again.code, again.raw)
		runs := r.files(layout.Runs)
		for _, run := range runs {
			next := r.run("implement", "step", "--run", run)
			assert.Check(t, next.code == 0, "kill %d: implement step: exit %d: %s", i, next.code, next.raw)
			story := r.run("implement", "record", "--run", run)
			assert.Assert(t, story.code == 0, "kill %d: implement record: exit %d: %s", i, story.code, story.raw)
			verdicts, _ := story.doc["verdicts"].([]any)
			for _, v := range verdicts {
				v := v.(map[string]any)
				if v["ran"] != "rp" {
					continue
				}
				placed++
				ret := v["return"].(string)
				if j := strings.Index(ret, layout.Local+"/"); j > 0 {
					ret = ret[j:]
				}
				body := r.read(ret)
				assert.Check(t, is.Contains(body, "## Verdict"), "kill %d: %s holds a whole answer", i, ret)
				assert.Check(t, is.Equal(fmt.Sprintf("%x", sha256.Sum256([]byte(body))), v["sha256"]), "kill %d: %s is the answer recorded", i, ret)
			}
			view := runOf(r, r.ok("implement", "status", "--run", run))
			for _, a := range view.Awaits {
				if rel := r.local(a.Return); r.exists(rel) {
					t.Errorf("kill %d: an open await's return path holds something nobody recorded: %s", i, r.read(rel))
				}
			}
		}
		r.whole(t)
		if t.Failed() {
			t.Fatalf("kill %d of abcd review (after up to %s) left this", i, took)
		}
		assert.Check(t, os.RemoveAll(filepath.Dir(r.root)))
	}
	t.Logf("abcd review to RepoPrompt: %d kills at random over the %s it takes: %d landed while it ran; %d answers stood placed and recorded as rp's afterwards, each whole and the bytes its digest names; %d kills came before the run existed",
		kills(), took.Round(time.Millisecond), landed, placed, none)
}

// rpStandIn starts the RepoPrompt stand-in (tools/mcp/rp/standin.mjs) for the test and returns its URL.
func rpStandIn(t *testing.T) string { return rpStandInMode(t, "sse") }

// rpStandInMode starts the stand-in in one of its modes, with env added to its environment.
func rpStandInMode(t *testing.T, mode string, env ...string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the RepoPrompt stand-in needs it (make test has it)")
	}
	tools, err := filepath.Abs("..")
	assert.NilError(t, err)
	if _, err := os.Stat(filepath.Join(tools, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("tools/node_modules has no @modelcontextprotocol/sdk: run make tools-deps (make test does)")
	}
	cmd := exec.Command(node, filepath.Join(tools, "mcp", "rp", "standin.mjs"), mode)
	cmd.Dir, cmd.Stderr, cmd.Env = tools, os.Stderr, append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	assert.NilError(t, err)
	var ready struct{ URL string }
	assert.NilError(t, json.Unmarshal([]byte(line), &ready), line)
	return ready.URL
}

// local is the part of an await's return path from the local state's folder on: the path relative
// to the repository.
func (r *repo) local(path string) string {
	r.t.Helper()
	i := strings.Index(path, layout.Local+"/")
	if i < 0 {
		r.t.Fatalf("the return path %s is not under %s", path, layout.Local)
	}
	return path[i:]
}
