package shell

import (
	"slices"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/guard"
)

// Fixtures run as if in a repository at /home/dev/proj, home /home/dev.
var fixtureCtx = guard.Context{Cwd: "/home/dev/proj", Repo: "/home/dev/proj", Machine: "/home/dev/.abcd"}

func registry(t testing.TB) *guard.Registry {
	t.Helper()
	f, err := guard.Builtin()
	assert.NilError(t, err)
	reg, err := guard.Compile(f, nil)
	assert.NilError(t, err)
	return reg
}

func check(t testing.TB, reg *guard.Registry, line string) guard.Verdict {
	t.Helper()
	return checkIn(t, reg, line, fixtureCtx)
}

func checkIn(t testing.TB, reg *guard.Registry, line string, ctx guard.Context) guard.Verdict {
	t.Helper()
	l, err := Reader{Home: "/home/dev"}.ReadLine(line)
	assert.NilError(t, err)
	return reg.Evaluate(l, ctx)
}

func usesClass(r guard.Rule, class string) bool {
	for _, c := range r.All {
		if slices.Contains(c.Class, class) {
			return true
		}
	}
	return false
}

func hasRule(v guard.Verdict, id string) bool {
	for _, f := range v.Findings {
		if f.Rule == id {
			return true
		}
	}
	return false
}

// TestRuleFixtures runs every built-in rule's own fixtures: each bad line is matched by the rule,
// each good line is not.
func TestRuleFixtures(t *testing.T) {
	reg := registry(t)
	f, _ := guard.Builtin()
	for _, r := range f.Rules {
		t.Run(r.ID, func(t *testing.T) {
			// A rule about the guard file's state is checked in that state, and never fires outside it.
			ctx := fixtureCtx
			if usesClass(r, "guard-unallowed") {
				ctx.Unallowed = true
				for _, bad := range r.Bad {
					assert.Check(t, !hasRule(checkIn(t, reg, bad, fixtureCtx), r.ID), "%q matched %s while the guard file is allowed", bad, r.ID)
				}
			}
			for _, bad := range r.Bad {
				v := checkIn(t, reg, bad, ctx)
				assert.Check(t, hasRule(v, r.ID), "bad fixture %q is not matched by %s: %+v", bad, r.ID, v.Findings)
			}
			for _, good := range r.Good {
				v := checkIn(t, reg, good, ctx)
				assert.Check(t, !hasRule(v, r.ID), "good fixture %q is matched by %s: %+v", good, r.ID, v.Findings)
			}
		})
	}
}
