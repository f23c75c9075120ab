package files

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

const issuesOpen = ".abcd/work/issues/open"

func stagedRepo(t *testing.T, ops ...fs.PathOp) *fs.Dir {
	t.Helper()
	return fs.NewDir(t, "staged", fs.WithDir(".git"), fs.WithDir(".abcd", append([]fs.PathOp{
		fs.WithDir("work", fs.WithDir("issues", fs.WithDir("open"), fs.WithDir("closed")))}, ops...)...))
}

// deadPid is the pid of a process that has ended (and been reaped).
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	assert.NilError(t, cmd.Run())
	return cmd.Process.Pid
}

// temps lists the temporary files under root, relative to it, wherever they are.
func temps(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, p := range tempLeftovers(t, root) {
		rel, err := filepath.Rel(root, p)
		assert.NilError(t, err)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// Every write into the repository stages its temp under .abcd/.work.local/tmp (git-ignored), and
// lands whole with the mode asked for; the staging folder is 0700 and is left empty.
func TestWritesStageTheirTempWhereGitIgnoresIt(t *testing.T) {
	dir := stagedRepo(t)
	ctx := context.Background()
	r := Records{Dir: dir.Path()}
	p := issuesOpen + "/iss-2611300000000001-a.md"
	created, err := r.Create(ctx, p, []byte("one"))
	assert.NilError(t, err)
	assert.Check(t, created)
	created, err = r.Create(ctx, p, []byte("two"))
	assert.NilError(t, err)
	assert.Check(t, !created, "create never replaces")
	assert.NilError(t, r.Replace(ctx, p, []byte("three")))
	q := ".abcd/work/issues/closed/iss-2611300000000001-a.md"
	assert.NilError(t, Journal{Dir: dir.Path()}.Commit(ctx, ports.Change{Verb: "issue_close", Record: "iss-2611300000000001",
		Files: []ports.FileChange{{Path: q, Data: []byte("four")}, {Path: p, Remove: true}}}))
	runs := Runs{Dir: dir.Path()}
	_, err = runs.Create(ctx, "run-1")
	assert.NilError(t, err)
	assert.NilError(t, runs.Write(ctx, runRoot+"/run-1/state.json", []byte("{}")))

	assert.Check(t, is.Equal(string(mustRead(t, dir.Join(filepath.FromSlash(q)))), "four"))
	assert.Check(t, is.Equal(mode(t, dir.Join(filepath.FromSlash(q))), os.FileMode(0o644)))
	assert.Check(t, is.Equal(mode(t, dir.Join(filepath.FromSlash(runRoot), "run-1", "state.json")), os.FileMode(0o600)))
	assert.Check(t, is.Equal(mode(t, dir.Join(".abcd", ".work.local", "tmp")), os.ModeDir|0o700))
	assert.Check(t, is.Len(temps(t, dir.Path()), 0))
	_, err = os.Stat(dir.Join(filepath.FromSlash(p)))
	assert.Check(t, os.IsNotExist(err), "moved away")
}

// A temp whose writer is gone (its pid ended, or older than any write takes) is removed by the
// next writer; a live writer's fresh temp is left alone.
func TestTheNextWriterRemovesADeadWritersTemp(t *testing.T) {
	dir := stagedRepo(t, fs.WithDir(".work.local", fs.WithMode(0o700), fs.WithDir("tmp", fs.WithMode(0o700))))
	stage := dir.Join(".abcd", ".work.local", "tmp")
	dead := fmt.Sprintf("%s%d-%016x", tempPrefix, deadPid(t), 1)
	live := fmt.Sprintf("%s%d-%016x", tempPrefix, os.Getppid(), 2)
	old := fmt.Sprintf("%s%d-%016x", tempPrefix, os.Getppid(), 3)
	legacy := tempPrefix + "00000000000000ff"
	for _, n := range []string{dead, live, old, legacy} {
		assert.NilError(t, os.WriteFile(filepath.Join(stage, n), []byte("a whole record"), 0o644))
	}
	long := time.Now().Add(-2 * staleAfter)
	assert.NilError(t, os.Chtimes(filepath.Join(stage, old), long, long))

	_, err := Records{Dir: dir.Path()}.Create(context.Background(), issuesOpen+"/iss-2611300000000001-a.md", []byte("x"))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(temps(t, dir.Path()), []string{".abcd/.work.local/tmp/" + legacy, ".abcd/.work.local/tmp/" + live}),
		"the dead writer's and the old temp are gone; a live writer's and a fresh nameless one stay")
}

// StrayTemps lists what a killed writer left: in the staging folder (git-ignored) and beside a
// record (where git would commit it), never a live writer's fresh temp, and removes nothing.
func TestStrayTempsListsDeadWritersTempsAndRemovesNothing(t *testing.T) {
	dead := fmt.Sprintf("%s%d-%016x", tempPrefix, deadPid(t), 1)
	live := fmt.Sprintf("%s%d-%016x", tempPrefix, os.Getpid(), 2)
	legacy := tempPrefix + "00000000000000ff"
	dir := stagedRepo(t,
		fs.WithFile(dead, "x"),
		fs.WithDir(".work.local", fs.WithDir("tmp", fs.WithFile(dead, "x"), fs.WithFile(live, "x")),
			fs.WithDir("run", fs.WithDir("run-1", fs.WithFile(dead, "ignored and not walked")))),
		fs.WithDir("development", fs.WithDir("intents", fs.WithDir("drafts", fs.WithFile(legacy, "x"), fs.WithFile(live, "x")))))
	long := time.Now().Add(-2 * staleAfter)
	assert.NilError(t, os.Chtimes(dir.Join(".abcd", "development", "intents", "drafts", legacy), long, long))
	before := temps(t, dir.Path())

	got, err := Records{Dir: dir.Path()}.StrayTemps(context.Background())
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(got, []ports.StrayTemp{
		{Path: ".abcd/" + dead},
		{Path: ".abcd/.work.local/tmp/" + dead, Ignored: true},
		{Path: ".abcd/development/intents/drafts/" + legacy},
	}))
	assert.Check(t, is.DeepEqual(temps(t, dir.Path()), before))

	empty, err := Records{Dir: fs.NewDir(t, "bare").Path()}.StrayTemps(context.Background())
	assert.NilError(t, err)
	assert.Check(t, is.Len(empty, 0))
}

func TestTempNamesCarryTheWritersPid(t *testing.T) {
	name := tempName()
	pid, ok := tempWriter(name)
	assert.Check(t, ok && pid == os.Getpid(), name)
	for _, bad := range []string{tempPrefix + "00000000000000ff", tempPrefix + "-1-ab", tempPrefix + "x-ab", tempPrefix + "0-ab", tempPrefix + "+7-ab",
		tempPrefix + "07-ab", tempPrefix + "99999999999-ab", "other-12-ab"} {
		_, ok := tempWriter(bad)
		assert.Check(t, !ok, bad)
	}
}

// A symlinked record is refused as a link, with its own code, by Read and by a listing.
func TestASymlinkedRecordIsRefusedAsALink(t *testing.T) {
	outside := fs.NewDir(t, "outside", fs.WithFile("real.md", "---\nid: iss-2611300000000002\n---\n"))
	dir := stagedRepo(t)
	link := issuesOpen + "/iss-2611300000000002-l.md"
	assert.NilError(t, os.Symlink(outside.Join("real.md"), dir.Join(filepath.FromSlash(link))))
	r := Records{Dir: dir.Path()}
	_, err := r.Read(context.Background(), link)
	re, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(re.Code, refusal.CodeRecordSymlink))
	assert.Check(t, is.Equal(re.What, link))
	assert.Check(t, is.Contains(re.Remedy.String(), "replace the link"))

	files, err := r.List(context.Background(), issuesOpen, "iss", 0)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(files, 1))
	re, ok = refusal.As(files[0].Err)
	assert.Assert(t, ok, "%v", files[0].Err)
	assert.Check(t, is.Equal(re.Code, refusal.CodeRecordSymlink))
}

// Every lock waits what it is given (the configuration's lock.wait_ms, read by the core) before
// contention: the record's, a run's and the machine folder's alike.
func TestEveryLockWaitsWhatItIsGiven(t *testing.T) {
	dir := stagedRepo(t)
	ctx := context.Background()
	const short = 60 * time.Millisecond
	runs := Runs{Dir: dir.Path()}
	_, err := runs.Create(ctx, "run-1")
	assert.NilError(t, err)
	home := filepath.Join(t.TempDir(), "h")
	setup := Setup{Dir: dir.Path(), Home: home}
	assert.NilError(t, setup.UpdateMachineFile(ctx, "config.json", time.Hour, func([]byte, bool) ([]byte, error) { return []byte("{}"), nil }))
	for _, c := range []struct {
		code string
		lock func(wait time.Duration) (func(), error)
	}{
		{"record_locked", func(wait time.Duration) (func(), error) { return Records{Dir: dir.Path()}.Lock(ctx, wait) }},
		{"run_locked", func(wait time.Duration) (func(), error) { return runs.Lock(ctx, "run-1", wait) }},
		{"machine_locked", func(wait time.Duration) (func(), error) {
			return func() {}, setup.UpdateMachineFile(ctx, "config.json", wait, func([]byte, bool) ([]byte, error) { return nil, nil })
		}},
	} {
		t.Run(c.code, func(t *testing.T) {
			var unlock func()
			if c.code == "machine_locked" {
				unlock, err = held(t, home).lock(ctx, 0)
			} else {
				unlock, err = c.lock(time.Hour)
			}
			assert.NilError(t, err)
			start := time.Now()
			_, err := c.lock(short)
			waited := time.Since(start)
			re, ok := refusal.As(err)
			assert.Assert(t, ok, "%v", err)
			assert.Check(t, is.Equal(string(re.Code), c.code))
			assert.Check(t, is.Equal(re.Kind, refusal.Contention))
			assert.Check(t, is.Contains(re.Why, "60ms"))
			assert.Check(t, waited >= short && waited < time.Hour/2, "waited %s: the wait given, not another", waited)
			_, err = c.lock(0)
			re, ok = refusal.As(err)
			assert.Assert(t, ok, "%v", err)
			assert.Check(t, is.Contains(re.Why, "right now"), "no wait: one try")
			unlock()
			unlock, err = c.lock(0)
			assert.NilError(t, err, "free again once released")
			unlock()
		})
	}
}

// killHelperEnv names the repository a helper process writes in until it is killed.
const killHelperEnv = "ABCD_FILES_KILL_HELPER"

// TestMain lets the test binary serve as the writer TestKilledWritersLeaveNoTempGitSees kills.
func TestMain(m *testing.M) {
	if repo := os.Getenv(killHelperEnv); repo != "" {
		killHelper(repo)
		return
	}
	if repo := os.Getenv(workerHelperEnv); repo != "" {
		workerHelper(repo)
		return
	}
	os.Exit(m.Run())
}

// killHelper writes records for ever: creates, replaces and moves, each record's content one line
// repeated, so a torn file shows.
func killHelper(repo string) {
	ctx := context.Background()
	r := Records{Dir: repo}
	for i := 0; ; i++ {
		n := rand.IntN(4) + 1
		open := fmt.Sprintf("%s/iss-261130000000000%d-k.md", issuesOpen, n)
		closed := fmt.Sprintf(".abcd/work/issues/closed/iss-261130000000000%d-k.md", n)
		body := []byte(strings.Repeat(fmt.Sprintf("write %d of %d\n", i, os.Getpid()), 2000))
		switch i % 3 {
		case 0:
			_, _ = r.Create(ctx, open, body)
		case 1:
			_ = r.Replace(ctx, open, body)
		case 2:
			_ = Journal{Dir: repo}.Commit(ctx, ports.Change{Verb: "issue_close", Record: "iss-k",
				Files: []ports.FileChange{{Path: closed, Data: body}, {Path: open, Remove: true}}})
			_ = os.Remove(filepath.Join(repo, filepath.FromSlash(closed)))
		}
	}
}

// Writers killed with SIGKILL at random points never leave a temp where git sees it, never a torn
// record, and the next write removes every temp they left in the staging folder.
func TestKilledWritersLeaveNoTempGitSees(t *testing.T) {
	kills := 200
	if testing.Short() {
		kills = 25
	}
	dir := stagedRepo(t)
	self, err := os.Executable()
	assert.NilError(t, err)
	left := 0
	for range kills {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), killHelperEnv+"="+dir.Path())
		assert.NilError(t, cmd.Start())
		time.Sleep(time.Duration(2+rand.IntN(15)) * time.Millisecond)
		assert.NilError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		for _, p := range temps(t, dir.Path()) {
			assert.Assert(t, strings.HasPrefix(p, ".abcd/.work.local/tmp/"), "a temp where git sees it: %s", p)
			left++
		}
		for _, folder := range []string{"open", "closed"} {
			entries, err := os.ReadDir(dir.Join(".abcd", "work", "issues", folder))
			assert.NilError(t, err)
			for _, e := range entries {
				data := mustRead(t, dir.Join(".abcd", "work", "issues", folder, e.Name()))
				line, _, _ := strings.Cut(string(data), "\n")
				assert.Assert(t, string(data) == strings.Repeat(line+"\n", 2000), "%s is torn", e.Name())
			}
		}
	}
	t.Logf("%d kills; %d temps left in the staging folder along the way", kills, left)
	_, err = Records{Dir: dir.Path()}.Create(context.Background(), issuesOpen+"/iss-2611300000000009-n.md", []byte("next"))
	assert.NilError(t, err)
	assert.Check(t, is.Len(temps(t, dir.Path()), 0), "the next writer removed them")
	strays, err := Records{Dir: dir.Path()}.StrayTemps(context.Background())
	assert.NilError(t, err)
	assert.Check(t, is.Len(strays, 0))
}

// A file name found in the staging folder is outside input: tempWriter reads a pid from it only when
// the name is exactly the prefix, a positive decimal pid, a dash and the rest, and never panics.
func FuzzTempWriter(f *testing.F) {
	for _, seed := range []string{tempName(), tempPrefix + "00000000000000ff", tempPrefix + "12-", tempPrefix + "-1-ab", tempPrefix + "+7-ab",
		tempPrefix + "99999999999999999999-ab", "iss-2611300000000001-a.md", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		pid, ok := tempWriter(name)
		if !ok {
			if pid != 0 {
				t.Fatalf("%q: pid %d without ok", name, pid)
			}
			return
		}
		if pid <= 0 || !strings.HasPrefix(name, fmt.Sprintf("%s%d-", tempPrefix, pid)) {
			t.Fatalf("%q: read pid %d", name, pid)
		}
	})
}
