package setup_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"
)

// sandboxed is what ahoy install --yes, then ahoy sandbox, did.
type sandboxed struct {
	install setup.AhoyInstallResult
	sandbox setup.AhoySandboxResult
}

// installSandbox runs ahoy install --yes over s, then (flag) ahoy sandbox.
func installSandbox(t *testing.T, s *fake.Setup, flag bool) (sandboxed, error) {
	t.Helper()
	a, _ := apptest.AhoyApp(s, &fake.Prompter{})
	res, err := apptest.Install(t, a, true)
	if err != nil || !flag {
		return sandboxed{install: res}, err
	}
	got, err := a.Call(context.Background(), "ahoy_sandbox", map[string]any{})
	if err != nil {
		return sandboxed{}, err
	}
	return sandboxed{install: res, sandbox: got.(setup.AhoySandboxResult)}, nil
}

func decodeObject(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	assert.NilError(t, json.Unmarshal(data, &doc), "%s", data)
	return doc
}

func TestHarnessSandboxFlagWritesClaudeCodesSandboxBlock(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	res, err := installSandbox(t, s, true)
	assert.NilError(t, err)
	golden.Assert(t, string(s.Files[setup.ClaudeSettingsRel]), "claude-settings-fresh.golden")
	assert.Check(t, s.Dirs[".claude"])
	assert.Check(t, is.DeepEqual(res.sandbox, setup.AhoySandboxResult{Root: apptest.AhoyRoot, File: setup.ClaudeSettingsRel, Status: "created"}))
	assert.Check(t, is.Contains(res.install.OptionalSkipped, "harness-sandbox"), "install --yes alone skips the offer")

	// Run again: nothing changes, and the step says the block is there.
	before := apptest.SetupStateOf(s)
	res, err = installSandbox(t, s, true)
	assert.NilError(t, err)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
	assert.DeepEqual(t, res.install.Written, []string{})
	assert.Check(t, is.Equal(res.sandbox.Status, "present"))
	// Without ahoy sandbox too: the block is found, not offered again nor listed as skipped.
	res, err = installSandbox(t, s, false)
	assert.NilError(t, err)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
	assert.Check(t, !is.Contains(res.install.OptionalSkipped, "harness-sandbox")().Success())

	// Uninstall takes out the file it made and the folder it made.
	un, err := apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(un.Removed, setup.ClaudeSettingsRel+" (sandbox)"))
	_, still := s.Files[setup.ClaudeSettingsRel]
	assert.Check(t, !still, "uninstall left the settings file it made")
	assert.Check(t, !s.Dirs[".claude"], "uninstall left the .claude folder it made")
}

func TestHarnessSandboxKeepsThePersonsSettingsAndUninstallPutsThemBack(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	mine := "{\n  \"permissions\": {\"allow\": [\"Bash(make test)\"]},\n  \"env\": {\"FOO\": \"1\"}\n}\n"
	s.Dirs[".claude"] = true
	s.Files[setup.ClaudeSettingsRel] = []byte(mine)
	_, err := installSandbox(t, s, true)
	assert.NilError(t, err)
	golden.Assert(t, string(s.Files[setup.ClaudeSettingsRel]), "claude-settings-merged.golden")

	_, err = apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.DeepEqual(t, decodeObject(t, s.Files[setup.ClaudeSettingsRel]), decodeObject(t, []byte(mine)))
	assert.Check(t, s.Dirs[".claude"], "the person's folder stays")
}

func TestHarnessSandboxUninstallKeepsABlockThePersonChanged(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	_, err := installSandbox(t, s, true)
	assert.NilError(t, err)
	doc := decodeObject(t, s.Files[setup.ClaudeSettingsRel])
	doc["sandbox"].(map[string]any)["autoAllowBashIfSandboxed"] = true
	changed, err := json.Marshal(doc)
	assert.NilError(t, err)
	s.Files[setup.ClaudeSettingsRel] = changed

	un, err := apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[setup.ClaudeSettingsRel]), string(changed))
	assert.Check(t, is.Contains(un.Kept, setup.ClaudeSettingsRel+" (sandbox)"))
}

func TestHarnessSandboxRefusesWhatItCannotMergeAndWritesNothing(t *testing.T) {
	cases := []struct {
		name, file, field string
	}{
		{"not JSON", "{\"permissions\": ", ""},
		{"not an object", "[1, 2]\n", ""},
		{"two documents", "{}\n{}\n", ""},
		{"the person's own sandbox block", "{\"sandbox\": {\"enabled\": false}}\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
			a, _ := apptest.AhoyApp(s, &fake.Prompter{})
			_, err := apptest.Install(t, a, true)
			assert.NilError(t, err)
			s.Dirs[".claude"] = true
			s.Files[setup.ClaudeSettingsRel] = []byte(c.file)
			before := apptest.SetupStateOf(s)
			_, err = a.Call(context.Background(), "ahoy_sandbox", map[string]any{})
			r := apptest.AssertRefusal(t, err, "file_invalid")
			assert.Check(t, is.Contains(r.Why, setup.ClaudeSettingsRel))
			assert.Check(t, is.Contains(r.Why, "nothing was written"))
			assert.Check(t, is.Equal(r.Field, c.field))
			assert.DeepEqual(t, apptest.SetupStateOf(s), before)
		})
	}
}

func TestHarnessSandboxWithoutTheFlagLeavesThePersonsBlockAlone(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	s.Dirs[".claude"] = true
	s.Files[setup.ClaudeSettingsRel] = []byte("{\"sandbox\": {\"enabled\": false}}\n")
	_, err := installSandbox(t, s, false)
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[setup.ClaudeSettingsRel]), "{\"sandbox\": {\"enabled\": false}}\n")
	_, err = apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[setup.ClaudeSettingsRel]), "{\"sandbox\": {\"enabled\": false}}\n")
}

func TestHarnessSandboxAskedInATerminal(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	p := &fake.Prompter{TTY: true, Answers: []bool{true, true, false, false, true}}
	a, _ := apptest.AhoyApp(s, p)
	res, err := apptest.Install(t, a, false)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(p.Questions, 5))
	assert.Check(t, is.Contains(p.Questions[4], "sandbox"))
	assert.Check(t, is.Contains(res.Written, setup.ClaudeSettingsRel))
	golden.Assert(t, string(s.Files[setup.ClaudeSettingsRel]), "claude-settings-fresh.golden")
}

// A settings file abcd cannot read is not offered a block, and install goes on without touching it.
func TestHarnessSandboxInstallGoesOnBesideAnUnreadableSettingsFile(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	s.Dirs[".claude"] = true
	s.Files[setup.ClaudeSettingsRel] = []byte("{not json")
	p := &fake.Prompter{TTY: true, Answers: []bool{true, true, false, false, true}}
	a, _ := apptest.AhoyApp(s, p)
	res, err := apptest.Install(t, a, false)
	assert.NilError(t, err)
	assert.Check(t, is.Len(p.Questions, 4), "the sandbox was offered: %v", p.Questions)
	assert.Equal(t, string(s.Files[setup.ClaudeSettingsRel]), "{not json")
	assert.Check(t, is.Contains(res.OptionalSkipped, "harness-sandbox"))
}

// withRuns puts three runs in s as abcd lays them out: one whose lanes have started (a folder of
// briefs and a worktree each in the lanes' folder), one with its state alone, one an earlier abcd
// started (its worktree inside its run's folder), a state that does not decode, and a file of the
// person's in .abcd/.
func withRuns(s *fake.Setup) {
	runs := fake.NewRuns()
	state := func(run string, lanes ...string) {
		var ls []string
		for _, l := range lanes {
			ls = append(ls, `{"id": "`+l+`"}`)
		}
		data := []byte(`{"run": "` + run + `", "lanes": [` + strings.Join(ls, ", ") + `]}`)
		s.Files[".abcd/.work.local/run/"+run+"/state.json"] = data
		runs.Files[".abcd/.work.local/run/"+run+"/state.json"] = data
	}
	state("run-1", "lane-1", "lane-2", "integration")
	state("run-2", "lane-1")
	state("run-3", "lane-1")
	for _, f := range []string{
		".abcd/.work.local/run/run-1/lane-1/step-1/brief.md",
		".abcd-lanes/.gitignore",
		".abcd-lanes/run-1/lane-1/.git",
		".abcd-lanes/run-1/lane-1/main.go",
		".abcd-lanes/run-1/lane-2/.git",
		".abcd/.work.local/run/run-1/workers/w-1.lock",
		".abcd/.work.local/run/run-3/worktrees/lane-1/.git",
		".abcd/.work.local/run/not-a-run/state.json",
		".abcd/notes.txt",
	} {
		s.Files[f] = []byte("x")
	}
	s.Files[".abcd/.work.local/run/run-4/state.json"] = []byte("x")
	runs.Files[".abcd/.work.local/run/run-4/state.json"] = []byte("x")
	apptest.AhoyRuns[s] = runs
}

func denyWriteOf(t *testing.T, s *fake.Setup) []any {
	t.Helper()
	doc := decodeObject(t, s.Files[setup.ClaudeSettingsRel])
	return doc["sandbox"].(map[string]any)["filesystem"].(map[string]any)["denyWrite"].([]any)
}

// The block denies .abcd whole, .git, .claude, the lanes' folder's .gitignore and the .git file of
// every lane a run's state names, made yet or not: never a worktree nor the lanes' folder.
func TestHarnessSandboxDeniesAbcdWholeAndEachLanesGitFile(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	withRuns(s)
	_, err := installSandbox(t, s, true)
	assert.NilError(t, err)
	assert.DeepEqual(t, denyWriteOf(t, s), []any{
		".git", ".claude", ".abcd", ".abcd-lanes/.gitignore",
		".abcd-lanes/run-1/integration/.git",
		".abcd-lanes/run-1/lane-1/.git",
		".abcd-lanes/run-1/lane-2/.git",
		".abcd-lanes/run-2/lane-1/.git",
		".abcd-lanes/run-3/lane-1/.git",
	})
}

// A run that appears after the block was written is added by ahoy sandbox run again (as a run's
// save does); the same runs again change nothing.
func TestHarnessSandboxWrittenAgainForNewRunsAndOnlyThen(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	_, err := installSandbox(t, s, true)
	assert.NilError(t, err)
	assert.DeepEqual(t, denyWriteOf(t, s), []any{".git", ".claude", ".abcd", ".abcd-lanes/.gitignore"})
	withRuns(s)
	res, err := installSandbox(t, s, true)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.sandbox.Status, "present"))
	assert.Check(t, is.Contains(denyWriteOf(t, s), ".abcd-lanes/run-2/lane-1/.git"))
	assert.Check(t, is.Contains(denyWriteOf(t, s), ".abcd-lanes/run-1/lane-2/.git"))
	before := apptest.SetupStateOf(s)
	_, err = installSandbox(t, s, true)
	assert.NilError(t, err)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)

	un, err := apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(un.Removed, setup.ClaudeSettingsRel+" (sandbox)"))
	_, still := s.Files[setup.ClaudeSettingsRel]
	assert.Check(t, !still, "uninstall left the block the runs rewrote")
}

// The blocks earlier versions wrote (.abcd whole; then each entry of .abcd/ on the way to the
// worktrees inside it) are abcd's: brought up to date, and taken out by uninstall; a block whose
// denyWrite names anything beyond .git, .claude, .abcd/ and the lanes' folder is the person's.
func TestHarnessSandboxRecognisesItsEarlierBlockAndNoOther(t *testing.T) {
	old := func(deny ...any) []byte {
		block := setup.ClaudeSandboxBlock(apptest.AhoyHome, nil)
		block["filesystem"].(map[string]any)["denyWrite"] = deny
		data, err := json.Marshal(map[string]any{"sandbox": block})
		assert.NilError(t, err)
		return data
	}
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	a, _ := apptest.AhoyApp(s, &fake.Prompter{})
	_, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	s.Dirs[".claude"] = true
	for _, earlier := range [][]any{{".abcd", ".git"}, {".git", ".claude", ".abcd/.gitignore", ".abcd/.work.local/journal.json",
		".abcd/.work.local/run/run-1/state.json", ".abcd/.work.local/run/run-1/worktrees/lane-1/.git", ".abcd/guard.json"}} {
		s.Files[setup.ClaudeSettingsRel] = old(earlier...)
		got, err := a.Call(context.Background(), "ahoy_sandbox", map[string]any{})
		assert.NilError(t, err)
		assert.Check(t, is.Equal(got.(setup.AhoySandboxResult).Status, "present"))
		assert.Check(t, is.DeepEqual(denyWriteOf(t, s), []any{".git", ".claude", ".abcd", ".abcd-lanes/.gitignore"}), "brought up to date: %v", earlier)
	}

	for _, theirs := range [][]any{{".abcd", ".git", "secrets"}, {".abcd/../src", ".git"}, {".git", ".abcd/x/../../y"}, {".git", ".abcd-lanes/../src"}, {".git", ".abcd-lanes2/x"}} {
		s.Files[setup.ClaudeSettingsRel] = old(theirs...)
		before := apptest.SetupStateOf(s)
		_, err := a.Call(context.Background(), "ahoy_sandbox", map[string]any{})
		apptest.AssertRefusal(t, err, "file_invalid")
		assert.DeepEqual(t, apptest.SetupStateOf(s), before)
		un, err := apptest.Uninstall(t, apptest.BareApp(s))
		assert.NilError(t, err)
		assert.Check(t, is.Contains(un.Kept, setup.ClaudeSettingsRel+" (sandbox)"), "%v", theirs)
		assert.Equal(t, string(s.Files[setup.ClaudeSettingsRel]), string(old(theirs...)))
	}
}

// A folder of runs abcd cannot list is an error, never a block written in part.
func TestHarnessSandboxFolderItCannotListIsAnError(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	withRuns(s)
	boom := errors.New("permission denied")
	s.Faults = map[string]error{".abcd/.work.local/run": boom}
	a, _ := apptest.AhoyApp(s, &fake.Prompter{})
	_, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	before := apptest.SetupStateOf(s)
	_, err = a.Call(context.Background(), "ahoy_sandbox", map[string]any{})
	assert.Check(t, errors.Is(err, boom), "%v", err)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
}
