package dod

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// fencedWorld is a checkout, a file beside it, and a home holding a key.
type fencedWorld struct {
	root, checkout, home string
	environ              []string
}

func newFencedWorld(t *testing.T) fencedWorld {
	t.Helper()
	root := t.TempDir()
	w := fencedWorld{root: root, checkout: filepath.Join(root, "checkout"), home: filepath.Join(root, "home")}
	assert.NilError(t, os.MkdirAll(filepath.Join(w.home, ".ssh"), 0o700))
	assert.NilError(t, os.WriteFile(filepath.Join(w.home, ".ssh", "id_ed25519"), []byte("KEY canary\n"), 0o600))
	assert.NilError(t, os.Mkdir(w.checkout, 0o700))
	assert.NilError(t, os.WriteFile(filepath.Join(root, "beside.txt"), []byte("the person's\n"), 0o600))
	w.environ = []string{"PATH=/usr/bin:/bin", "HOME=" + w.home, "GOFLAGS=-count=1", "SECRET_TOKEN=sk-abcd-canary", "LD_PRELOAD=/nonexistent.so"}
	return w
}

// The tree lives under /tmp, which every fence hides: its root is shown, as a checkout outside /tmp
// is seen as it is.
func (w fencedWorld) policy() *ports.SandboxPolicy {
	return &ports.SandboxPolicy{Role: ports.SandboxRoleDoD, Write: []string{w.checkout}, Show: []string{w.root}}
}

// The definition of done abcd runs on a runner's work writes its checkout and nothing else, reads no
// key, and sees only the runner-style environment and the names it was given.
func TestTheDefinitionOfDoneRunsInsideTheFence(t *testing.T) {
	w := newFencedWorld(t)
	r := Runner{Environ: func() []string { return w.environ }}
	res, err := r.RunFenced(context.Background(), ports.DoDRun{Dir: w.checkout, Timeout: time.Minute, Env: []string{"GOFLAGS"}, Sandbox: w.policy(),
		Command: `echo built > out.txt && echo "env: $(env | cut -d= -f1 | sort | tr '\n' ' ')"; ` +
			`echo changed > ../beside.txt || echo "beside: refused"; cat "$HOME/.ssh/id_ed25519" || echo "key: refused"; touch "$TMPDIR/scratch" && echo "tmp: ok"`})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 0), res.Tail)
	assert.Check(t, is.Equal(res.Problem, ""))
	assert.Check(t, strings.Contains(res.Tail, "beside: refused"), res.Tail)
	assert.Check(t, strings.Contains(res.Tail, "key: refused"), res.Tail)
	assert.Check(t, strings.Contains(res.Tail, "tmp: ok"), res.Tail)
	assert.Check(t, !strings.Contains(res.Tail, "canary"), res.Tail)
	_, env, found := strings.Cut(res.Tail, "env: ")
	assert.Assert(t, found, res.Tail)
	env, _, _ = strings.Cut(env, "\n")
	assert.Check(t, is.Equal(env, "GIT_EDITOR GIT_PAGER GIT_TERMINAL_PROMPT GOFLAGS HOME NO_COLOR PAGER PATH PWD TERM TMPDIR "))
	data, err := os.ReadFile(filepath.Join(w.checkout, "out.txt"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(data), "built\n"))
	data, err = os.ReadFile(filepath.Join(w.root, "beside.txt"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(data), "the person's\n"))
	assert.Assert(t, res.Sandbox != nil)
	assert.Check(t, is.Equal(res.Sandbox.Kind, runner.SandboxLinux))
	assert.Check(t, is.Contains(res.Sandbox.Writable, w.checkout))
	assert.Check(t, is.Contains(res.Sandbox.Hidden, filepath.Join(w.home, ".ssh")))
	assert.Check(t, is.DeepEqual(res.Sandbox.Network, []string{}))
}

// A fence this machine cannot build runs nothing, and says what is missing; one the person turned off
// runs unconfined and says so.
func TestAFenceThatCannotBeBuiltRunsNothing(t *testing.T) {
	w := newFencedWorld(t)
	r := Runner{Environ: func() []string { return w.environ }, Fence: sandbox.New(sandbox.Options{MinABI: 99})}
	run := ports.DoDRun{Dir: w.checkout, Timeout: time.Minute, Command: "echo ran > ran.txt", Sandbox: w.policy()}
	res, err := r.RunFenced(context.Background(), run)
	assert.NilError(t, err)
	assert.Check(t, res.Unavailable)
	assert.Check(t, is.Equal(res.ExitCode, -1))
	assert.Check(t, strings.Contains(res.Problem, "Landlock ABI 99"), res.Problem)
	assert.Check(t, res.Sandbox == nil)
	_, err = os.Stat(filepath.Join(w.checkout, "ran.txt"))
	assert.Check(t, os.IsNotExist(err), "the command ran")

	run.Sandbox = &ports.SandboxPolicy{Off: true}
	res, err = r.RunFenced(context.Background(), run)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ExitCode, 0), res.Tail)
	assert.Assert(t, res.Sandbox != nil)
	assert.Check(t, is.Equal(res.Sandbox.Kind, runner.SandboxOff))
	_, err = os.Stat(filepath.Join(w.checkout, "ran.txt"))
	assert.NilError(t, err, "the command did not run unconfined")
}
