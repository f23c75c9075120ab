package apptest

import (
	"context"
	"maps"
	"testing"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
)

const (
	AhoyRoot           = "/work/repo"
	AhoyHome           = "/home/ada/.abcd"
	AhoyMachineRouting = "/home/ada/.abcd/oracle-routing.json"
	AhoyRepoRouting    = ".abcd/config/oracle-routing.json"
)

// ahoyLog is a fake.Prompter that also keeps one log of what was shown and asked, in order, so a test
// can see the proposal table come before the question it explains.
type ahoyLog struct {
	*fake.Prompter
	Events []string
}

func (p *ahoyLog) Show(text string) {
	p.Events = append(p.Events, "show: "+text)
	p.Prompter.Show(text)
}

func (p *ahoyLog) Confirm(ctx context.Context, q string) (bool, error) {
	p.Events = append(p.Events, "ask: "+q)
	return p.Prompter.Confirm(ctx, q)
}

func AhoyApp(s *fake.Setup, p *fake.Prompter) (*app.App, *ahoyLog) {
	log := &ahoyLog{Prompter: p}
	a := BareApp(s)
	a.Prompter = log
	return a, log
}

// AhoyGits keeps each fake repository's git config across the apps a test makes over it.
var AhoyGits = map[*fake.Setup]*fake.Git{}

// AhoyRuns are the runs' states a test puts beside a fake repository, read by the sandbox block.
var AhoyRuns = map[*fake.Setup]*fake.Runs{}

// BareApp is an App over s with no prompter: its git (config), its runs when a test gave some, and
// how git runs abcd again.
func BareApp(s *fake.Setup) *app.App {
	g, ok := AhoyGits[s]
	if !ok {
		g = fake.NewGit("c0")
		AhoyGits[s] = g
	}
	a := &app.App{Setup: s, Git: g, Config: fake.Config{}, Self: func() string { return "abcd" }}
	if r, ok := AhoyRuns[s]; ok {
		a.Runs = r
	}
	return a
}

func Install(t *testing.T, a *app.App, yes bool) (setup.AhoyInstallResult, error) {
	t.Helper()
	res, err := a.Call(context.Background(), "ahoy_install", map[string]any{"yes": yes})
	if err != nil {
		return setup.AhoyInstallResult{}, err
	}
	return res.(setup.AhoyInstallResult), nil
}

func Uninstall(t *testing.T, a *app.App) (setup.AhoyUninstallResult, error) {
	t.Helper()
	res, err := a.Call(context.Background(), "ahoy_uninstall", map[string]any{})
	if err != nil {
		return setup.AhoyUninstallResult{}, err
	}
	return res.(setup.AhoyUninstallResult), nil
}

// SetupState is a deep copy of everything a fake.Setup holds, to compare before and after.
type SetupState struct {
	Dirs    map[string]bool
	Files   map[string]string
	Machine map[string]string
	Git     map[string]string
}

func SetupStateOf(s *fake.Setup) SetupState {
	st := SetupState{Dirs: maps.Clone(s.Dirs), Files: map[string]string{}, Machine: map[string]string{}, Git: map[string]string{}}
	if g := AhoyGits[s]; g != nil {
		maps.Copy(st.Git, g.Config)
	}
	for k, v := range s.Files {
		st.Files[k] = string(v)
	}
	for k, v := range s.Machine {
		st.Machine[k] = string(v)
	}
	return st
}

// AssertRefusal checks err is a refusal (exit 2) with the code, and returns it.
func AssertRefusal(t *testing.T, err error, code refusal.Code) *refusal.Error {
	t.Helper()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal with code %s, got %v", code, err)
	assert.Equal(t, r.Code, code)
	assert.Equal(t, r.Kind, refusal.Refused)
	assert.Equal(t, r.Kind.ExitCode(), 2)
	assert.Assert(t, (r.What != "" || r.Verb != "") && r.Why != "" && len(r.Remedy) > 0, "a refusal names what, why and the remedy: %+v", r)
	return r
}

func StepStatus(steps []setup.AhoyStep) map[string]string {
	out := map[string]string{}
	for _, s := range steps {
		out[s.Category] = s.Status
	}
	return out
}

// FullInstall installs everything: required steps, both routing files and the harness's sandbox.
func FullInstall(t *testing.T) *fake.Setup {
	t.Helper()
	s := fake.NewSetup(AhoyRoot, AhoyHome)
	a, _ := AhoyApp(s, &fake.Prompter{TTY: true, Answers: []bool{true, true, true, true, true}})
	_, err := Install(t, a, false)
	assert.NilError(t, err)
	return s
}
