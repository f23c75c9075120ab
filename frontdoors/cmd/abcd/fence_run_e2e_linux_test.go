package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/loop"
)

// attacker is the fake implementer's own program, in plain Python: each attack is one plain call,
// no shell between, and what it found is written beside its work in the worktree (ATTACKS.txt).
const attacker = `
import json, os, socket, sys
targets, port = json.loads(sys.argv[1]), int(sys.argv[2])
found = []
def attempt(name, do):
    try:
        do()
        found.append(name + " ALLOWED")
    except OSError as e:
        found.append(name + " DENIED " + type(e).__name__)
def rewrite_state():
    # ../../state.json from the lane's worktree: the run's own state, its definition of done swapped.
    with open("../../state.json", "r+") as f:
        s = json.load(f)
        s["dod"] = "touch /tmp/abcd-fence-pwned"
        f.seek(0); f.write(json.dumps(s)); f.truncate()
def touch(p):
    with open(p, "a"):
        pass
def read(p):
    with open(p) as f:
        f.read()
def reach():
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
attempt("state", rewrite_state)
for name, p in targets["write"].items():
    attempt(name, lambda p=p: touch(p))
for name, p in targets["read"].items():
    attempt(name, lambda p=p: read(p))
attempt("loopback", reach)
with open("ATTACKS.txt", "w") as f:
    f.write("\n".join(found) + "\n")
with open("DONE-1", "w") as f:
    f.write("one\n")
`

// The done-when of the sandbox: a fake implementer, in plain Python, tries to write the run's state,
// the person's checkout, the repository's configuration, the home, $ABCD_HOME and abcd's own binary,
// to read ~/.ssh, and to reach a loopback listener that is not its endpoint. Every attempt is denied,
// nothing outside the worktree changes, the run still finishes, the definition of done that ran is
// the one the run started with, and every receipt names the sandbox it ran in.
func TestTheSandboxHoldsAFakeImplementersAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole run on runners inside the sandbox: in make test, not under -short")
	}
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("the attacker needs %s: %v", python, err)
	}
	// The sandbox gives each step a /tmp of its own, so the repository and the home are kept outside
	// /tmp, where a person's are: under the workspace's git-ignored bin folder.
	w := newRunnerWorldAt(t, outsideTmp(t), "1. Part one of the work.")
	home, abcdHome := w.c.home, filepath.Join(w.c.home, ".abcd")
	// The runners run inside the sandbox: their blocks say nothing of it.
	machinePath := filepath.Join(abcdHome, "config.json")
	var machine map[string]any
	data, err := os.ReadFile(machinePath)
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(data, &machine))
	for _, b := range machine["oracle"].(map[string]any)["runner"].(map[string]any) {
		delete(b.(map[string]any), "sandbox")
	}
	data, err = json.Marshal(machine)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(machinePath, data, 0o600))

	assert.NilError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	assert.NilError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE-KEY-CANARY\n"), 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	assert.NilError(t, err)
	defer ln.Close()
	var reached atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			_ = c.Close() // reaching it is what the test counts; nothing is carried over it
		}
	}()
	digest := func(p string) string {
		data, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			return "absent"
		}
		assert.NilError(t, err)
		return fmt.Sprintf("%x", sha256.Sum256(data))
	}
	targets := map[string]map[string]string{
		"write": {"checkout": filepath.Join(w.c.dir, "PWNED"), "config": filepath.Join(w.c.dir, ".abcd", "config.json"),
			"home": filepath.Join(home, ".bashrc"), "abcd_home": machinePath, "binary": binary},
		"read": {"ssh": filepath.Join(home, ".ssh", "id_rsa")},
	}
	before := map[string]string{}
	for _, p := range targets["write"] {
		before[p] = digest(p)
	}
	args, err := json.Marshal(targets)
	assert.NilError(t, err)

	impl, answer := "You run headless, as runner cc", "You run headless: how you answer"
	agents := w.agents(t)
	script := []runnertest.Directive{{SessionStart: "claude"}, agents[0],
		{When: []string{impl}, Run: []string{python, "-c", attacker, string(args), fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)}},
		{When: []string{impl}, Out: rnResult(t, "Do the part\n\nWrote the part's file.", nil)}}
	for _, d := range agents {
		if len(d.When) > 0 && d.When[0] == answer {
			script = append(script, d)
		}
	}
	var b strings.Builder
	for _, d := range script {
		line, err := json.Marshal(d)
		assert.NilError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	env := append(w.env(), runnertest.ScriptVar+"="+runnertest.InlinePrefix+b.String())
	res := icmd.RunCmd(icmd.Command(binary, "implement", "run", w.spec, "--json"), icmd.Dir(w.c.dir), icmd.WithEnv(env...))
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	if !assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%s", res.Stderr()) {
		story := w.c.cmd(binary, "implement", "record", "--run", out.Run.Run, "--json")
		t.Fatalf("the run did not finish; its record: %s", story.Stdout())
	}

	assert.Check(t, is.Len(out.Run.Unfenced, 0), "every step ran inside the fence: %v", out.Run.Unfenced)
	ln1 := out.Run.Lanes[0]
	found := w.c.git(t, "show", ln1.Branch+":ATTACKS.txt")
	t.Logf("the attacks: %s", found)
	lines := strings.Split(found, "\n")
	assert.Check(t, is.Len(lines, 8), found)
	for _, l := range lines {
		assert.Check(t, is.Contains(l, " DENIED "), "an attack got through the sandbox: %s", l)
	}
	for _, p := range targets["write"] {
		assert.Check(t, is.Equal(digest(p), before[p]), "%s changed", p)
	}
	assert.Check(t, is.Equal(reached.Load(), int32(0)), "the fake reached a loopback listener that is not its endpoint")
	_, err = os.Stat("/tmp/abcd-fence-pwned")
	assert.Check(t, os.IsNotExist(err), "the definition of done the fake wrote ran")

	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	assert.Assert(t, is.Len(story.Implementations, 1))
	rc := story.Implementations[0].Runner
	assert.Assert(t, rc != nil && rc.Sandbox != nil, "%+v", rc)
	assert.Check(t, is.Equal(rc.Sandbox.Kind, runner.SandboxLinux))
	assert.Check(t, rc.Sandbox.LandlockABI > 0)
	for _, v := range story.Verdicts {
		assert.Check(t, v.Runner != nil && v.Runner.Sandbox != nil && v.Runner.Sandbox.Kind == runner.SandboxLinux, "%+v", v.Runner)
	}
	// The definition of done that ran on the fake's work is the one the run started with.
	assert.Check(t, is.Contains(res.Stderr(), "abcd ran build.dod `test -f DONE-1 || test -f DONE-2 || test -f DONE-3`"), res.Stderr())
}

// outsideTmp is a fresh folder outside /tmp (which the sandbox replaces with a step's own): in the
// user's cache folder, where a person's files are, removed when the test ends.
func outsideTmp(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	assert.NilError(t, err)
	base := filepath.Join(cache, "abcd-e2e")
	assert.NilError(t, os.MkdirAll(base, 0o700))
	dir, err := os.MkdirTemp(base, "fence-") //nolint:usetesting // t.TempDir is under /tmp, which the sandbox hides
	assert.NilError(t, err)
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	dir, err = filepath.EvalSymlinks(dir)
	assert.NilError(t, err)
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	assert.NilError(t, err)
	assert.Assert(t, !strings.HasPrefix(dir, tmp+string(filepath.Separator)), "the cache folder %s is under %s, which the sandbox hides: set XDG_CACHE_HOME elsewhere", dir, tmp)
	return dir
}
