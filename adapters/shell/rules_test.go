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

// TestRepositoryPlaceGlobs: a repository's own rule names places as the built-in ones do, and
// catches every spelling of a write to them.
func TestRepositoryPlaceGlobs(t *testing.T) {
	builtin, err := guard.Builtin()
	assert.NilError(t, err)
	file, err := guard.Decode("guard.json", []byte(`{"schema_version":1,"rules":[{"id":"no-prod-env","tier":"block","all":[{"redirect":["{repo}/deploy/prod.env"],"exact":true}],
		"why":"the release process changes it","safer":"edit deploy/staging.env","bad":["echo X=1 >> deploy/prod.env"],"good":["cat deploy/prod.env"]}]}`))
	assert.NilError(t, err)
	reg, err := guard.Compile(builtin, &file)
	assert.NilError(t, err)
	for _, line := range []string{"echo X=1 >> deploy/prod.env", "cd deploy && sed -i s/a/b/ prod.env", "cp x /home/dev/proj/deploy/./prod.env", "rm -rf deploy", "tee deploy/prod.env < x"} {
		assert.Check(t, hasRule(checkIn(t, reg, line, fixtureCtx), "no-prod-env"), "%q", line)
	}
	for _, line := range []string{"cat deploy/prod.env", "cp deploy/prod.env /tmp/", "echo x > deploy/staging.env"} {
		assert.Check(t, !hasRule(checkIn(t, reg, line, fixtureCtx), "no-prod-env"), "%q", line)
	}
}

// TestFindingsNameTheRuleThatFired: a rule matches only what it is about. A bare redirect is no
// command, so no command's rule fires for it; a lone unknown word cannot be both rm's -r and the
// folder it removes.
func TestFindingsNameTheRuleThatFired(t *testing.T) {
	reg := registry(t)
	for _, line := range []string{"> /tmp/out.txt", "> /dev/null", "2>&1 >/dev/null", `rm "$f"`, `rm -f "$f"`, `rm -- "$1"`, `$CMD`, `"$EDITOR" notes.md`} {
		v := check(t, reg, line)
		assert.Check(t, len(v.Findings) == 0, "%q: %+v", line, v.Findings)
	}
	v := check(t, reg, "> /dev/sda")
	assert.Check(t, v.Rule == "redirect-disk-device" && len(v.Findings) == 1, "%+v", v.Findings)
	v = check(t, reg, "rm $X")
	assert.Check(t, v.Decision == "warn" && !v.Certain, "an unquoted unknown word may split into -rf and /: %+v", v)
}
