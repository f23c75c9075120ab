package guard_test

import (
	"context"
	"maps"
	"testing"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	guarduc "github.com/abcd-dev/abcd/ports/guard"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func allowApp(file string, p *fake.Prompter) (*app.App, *fake.Setup) {
	a, _ := guardApp(file, "")
	if p != nil {
		a.Prompter = p
	}
	return a, a.Setup.(*fake.Setup)
}

func runAllow(t *testing.T, a *app.App, in guarduc.GuardAllowInput) (guarduc.GuardAllowResult, error) {
	t.Helper()
	return guarduc.GuardAllow(context.Background(), app.DepsOf[*guarduc.Deps](context.Background(), a), &in)
}

func TestGuardAllowAsksThePersonThenAllowsExactlyThatFile(t *testing.T) {
	p := &fake.Prompter{TTY: true, Answers: []bool{true}}
	a, setup := allowApp(apptest.LowerRoot, p)
	res, err := runAllow(t, a, guarduc.GuardAllowInput{})
	assert.NilError(t, err)
	assert.Check(t, res.Allowed && res.Changed)
	assert.Equal(t, res.File, "/work/repo/.abcd/guard.json")
	assert.Equal(t, res.SHA256, guard.Digest([]byte(apptest.LowerRoot)))
	assert.DeepEqual(t, res.Weakens, []string{"lowers rule rm-recursive-root from block to warn"})
	assert.Assert(t, is.Len(p.Shown, 1))
	assert.Check(t, is.Contains(p.Shown[0], "lowers rule rm-recursive-root from block to warn"), "the person sees what they allow")
	assert.Assert(t, is.Len(p.Questions, 1))

	f, err := guard.DecodeAllowFile("allow", setup.Machine[guard.AllowFileName])
	assert.NilError(t, err)
	assert.DeepEqual(t, f.Allow, []guard.AllowEntry{{File: "/work/repo/.abcd/guard.json", SHA256: guard.Digest([]byte(apptest.LowerRoot))}})
	v := runGuard(t, a, "rm -rf /srv")
	assert.Equal(t, v.Decision, "warn", "the allowed file is in force")

	// Allowing again changes nothing; revoking removes it, and the built-in rules stand again.
	p.Answers = []bool{true}
	res, err = runAllow(t, a, guarduc.GuardAllowInput{})
	assert.NilError(t, err)
	assert.Check(t, res.Allowed && !res.Changed)
	res, err = runAllow(t, a, guarduc.GuardAllowInput{Revoke: true})
	assert.NilError(t, err)
	assert.Check(t, res.Changed && !res.Allowed)
	assert.Equal(t, runGuard(t, a, "rm -rf /srv").Decision, "block")
}

func TestGuardAllowNeedsAPersonAtATerminal(t *testing.T) {
	for name, p := range map[string]*fake.Prompter{"no terminal (an agent's shell)": {TTY: false}, "no prompter (MCP)": nil} {
		t.Run(name, func(t *testing.T) {
			a, setup := allowApp(apptest.DisableRoot, p)
			if p == nil {
				a.Prompter = nil
			}
			before := maps.Clone(setup.Machine)
			_, err := runAllow(t, a, guarduc.GuardAllowInput{})
			r, ok := refusal.As(err)
			assert.Assert(t, ok, "%v", err)
			assert.Equal(t, r.Code, refusal.CodeGuardAllowPerson)
			assert.Equal(t, r.Kind, refusal.Refused)
			assert.DeepEqual(t, setup.Machine, before)
		})
	}
}

func TestGuardAllowRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		file    string
		answers []bool
		code    string
	}{
		"declined": {apptest.DisableRoot, []bool{false}, "consent_declined"},
		"missing":  {"", nil, "guard_file_missing"},
		"broken":   {`{"schema_version":1,"enabled":"no"}`, nil, "guard_file_broken"},
	} {
		t.Run(name, func(t *testing.T) {
			a, setup := allowApp(tc.file, &fake.Prompter{TTY: true, Answers: tc.answers})
			_, err := runAllow(t, a, guarduc.GuardAllowInput{})
			r, ok := refusal.As(err)
			assert.Assert(t, ok, "%v", err)
			assert.Equal(t, string(r.Code), tc.code)
			assert.Check(t, is.Len(setup.Machine, 0), "nothing written")
		})
	}
}

func TestGuardAllowOfAStricterFileWritesNothing(t *testing.T) {
	p := &fake.Prompter{TTY: true}
	a, setup := allowApp(apptest.AddRule, p)
	res, err := runAllow(t, a, guarduc.GuardAllowInput{})
	assert.NilError(t, err)
	assert.Check(t, !res.Allowed && !res.Changed)
	assert.Check(t, is.Len(res.Weakens, 0))
	assert.Check(t, is.Contains(res.Next, "stands without an allow"))
	assert.Check(t, is.Len(p.Questions, 0), "nothing to ask")
	assert.Check(t, is.Len(setup.Machine, 0))
}

func TestGuardAllowKeepsOtherFilesAndRefusesABrokenAllowFile(t *testing.T) {
	other := guard.AllowEntry{File: "/other/.abcd/guard.json", SHA256: guard.Digest([]byte("x"))}
	a, setup := allowApp(apptest.DisableRoot, &fake.Prompter{TTY: true, Answers: []bool{true}})
	data, err := guard.AllowFile{Allow: []guard.AllowEntry{other}}.Encode()
	assert.NilError(t, err)
	setup.Machine[guard.AllowFileName] = data
	_, err = runAllow(t, a, guarduc.GuardAllowInput{})
	assert.NilError(t, err)
	f, err := guard.DecodeAllowFile("allow", setup.Machine[guard.AllowFileName])
	assert.NilError(t, err)
	assert.Check(t, is.Len(f.Allow, 2))
	assert.Equal(t, f.Allow[0], other)

	setup.Machine[guard.AllowFileName] = []byte(`{"schema_version":1,"allow":[],"x":1}`)
	before := maps.Clone(setup.Machine)
	_, err = runAllow(t, a, guarduc.GuardAllowInput{Revoke: true})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Code, refusal.CodeGuardAllowFileBroken)
	assert.DeepEqual(t, setup.Machine, before)
}
