package codex

import (
	"slices"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
)

// Inside abcd's fence Codex runs without its own sandbox, whose bubblewrap cannot map a user
// namespace there; outside it, its own sandbox stays: read-only for a reviewer, workspace-write for
// the implementer.
func TestCodexDropsItsOwnSandboxInsideTheFence(t *testing.T) {
	for _, c := range []struct {
		policy domain.Policy
		fenced bool
		want   string
	}{
		{domain.PolicyRead, false, "--sandbox=read-only"},
		{domain.PolicyImplement, false, "--sandbox=workspace-write"},
		{domain.PolicyRead, true, "--sandbox=danger-full-access"},
		{domain.PolicyImplement, true, "--sandbox=danger-full-access"},
	} {
		cmd, err := Dialect{}.Invocation(runner.Invocation{Dir: "/w", Private: "/p", Policy: c.policy, Guard: []string{"/bin/abcd", "guard", "hook"}, Fenced: c.fenced})
		assert.NilError(t, err)
		assert.Check(t, slices.Contains(cmd.Args, c.want), "%s fenced=%v: %v", c.policy, c.fenced, cmd.Args)
	}
}
