//go:build unix

package soak

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/runner"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The kill -9 campaigns on `abcd implement run` with every step on a runner: the implementer on one
// (cc), the reviewers and the auditor on another (rv), both the fake Claude Code (this test binary,
// started again by abcd). The spec has two lanes that build on nothing, and the ruthless reviewer
// asks for a fix once on each, so abcd commits a runner's work four times a run (each lane's step
// and its fix round), then integrates both lanes and has the integration audited.

const (
	// runnerWorks is how long the fake implementer works on lane 1 before it answers (on lane 2, three
	// times that: two lanes in step would have each commit land while the other lane's work waits
	// for its own), and runnerReads how long a fake reviewer or auditor reads: long enough for a kill
	// at random to land in them often.
	runnerWorks = 150 * time.Millisecond
	runnerReads = 60 * time.Millisecond
	runSpec     = "spc-2611300000000002"
)

// The fake implementer tells the test each call it takes (its round, the lane's branch, the head it
// started from and the repository's git folder) over a connection to the test's listener: inside
// abcd's sandbox it can write nothing but the lane's worktree, which a finished run removes, and reach
// nothing but its runner's endpoints, which name the listener.
var (
	callsOnce sync.Once
	callsAddr string
	callsMu   sync.Mutex
	callsSaid []string
)

// callListener starts the listener the fake implementers tell their calls to, once for the test
// binary, and says where it listens.
func callListener(t *testing.T) string {
	callsOnce.Do(func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		assert.NilError(t, err)
		callsAddr = l.Addr().String()
		go func() {
			for {
				conn, err := l.Accept()
				if err != nil {
					return // the test binary is ending
				}
				go func() {
					defer conn.Close()
					data, err := io.ReadAll(io.LimitReader(conn, 4<<10))
					callsMu.Lock()
					defer callsMu.Unlock()
					if err != nil {
						data = []byte("unread: " + err.Error())
					}
					callsSaid = append(callsSaid, strings.TrimSpace(string(data)))
				}()
			}
		}()
	})
	return callsAddr
}

// runnerRunRepo is a repository with a planned intent and a spec of two lanes, and a machine whose
// runners take every role.
func runnerRunRepo(t *testing.T) *repo {
	tpl := newRepo(t)
	plannedRepo(tpl, "1. Part one of the work.", "2. Part two of the work.")
	tpl.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"build":{"dod":"test -f DONE-1 || test -f DONE-2"}}`)
	tpl.git(tpl.root, "commit", "-q", "-am", "the definition of done")
	dir := filepath.Dir(tpl.root)
	exe, err := os.Executable()
	assert.NilError(t, err)
	addr := callListener(t)
	block := func(concurrency int) map[string]any {
		return map[string]any{"cli": "claude", "executable": exe, "version": "2.1.332", "endpoints": []string{"http://" + addr},
			"credential_env": []string{"ANTHROPIC_API_KEY"}, "pass_env": []string{runnertest.ScriptVar, "FAKE_CLI_HELP"}, "concurrency": concurrency,
			"limits": map[string]any{"wall_clock_s": 60, "first_event_s": 30, "silence_s": 30}}
	}
	roles := map[string]any{"implementer": map[string]any{"runner": "cc"}}
	for _, r := range []string{"ruthless-reviewer", "security-reviewer", "intent-auditor"} {
		roles[r] = map[string]any{"runner": "rv"}
	}
	machine, err := json.Marshal(map[string]any{"schema_version": 1, "oracle": map[string]any{
		"runner": map[string]any{"cc": block(2), "rv": block(4)}, "roles": roles}})
	assert.NilError(t, err)
	tpl.write(filepath.Join(dir, "home", "config.json"), string(machine))
	assert.NilError(t, os.Chmod(filepath.Join(dir, "home", "config.json"), 0o600))
	help := "Usage: claude [options]\n  " + strings.Join(claude.Dialect{}.Flags(), " <x>\n  ")
	// The script goes inline: the fake inside the sandbox cannot read the test's folder under /tmp.
	tpl.env = append(tpl.env, runnertest.ScriptVar+"="+runnertest.InlinePrefix+runnerScript(t, addr), "FAKE_CLI_HELP="+help,
		"ANTHROPIC_API_KEY=sk-ant-soak-0123456789")
	return tpl
}

// runnerScript is the fake's script: every role does its part, the ruthless reviewer asking for a
// fix once on each lane.
func runnerScript(t *testing.T, tellTo string) string {
	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	result := func(final string, structured any) string {
		ev := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": final, "num_turns": 2,
			"total_cost_usd": 0.01, "usage": map[string]any{"input_tokens": 100, "output_tokens": 20}, "permission_denials": []any{},
			"terminal_reason": "completed", "api_error_status": nil, "session_id": "sess-1"}
		if structured != nil {
			ev["structured_output"] = structured
		}
		b, err := json.Marshal(ev)
		assert.NilError(t, err)
		return string(b)
	}
	note := func(round string) []string {
		return []string{"sh", "-c", `echo "` + round + ` $(git symbolic-ref --short HEAD) $(git rev-parse HEAD) $(git rev-parse --path-format=absolute --git-common-dir)"`}
	}
	ship := result("", map[string]any{"summary": "Read the fix.", "verdict": "SHIP", "findings": []any{}})
	fixFirst := result("", map[string]any{"summary": "Read the change.", "verdict": "FIX FIRST", "findings": []any{
		map[string]any{"title": "Name the constant", "location": "DONE-1:1", "severity": "major", "what": "the part's file holds a bare word", "fix": "write FIX next to it"}}})
	var script strings.Builder
	for _, d := range []runnertest.Directive{
		{SessionStart: "claude"},
		{Out: `{"type":"system","subtype":"init","cwd":"/w","session_id":"sess-1","tools":["Read","Edit","Bash"],"model":"claude-x","permissionMode":"dontAsk","claude_code_version":"2.1.332"}`},
		// The implementer: each call noted; it works, then writes the round's work in the lane's
		// worktree (a kill while it works leaves the worktree as the lane left it, and the step goes
		// to the runner again; one after it wrote, before abcd's commit, leaves the work uncommitted,
		// and the step stays the host's).
		{When: []string{impl, "# Implement: "}, Run: note("round-0"), Tell: tellTo},
		{When: []string{impl, "# Fix round 1: "}, Run: note("round-1"), Tell: tellTo},
		{When: []string{impl, ", lane-1 ("}, SleepMS: int(runnerWorks.Milliseconds())},
		{When: []string{impl, ", lane-2 ("}, SleepMS: int(3 * runnerWorks.Milliseconds())},
		{When: []string{impl, "# Implement: ", ", lane-1 ("}, Write: "DONE-1", Content: "one\n"},
		{When: []string{impl, "# Implement: ", ", lane-2 ("}, Write: "DONE-2", Content: "two\n"},
		{When: []string{impl, "# Fix round 1: ", ", lane-1 ("}, Write: "FIX-1", Content: "fixed one\n"},
		{When: []string{impl, "# Fix round 1: ", ", lane-2 ("}, Write: "FIX-2", Content: "fixed two\n"},
		{When: []string{impl}, Out: `{"type":"assistant","message":{"id":"msg_1","model":"claude-x","content":[{"type":"text","text":"working"}]},"session_id":"sess-1","parent_tool_use_id":null}`},
		{When: []string{impl}, Out: result("Do the part\n\nWrote the part's file.", nil)},
		// The validators: the ruthless reviewer passes a lane's fix and asks for one before it.
		{When: []string{answer}, SleepMS: int(runnerReads.Milliseconds())},
		{When: []string{answer, "# ruthless-reviewer: ", ", round 2\n"}, Out: ship},
		{When: []string{answer, "# ruthless-reviewer: ", ", round 2\n"}, ExitZero: true},
		{When: []string{answer, "# ruthless-reviewer: "}, Out: fixFirst},
		{When: []string{answer, "# security-reviewer: "}, Out: result("", map[string]any{"summary": "Nothing to fear.", "verdict": "APPROVE", "findings": []any{}})},
		{When: []string{answer, "# intent-auditor: "}, Out: result("", map[string]any{"schema_version": 1, "intent": "itd-2611300000000001", "summary": "Met.",
			"verdicts": []any{map[string]any{"criterion": "ac-1", "verdict": "MET", "evidence": "DONE-1 and DONE-2 stand.", "concerns": ""}}})},
	} {
		line, err := json.Marshal(d)
		assert.NilError(t, err)
		script.Write(line)
		script.WriteByte('\n')
	}
	return script.String()
}

// runnerCall is one call of the fake implementer, as it noted it: the round, the lane's branch and
// the head it started from.
type runnerCall struct {
	round        int
	branch, head string
}

// stepOf names a lane's step of a round, as the tallies count it.
func stepOf(lane string, round int) string { return fmt.Sprintf("%s round-%d", lane, round) }

// runnerCalls is the calls the fake implementer told in this repository, in the order told.
func (r *repo) runnerCalls() []runnerCall {
	callsMu.Lock()
	said := slices.Clone(callsSaid)
	callsMu.Unlock()
	var out []runnerCall
	for _, line := range said {
		f := strings.Fields(line)
		if len(f) != 4 {
			r.t.Errorf("a call told in part: %q", line)
			continue
		}
		if f[3] != filepath.Join(r.root, ".git") {
			continue // another repository's
		}
		digits, _ := strings.CutPrefix(f[0], "round-")
		round, err := strconv.Atoi(digits)
		if err != nil {
			r.t.Errorf("a call noted with no round: %q", line)
			continue
		}
		out = append(out, runnerCall{round, f[1], f[2]})
	}
	return out
}

// stepCommit is abcd's commit of a runner's work on a lane: its await (the trailer), its parent.
type stepCommit struct{ sha, parent, await string }

// laneCommits lists the commits on each lane's branch (lane-N, not the integration) since the run's
// base, oldest first; each a runner's work abcd committed carries the await its trailer names.
func (r *repo) laneCommits(base string) map[string][]stepCommit {
	out := map[string][]stepCommit{}
	refs := r.git(r.root, "for-each-ref", "--format=%(refname:short)", "refs/heads/abcd/")
	for _, ref := range strings.Fields(refs) {
		if !strings.HasPrefix(laneOf(ref), "lane-") || strings.Contains(ref, "/attempts/") {
			continue
		}
		log := r.git(r.root, "log", "--reverse", "--format=%H %P%x00%B%x01", base+".."+ref)
		for _, entry := range strings.Split(log, "\x01") {
			head, msg, ok := strings.Cut(strings.TrimSpace(entry), "\x00")
			if !ok {
				continue
			}
			ids := strings.Fields(head)
			c := stepCommit{sha: ids[0], await: trailerAwait(msg)}
			if len(ids) == 2 {
				c.parent = ids[1]
			}
			out[ref] = append(out[ref], c)
		}
	}
	return out
}

// laneOf is the lane a branch abcd/<run>/<lane> is of.
func laneOf(branch string) string { return branch[strings.LastIndex(branch, "/")+1:] }

// trailerAwait is the await an Abcd-Await trailer names in a commit message ("" for none).
func trailerAwait(msg string) string {
	for _, line := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(line, runner.AwaitTrailer+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// gitLocks lists the lock files a killed git left in the repository's git folder or a worktree's.
func (r *repo) gitLocks() []string {
	var out []string
	_ = filepath.WalkDir(r.path(".git"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			rel, _ := filepath.Rel(r.root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// runFaults tallies what the campaigns must never find.
type runFaults struct {
	torn, lost, doubled, stuck int
}

func (f runFaults) String() string {
	return fmt.Sprintf("%d torn, %d lost, %d doubled, %d stuck", f.torn, f.lost, f.doubled, f.stuck)
}

// endOfRun checks a run driven to its end after kills: implement run run again exited 0 with the run
// finished (or ended at the host's work, every fallback with its reason); each lane holds exactly one
// runner commit a round, naming its own await, one on the other; the runner took each step once, and
// once more for each kill that came while it worked on that step before abcd committed it (again
// counts those), never over the step's own commit; no await says a route is taking it; every state
// reads, lint is clean, no temporary file, journal or git lock is left. It counts what it found.
func endOfRun(t *testing.T, r *repo, last result, base string, again map[string]int, f *runFaults) (ended string) {
	t.Helper()
	assert.Check(t, last.code == 0, "the run's last implement run: exit %d: %s", last.code, last.raw)
	runs := r.files(layout.Runs)
	if !assert.Check(t, is.Len(runs, 1), "one run, never a second: %v", runs) {
		f.doubled++
		return ""
	}
	run := runs[0]
	ended, _ = last.doc["ended"].(string)
	story := r.ok("implement", "record", "--run", run)
	fellBack := decode[[]map[string]any](t, story["fallbacks"])
	for _, fb := range fellBack {
		if !assert.Check(t, fb["reason"] != "" && fb["reason"] != nil, "a fallback without a reason: %v", fb) {
			f.lost++
		}
	}
	switch ended {
	case "finished":
	case "host":
		assert.Check(t, len(fellBack) > 0, "the run ended at the host's work with no fallback saying why")
	default:
		t.Errorf("the run ended %q", ended)
		f.stuck++
	}
	status := r.ok("implement", "status", "--run", run)
	for _, rv := range decode[[]map[string]any](t, status["runs"]) {
		for _, a := range decode[[]map[string]any](t, rv["awaits"]) {
			next, _ := a["next"].(map[string]any)["text"].(string)
			if !assert.Check(t, !strings.Contains(next, "is taking this"), "an await still says a route is taking it: %s", next) {
				f.stuck++
			}
		}
	}
	// One runner commit a lane a round, each on the one before, each naming its own await.
	commits := r.laneCommits(base)
	calls := r.runnerCalls()
	for _, ln := range []string{"lane-1", "lane-2"} {
		branch := "abcd/" + run + "/" + ln
		cs := commits[branch]
		want := 2
		if ended != "finished" {
			want = len(cs) // ended at the host's work: what the runner did, once each
		}
		awaits := map[string]bool{}
		for i, c := range cs {
			if !assert.Check(t, c.await != "", "%s: commit %s names no await", ln, c.sha) {
				f.doubled++
			}
			if !assert.Check(t, !awaits[c.await], "%s: a second commit for await %s", ln, c.await) {
				f.doubled++
			}
			awaits[c.await] = true
			if i > 0 {
				assert.Check(t, is.Equal(c.parent, cs[i-1].sha), "%s: the commits stand one on the other", ln)
			} else {
				assert.Check(t, is.Equal(c.parent, base), "%s: the first commit stands on the run's base", ln)
			}
		}
		if !assert.Check(t, is.Len(cs, want), "%s: one runner commit a round", ln) {
			if len(cs) > want {
				f.doubled++
			} else {
				f.lost++
			}
		}
		// The runner's calls for each step started at the head the step's commit stands on: never
		// over the step's own commit.
		for i, c := range cs {
			n := 0
			for _, call := range calls {
				if call.branch == branch && call.round == i {
					n++
					if !assert.Check(t, is.Equal(call.head, c.parent), "%s: the runner was called on %s, not on the head the step started at", stepOf(ln, i), call.head) {
						f.doubled++
					}
				}
			}
			if !assert.Check(t, is.Equal(n, 1+again[stepOf(ln, i)]), "%s: the runner called once, and once again for each kill while it worked before its commit", stepOf(ln, i)) {
				f.doubled++
			}
		}
	}
	if ended == "finished" {
		integration := "abcd/" + run + "/integration"
		for _, file := range []string{"DONE-1", "DONE-2", "FIX-1", "FIX-2"} {
			_, err := r.gitErr(r.root, "cat-file", "-e", integration+":"+file)
			if !assert.Check(t, err == nil, "the integration lacks %s", file) {
				f.lost++
			}
		}
	}
	if locks := r.gitLocks(); !assert.Check(t, is.Len(locks, 0), "git's locks are left: %v", locks) {
		f.stuck++
	}
	before := t.Failed()
	r.whole(t)
	if !before && t.Failed() {
		f.torn++
	}
	return ended
}

// noteKill is what a kill left, for the tally and for the runner's calls: after the kill, each step
// the runner was called for whose commit is not yet on its lane will be taken again (counted once
// per call the kill interrupted).
func (r *repo) noteKill(base string, counted map[string]int, again map[string]int) {
	r.quiet()
	calls := r.runnerCalls()
	commits := r.laneCommits(base)
	seen := map[runnerCall]int{} // by lane's branch and round
	for _, c := range calls {
		seen[runnerCall{round: c.round, branch: c.branch}]++
	}
	for c, n := range seen {
		step := stepOf(laneOf(c.branch), c.round)
		if committed := len(commits[c.branch]) > c.round; !committed && n > counted[step] {
			again[step]++
		}
		counted[step] = n
	}
}

// quiet waits until no process works in the repository's folder any more: what the killed abcd
// started and the kill did not end with it (the fake's child noting a call, a shell of the definition
// of done's) runs on for a moment, and what it writes must be in before the tally reads it.
func (r *repo) quiet() {
	dir := filepath.Dir(r.root) + "/"
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		procs, err := os.ReadDir("/proc")
		if err != nil {
			time.Sleep(100 * time.Millisecond) // no /proc (macOS): a moment is what it takes
			return
		}
		busy := false
		for _, p := range procs {
			if cwd, err := os.Readlink("/proc/" + p.Name() + "/cwd"); err == nil && strings.HasPrefix(cwd+"/", dir) {
				busy = true
				break
			}
		}
		if !busy {
			return
		}
	}
	r.t.Errorf("a process the killed abcd started still works in %s", dir)
}

// TestKillNineDuringImplementRunOnARunner kills `abcd implement run` at a random moment, uniformly
// over the time an uninterrupted run takes, on a fresh copy of the repository, then runs the same
// command again, which takes the run to its end: every check of endOfRun holds. Each kill is a
// subtest of its own, so a fault is counted and kept (its repository and abcd's log) and the
// campaign goes on.
func TestKillNineDuringImplementRunOnARunner(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	tpl := runnerRunRepo(t)
	base := tpl.git(tpl.root, "rev-parse", "HEAD")
	args := []string{"implement", "run", runSpec}
	// Uninterrupted, the runners take the run to its end.
	took := time.Hour
	for range 2 {
		c := tpl.clone(t)
		res := c.runLogged(args...)
		took = min(took, res.took)
		var f runFaults
		endOfRun(t, c, res, base, map[string]int{}, &f)
		logged, err := os.ReadFile(filepath.Join(filepath.Dir(c.root), "abcd.log"))
		assert.NilError(t, err)
		assert.Assert(t, is.Equal(res.doc["ended"], "finished"), "abcd's log:\n%s", logged)
		assert.NilError(t, os.RemoveAll(filepath.Dir(c.root)))
	}
	assert.Assert(t, !t.Failed())
	var f runFaults
	var attempts, landed, interrupted, failed int
	leftovers, ended := map[string]int{}, map[string]int{}
	// A kill drawn after the end of the run it was meant for (a run is quicker than the two timed,
	// on a machine whose load comes and goes) lands on nothing: another is drawn on a fresh copy, so
	// the campaign counts the kills that landed. What such a run left is checked all the same.
	for landed < runKills() {
		attempts++
		assert.Assert(t, attempts <= 3*runKills()+10, "only %d of %d kills landed while implement run ran", landed, attempts-1)
		t.Run(fmt.Sprintf("kill-%d", attempts), func(t *testing.T) {
			r := tpl.clone(t)
			r.t = t
			if r.killAtRandom(t, args, took) {
				landed++
			}
			for _, l := range r.gitLocks() {
				leftovers["git's "+filepath.Base(l)]++
			}
			again := map[string]int{}
			r.noteKill(base, map[string]int{}, again)
			interrupted += len(again)
			last := r.runLogged(args...)
			ended[endOfRun(t, r, last, base, again, &f)]++
			keepIfFailed(t, r, &failed)
		})
	}
	t.Logf("implement run, two lanes and a fix round each on runners: %d kills landed at random over the %s it takes (%d drawn; the rest came after its end), interrupting %d runner steps before abcd committed them; each time the same command run again once to its end (ended: %v): %s (%d kills found a fault); git's locks the kills left: %v",
		landed, took.Round(time.Millisecond), attempts, interrupted, ended, f, failed, leftovers)
}

// keepIfFailed keeps a failed kill's repository, its home and abcd's log for a look (every kill's,
// with -keep), and counts it; the repository goes otherwise.
func keepIfFailed(t *testing.T, r *repo, failed *int) {
	defer func() { assert.Check(t, os.RemoveAll(filepath.Dir(r.root))) }()
	if !t.Failed() && !*keepFlag {
		return
	}
	kept, err := os.MkdirTemp("", "abcd-crash-") //nolint:usetesting // kept for a look after the test ends

	assert.NilError(t, err)
	out, err := exec.Command("cp", "-a", filepath.Dir(r.root)+"/.", kept).CombinedOutput()
	assert.NilError(t, err, "%s", out)
	if t.Failed() {
		*failed++
		t.Errorf("kept at %s (abcd's log: abcd.log there)", kept)
		return
	}
	t.Logf("kept at %s (abcd's log: abcd.log there)", kept)
}

// runKills is how many times implement run is killed: -kills N, or a few in make test (each kill
// costs a run), 100 under make soak.
func runKills() int {
	if *killsFlag > 0 {
		return *killsFlag
	}
	if *soakFor > 0 {
		return 100
	}
	return 3
}

// TestKillNineRightAfterEachRunnerCommit kills `abcd implement run` the moment abcd's commit of a
// runner's work lands on a lane's branch, every time one does: the test watches the lanes' branches
// (git's ref files, read every half millisecond) and reads each new head's commit object straight
// from git's objects; a commit naming an await in its trailer is killed after at once. The same
// command runs again until it ends on its own; then every check of endOfRun holds: the step resumed
// after the kill finds its own commit, never takes the step again, never commits twice. Each run is
// a subtest of its own.
func TestKillNineRightAfterEachRunnerCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	tpl := runnerRunRepo(t)
	base := tpl.git(tpl.root, "rev-parse", "HEAD")
	args := []string{"implement", "run", runSpec}
	var f runFaults
	var kills, inGit, beforeRecord, runs, failed int
	ended := map[string]int{}
	for kills < runKills() {
		runs++
		t.Run(fmt.Sprintf("run-%d", runs), func(t *testing.T) {
			r := tpl.clone(t)
			r.t = t
			again, counted := map[string]int{}, map[string]int{}
			seen := map[string]bool{}
			var last result
			for n := 0; ; n++ {
				killed, sha, res := r.killAfterACommit(t, args, seen)
				if !killed {
					last = res
					break
				}
				kills++
				if len(r.gitLocks()) > 0 {
					inGit++ // git was still finishing its commit: the kill ended it with abcd
				}
				if r.awaitOpenFor(sha) {
					beforeRecord++
				}
				r.noteKill(base, counted, again)
				assert.Assert(t, n < 20, "implement run was killed %d times and never ended", n)
			}
			ended[endOfRun(t, r, last, base, again, &f)]++
			keepIfFailed(t, r, &failed)
		})
	}
	t.Logf("implement run, two lanes and a fix round each on runners: %d runs, %d kills, each right after abcd committed a runner's work (%d while git was still finishing its commit, %d before the step was recorded); the runs ended: %v: %s (%d runs found a fault)",
		runs, kills, inGit, beforeRecord, ended, f, failed)
}

// killAfterACommit runs abcd with args and kills it the moment a lane's branch moves to a commit
// naming an await it has not seen; it returns whether it killed, that commit, and, when abcd ended on
// its own, what it answered.
func (r *repo) killAfterACommit(t *testing.T, args []string, seen map[string]bool) (bool, string, result) {
	t.Helper()
	cmd := exec.Command(binary, append(args, "--json")...)
	cmd.Dir, cmd.Env = r.root, r.env
	var out bytes.Buffer
	cmd.Stdout = &out
	log, err := os.OpenFile(filepath.Join(filepath.Dir(r.root), "abcd.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	assert.NilError(t, err)
	defer log.Close()
	_, err = fmt.Fprintf(log, "== abcd %s (to be killed after a commit)\n", strings.Join(args, " "))
	assert.NilError(t, err)
	cmd.Stderr = log
	start := time.Now()
	assert.NilError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	ended := func() result {
		res := result{args: args, code: cmd.ProcessState.ExitCode(), raw: out.Bytes(), took: time.Since(start)}
		_ = json.Unmarshal(out.Bytes(), &res.doc) // not JSON: the checks of what it answered fail
		return res
	}
	for {
		select {
		case <-exited:
			return false, "", ended()
		default:
		}
		refs, _ := filepath.Glob(r.path(".git/refs/heads/abcd/*/lane-*"))
		for _, ref := range refs {
			data, err := os.ReadFile(ref)
			sha := strings.TrimSpace(string(data))
			if err != nil || len(sha) != 40 || seen[sha] {
				continue // gone meanwhile (git renames a ref into place whole), or seen
			}
			seen[sha] = true
			if r.looseCommitNamesAwait(sha) {
				_ = cmd.Process.Signal(syscall.SIGKILL) // it may have ended meanwhile: Wait says
				<-exited
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return true, sha, result{}
				}
				return false, "", ended()
			}
		}
		time.Sleep(500 * time.Microsecond)
	}
}

// looseCommitNamesAwait reads a new commit from git's loose objects (no git started, so the kill is
// not held up) and says whether its message has abcd's await trailer.
func (r *repo) looseCommitNamesAwait(sha string) bool {
	f, err := os.Open(r.path(".git/objects/" + sha[:2] + "/" + sha[2:]))
	if err != nil {
		return false // packed or gone: not a commit just made
	}
	defer f.Close()
	z, err := zlib.NewReader(f)
	if err != nil {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(z, 1<<20))
	assert.NilError(r.t, err, "reading commit %s", sha) // git renames an object into place whole
	return bytes.Contains(data, []byte("\n"+runner.AwaitTrailer+": "))
}

// awaitOpenFor says whether the await a commit's trailer names is still open in the run's state (its
// step not yet recorded). The state must read, whatever the kill left.
func (r *repo) awaitOpenFor(sha string) bool {
	await := trailerAwait(r.git(r.root, "log", "-1", "--format=%B", sha))
	runs := r.files(layout.Runs)
	assert.Assert(r.t, is.Len(runs, 1))
	var s struct {
		Lanes []struct {
			Awaits []struct {
				ID string `json:"id"`
			} `json:"awaits"`
		} `json:"lanes"`
	}
	assert.NilError(r.t, json.Unmarshal([]byte(r.read(layout.RunDir(runs[0])+"/state.json")), &s))
	for _, l := range s.Lanes {
		for _, a := range l.Awaits {
			if a.ID == await {
				return true
			}
		}
	}
	return false
}

// runLogged runs abcd as run does, and keeps its stderr (the progress and what it did) in
// abcd.log beside the repository, for a failure's look.
func (r *repo) runLogged(args ...string) result {
	cmd := exec.Command(binary, append(args, "--json")...)
	cmd.Dir, cmd.Env = r.root, r.env
	var out bytes.Buffer
	cmd.Stdout = &out
	log, err := os.OpenFile(filepath.Join(filepath.Dir(r.root), "abcd.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	assert.NilError(r.t, err)
	defer log.Close()
	_, err = fmt.Fprintf(log, "== abcd %s\n", strings.Join(args, " "))
	assert.NilError(r.t, err)
	cmd.Stderr = log
	start := time.Now()
	err = cmd.Run()
	res := result{args: args, code: cmd.ProcessState.ExitCode(), raw: out.Bytes(), took: time.Since(start)}
	if err != nil && res.code < 0 {
		res.code, res.raw = -1, []byte(err.Error())
		return res
	}
	if err := json.Unmarshal(out.Bytes(), &res.doc); err != nil {
		res.doc = nil // not one JSON document: the checks read res.raw
	}
	_, err = fmt.Fprintf(log, "== exit %d: %s\n", res.code, out.Bytes())
	assert.NilError(r.t, err)
	return res
}
