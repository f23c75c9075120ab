package setup_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func recordFolderPaths() []string {
	var out []string
	for _, f := range record.Folders() {
		out = append(out, f.Dir)
	}
	return out
}

func stepCategories(steps []setup.AhoyStep) []string {
	out := []string{}
	for _, s := range steps {
		out = append(out, s.Category)
	}
	return out
}

var ahoyCategories = []string{"record", "local-work", "oracle-routing-machine", "oracle-routing-repository"}

// decodeRoutingStrict decodes a routing file refusing unknown members and trailing content.
func decodeRoutingStrict(t *testing.T, data []byte) oracle.RoutingFile {
	t.Helper()
	var rf oracle.RoutingFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(&rf), "routing file: %s", data)
	assert.Assert(t, !dec.More(), "routing file has trailing content: %s", data)
	return rf
}

func TestAhoyInstallYesLaysDownTheRequiredStepsOnly(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	p := &fake.Prompter{TTY: true}
	a, log := apptest.AhoyApp(s, p)

	res, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	assert.Check(t, is.Len(log.Events, 0), "--yes asks nothing and shows nothing: %v", log.Events)
	assert.Equal(t, res.Root, apptest.AhoyRoot)

	// The record folders, each one a folder the fake holds.
	assert.Check(t, s.Dirs[".abcd"])
	for _, d := range recordFolderPaths() {
		assert.Check(t, s.Dirs[d], "record folder %s not created", d)
	}

	// .abcd/config.json: valid JSON with schema_version 1 and setup_version 1, nothing else.
	data, ok := s.Files[".abcd/config.json"]
	assert.Assert(t, ok, ".abcd/config.json not written")
	var cfg map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	assert.NilError(t, dec.Decode(&cfg), "%s", data)
	assert.Assert(t, !dec.More())
	assert.DeepEqual(t, cfg, map[string]json.RawMessage{
		"schema_version": json.RawMessage("1"),
		"setup_version":  json.RawMessage("1"),
	})

	// .abcd/.gitignore keeps the local run state out of git.
	gi, ok := s.Files[".abcd/.gitignore"]
	assert.Assert(t, ok, ".abcd/.gitignore not written")
	assert.Check(t, is.Contains(string(gi), "/.work.local/"))

	// No routing file anywhere: --yes skips both offers and says so.
	assert.Check(t, is.Len(s.Machine, 0))
	_, repoRouting := s.Files[apptest.AhoyRepoRouting]
	assert.Check(t, !repoRouting, "--yes wrote the repository routing file")
	assert.DeepEqual(t, res.OptionalSkipped, []string{"oracle-routing-machine", "oracle-routing-repository", "harness-sandbox"})
	_, settings := s.Files[setup.ClaudeSettingsRel]
	assert.Check(t, !settings, "--yes alone turned the harness's sandbox on")

	// The steps come in the fixed order, and say what they did.
	assert.DeepEqual(t, stepCategories(res.Steps), ahoyCategories)
	assert.DeepEqual(t, apptest.StepStatus(res.Steps), map[string]string{
		"record": "created", "local-work": "created",
		"oracle-routing-machine": "skipped", "oracle-routing-repository": "skipped",
	})
	assert.Check(t, res.Steps[0].Required && res.Steps[1].Required)
	assert.Check(t, !res.Steps[2].Required && !res.Steps[3].Required)
	assert.Check(t, is.Contains(res.Written, ".abcd/config.json"))
	assert.Check(t, is.Contains(res.Written, ".abcd/.gitignore"))
	assert.Check(t, is.Contains(res.Written, ".gitattributes"))
	assert.Check(t, is.Contains(res.Steps[0].Paths, "git config merge.abcd.driver"), "the merge driver is part of the record's step: %v", res.Steps[0].Paths)
	for _, w := range res.Written {
		assert.Check(t, !strings.Contains(w, "oracle-routing"), "written: %v", res.Written)
	}
}

func TestAhoyInstallAsksInOrderAndShowsTheProposalFirst(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	// yes to record, yes to local work, yes to the machine table, no to the repository table.
	p := &fake.Prompter{TTY: true, Answers: []bool{true, true, true, false}}
	a, log := apptest.AhoyApp(s, p)

	res, err := apptest.Install(t, a, false)
	assert.NilError(t, err)

	assert.Assert(t, is.Len(p.Questions, 5), "questions: %v", p.Questions)
	assert.Check(t, is.Contains(p.Questions[0], ".abcd/config.json"), "first the record: %q", p.Questions[0])
	assert.Check(t, is.Contains(p.Questions[0], "merge driver"), "the record's question names its merge driver: %q", p.Questions[0])
	assert.Check(t, is.Contains(p.Questions[1], ".abcd/.gitignore"), "then local work: %q", p.Questions[1])
	assert.Check(t, is.Contains(p.Questions[2], apptest.AhoyMachineRouting), "then the machine table: %q", p.Questions[2])
	assert.Check(t, is.Contains(p.Questions[3], apptest.AhoyRepoRouting), "then the repository table: %q", p.Questions[3])
	assert.Check(t, is.Contains(p.Questions[4], setup.ClaudeSettingsRel), "last Claude Code's sandbox: %q", p.Questions[4])

	// The proposal table is shown once, right before the machine question.
	assert.Assert(t, is.Len(log.Events, 6), "events: %v", log.Events)
	assert.Check(t, strings.HasPrefix(log.Events[2], "show: "), "the table comes before the machine question: %v", log.Events)
	assert.Check(t, strings.HasPrefix(log.Events[3], "ask: ") && strings.Contains(log.Events[3], apptest.AhoyMachineRouting), "%v", log.Events)
	table := strings.TrimPrefix(log.Events[2], "show: ")
	assert.Check(t, regexp.MustCompile(`(?m)AGENT\s+TIER\s+FAN-OUT`).MatchString(table), "table heading missing:\n%s", table)
	proposal := oracle.Proposal()
	assert.Assert(t, len(proposal) == 3, "the proposal names the three shipped agents")
	for name, row := range proposal {
		line := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `\s+` + regexp.QuoteMeta(string(row.Tier)) + `\s+1\s*$`)
		assert.Check(t, line.MatchString(table), "table has no row %s %s %d:\n%s", name, row.Tier, row.FanOut, table)
	}

	// Yes to the machine writes the machine file only, holding the proposal as a table.
	data, ok := s.Machine["oracle-routing.json"]
	assert.Assert(t, ok, "machine routing file not written")
	assert.DeepEqual(t, decodeRoutingStrict(t, data), oracle.RoutingFile{SchemaVersion: 1, Agents: oracle.Proposal()})
	_, repoRouting := s.Files[apptest.AhoyRepoRouting]
	assert.Check(t, !repoRouting, "no to the repository wrote it anyway")
	assert.DeepEqual(t, apptest.StepStatus(res.Steps), map[string]string{
		"record": "created", "local-work": "created",
		"oracle-routing-machine": "created", "oracle-routing-repository": "declined",
	})
	assert.Check(t, is.Contains(res.Written, apptest.AhoyMachineRouting))

	// A second install asks the repository question and the sandbox's again; a yes to the first
	// writes that file.
	p2 := &fake.Prompter{TTY: true, Answers: []bool{true, false}}
	a2, log2 := apptest.AhoyApp(s, p2)
	machineBefore := string(s.Machine["oracle-routing.json"])
	res2, err := apptest.Install(t, a2, false)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(p2.Questions, 2), "questions: %v", p2.Questions)
	assert.Check(t, is.Contains(p2.Questions[0], apptest.AhoyRepoRouting))
	assert.Check(t, is.Len(p2.Shown, 0), "the machine table is present: nothing to show: %v", log2.Events)
	repoData, ok := s.Files[apptest.AhoyRepoRouting]
	assert.Assert(t, ok, "a yes to the repository question did not write it")
	assert.DeepEqual(t, decodeRoutingStrict(t, repoData), oracle.RoutingFile{SchemaVersion: 1, Agents: oracle.Proposal()})
	assert.Equal(t, string(s.Machine["oracle-routing.json"]), machineBefore)
	assert.DeepEqual(t, res2.Written, []string{apptest.AhoyRepoRouting})
	assert.DeepEqual(t, apptest.StepStatus(res2.Steps), map[string]string{
		"record": "present", "local-work": "present",
		"oracle-routing-machine": "present", "oracle-routing-repository": "created",
	})
}

func TestAhoyInstallDecliningARequiredStepWritesNothing(t *testing.T) {
	cases := []struct {
		name     string
		answers  []bool
		asked    int
		category string
	}{
		{"record declined", []bool{false, true, true, true}, 1, "record"},
		{"local work declined", []bool{true, false, true, true}, 2, "local-work"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
			before := apptest.SetupStateOf(s)
			p := &fake.Prompter{TTY: true, Answers: c.answers}
			a, _ := apptest.AhoyApp(s, p)

			_, err := apptest.Install(t, a, false)
			r := apptest.AssertRefusal(t, err, "consent_declined")
			assert.Check(t, is.Contains(r.Why, c.category))
			assert.Check(t, is.Contains(r.Remedy.String(), "run ahoy_install"))
			assert.Check(t, is.Len(p.Questions, c.asked), "asked after a required step was declined: %v", p.Questions)
			assert.DeepEqual(t, apptest.SetupStateOf(s), before)
		})
	}
}

func TestAhoyInstallDecliningRoutingWritesNothingAndOffersAgain(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	p := &fake.Prompter{TTY: true, Answers: []bool{true, true, false, false, false}}
	a, _ := apptest.AhoyApp(s, p)
	res, err := apptest.Install(t, a, false)
	assert.NilError(t, err)
	assert.Check(t, is.Len(s.Machine, 0), "a declined machine table was written")
	_, repoRouting := s.Files[apptest.AhoyRepoRouting]
	assert.Check(t, !repoRouting, "a declined repository table was written")
	assert.Check(t, !s.Dirs[".abcd/config"], "a declined repository table left its folder")
	assert.DeepEqual(t, apptest.StepStatus(res.Steps), map[string]string{
		"record": "created", "local-work": "created",
		"oracle-routing-machine": "declined", "oracle-routing-repository": "declined",
	})
	for _, w := range res.Written {
		assert.Check(t, !strings.Contains(w, "oracle-routing"), "written: %v", res.Written)
	}

	// Next time both offers come again, the table before the machine question; the required steps
	// are in place and not asked about.
	before := apptest.SetupStateOf(s)
	p2 := &fake.Prompter{TTY: true, Answers: []bool{false, false, false}}
	a2, log2 := apptest.AhoyApp(s, p2)
	res2, err := apptest.Install(t, a2, false)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(p2.Questions, 3), "questions: %v", p2.Questions)
	assert.Check(t, is.Contains(p2.Questions[0], apptest.AhoyMachineRouting))
	assert.Check(t, is.Contains(p2.Questions[1], apptest.AhoyRepoRouting))
	assert.Check(t, is.Contains(p2.Questions[2], setup.ClaudeSettingsRel))
	assert.Check(t, is.Len(p2.Shown, 1))
	assert.Check(t, strings.HasPrefix(log2.Events[0], "show: "), "%v", log2.Events)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
	assert.DeepEqual(t, res2.Written, []string{})
}

func TestAhoyInstallReRunAfterAFullInstallIsIdempotent(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	a, _ := apptest.AhoyApp(s, &fake.Prompter{TTY: true, Answers: []bool{true, true, true, true, true}})
	_, err := apptest.Install(t, a, false)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(s.Machine, 1))
	_, ok := s.Files[apptest.AhoyRepoRouting]
	assert.Assert(t, ok)

	before := apptest.SetupStateOf(s)
	p := &fake.Prompter{TTY: true, Answers: []bool{false, false, false, false}}
	a2, log := apptest.AhoyApp(s, p)
	res, err := apptest.Install(t, a2, false)
	assert.NilError(t, err)
	assert.Check(t, is.Len(log.Events, 0), "a re-run asked or showed: %v", log.Events)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
	assert.DeepEqual(t, res.Written, []string{})
	assert.DeepEqual(t, res.OptionalSkipped, []string{})
	assert.DeepEqual(t, stepCategories(res.Steps), ahoyCategories)
	for _, st := range res.Steps {
		assert.Check(t, is.Equal(st.Status, "present"), st.Category)
	}

	// --yes on the same tree changes nothing either.
	res, err = apptest.Install(t, a2, true)
	assert.NilError(t, err)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
	assert.DeepEqual(t, res.Written, []string{})
}

func TestAhoyInstallYesTwiceIsIdempotent(t *testing.T) {
	s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
	a, _ := apptest.AhoyApp(s, &fake.Prompter{})
	_, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	before := apptest.SetupStateOf(s)
	res, err := apptest.Install(t, a, true)
	assert.NilError(t, err)
	assert.DeepEqual(t, apptest.SetupStateOf(s), before)
	assert.DeepEqual(t, res.Written, []string{})
	assert.DeepEqual(t, res.OptionalSkipped, []string{"oracle-routing-machine", "oracle-routing-repository", "harness-sandbox"})
}

func TestAhoyInstallNonInteractiveWithoutYesIsRefused(t *testing.T) {
	empty := apptest.SetupStateOf(fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome))
	t.Run("not a terminal", func(t *testing.T) {
		s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
		a, log := apptest.AhoyApp(s, &fake.Prompter{TTY: false, Answers: []bool{true, true, true, true}})
		_, err := apptest.Install(t, a, false)
		r := apptest.AssertRefusal(t, err, "consent_needed")
		assert.Check(t, is.Contains(r.Remedy.String(), `run ahoy_install with {"yes":true}`))
		assert.Check(t, is.Len(log.Events, 0), "a prompter that is not interactive was used: %v", log.Events)
		assert.DeepEqual(t, apptest.SetupStateOf(s), empty)
	})
	t.Run("no prompter at all", func(t *testing.T) {
		s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
		_, err := apptest.Install(t, apptest.BareApp(s), false)
		apptest.AssertRefusal(t, err, "consent_needed")
		assert.DeepEqual(t, apptest.SetupStateOf(s), empty)
	})
	t.Run("--yes needs no prompter", func(t *testing.T) {
		s := fake.NewSetup(apptest.AhoyRoot, apptest.AhoyHome)
		_, err := apptest.Install(t, apptest.BareApp(s), true)
		assert.NilError(t, err)
		assert.Check(t, s.Dirs[".abcd"])
	})
}

func TestAhoyOutsideGitIsRefused(t *testing.T) {
	for _, yes := range []bool{true, false} {
		s := fake.NewSetup("/work/scratch", apptest.AhoyHome)
		s.NotGit = true
		a, log := apptest.AhoyApp(s, &fake.Prompter{TTY: true, Answers: []bool{true, true, true, true}})
		_, err := apptest.Install(t, a, yes)
		r := apptest.AssertRefusal(t, err, "not_a_repository")
		assert.Check(t, is.Contains(r.Why, "/work/scratch"))
		assert.Check(t, is.Contains(r.Remedy.String(), "git init"))
		assert.Check(t, is.Len(log.Events, 0))
		assert.Check(t, is.Len(s.Dirs, 0))
		assert.Check(t, is.Len(s.Files, 0))
		assert.Check(t, is.Len(s.Machine, 0))
	}
	s := fake.NewSetup("/work/scratch", apptest.AhoyHome)
	s.NotGit = true
	_, err := apptest.Uninstall(t, apptest.BareApp(s))
	apptest.AssertRefusal(t, err, "not_a_repository")
}

func TestAhoyUninstallRemovesWhatInstallAddedAndKeepsThePersons(t *testing.T) {
	s := apptest.FullInstall(t)
	routingRepo := string(s.Files[apptest.AhoyRepoRouting])
	routingMachine := string(s.Machine["oracle-routing.json"])
	config := string(s.Files[".abcd/config.json"])

	res, err := apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.Equal(t, res.Root, apptest.AhoyRoot)

	// The unchanged .gitignore and every empty record folder go.
	_, gi := s.Files[".abcd/.gitignore"]
	assert.Check(t, !gi, ".abcd/.gitignore was not removed")
	assert.Check(t, is.Contains(res.Removed, ".abcd/.gitignore"))
	for _, d := range recordFolderPaths() {
		assert.Check(t, !s.Dirs[d], "empty record folder %s was not removed", d)
		assert.Check(t, is.Contains(res.Removed, d+"/"))
	}

	// The config file and both routing files stay, listed under kept.
	assert.Equal(t, string(s.Files[".abcd/config.json"]), config)
	assert.Equal(t, string(s.Files[apptest.AhoyRepoRouting]), routingRepo)
	assert.Equal(t, string(s.Machine["oracle-routing.json"]), routingMachine)
	assert.Check(t, is.Contains(res.Kept, ".abcd/config.json"))
	assert.Check(t, is.Contains(res.Kept, apptest.AhoyRepoRouting))
	assert.Check(t, is.Contains(res.Kept, apptest.AhoyMachineRouting))
	for _, k := range []string{".abcd/config.json", apptest.AhoyRepoRouting, apptest.AhoyMachineRouting} {
		assert.Check(t, !slices.Contains(res.Removed, k), "%s listed as removed", k)
	}
	assert.Check(t, s.Dirs[".abcd"], ".abcd/ removed while it holds the config")

	// Uninstall again: nothing more to remove, the person's files still kept.
	res, err = apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.DeepEqual(t, res.Removed, []string{})
	assert.Check(t, is.Contains(res.Kept, ".abcd/config.json"))
}

// What uninstall lists as kept it has looked at: a file or folder it cannot look at is an error, never
// left out of the list as if it were gone.
func TestAhoyUninstallSaysWhenItCannotLookAtWhatItKeeps(t *testing.T) {
	for _, name := range []string{".abcd/config.json", apptest.AhoyRepoRouting, "oracle-routing.json", ".abcd/.gitignore", ".abcd/work/issues/open"} {
		t.Run(name, func(t *testing.T) {
			s := apptest.FullInstall(t)
			if name == ".abcd/.gitignore" {
				s.Files[name] = append(s.Files[name], "/scratch/\n"...) // edited: uninstall keeps it, so looks
			}
			if name == ".abcd/work/issues/open" {
				s.Files[name+"/iss-0001-keep-me.md"] = []byte("---\nid: iss-0001\n---\n")
			}
			denied := errors.New("permission denied")
			s.Faults = map[string]error{name: denied}
			_, err := apptest.Uninstall(t, apptest.BareApp(s))
			assert.ErrorIs(t, err, denied)
		})
	}
}

func TestAhoyUninstallKeepsAnEditedGitignoreAndRecords(t *testing.T) {
	s := apptest.FullInstall(t)
	edited := string(s.Files[".abcd/.gitignore"]) + "/scratch/\n"
	s.Files[".abcd/.gitignore"] = []byte(edited)
	const issue = ".abcd/work/issues/open/iss-0001-keep-me.md"
	s.Files[issue] = []byte("---\nid: iss-0001\n---\n")

	res, err := apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)

	assert.Equal(t, string(s.Files[".abcd/.gitignore"]), edited, "an edited .gitignore was touched")
	assert.Check(t, !slices.Contains(res.Removed, ".abcd/.gitignore"), "removed: %v", res.Removed)

	// The folder holding a record stays (and its parents), listed as kept; its empty siblings go.
	assert.Equal(t, string(s.Files[issue]), "---\nid: iss-0001\n---\n")
	for _, d := range []string{".abcd/work/issues/open", ".abcd/work/issues", ".abcd/work"} {
		assert.Check(t, s.Dirs[d], "%s removed while it holds a record", d)
		assert.Check(t, is.Contains(res.Kept, d+"/"))
		assert.Check(t, !slices.Contains(res.Removed, d+"/"))
	}
	assert.Check(t, !s.Dirs[".abcd/work/issues/closed"])
	assert.Check(t, is.Contains(res.Removed, ".abcd/work/issues/closed/"))
	assert.Check(t, !s.Dirs[".abcd/development/intents/drafts"])
}

// The run folder is the runs' local state: while uninstall leaves it, it leaves the .gitignore that
// hides it from git, and says why; once it is gone, uninstall removes the .gitignore.
func TestAhoyUninstallKeepsTheRunFolderHidden(t *testing.T) {
	s := apptest.FullInstall(t)
	gitignore := string(s.Files[".abcd/.gitignore"])
	s.Dirs[".abcd/.work.local"] = true
	s.Files[".abcd/.work.local/run/run-2612010000001234/state.json"] = []byte("{}")

	res, err := apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	assert.Equal(t, string(s.Files[".abcd/.gitignore"]), gitignore, "the .gitignore went while the run folder stays")
	assert.Check(t, !slices.Contains(res.Removed, ".abcd/.gitignore"))
	assert.Check(t, is.Contains(res.Kept, ".abcd/.work.local/"))
	assert.Assert(t, is.Len(res.Notes, 1))
	assert.Check(t, is.Contains(res.Notes[0], ".abcd/.gitignore stays while .abcd/.work.local/ (the runs' local state) does"))
	assert.Check(t, s.Dirs[".abcd"])

	delete(s.Dirs, ".abcd/.work.local")
	delete(s.Files, ".abcd/.work.local/run/run-2612010000001234/state.json")
	res, err = apptest.Uninstall(t, apptest.BareApp(s))
	assert.NilError(t, err)
	_, kept := s.Files[".abcd/.gitignore"]
	assert.Check(t, !kept, "the .gitignore stayed once the run folder was gone")
	assert.Check(t, is.Contains(res.Removed, ".abcd/.gitignore"))
	assert.Check(t, is.Len(res.Notes, 0))
}
