//go:build unix

package soak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// The kill campaigns of the two paths that write outside the record's journal: the record's merge
// driver (git's file, put in place whole) and `abcd history capture` (the history store, one SQLite
// transaction). Each kills the path with SIGKILL at a random moment, uniformly over the time it takes
// whole, on a fresh copy of a prepared world, and counts, over every kill:
//
//   - torn: what the kill left is neither the state before nor the state after (a merge half
//     written, a session kept without all its messages, a store that does not read);
//   - lost: once the same path ran again, something either side or the transcript held is missing;
//   - doubled: once it ran again, something stands twice (an entry, a session, a message);
//   - stuck: running it again fails, or leaves a temporary file, a lock or a journal behind.
//
// Each must be 0. `make test` runs a few kills of each (proving the campaign runs and holds its
// checks); `make soak` runs 1,000 (-kills N sets the number).
//
// The `implement run` and `record renumber` campaigns are in crash_test.go's crashPaths.

// figures are one campaign's counts.
type figures struct {
	kills, landed, torn, lost, doubled, stuck int
	// left counts the kills after which a temporary file stood in the git folder (the merge
	// driver's, which the run again removes) or the path's work was already whole.
	left, whole int
}

func (f *figures) check(t *testing.T, name string) {
	t.Helper()
	t.Logf("%s: %d kills at random, %d landed while it ran; torn %d, lost %d, doubled %d, stuck %d; %d left a temporary file in the git folder, %d were whole before it ran again",
		name, f.kills, f.landed, f.torn, f.lost, f.doubled, f.stuck, f.left, f.whole)
	for what, n := range map[string]int{"torn": f.torn, "lost": f.lost, "doubled": f.doubled, "stuck": f.stuck} {
		if n > 0 {
			t.Errorf("%s: %d kills left a %s state", name, n, what)
		}
	}
}

// killGroup starts cmd in a process group of its own, and kills the whole group (abcd and any child:
// the history store's helper) with SIGKILL after a random time within took; landed says the kill
// came while abcd ran.
func killGroup(t *testing.T, cmd *exec.Cmd, took time.Duration) bool {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	assert.NilError(t, cmd.Start())
	time.Sleep(time.Duration(rand.Int64N(int64(took) + 1)))
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// shortest is the shortest of three runs of run, each on a fresh world: a kill later than it lands
// after the path is done.
func shortest(t *testing.T, run func() time.Duration) time.Duration {
	t.Helper()
	took := time.Hour
	for range 3 {
		took = min(took, run())
	}
	return took
}

// tempsUnder lists the temporary files below dir (relative to it), the git folder left out when
// skipGit.
func tempsUnder(dir string, skipGit bool) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skipGit && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if strings.HasPrefix(d.Name(), ".abcd-tmp-") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		// What cannot be read may hide a temporary file: it is listed, so the check that none is left
		// fails and says why.
		out = append(out, "unreadable: "+err.Error())
	}
	return out
}

// mergeWorld is a repository with abcd installed (the driver in its git config) holding an issue
// with many notes, and the three files git hands the driver for a merge of two branches that each
// added notes: base, ours and theirs, at the top of the work tree, named as git names them.
type mergeWorld struct {
	*repo
	issue  string // the issue's path, as git gives it (%P)
	merged string // what the driver writes when nothing stops it
	notes  []string
}

const mergeBase, mergeOurs, mergeTheirs = ".merge_file_Bq3x9a", ".merge_file_Ou7k2c", ".merge_file_Th5m1d"

func newMergeWorld(t *testing.T) *mergeWorld {
	t.Helper()
	r := newRepo(t)
	id := r.ok("capture", "Lint is slow")["record"].(map[string]any)["id"].(string)
	var issue string
	for file, got := range r.issues() {
		if got == id {
			issue = ".abcd/work/issues/open/" + file
		}
	}
	assert.Assert(t, issue != "")
	base := r.read(issue)
	// A record long enough that writing its merge takes a while: the moment a kill leaves a temp.
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "\n\nShared note %04d: the parser was slow on file %d of the corpus.", i, i)
	}
	base = strings.TrimRight(base, "\n") + b.String() + "\n"
	w := &mergeWorld{repo: r, issue: issue}
	ours, theirs := base, base
	for i := range 5 {
		o, th := fmt.Sprintf("Ours' note %d on 2026-12-0%d.", i, i+1), fmt.Sprintf("Theirs' note %d on 2026-12-0%d.", i, i+1)
		ours, theirs = ours+"\n"+o+"\n", theirs+"\n"+th+"\n"
		w.notes = append(w.notes, o, th)
	}
	r.write(mergeBase, base)
	r.write(mergeOurs, ours)
	r.write(mergeTheirs, theirs)
	// What an uninterrupted driver writes, from a copy.
	c := w.clone(t)
	res := c.driver()
	assert.Assert(t, res.code == 0, "the driver: exit %d: %s", res.code, res.raw)
	w.merged = c.read(mergeOurs)
	for _, n := range w.notes {
		assert.Assert(t, strings.Count(w.merged, n) == 1, "an uninterrupted merge holds %q once", n)
	}
	assert.Check(t, os.RemoveAll(filepath.Dir(c.root)))
	return w
}

func (w *mergeWorld) clone(t *testing.T) *mergeWorld {
	t.Helper()
	c := *w
	c.repo = w.repo.clone(t)
	return &c
}

// driverArgs is the command git runs: abcd merge-record %O %A %B %L %P, in the work tree's top.
func (w *mergeWorld) driverArgs() []string {
	return []string{"merge-record", mergeBase, mergeOurs, mergeTheirs, "7", w.issue}
}

func (w *mergeWorld) driver() result {
	cmd := exec.Command(binary, w.driverArgs()...)
	cmd.Dir, cmd.Env = w.root, w.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	_ = cmd.Run()
	return result{args: w.driverArgs(), code: cmd.ProcessState.ExitCode(), raw: out.Bytes(), took: time.Since(start)}
}

// TestKillNineOnTheMergeDriver: the record's merge driver killed at random, as git runs it. What it
// leaves in place of ours is ours or the merge, whole; no temporary file stands where git sees it;
// git's merge run again (the driver again, on what the kill left as ours) writes the merge, each note
// once, and leaves nothing behind; lint is clean.
func TestKillNineOnTheMergeDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	w := newMergeWorld(t)
	ours := w.read(mergeOurs)
	took := shortest(t, func() time.Duration {
		c := w.clone(t)
		defer func() { assert.Check(t, os.RemoveAll(filepath.Dir(c.root))) }()
		return c.driver().took
	})
	var f figures
	for i := range kills() {
		c := w.clone(t)
		f.kills++
		cmd := exec.Command(binary, c.driverArgs()...)
		cmd.Dir, cmd.Env = c.root, c.env
		if killGroup(t, cmd, took) {
			f.landed++
		}
		switch got := c.read(mergeOurs); got {
		case ours:
		case w.merged:
			f.whole++
		default:
			f.torn++
			t.Errorf("kill %d: ours is neither as it was nor the merge (%d bytes)", i, len(got))
		}
		if seen := tempsUnder(c.root, true); len(seen) > 0 {
			f.stuck++
			t.Errorf("kill %d: a temporary file stands where git sees it: %v", i, seen)
		}
		if len(tempsUnder(filepath.Join(c.root, ".git"), false)) > 0 {
			f.left++
		}
		// Git runs the merge again: the driver on what the kill left as ours.
		again := c.driver()
		merged := c.read(mergeOurs)
		switch {
		case again.code != 0:
			f.stuck++
			t.Errorf("kill %d: the driver run again: exit %d: %s", i, again.code, again.raw)
		case len(tempsUnder(c.root, false)) > 0:
			f.stuck++
			t.Errorf("kill %d: the driver run again left %v", i, tempsUnder(c.root, false))
		}
		for _, n := range w.notes {
			switch strings.Count(merged, n) {
			case 0:
				f.lost++
				t.Errorf("kill %d: %q is lost", i, n)
			case 1:
			default:
				f.doubled++
				t.Errorf("kill %d: %q stands twice", i, n)
			}
		}
		if merged != w.merged {
			t.Errorf("kill %d: the merge run again differs from an uninterrupted one", i)
		}
		if lint := c.run("lint"); lint.code != 0 || strings.Contains(string(lint.raw), "stray_temp") {
			f.stuck++
			t.Errorf("kill %d: lint: exit %d: %s", i, lint.code, lint.raw)
		}
		if t.Failed() {
			kept, _ := os.MkdirTemp("", "abcd-merge-kill-") //nolint:usetesting // kept past the test, for a look
			_ = exec.Command("cp", "-a", filepath.Dir(c.root)+"/.", kept).Run()
			f.check(t, "merge driver")
			t.Fatalf("kill %d of the merge driver (after up to %s) left this; kept at %s", i, took, kept)
		}
		assert.Check(t, os.RemoveAll(filepath.Dir(c.root)))
	}
	t.Logf("the driver takes %s whole", took.Round(time.Millisecond))
	f.check(t, "merge driver")
}

// historyWorld is a repository with a commit and, in its home, a Claude Code session of many messages
// that ran in it, written for each copy (its path and the folder it records are the copy's own).
type historyWorld struct {
	*repo
	session string
	file    string
}

const historyMessages = 1500

func newHistoryWorld(t *testing.T) *historyWorld {
	t.Helper()
	return &historyWorld{repo: newRepo(t), session: "3f1c2a9e-killed-capture"}
}

func (w *historyWorld) clone(t *testing.T) *historyWorld {
	t.Helper()
	c := &historyWorld{repo: w.repo.clone(t), session: w.session}
	home := strings.TrimPrefix(c.env[slicesIndex(c.env, "HOME=")], "HOME=")
	dir := filepath.Join(home, ".claude", "projects", strings.ReplaceAll(c.root, "/", "-"))
	assert.NilError(t, os.MkdirAll(dir, 0o700))
	var b bytes.Buffer
	for i := range historyMessages {
		role := []string{"user", "assistant"}[i%2]
		line, _ := json.Marshal(map[string]any{"type": role, "sessionId": w.session, "cwd": c.root, "timestamp": fmt.Sprintf("2026-12-01T10:%02d:%02dZ", i/60%60, i%60),
			"message": map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("message marker%05d of the session, about the parser and its cache", i)}}}})
		b.Write(line)
		b.WriteByte('\n')
	}
	c.file = filepath.Join(dir, w.session+".jsonl")
	assert.NilError(t, os.WriteFile(c.file, b.Bytes(), 0o600))
	return c
}

func slicesIndex(env []string, prefix string) int {
	for i, e := range env {
		if strings.HasPrefix(e, prefix) {
			return i
		}
	}
	return -1
}

// kept is what the store holds of the session: how many sessions are listed, and the session's
// messages (-1 when it is not kept). ok is false when the store does not read.
func (w *historyWorld) kept(t *testing.T) (sessions, messages int, ok bool) {
	t.Helper()
	list := w.run("history", "list", "--limit", "500")
	if list.code != 0 {
		return 0, 0, false
	}
	all, _ := list.doc["sessions"].([]any)
	show := w.run("history", "show", w.session)
	if show.code != 0 {
		code, _ := show.refusal()
		return len(all), -1, code == "history_session_unknown"
	}
	msgs, _ := show.doc["messages"].([]any)
	return len(all), len(msgs), true
}

// TestKillNineOnHistoryCapture: `abcd history capture` killed at random with its helper (the whole
// process group), as a session-end hook's capture is when the machine goes down. The store it left
// reads, holding the session whole or not at all; the capture run again keeps it, once, every
// message once, and leaves no journal behind.
func TestKillNineOnHistoryCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	w := newHistoryWorld(t)
	took := shortest(t, func() time.Duration {
		c := w.clone(t)
		defer func() { assert.Check(t, os.RemoveAll(filepath.Dir(c.root))) }()
		res := c.run("history", "capture", c.file)
		assert.Assert(t, res.code == 0, "history capture: exit %d: %s", res.code, res.raw)
		return res.took
	})
	var f figures
	for i := range kills() {
		c := w.clone(t)
		f.kills++
		cmd := exec.Command(binary, "history", "capture", c.file, "--json")
		cmd.Dir, cmd.Env = c.root, c.env
		if killGroup(t, cmd, took) {
			f.landed++
		}
		switch sessions, messages, ok := c.kept(t); {
		case !ok:
			f.torn++
			t.Errorf("kill %d: the history store does not read after the kill", i)
		case messages == historyMessages && sessions == 1:
			f.whole++
		case messages != -1 || sessions != 0:
			f.torn++
			t.Errorf("kill %d: the store holds %d sessions, the session with %d of its %d messages", i, sessions, messages, historyMessages)
		}
		again := c.run("history", "capture", c.file)
		if again.code != 0 {
			f.stuck++
			t.Errorf("kill %d: the capture run again: exit %d: %s", i, again.code, again.raw)
		}
		switch sessions, messages, ok := c.kept(t); {
		case !ok || messages == -1:
			f.lost++
			t.Errorf("kill %d: the session is not kept once the capture ran again (store reads: %v)", i, ok)
		case sessions > 1 || messages > historyMessages:
			f.doubled++
			t.Errorf("kill %d: %d sessions, %d messages kept", i, sessions, messages)
		case messages < historyMessages:
			f.lost++
			t.Errorf("kill %d: %d of %d messages kept", i, messages, historyMessages)
		}
		hits := c.run("history", "search", fmt.Sprintf("marker%05d", rand.IntN(historyMessages)))
		if found, _ := hits.doc["hits"].([]any); hits.code != 0 || len(found) != 1 {
			f.doubled++
			t.Errorf("kill %d: a message's marker is found %d times: %s", i, len(found), hits.raw)
		}
		if journals, _ := filepath.Glob(filepath.Join(filepath.Dir(c.root), "home", "history", "*", "history.db-journal")); len(journals) > 0 {
			f.stuck++
			t.Errorf("kill %d: a journal is left after the capture ran again: %v", i, journals)
		}
		if t.Failed() {
			kept, _ := os.MkdirTemp("", "abcd-history-kill-") //nolint:usetesting // kept past the test, for a look
			_ = exec.Command("cp", "-a", filepath.Dir(c.root)+"/.", kept).Run()
			f.check(t, "history capture")
			t.Fatalf("kill %d of history capture (after up to %s) left this; kept at %s", i, took, kept)
		}
		assert.Check(t, os.RemoveAll(filepath.Dir(c.root)))
	}
	t.Logf("a capture takes %s whole", took.Round(time.Millisecond))
	f.check(t, "history capture")
}
