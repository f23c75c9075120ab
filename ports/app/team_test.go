package app_test

// What a team's merges leave in the record, and the verbs that mend it, over the fakes: a move staged
// in git, finish-move, renumber, lint --changed and the merge findings.

import (
	"context"
	"path"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
)

func teamWorld(t *testing.T) (recWorld, *fake.Git) {
	t.Helper()
	w := newRecWorld(t)
	g := fake.NewGit("c0")
	g.Tracked = map[string]bool{}
	for p := range w.r.Files {
		g.Tracked[p] = true
	}
	w.a.Git = g
	return w, g
}

func recPath(t *testing.T, w recWorld, id string) string {
	t.Helper()
	for p := range w.r.Files {
		if got, ok := record.IDOfFileName(p); ok && got == id {
			return p
		}
	}
	t.Fatalf("no file carries %s", id)
	return ""
}

func TestAMoveIsStagedInGitAsARename(t *testing.T) {
	w, g := teamWorld(t)
	from := recPath(t, w, w.openSpec)
	moved := recRun[app.MoveResult](t, w.a, "spec_close", map[string]any{"ref": w.openSpec})
	assert.DeepEqual(t, g.Staged, [][2]string{{from, moved.To}})
	assert.Check(t, g.Tracked[moved.To] && !g.Tracked[from])

	// A record git does not track is moved and left for the person to add.
	delete(g.Tracked, recPath(t, w, w.issue))
	recRun[app.MoveResult](t, w.a, "issue_close", map[string]any{"ref": w.issue, "why": "fixed"})
	assert.Check(t, is.Len(g.Staged, 1))

	// intent ship and intent plan stage theirs too.
	shipFrom := recPath(t, w, w.shippable)
	ship := recRun[app.MoveResult](t, w.a, "intent_ship", map[string]any{"ref": w.shippable})
	plan := recRun[app.IntentPlanResult](t, w.a, "intent_plan", map[string]any{"ref": w.draft})
	assert.DeepEqual(t, g.Staged[1:], [][2]string{{shipFrom, ship.To}, {plan.From, plan.To}})
}

func TestFinishMoveKeepsTheLaterCopyWithWhatBothHold(t *testing.T) {
	w, g := teamWorld(t)
	open := recPath(t, w, w.issue)
	closed := ".abcd/work/issues/closed/" + path.Base(open)
	// One branch closed the issue; the other, whose move did not finish, wrote a note in the open copy.
	data, err := record.SetLifecycle(w.r.Files[open], "closed")
	assert.NilError(t, err)
	data, err = record.AppendToSection(data, record.SectionResolution, "Fixed in 1a2b3c4.")
	assert.NilError(t, err)
	w.r.Files[closed] = data
	w.r.Files[open], err = record.AppendToSection(w.r.Files[open], record.SectionNotes, "It is the terminal's resize event.")
	assert.NilError(t, err)
	lint := recRun[app.LintResult](t, w.a, "lint", map[string]any{})
	assert.Check(t, is.Equal(lint.Errors, 2), "%+v", lint.Findings)

	res := recRun[app.RecordFinishMoveResult](t, w.a, "record_finish_move", map[string]any{"ref": w.issue})
	assert.Check(t, is.Equal(res.Record.Path, closed))
	assert.Check(t, is.Equal(res.Record.Lifecycle, "closed"))
	assert.DeepEqual(t, res.Removed, []string{open})
	_, left := w.r.Files[open]
	assert.Check(t, !left)
	is2, err := record.ParseIssue(closed, w.r.Files[closed])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(is2.Front.Lifecycle, "closed"))
	assert.Check(t, strings.Contains(string(w.r.Files[closed]), "Fixed in 1a2b3c4."))
	assert.Check(t, strings.Contains(string(w.r.Files[closed]), "It is the terminal's resize event."))
	assert.DeepEqual(t, g.Staged, [][2]string{{open, closed}})
	lint = recRun[app.LintResult](t, w.a, "lint", map[string]any{})
	assert.Check(t, is.Equal(lint.Errors, 0), "%+v", lint.Findings)

	// Nothing left to finish.
	_, err = w.a.Call(context.Background(), "record_finish_move", map[string]any{"ref": w.issue})
	recRefused(t, err, refusal.Refused, "record_not_moved")
}

func TestFinishMoveRefusesCopiesThatDifferWhereNoRuleDecides(t *testing.T) {
	w, _ := teamWorld(t)
	open := recPath(t, w, w.issue)
	closed := ".abcd/work/issues/closed/" + path.Base(open)
	data, err := record.SetLifecycle(w.r.Files[open], "closed")
	assert.NilError(t, err)
	w.r.Files[closed] = recFill(t, data, "Summary", "The status line flickers on resize.")
	before := recClone(w.r.Files)
	_, err = w.a.Call(context.Background(), "record_finish_move", map[string]any{"ref": w.issue})
	r := recRefused(t, err, refusal.Refused, "copies_differ")
	assert.Check(t, is.Contains(r.Why, "## Summary"))
	assert.DeepEqual(t, w.r.Files, before)
}

func TestRenumberGivesANewIdAndRewritesTheReferencesMadeToIt(t *testing.T) {
	w, g := teamWorld(t)
	mine := recPath(t, w, w.draft)
	// Two captures name it: git shows the first was written where only this intent stood, the second
	// after both stood.
	ours := recRun[app.RecordCreated](t, w.a, "capture", map[string]any{"text": "Ours", "related": []string{w.draft}}).Record.Path
	unsure := recRun[app.RecordCreated](t, w.a, "capture", map[string]any{"text": "Unsure", "related": []string{w.draft}}).Record.Path
	// Another clone made an intent in the same second with the same digits.
	other := path.Dir(mine) + "/" + record.FileName(w.draft, "another-clone")
	w.r.Files[other] = record.RenderIntent(record.NewIntent(w.draft, "Another clone's intent", recNow))
	g.Origins = map[string]string{ours + "\x00" + w.draft: "c1", unsure + "\x00" + w.draft: "c2"}
	g.Trees = map[string][]string{"c1": {mine}, "c2": {mine, other}}
	g.Tracked[mine] = true

	res := recRun[app.RecordRenumberResult](t, w.a, "record_renumber", map[string]any{"file": mine})
	assert.Check(t, is.Equal(res.OldID, w.draft))
	assert.Check(t, res.Record.ID != w.draft && res.Record.ID[:16] == w.draft[:16], "the time digits stay: %s", res.Record.ID)
	assert.Check(t, is.Equal(res.Record.Path, path.Dir(mine)+"/"+record.FileName(res.Record.ID, "faster-cold-start")))
	assert.DeepEqual(t, res.Rewritten, []string{ours})
	assert.DeepEqual(t, res.Unsure, []string{unsure})
	assert.Check(t, strings.Contains(string(w.r.Files[ours]), res.Record.ID))
	assert.Check(t, strings.Contains(string(w.r.Files[unsure]), w.draft))
	it, err := record.ParseIntent(res.Record.Path, w.r.Files[res.Record.Path])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.ID, res.Record.ID))
	assert.DeepEqual(t, g.Staged, [][2]string{{mine, res.Record.Path}})

	// The other keeps the id, which is now its own.
	_, err = w.a.Call(context.Background(), "record_renumber", map[string]any{"file": other})
	recRefused(t, err, refusal.Refused, "id_unique")
}

func TestRenumberRefusesAMoveToFinish(t *testing.T) {
	w, _ := teamWorld(t)
	open := recPath(t, w, w.issue)
	w.r.Files[".abcd/work/issues/closed/"+path.Base(open)] = w.r.Files[open]
	before := recClone(w.r.Files)
	_, err := w.a.Call(context.Background(), "record_renumber", map[string]any{"file": open})
	r := recRefused(t, err, refusal.Refused, "record_moved_twice")
	assert.Check(t, is.Contains(r.Remedy.String(), "record_finish_move"))
	assert.DeepEqual(t, w.r.Files, before)

	_, err = w.a.Call(context.Background(), "record_renumber", map[string]any{"file": "../etc/passwd"})
	recRefused(t, err, refusal.Refused, "file_invalid")
	_, err = w.a.Call(context.Background(), "record_renumber", map[string]any{"file": ".abcd/work/issues/open/itd-2607011230051234-x.md"})
	recRefused(t, err, refusal.Refused, "file_invalid")
}

func TestSpecNewRefusesASecondOpenSpecUnderOneTitle(t *testing.T) {
	w := newRecWorld(t)
	before := recClone(w.r.Files)
	_, err := w.a.Call(context.Background(), "spec_new", map[string]any{"intent": w.planned, "title": "Planned thing"})
	recRefused(t, err, refusal.Refused, "spec_title_taken")
	assert.DeepEqual(t, w.r.Files, before)
}

func TestLintChangedChecksWhatTheChangeTouched(t *testing.T) {
	w, g := teamWorld(t)
	// A second plan of the planned intent, as a merge of two plans leaves it, and a malformed issue
	// the change does not touch.
	spec := recPath(t, w, w.openSpec)
	twin := path.Dir(spec) + "/spc-2607011230059999-planned-thing.md"
	w.r.Files[twin] = []byte(strings.Replace(string(w.r.Files[spec]), w.openSpec, "spc-2607011230059999", 1))
	w.r.Files[".abcd/work/issues/open/iss-2607011230050000-broken.md"] = []byte("not a record\n")
	g.ChangedPaths = []string{twin, ".abcd/config.json", ".abcd/work/issues/open/iss-2607011230059999-gone.md"}

	res := recRun[app.LintResult](t, w.a, "lint", map[string]any{"changed": "origin/main"})
	assert.Check(t, is.Equal(res.Checked, 1))
	assert.Check(t, is.Len(res.Findings, 1), "%+v", res.Findings)
	assert.Check(t, is.Equal(res.Findings[0].Code, "planned_twice"))
	assert.Check(t, is.Equal(res.Findings[0].File, twin))

	whole := recRun[app.LintResult](t, w.a, "lint", map[string]any{})
	assert.Check(t, whole.Errors >= 3, "%+v", whole.Findings) // both specs, and the malformed issue

	_, err := w.a.Call(context.Background(), "lint", map[string]any{"changed": "HEAD", "staged": true})
	recRefused(t, err, refusal.Refused, "input_invalid")
	_, err = w.a.Call(context.Background(), "lint", map[string]any{"changed": "-x"})
	recRefused(t, err, refusal.Refused, "revision_invalid")
}

func TestLintNamesWhatGitHoldsUnmerged(t *testing.T) {
	w, g := teamWorld(t)
	g.Conflicted = []string{".abcd/work/issues/closed/iss-2607011230050001-x.md"}
	s := fake.NewSetup("/work/repo", "/home/ada/.abcd")
	w.a.Setup = s
	res := recRun[app.LintResult](t, w.a, "lint", map[string]any{})
	codes := map[string]string{}
	for _, f := range res.Findings {
		codes[f.Code] = f.Level
	}
	assert.Check(t, is.Equal(codes["merge_unresolved"], "error"))
	assert.Check(t, is.Equal(codes["merge_driver_missing"], "warning"))
}
