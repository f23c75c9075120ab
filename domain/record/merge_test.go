package record

import (
	"strings"
	"testing"
	"time"
)

// The merge driver's cases, each as the verbs write them: a template rendered, then the same edits
// the verbs make (AppendToSection, SetLifecycle) on each side.

var mergeDay = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func must(t *testing.T, data []byte, err error) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func appendTo(t *testing.T, data []byte, heading, text string) []byte {
	t.Helper()
	out, err := AppendToSection(data, heading, text)
	return must(t, out, err)
}

func moveTo(t *testing.T, data []byte, lifecycle string) []byte {
	t.Helper()
	out, err := SetLifecycle(data, lifecycle)
	return must(t, out, err)
}

func baseSpec() []byte {
	return RenderSpec(NewSpec(spcID, "Build records", IntentFrontMatter{ID: itdID}, mergeDay))
}

func baseIntent() []byte { return RenderIntent(NewIntent(itdID, "Records", mergeDay)) }

func baseIssue() []byte {
	return RenderIssue(NewIssue(issID, "Lint is slow", "Lint takes 3 s.", "minor", "abcd capture", nil, mergeDay))
}

// merged merges both ways round, checks the two agree on being clean, and returns ours-first.
func merged(t *testing.T, base, ours, theirs []byte) Merged {
	t.Helper()
	m := Merge(base, ours, theirs, 7, "")
	r := Merge(base, theirs, ours, 7, "")
	if (len(m.Conflicts) == 0) != (len(r.Conflicts) == 0) {
		t.Fatalf("the two orders disagree on conflicts: %v against %v", m.Conflicts, r.Conflicts)
	}
	if len(m.Conflicts) == 0 && string(m.Data) != string(r.Data) {
		t.Fatalf("the two orders merge differently:\n%s\n-----\n%s", m.Data, r.Data)
	}
	return m
}

func standsOnce(t *testing.T, data []byte, want ...string) {
	t.Helper()
	for _, w := range want {
		if strings.Count(string(data), w) != 1 {
			t.Errorf("%q stands %d times in:\n%s", w, strings.Count(string(data), w), data)
		}
	}
}

func TestMergeProgressFromTwoRunsIsAUnionInTimeOrder(t *testing.T) {
	base := baseSpec()
	early := "- Run run-2607011200000001, step 1 (Parse): delivered on `b1` at aaaaaaa, commits aaaaaaa."
	late1 := "- Run run-2607021200000002, step 1 (Parse): delivered on `b2` at bbbbbbb, commits bbbbbbb."
	late2 := "- Run run-2607021200000002, step 2 (Render): delivered on `b3` at ccccccc, commits ccccccc."
	ours := appendTo(t, base, SectionProgress, late1+"\n"+late2)
	theirs := appendTo(t, base, SectionProgress, early)
	m := merged(t, base, ours, theirs)
	if len(m.Conflicts) > 0 {
		t.Fatalf("conflicts %v:\n%s", m.Conflicts, m.Data)
	}
	standsOnce(t, m.Data, early, late1, late2)
	s := string(m.Data)
	if !(strings.Index(s, early) < strings.Index(s, late1) && strings.Index(s, late1) < strings.Index(s, late2)) {
		t.Errorf("not in time order:\n%s", s)
	}
	if _, err := ParseSpec("s.md", m.Data); err != nil {
		t.Errorf("the merge does not parse: %v", err)
	}
	// The same lines on both sides (one run's step delivered on both) stand once.
	both := appendTo(t, base, SectionProgress, early)
	m = merged(t, base, appendTo(t, both, SectionProgress, late1), both)
	standsOnce(t, m.Data, early, late1)
}

func TestMergeAuditNotesKeepEachBlockWhole(t *testing.T) {
	base := baseIntent()
	a := "### Audit 2026-07-02 (run run-2607021200000002, aaaaaaa..bbbbbbb): PASS\n\n- ac-1: PASS. Seen.\n\nAll good."
	b := "### Audit 2026-07-01 (run run-2607011200000001, aaaaaaa..ccccccc): FAIL\n\n- ac-1: FAIL. Not seen.\n\nMissing."
	m := merged(t, base, appendTo(t, base, SectionAuditNotes, a), appendTo(t, base, SectionAuditNotes, b))
	if len(m.Conflicts) > 0 {
		t.Fatalf("conflicts %v", m.Conflicts)
	}
	standsOnce(t, m.Data, a, b)
	if strings.Index(string(m.Data), b) > strings.Index(string(m.Data), a) {
		t.Errorf("the earlier audit is not first:\n%s", m.Data)
	}
	if _, err := ParseIntent("i.md", m.Data); err != nil {
		t.Error(err)
	}
}

func TestMergeCloseOnBothSides(t *testing.T) {
	base := baseIssue()
	closeWith := func(why string) []byte { return appendTo(t, moveTo(t, base, "closed"), SectionResolution, why) }
	t.Run("two reasons are both kept, marked", func(t *testing.T) {
		m := merged(t, base, closeWith("Fixed by caching."), closeWith("Duplicate of another issue."))
		if len(m.Conflicts) > 0 || !m.ClosedTwice {
			t.Fatalf("conflicts %v, closed twice %v", m.Conflicts, m.ClosedTwice)
		}
		standsOnce(t, m.Data, "Fixed by caching.", "Duplicate of another issue.", ClosedTwiceMarker, "lifecycle: closed")
		is, err := ParseIssue("i.md", m.Data)
		if err != nil {
			t.Fatal(err)
		}
		if is.Front.Lifecycle != "closed" {
			t.Errorf("lifecycle %s", is.Front.Lifecycle)
		}
	})
	t.Run("one reason on both sides is one", func(t *testing.T) {
		m := merged(t, base, closeWith("Fixed."), closeWith("Fixed."))
		if len(m.Conflicts) > 0 || m.ClosedTwice {
			t.Fatalf("conflicts %v, closed twice %v", m.Conflicts, m.ClosedTwice)
		}
		standsOnce(t, m.Data, "Fixed.")
	})
	t.Run("a close wins over an edit", func(t *testing.T) {
		edited := appendTo(t, base, SectionNotes, "It is the parser.")
		m := merged(t, base, closeWith("Fixed."), edited)
		if len(m.Conflicts) > 0 {
			t.Fatalf("conflicts %v", m.Conflicts)
		}
		standsOnce(t, m.Data, "lifecycle: closed", "Fixed.", "It is the parser.")
	})
}

func TestMergeConflictsAreMarkedWhereTheyAre(t *testing.T) {
	base := baseIntent()
	progress := func(data []byte, line string) []byte { return appendTo(t, data, SectionAuditNotes, line) }
	ours := progress(must(t, []byte(strings.Replace(string(base), "<!-- fill: the announcement", "Ours.\n<!-- fill: the announcement", 1)), nil), "### Audit 2026-07-01 (run run-2607011200000001, a..b): PASS")
	theirs := progress(must(t, []byte(strings.Replace(string(base), "<!-- fill: the announcement", "Theirs.\n<!-- fill: the announcement", 1)), nil), "### Audit 2026-07-02 (run run-2607021200000001, a..c): PASS")
	m := Merge(base, ours, theirs, 7, "")
	if len(m.Conflicts) != 1 || m.Conflicts[0] != "## Press Release" {
		t.Fatalf("conflicts %v", m.Conflicts)
	}
	standsOnce(t, m.Data, "<<<<<<< ours\nOurs.\n=======\nTheirs.\n>>>>>>> theirs\n", "run-2607011200000001", "run-2607021200000001")
	if line, ok := ConflictMarkers(m.Data); !ok || line == 0 {
		t.Errorf("ConflictMarkers does not see the merge's markers")
	}

	t.Run("a title changed two ways", func(t *testing.T) {
		o := []byte(strings.Replace(string(base), `title: "Records"`, `title: "Ours"`, 1))
		th := []byte(strings.Replace(string(base), `title: "Records"`, `title: "Theirs"`, 1))
		m := Merge(base, o, th, 9, "")
		if len(m.Conflicts) != 1 || m.Conflicts[0] != "front matter title" {
			t.Fatalf("conflicts %v", m.Conflicts)
		}
		standsOnce(t, m.Data, "<<<<<<<<< ours\ntitle: \"Ours\"\n=========\ntitle: \"Theirs\"\n>>>>>>>>> theirs\n")
	})
	t.Run("a section removed on one side and changed on the other", func(t *testing.T) {
		i := strings.Index(string(base), "## Open Questions")
		j := strings.Index(string(base), "## Audit Notes")
		removed := []byte(string(base)[:i] + string(base)[j:])
		changed := []byte(strings.Replace(string(base), "None.", "- [ ] Why?", 1))
		m := merged(t, base, removed, changed)
		if len(m.Conflicts) != 1 || !strings.Contains(m.Conflicts[0], "Open Questions") {
			t.Fatalf("conflicts %v", m.Conflicts)
		}
		standsOnce(t, m.Data, "- [ ] Why?")
	})
}

func TestMergeFrontMatterLists(t *testing.T) {
	fm := strings.Replace(issueFM, "related: ["+itdID+", "+spcID+"]", "related: ["+itdID+"]", 1)
	base := []byte(doc(fm, "\n## Summary\n\nS.\n"))
	ours := []byte(strings.Replace(string(base), "related: ["+itdID+"]", "related: ["+itdID+", "+spcID+"]", 1))
	theirs := []byte(strings.Replace(string(base), "related: ["+itdID+"]", "related: ["+dcnID+"]", 1))
	m := merged(t, base, ours, theirs)
	if len(m.Conflicts) > 0 {
		t.Fatal(m.Conflicts)
	}
	// theirs removed itdID: a removal on one side stands; what either added is added, in id order.
	standsOnce(t, m.Data, "related: ["+dcnID+", "+spcID+"]\n")
}

func TestMergeOfPlainText(t *testing.T) {
	base := []byte("a\nb\nc\nd\ne\n")
	m := merged(t, base, []byte("A\nb\nc\nd\ne\n"), []byte("a\nb\nc\nd\nE\n"))
	if len(m.Conflicts) > 0 || string(m.Data) != "A\nb\nc\nd\nE\n" {
		t.Fatalf("%v %q", m.Conflicts, m.Data)
	}
	m = Merge(base, []byte("a\nX\nc\nd\ne\n"), []byte("a\nY\nc\nd\ne\n"), 7, "")
	if len(m.Conflicts) != 1 || string(m.Data) != "a\n<<<<<<< ours\nX\n=======\nY\n>>>>>>> theirs\nc\nd\ne\n" {
		t.Fatalf("%v %q", m.Conflicts, m.Data)
	}
	// A file without a final newline merges as one with it.
	m = merged(t, []byte("a\nb"), []byte("a\nb\nc"), []byte("z\na\nb"))
	if string(m.Data) != "z\na\nb\nc\n" {
		t.Fatalf("%q", m.Data)
	}
}

func TestMatchingIsAShortestEditScript(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"abcabba", "cbabac"}, {"", "abc"}, {"abc", ""}, {"abc", "abc"}, {"axbxc", "ayybyc"}, {"aaaa", "aa"},
	} {
		a, b := []int{}, []int{}
		for _, r := range c.a {
			a = append(a, int(r))
		}
		for _, r := range c.b {
			b = append(b, int(r))
		}
		common := 0
		pa, pb := 0, 0
		for _, bl := range matching(a, b) {
			if bl.a < pa || bl.b < pb {
				t.Fatalf("%q %q: blocks out of order", c.a, c.b)
			}
			for k := 0; k < bl.n; k++ {
				if a[bl.a+k] != b[bl.b+k] {
					t.Fatalf("%q %q: block %v does not match", c.a, c.b, bl)
				}
			}
			common += bl.n
			pa, pb = bl.a+bl.n, bl.b+bl.n
		}
		if want := lcsLen(a, b); common != want {
			t.Errorf("%q %q: %d lines in common, the longest common subsequence has %d", c.a, c.b, common, want)
		}
	}
}

func lcsLen(a, b []int) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				d[i][j] = d[i+1][j+1] + 1
			} else {
				d[i][j] = max(d[i+1][j], d[i][j+1])
			}
		}
	}
	return d[0][0]
}

// Git can take one record for another renamed (a small record much changed looks more like a new
// one): the sides are then not one record. The path's own record is kept whole, and it is a conflict.
func TestMergeOfTwoDifferentRecordsKeepsThePathsOwn(t *testing.T) {
	base := baseIssue()
	changed := appendTo(t, base, SectionNotes, "A note.")
	other := RenderIssue(NewIssue("iss-2607011232009999", "Another", "Else.", "minor", "abcd capture", nil, mergeDay))
	otherPath := ".abcd/work/issues/open/" + FileName("iss-2607011232009999", "another")
	for _, c := range []struct {
		name         string
		ours, theirs []byte
		path         string
		want         []byte
	}{
		// Git took ours (another record) for the base renamed: the merge lands where ours put it.
		{"ours is the other record", other, changed, ".abcd/work/issues/open/" + FileName(issID, "lint-is-slow"), other},
		// Git took theirs for the base renamed: the merge lands where theirs put it.
		{"theirs is the other record", changed, other, otherPath, other},
	} {
		m := Merge(base, c.ours, c.theirs, 7, c.path)
		if !m.Mispaired || len(m.Conflicts) != 1 || string(m.Data) != string(c.want) {
			t.Errorf("%s: mispaired %v, conflicts %v, kept:\n%s", c.name, m.Mispaired, m.Conflicts, m.Data)
		}
	}
	// With no base, the path's name says whose record belongs there.
	if m := Merge(nil, changed, other, 7, otherPath); !m.Mispaired || string(m.Data) != string(other) {
		t.Errorf("no base: kept\n%s", m.Data)
	}
	if IDIn(other) != "iss-2607011232009999" || IDIn([]byte("no record")) != "" {
		t.Error("IDIn")
	}
}

// An entry of an append-only section edited on both sides, differently, is not two appends: it is a
// conflict between markers, as git alone would show it, never the entry twice.
func TestMergeAnEntryEditedOnBothSidesIsAConflict(t *testing.T) {
	edit := func(data []byte, from, to string) []byte {
		t.Helper()
		if !strings.Contains(string(data), from) {
			t.Fatalf("%q is not in:\n%s", from, data)
		}
		return []byte(strings.Replace(string(data), from, to, 1))
	}
	audit := "### Audit 2026-07-02 (run run-2607021200000002, aaaaaaa..bbbbbbb): PASS\n\n- ac-1: PASS. Seen.\n\nAll good."
	later := "### Audit 2026-07-03 (run run-2607031200000003, bbbbbbb..ccccccc): PASS\n\n- ac-1: PASS. Seen again.\n\nStill good."
	intent := appendTo(t, baseIntent(), SectionAuditNotes, audit)
	issue := appendTo(t, appendTo(t, baseIssue(), SectionNotes, "It is the parser."), SectionNotes, "The cache misses.")
	for _, c := range []struct {
		name               string
		base, ours, theirs []byte
		section            string
		ourText, theirText string
	}{
		{"an Audit Notes block", intent, edit(intent, "All good.", "All good, checked twice."), edit(intent, "All good.", "All good, but slow."),
			"## Audit Notes", "All good, checked twice.", "All good, but slow."},
		{"an Audit Notes block, each side appending after it too", intent,
			appendTo(t, edit(intent, "- ac-1: PASS. Seen.", "- ac-1: PASS. Seen by ours."), SectionAuditNotes, later),
			appendTo(t, edit(intent, "- ac-1: PASS. Seen.", "- ac-1: FAIL. Not seen."), SectionAuditNotes, later),
			"## Audit Notes", "- ac-1: PASS. Seen by ours.", "- ac-1: FAIL. Not seen."},
		{"a Notes line", issue, edit(issue, "It is the parser.", "It is the lexer."), edit(issue, "It is the parser.", "It is the parser's cache."),
			"## Notes", "It is the lexer.", "It is the parser's cache."},
		{"the last Notes line", issue, edit(issue, "The cache misses.", "The cache misses twice."), edit(issue, "The cache misses.", "The cache is cold."),
			"## Notes", "The cache misses twice.", "The cache is cold."},
		{"a Notes line edited on one side, removed on the other", issue, edit(issue, "The cache misses.", "The cache misses twice."), edit(issue, "\n\nThe cache misses.", ""),
			"## Notes", "The cache misses twice.", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := merged(t, c.base, c.ours, c.theirs)
			if len(m.Conflicts) != 1 || m.Conflicts[0] != c.section {
				t.Fatalf("conflicts %v, want one in %s:\n%s", m.Conflicts, c.section, m.Data)
			}
			if _, ok := ConflictMarkers(m.Data); !ok {
				t.Fatalf("no markers:\n%s", m.Data)
			}
			s := string(m.Data)
			ours, mid, theirs := strings.Index(s, "<<<<<<< ours"), strings.Index(s, "======="), strings.Index(s, ">>>>>>> theirs")
			if !(ours >= 0 && ours < mid && mid < theirs) {
				t.Fatalf("markers out of order:\n%s", s)
			}
			if i := strings.Index(s, c.ourText); i < ours || i > mid {
				t.Errorf("ours' version %q is not between <<<<<<< and =======:\n%s", c.ourText, s)
			}
			if c.theirText != "" {
				if i := strings.Index(s, c.theirText); i < mid || i > theirs {
					t.Errorf("theirs' version %q is not between ======= and >>>>>>>:\n%s", c.theirText, s)
				}
			}
			standsOnce(t, m.Data, c.ourText)
		})
	}
}

// What both sides did alike, or one side alone, to an entry merges clean: the same edit on both is
// one entry, an edit on one side and an append on the other are both kept, and two appends after an
// entry edited the same way stand once each.
func TestMergeAnEntryEditedOnOneSideOrAlikeIsClean(t *testing.T) {
	issue := appendTo(t, appendTo(t, baseIssue(), SectionNotes, "It is the parser."), SectionNotes, "The cache misses.")
	edited := []byte(strings.Replace(string(issue), "It is the parser.", "It is the lexer.", 1))
	lastEdited := []byte(strings.Replace(string(issue), "The cache misses.", "The cache misses twice.", 1))
	for _, c := range []struct {
		name         string
		ours, theirs []byte
		once         []string
		gone         string
	}{
		{"the same edit on both sides", edited, edited, []string{"It is the lexer.", "The cache misses."}, "It is the parser."},
		{"an edit on one side, an append on the other", edited, appendTo(t, issue, SectionNotes, "A third note."), []string{"It is the lexer.", "The cache misses.", "A third note."}, "It is the parser."},
		{"the last entry edited on one side, an append on the other", lastEdited, appendTo(t, issue, SectionNotes, "A third note."), []string{"It is the parser.", "The cache misses twice.", "A third note."}, "The cache misses.\n"},
		{"the same edit of the last entry, one side appending after it", appendTo(t, lastEdited, SectionNotes, "A third note."), lastEdited, []string{"The cache misses twice.", "A third note."}, "The cache misses.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := merged(t, issue, c.ours, c.theirs)
			if len(m.Conflicts) > 0 {
				t.Fatalf("conflicts %v:\n%s", m.Conflicts, m.Data)
			}
			standsOnce(t, m.Data, c.once...)
			if strings.Contains(string(m.Data), c.gone) {
				t.Errorf("the entry as it was, %q, still stands:\n%s", c.gone, m.Data)
			}
			if _, err := ParseIssue("i.md", m.Data); err != nil {
				t.Error(err)
			}
		})
	}
}
