package record_test

import (
	"context"
	"path"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func teamWorld(t *testing.T) (apptest.RecWorld, *fake.Git) {
	t.Helper()
	w := apptest.NewRecWorld(t)
	g := fake.NewGit("c0")
	g.Tracked = map[string]bool{}
	for p := range w.R.Files {
		g.Tracked[p] = true
	}
	w.A.Git = g
	return w, g
}

func recPath(t *testing.T, w apptest.RecWorld, id string) string {
	t.Helper()
	for p := range w.R.Files {
		if got, ok := record.IDOfFileName(p); ok && got == id {
			return p
		}
	}
	t.Fatalf("no file carries %s", id)
	return ""
}

func TestAMoveIsStagedInGitAsARename(t *testing.T) {
	w, g := teamWorld(t)
	from := recPath(t, w, w.OpenSpec)
	moved := apptest.RecRun[recorduc.MoveResult](t, w.A, "spec_close", map[string]any{"ref": w.OpenSpec})
	assert.DeepEqual(t, g.Staged, [][2]string{{from, moved.To}})
	assert.Check(t, g.Tracked[moved.To] && !g.Tracked[from])

	// A record git does not track is moved and left for the person to add.
	delete(g.Tracked, recPath(t, w, w.Issue))
	apptest.RecRun[recorduc.MoveResult](t, w.A, "issue_close", map[string]any{"ref": w.Issue, "why": "fixed"})
	assert.Check(t, is.Len(g.Staged, 1))

	// intent ship and intent plan stage theirs too.
	shipFrom := recPath(t, w, w.Shippable)
	ship := apptest.RecRun[recorduc.MoveResult](t, w.A, "intent_ship", map[string]any{"ref": w.Shippable})
	plan := apptest.RecRun[recorduc.IntentPlanResult](t, w.A, "intent_plan", map[string]any{"ref": w.Draft})
	assert.DeepEqual(t, g.Staged[1:], [][2]string{{shipFrom, ship.To}, {plan.From, plan.To}})
}

func TestFinishMoveKeepsTheLaterCopyWithWhatBothHold(t *testing.T) {
	w, g := teamWorld(t)
	open := recPath(t, w, w.Issue)
	closed := ".abcd/work/issues/closed/" + path.Base(open)
	// One branch closed the issue; the other, whose move did not finish, wrote a note in the open copy.
	data, err := record.SetLifecycle(w.R.Files[open], "closed")
	assert.NilError(t, err)
	data, err = record.AppendToSection(data, record.SectionResolution, "Fixed in 1a2b3c4.")
	assert.NilError(t, err)
	w.R.Files[closed] = data
	w.R.Files[open], err = record.AppendToSection(w.R.Files[open], record.SectionNotes, "It is the terminal's resize event.")
	assert.NilError(t, err)
	lint := apptest.RecRun[recorduc.LintResult](t, w.A, "lint", map[string]any{})
	assert.Check(t, is.Equal(lint.Errors, 2), "%+v", lint.Findings)

	res := apptest.RecRun[recorduc.RecordFinishMoveResult](t, w.A, "record_finish_move", map[string]any{"ref": w.Issue})
	assert.Check(t, is.Equal(res.Record.Path, closed))
	assert.Check(t, is.Equal(res.Record.Lifecycle, "closed"))
	assert.DeepEqual(t, res.Removed, []string{open})
	_, left := w.R.Files[open]
	assert.Check(t, !left)
	is2, err := record.ParseIssue(closed, w.R.Files[closed])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(is2.Front.Lifecycle, "closed"))
	assert.Check(t, strings.Contains(string(w.R.Files[closed]), "Fixed in 1a2b3c4."))
	assert.Check(t, strings.Contains(string(w.R.Files[closed]), "It is the terminal's resize event."))
	assert.DeepEqual(t, g.Staged, [][2]string{{open, closed}})
	lint = apptest.RecRun[recorduc.LintResult](t, w.A, "lint", map[string]any{})
	assert.Check(t, is.Equal(lint.Errors, 0), "%+v", lint.Findings)

	// Nothing left to finish.
	_, err = w.A.Call(context.Background(), "record_finish_move", map[string]any{"ref": w.Issue})
	apptest.RecRefused(t, err, refusal.Refused, "record_not_moved")
}

func TestFinishMoveRefusesCopiesThatDifferWhereNoRuleDecides(t *testing.T) {
	w, _ := teamWorld(t)
	open := recPath(t, w, w.Issue)
	closed := ".abcd/work/issues/closed/" + path.Base(open)
	data, err := record.SetLifecycle(w.R.Files[open], "closed")
	assert.NilError(t, err)
	w.R.Files[closed] = apptest.RecFill(t, data, "Summary", "The status line flickers on resize.")
	before := apptest.RecClone(w.R.Files)
	_, err = w.A.Call(context.Background(), "record_finish_move", map[string]any{"ref": w.Issue})
	r := apptest.RecRefused(t, err, refusal.Refused, "copies_differ")
	assert.Check(t, is.Contains(r.Why, "## Summary"))
	assert.DeepEqual(t, w.R.Files, before)
}

func TestRenumberGivesANewIdAndRewritesTheReferencesMadeToIt(t *testing.T) {
	w, g := teamWorld(t)
	mine := recPath(t, w, w.Draft)
	// Two captures name it: git shows the first was written where only this intent stood, the second
	// after both stood.
	ours := apptest.RecRun[recorduc.RecordCreated](t, w.A, "capture", map[string]any{"text": "Ours", "related": []string{w.Draft}}).Record.Path
	unsure := apptest.RecRun[recorduc.RecordCreated](t, w.A, "capture", map[string]any{"text": "Unsure", "related": []string{w.Draft}}).Record.Path
	// Another clone made an intent in the same second with the same digits.
	other := path.Dir(mine) + "/" + record.FileName(w.Draft, "another-clone")
	w.R.Files[other] = record.RenderIntent(record.NewIntent(w.Draft, "Another clone's intent", apptest.RecNow))
	g.Origins = map[string]string{ours + "\x00" + w.Draft: "c1", unsure + "\x00" + w.Draft: "c2"}
	g.Trees = map[string][]string{"c1": {mine}, "c2": {mine, other}}
	g.Tracked[mine] = true

	res := apptest.RecRun[recorduc.RecordRenumberResult](t, w.A, "record_renumber", map[string]any{"file": mine})
	assert.Check(t, is.Equal(res.OldID, w.Draft))
	assert.Check(t, res.Record.ID != w.Draft && res.Record.ID[:16] == w.Draft[:16], "the time digits stay: %s", res.Record.ID)
	assert.Check(t, is.Equal(res.Record.Path, path.Dir(mine)+"/"+record.FileName(res.Record.ID, "faster-cold-start")))
	assert.DeepEqual(t, res.Rewritten, []string{ours})
	assert.DeepEqual(t, res.Unsure, []string{unsure})
	assert.Check(t, strings.Contains(string(w.R.Files[ours]), res.Record.ID))
	assert.Check(t, strings.Contains(string(w.R.Files[unsure]), w.Draft))
	it, err := record.ParseIntent(res.Record.Path, w.R.Files[res.Record.Path])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.ID, res.Record.ID))
	assert.DeepEqual(t, g.Staged, [][2]string{{mine, res.Record.Path}})

	// The other keeps the id, which is now its own.
	_, err = w.A.Call(context.Background(), "record_renumber", map[string]any{"file": other})
	apptest.RecRefused(t, err, refusal.Refused, "id_unique")
}

func TestRenumberRefusesAMoveToFinish(t *testing.T) {
	w, _ := teamWorld(t)
	open := recPath(t, w, w.Issue)
	w.R.Files[".abcd/work/issues/closed/"+path.Base(open)] = w.R.Files[open]
	before := apptest.RecClone(w.R.Files)
	_, err := w.A.Call(context.Background(), "record_renumber", map[string]any{"file": open})
	r := apptest.RecRefused(t, err, refusal.Refused, "record_moved_twice")
	assert.Check(t, is.Contains(r.Remedy.String(), "record_finish_move"))
	assert.DeepEqual(t, w.R.Files, before)

	_, err = w.A.Call(context.Background(), "record_renumber", map[string]any{"file": "../etc/passwd"})
	apptest.RecRefused(t, err, refusal.Refused, "file_invalid")
	_, err = w.A.Call(context.Background(), "record_renumber", map[string]any{"file": ".abcd/work/issues/open/itd-2607011230051234-x.md"})
	apptest.RecRefused(t, err, refusal.Refused, "file_invalid")
}

func TestSpecNewRefusesASecondOpenSpecUnderOneTitle(t *testing.T) {
	w := apptest.NewRecWorld(t)
	before := apptest.RecClone(w.R.Files)
	_, err := w.A.Call(context.Background(), "spec_new", map[string]any{"intent": w.Planned, "title": "Planned thing"})
	apptest.RecRefused(t, err, refusal.Refused, "spec_title_taken")
	assert.DeepEqual(t, w.R.Files, before)
}

func TestLintChangedChecksWhatTheChangeTouched(t *testing.T) {
	w, g := teamWorld(t)
	// A second plan of the planned intent, as a merge of two plans leaves it, and a malformed issue
	// the change does not touch.
	spec := recPath(t, w, w.OpenSpec)
	twin := path.Dir(spec) + "/spc-2607011230059999-planned-thing.md"
	w.R.Files[twin] = []byte(strings.Replace(string(w.R.Files[spec]), w.OpenSpec, "spc-2607011230059999", 1))
	w.R.Files[".abcd/work/issues/open/iss-2607011230050000-broken.md"] = []byte("not a record\n")
	g.ChangedPaths = []string{twin, ".abcd/config.json", ".abcd/work/issues/open/iss-2607011230059999-gone.md"}

	res := apptest.RecRun[recorduc.LintResult](t, w.A, "lint", map[string]any{"changed": "origin/main"})
	assert.Check(t, is.Equal(res.Checked, 1))
	assert.Check(t, is.Len(res.Findings, 1), "%+v", res.Findings)
	assert.Check(t, is.Equal(res.Findings[0].Code, "planned_twice"))
	assert.Check(t, is.Equal(res.Findings[0].File, twin))

	whole := apptest.RecRun[recorduc.LintResult](t, w.A, "lint", map[string]any{})
	assert.Check(t, whole.Errors >= 3, "%+v", whole.Findings) // both specs, and the malformed issue

	_, err := w.A.Call(context.Background(), "lint", map[string]any{"changed": "HEAD", "staged": true})
	apptest.RecRefused(t, err, refusal.Refused, "input_invalid")
	_, err = w.A.Call(context.Background(), "lint", map[string]any{"changed": "-x"})
	apptest.RecRefused(t, err, refusal.Refused, "revision_invalid")
}

func TestLintNamesWhatGitHoldsUnmerged(t *testing.T) {
	w, g := teamWorld(t)
	g.Conflicted = []string{".abcd/work/issues/closed/iss-2607011230050001-x.md"}
	s := fake.NewSetup("/work/repo", "/home/ada/.abcd")
	w.A.Setup = s
	res := apptest.RecRun[recorduc.LintResult](t, w.A, "lint", map[string]any{})
	codes := map[string]string{}
	for _, f := range res.Findings {
		codes[f.Code] = f.Level
	}
	assert.Check(t, is.Equal(codes["merge_unresolved"], "error"))
	assert.Check(t, is.Equal(codes["merge_driver_missing"], "warning"))
}
