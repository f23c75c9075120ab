package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// The real CLIs take an implementer's step inside the fence: the stand-in's address is the one
// endpoint allowed, the worktree the one root written (its .git read-only) beside the CLI's state
// folders under the settings home abcd gives it (the policy names none; the rest of that home and the
// test's own home are read-only or hidden); every step still completes, and the guard's hook still
// answers first.
func TestHarnessTheRealCLIsImplementInsideTheFence(t *testing.T) {
	for _, c := range clis(t) {
		if c.editModel != "" {
			c.model = c.editModel
		}
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			w := newHarness(t, c, c.implement)
			api, err := domain.EndpointOf(w.api.URL)
			assert.NilError(t, err)
			beside := filepath.Join(filepath.Dir(w.work), "beside.txt")
			assert.NilError(t, os.WriteFile(beside, []byte("the person's\n"), 0o600))
			req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyImplement, Model: w.c.model, Limits: w.r.Limits,
				Sandbox: &ports.SandboxPolicy{Role: ports.SandboxRoleImplementer, Write: []string{w.work}, Protect: []string{filepath.Join(w.work, ".git")},
					Endpoints: []domain.Endpoint{api}}}
			o, err := w.a.Step(context.Background(), req)
			assert.NilError(t, err)
			assert.NilError(t, o.Receipt.Check())
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
			data, err := os.ReadFile(filepath.Join(w.work, "hello.txt"))
			assert.NilError(t, err)
			assert.Check(t, is.Equal(string(data), "hello\n"))
			assert.Check(t, is.Contains(requestText(w.api, 3), "abcd guard blocked this command (rule git-push-force)"), "the guard's hook blocked the force push")
			data, err = os.ReadFile(beside)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(string(data), "the person's\n"))
			sb := o.Receipt.Sandbox
			assert.Assert(t, sb != nil)
			assert.Check(t, is.Equal(sb.Kind, domain.SandboxLinux))
			assert.Check(t, is.DeepEqual(sb.Network, []string{api.String()}))
			// What it wrote beside the worktree and its temporary folder is its state, in abcd's home.
			for _, root := range sb.Writable {
				if root != w.work && !strings.Contains(root, "abcd-tmp-") {
					home := filepath.Dir(root)
					assert.Check(t, strings.Contains(home, "abcd-runner-") && is.Contains(c.kind.StateFolders(home), root)().Success(), "%s writable", root)
				}
			}
			t.Logf("%s: %+v", c.kind, *sb)
		})
	}
}
