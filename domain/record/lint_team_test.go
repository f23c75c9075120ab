package record

import (
	"strings"
	"testing"
)

// Lint names every shape a team's merges can leave in the record.

func loadAs(t *testing.T, f Family, lifecycle, file string, data []byte) Loaded {
	t.Helper()
	l := Loaded{Family: f, Lifecycle: lifecycle, File: file}
	var err error
	switch f {
	case Intents:
		var v Intent
		v, err = ParseIntent(file, data)
		l.Intent = &v
	case Specs:
		var v Spec
		v, err = ParseSpec(file, data)
		l.Spec = &v
	case Issues:
		var v Issue
		v, err = ParseIssue(file, data)
		l.Issue = &v
	}
	if err != nil {
		return Loaded{Family: f, Lifecycle: lifecycle, File: file, Err: err}
	}
	return l
}

func findings(fs []Finding, code string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func TestLintNamesConflictMarkers(t *testing.T) {
	base := baseIssue()
	m := Merge(base, []byte(strings.Replace(string(base), "Lint takes 3 s.", "Ours.", 1)), []byte(strings.Replace(string(base), "Lint takes 3 s.", "Theirs.", 1)), 7, "")
	got := Lint([]Loaded{loadAs(t, Issues, "open", "i/"+issID+"-slow.md", m.Data)})
	if len(got) != 1 || got[0].Code != "conflict_markers" || got[0].Level != LevelError || got[0].Line != 14 || !strings.Contains(got[0].Remedy, "git add") {
		t.Fatalf("%s", dump(got))
	}
	// A marker in the front matter is the same conflict, not a malformed key.
	fm := []byte(strings.Replace(string(base), "severity: minor\n", "<<<<<<< ours\nseverity: minor\n=======\nseverity: major\n>>>>>>> theirs\n", 1))
	got = Lint([]Loaded{loadAs(t, Issues, "open", "i/"+issID+"-slow.md", fm)})
	if len(got) != 1 || got[0].Code != "conflict_markers" || got[0].Line != 6 {
		t.Fatalf("%s", dump(got))
	}
	// A Markdown underline of = alone is no conflict.
	underline := appendTo(t, base, SectionNotes, "Title\n=======\n\nText.")
	if got := Lint([]Loaded{loadAs(t, Issues, "open", "i/"+issID+"-slow.md", underline)}); len(got) != 0 {
		t.Fatalf("%s", dump(got))
	}
}

func TestLintTellsAMoveToFinishFromTwoRecords(t *testing.T) {
	draft := baseIntent()
	planned := moveTo(t, draft, "planned")
	name := itdID + "-records.md"
	got := Lint([]Loaded{
		loadAs(t, Intents, "drafts", ".abcd/development/intents/drafts/"+name, draft),
		loadAs(t, Intents, "planned", ".abcd/development/intents/planned/"+name, planned),
	})
	dups := findings(got, "duplicate_id")
	if len(dups) != 2 {
		t.Fatalf("%s", dump(got))
	}
	for _, f := range dups {
		if !strings.Contains(f.Message, "the same record") || !strings.Contains(f.Remedy, "abcd record finish-move "+itdID) {
			t.Errorf("%+v", f)
		}
	}
	other := RenderIntent(NewIntent(itdID, "Something else", mergeDay))
	got = Lint([]Loaded{
		loadAs(t, Intents, "drafts", ".abcd/development/intents/drafts/"+name, draft),
		loadAs(t, Intents, "drafts", ".abcd/development/intents/drafts/"+itdID+"-something-else.md", other),
	})
	dups = findings(got, "duplicate_id")
	if len(dups) != 2 || !strings.Contains(dups[0].Message, "another record") || !strings.Contains(dups[0].Remedy, "abcd record renumber .abcd/development/intents/drafts/"+name) {
		t.Fatalf("%s", dump(got))
	}
}

func TestLintNamesAnIntentPlannedTwice(t *testing.T) {
	intent := moveTo(t, baseIntent(), "planned")
	it, err := ParseIntent("i.md", intent)
	if err != nil {
		t.Fatal(err)
	}
	spec := func(id, title string) Loaded {
		return loadAs(t, Specs, "open", ".abcd/development/specs/open/"+id+"-x.md", RenderSpec(NewSpec(id, title, it.Front, mergeDay)))
	}
	rec := []Loaded{loadAs(t, Intents, "planned", ".abcd/development/intents/planned/"+itdID+"-records.md", intent),
		spec(spcID, "Records"), spec("spc-2607011230059999", "Records")}
	got := findings(Lint(rec), "planned_twice")
	if len(got) != 2 || got[0].Level != LevelError || !strings.Contains(got[1].Remedy, "git rm .abcd/development/specs/open/spc-2607011230059999-x.md") {
		t.Fatalf("%s", dump(got))
	}
	rec[2] = spec("spc-2607011230059999", "A second spec")
	if got := findings(Lint(rec), "planned_twice"); len(got) != 0 {
		t.Fatalf("a second spec under its own title is not a second plan: %s", dump(got))
	}
}

func TestLintNamesAnIssueClosedTwice(t *testing.T) {
	base := baseIssue()
	closeWith := func(why string) []byte { return appendTo(t, moveTo(t, base, "closed"), SectionResolution, why) }
	m := Merge(base, closeWith("A."), closeWith("B."), 7, "")
	got := Lint([]Loaded{loadAs(t, Issues, "closed", "i/"+issID+"-slow.md", m.Data)})
	if len(got) != 1 || got[0].Code != "closed_twice" || got[0].Level != LevelWarning {
		t.Fatalf("%s", dump(got))
	}
}
