//go:build unix

// Package soak runs the built binary as parallel agents do: several processes writing the record
// and driving one run at once. Short by default (a few seconds, in `make test`); `make soak` runs the
// same tests for a sustained period (-soak=5m).
package soak

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/frontdoors/abcdtest"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// soakFor is how long the soak tests keep going; 0 is one short round each.
var soakFor = flag.Duration("soak", 0, "run the soak tests for this long (0: one short round)")

// binary is abcd, built for this run.
var binary string

func TestMain(m *testing.M) {
	// Started again by abcd as a runner's CLI, this binary plays the fake Claude Code.
	runnertest.FakeMain()
	flag.Parse()
	dir, err := os.MkdirTemp("", "abcd-soak-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// abcd and, beside it, the helper that holds its history store.
	bins, err := abcdtest.Build(dir, "", "github.com/abcd-dev/abcd/frontdoors/cmd/abcd", "github.com/abcd-dev/abcd/frontdoors/cmd/abcd-history")
	if err != nil {
		fmt.Fprintln(os.Stderr, errors.Join(err, os.RemoveAll(dir)))
		os.Exit(1)
	}
	binary = bins[0]
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "removing the test binaries:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// writers is how many processes write at once: the parallel sub-agents of one harness.
const writers = 8

// repo is a temporary git repository after `abcd ahoy install --yes`, with its own $HOME.
type repo struct {
	t    *testing.T
	root string
	env  []string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	dir := t.TempDir()
	r := &repo{t: t, root: filepath.Join(dir, "repo")}
	home := filepath.Join(dir, "home")
	assert.NilError(t, os.MkdirAll(r.root, 0o755))
	assert.NilError(t, os.MkdirAll(home, 0o700))
	r.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ABCD_HOME=" + home, "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com"}
	r.git(r.root, "init", "-q", "-b", "main")
	r.git(r.root, "commit", "-q", "--allow-empty", "-m", "base")
	r.ok("ahoy", "install", "--yes")
	return r
}

func (r *repo) path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(r.root, filepath.FromSlash(rel))
}

func (r *repo) write(rel, body string) {
	r.t.Helper()
	assert.NilError(r.t, os.MkdirAll(filepath.Dir(r.path(rel)), 0o755))
	assert.NilError(r.t, os.WriteFile(r.path(rel), []byte(body), 0o644))
}

func (r *repo) git(dir string, args ...string) string {
	r.t.Helper()
	out, err := r.gitErr(dir, args...)
	assert.NilError(r.t, err)
	return out
}

// gitErr runs git in dir; safe from several goroutines.
func (r *repo) gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// result is one abcd process: its exit code, its one JSON document, and how long it ran.
type result struct {
	args []string
	code int
	doc  map[string]any
	raw  []byte
	took time.Duration
}

// refusal is a refusal document's code and kind ("" when the process succeeded).
func (res result) refusal() (code, kind string) {
	c, _ := res.doc["code"].(string)
	k, _ := res.doc["kind"].(string)
	return c, k
}

// run runs abcd --json; safe from several goroutines (it asserts nothing).
func (r *repo) run(args ...string) result {
	cmd := exec.Command(binary, append(args, "--json")...)
	cmd.Dir, cmd.Env = r.root, r.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	res := result{args: args, code: cmd.ProcessState.ExitCode(), raw: out.Bytes(), took: time.Since(start)}
	if err != nil && res.code < 0 {
		res.code, res.raw = -1, []byte(err.Error())
		return res
	}
	_ = json.Unmarshal(out.Bytes(), &res.doc)
	return res
}

// ok runs abcd and requires exit 0.
func (r *repo) ok(args ...string) map[string]any {
	r.t.Helper()
	res := r.run(args...)
	assert.Assert(r.t, res.code == 0, "abcd %s: exit %d: %s", strings.Join(args, " "), res.code, res.raw)
	return res.doc
}

// tally checks every process of a concurrent burst: exit 0, or exit 3 as contention on a lock
// (record_locked, run_locked) only once the wait had run out. It returns how many were turned away.
type tally struct {
	mu      sync.Mutex
	wait    time.Duration
	ran     int
	busy    int
	longest time.Duration
	faults  []string
}

func (ty *tally) add(res result) bool {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	ty.ran++
	ty.longest = max(ty.longest, res.took)
	switch code, kind := res.refusal(); {
	case res.code == 0:
		return true
	case res.code == 3 && kind == "contention" && (code == "record_locked" || code == "run_locked") && res.took >= ty.wait:
		ty.busy++
	default:
		ty.faults = append(ty.faults, fmt.Sprintf("abcd %s: exit %d after %s: %s", strings.Join(res.args, " "), res.code, res.took, res.raw))
	}
	return false
}

func (ty *tally) check(t *testing.T) {
	t.Helper()
	for _, f := range ty.faults {
		t.Error(f)
	}
}

// issues lists the issue files and their ids.
func (r *repo) issues() map[string]string {
	r.t.Helper()
	out := map[string]string{}
	dir := r.path(".abcd/work/issues/open")
	entries, err := os.ReadDir(dir)
	assert.NilError(r.t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		assert.NilError(r.t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if id, ok := strings.CutPrefix(line, "id: "); ok {
				out[e.Name()] = id
				break
			}
		}
	}
	return out
}

// noStrays requires no temporary file anywhere in the repository but abcd's git-ignored folder, and
// lint to find nothing at error level.
func (r *repo) noStrays() {
	r.t.Helper()
	_ = filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".abcd-tmp-") {
			rel, _ := filepath.Rel(r.root, p)
			assert.Check(r.t, strings.HasPrefix(filepath.ToSlash(rel), layout.Local+"/"), "a temp git sees: %s", rel)
		}
		return nil
	})
	lint := r.ok("lint")
	assert.Check(r.t, is.Equal(lint["errors"], float64(0)), "%v", lint["findings"])
}

// TestEightCapturesAtOnce: eight `abcd capture` processes started together in one repository all
// exit 0, each writes its issue, and no two issues share an id: the record's lock makes them queue.
func TestEightCapturesAtOnce(t *testing.T) {
	r := newRepo(t)
	ty := &tally{wait: 3 * time.Second}
	want := 0
	deadline := time.Now().Add(*soakFor)
	for round := 0; ; round++ {
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ty.add(r.run("capture", fmt.Sprintf("round %d writer %d noticed a thing", round, w)))
			}()
		}
		wg.Wait()
		want += writers
		if (*soakFor == 0 && round == 4) || (*soakFor > 0 && time.Now().After(deadline)) {
			break
		}
	}
	ty.check(t)
	assert.Check(t, is.Equal(ty.busy, 0), "a writer gave up within the default wait")
	got := r.issues()
	assert.Check(t, is.Len(got, want))
	ids := map[string]string{}
	for file, id := range got {
		assert.Check(t, ids[id] == "", "%s and %s share id %s", ids[id], file, id)
		ids[id] = file
	}
	r.noStrays()
	t.Logf("%d captures, %d at a time: all exited 0, %d distinct ids; the slowest took %s", ty.ran, writers, len(ids), ty.longest)
}

// holdRecordLock takes the record's lock (an flock on .abcd, as abcd takes it), from this process, as
// another abcd in the middle of a write would, until the returned release is called.
func (r *repo) holdRecordLock() (release func()) {
	r.t.Helper()
	f, err := os.Open(r.path(".abcd"))
	assert.NilError(r.t, err)
	assert.NilError(r.t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	return func() { assert.Check(r.t, f.Close()) } // a folder opened for reading: closing it releases the lock and loses nothing
}

// burst runs eight captures at once and returns them.
func (r *repo) burst(what string) []result {
	out := make([]result, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[w] = r.run("capture", fmt.Sprintf("%s: writer %d", what, w))
		}()
	}
	wg.Wait()
	return out
}

// TestExitThreeOnlyOnceTheWaitRunsOut: writers wait lock.wait_ms for a held lock. Held longer than
// that, every one exits 3 (contention, record_locked), none before its wait ran out, and none
// writes; held for less, every one waits its turn and writes. Too short a wait for eight writers
// turns some away, each only after its wait, and every other writes.
func TestExitThreeOnlyOnceTheWaitRunsOut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a lock bound: without -short")
	}
	r := newRepo(t)
	const wait = time.Second
	r.write(".abcd/config.json", fmt.Sprintf(`{"schema_version":1,"setup_version":1,"lock":{"wait_ms":%d}}`, wait.Milliseconds()))

	// Held until every writer has ended: however slowly a loaded machine starts them, each waits its
	// whole wait for a lock that never comes.
	release := r.holdRecordLock()
	for _, res := range r.burst("held past the wait") {
		code, kind := res.refusal()
		assert.Check(t, res.code == 3 && kind == "contention" && code == "record_locked", "exit %d: %s", res.code, res.raw)
		assert.Check(t, res.took >= wait, "gave up after %s, before its wait of %s", res.took, wait)
	}
	release()
	assert.Check(t, is.Len(r.issues(), 0), "a writer turned away wrote")

	// Held for a tenth of a wait long enough for eight writers in turn on a loaded machine: every
	// one waits its turn and writes.
	r.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"lock":{"wait_ms":20000}}`)
	release = r.holdRecordLock()
	time.AfterFunc(2*time.Second, release)
	for _, res := range r.burst("held within the wait") {
		assert.Check(t, res.code == 0, "exit %d after %s: %s", res.code, res.took, res.raw)
	}
	assert.Check(t, is.Len(r.issues(), writers))

	r.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"lock":{"wait_ms":0}}`)
	ty := &tally{}
	wrote := 0
	for range 5 {
		for _, res := range r.burst("no wait") {
			if ty.add(res) {
				wrote++
			}
		}
	}
	ty.check(t)
	assert.Check(t, is.Len(r.issues(), writers+wrote), "every writer not turned away wrote")
	r.noStrays()
	t.Logf("lock.wait_ms %d: a lock held past it turned %d writers away, none before %s; lock.wait_ms 0: %d of %d exited 3",
		wait.Milliseconds(), writers, wait, ty.busy, ty.ran)
}
