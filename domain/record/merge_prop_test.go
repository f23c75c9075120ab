package record

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// Properties of the merge driver over generated three-way inputs: each side is the base after a
// random run of what the verbs and people do to a record (the build loop's Progress lines and
// audits, notes, closes and ships, edits of other sections, titles, related ids).

type sideGen struct {
	t   *testing.T
	r   *rand.Rand
	fam Family
	// edited maps each line of an append-only entry this side edited, as it stood before, to what
	// the side made of it (nil: edits are not recorded).
	edited map[string]string
}

func (g sideGen) runID() string {
	at := mergeDay.Add(time.Duration(g.r.IntN(90*24*3600)) * time.Second)
	return fmt.Sprintf("run-%s%04d", at.Format("060102150405"), g.r.IntN(10000))
}

func (g sideGen) word() string {
	words := []string{"alpha", "beta", "gamma", "delta", "lint", "merge", "ship", "close", "note", "x"}
	return words[g.r.IntN(len(words))]
}

func (g sideGen) sentence() string {
	n := 1 + g.r.IntN(5)
	w := make([]string, n)
	for i := range w {
		w[i] = g.word()
	}
	return strings.Join(w, " ") + "."
}

// edit applies one random change a verb or a person makes.
func (g sideGen) edit(data []byte) []byte {
	t := g.t
	switch op := g.r.IntN(7); {
	case op == 6:
		return g.editEntry(data)
	case op <= 1 && g.fam == Specs:
		return appendTo(t, data, SectionProgress, fmt.Sprintf("- Run %s, step %d (%s): delivered on `b` at abc, commits abc.", g.runID(), 1+g.r.IntN(3), g.word()))
	case op <= 1 && g.fam == Intents:
		return appendTo(t, data, SectionAuditNotes, fmt.Sprintf("### Audit 2026-07-0%d (run %s, a..b): PASS\n\n- ac-1: PASS. %s\n\n%s", 1+g.r.IntN(9), g.runID(), g.sentence(), g.sentence()))
	case op <= 1 && g.fam == Issues:
		return appendTo(t, data, SectionNotes, g.sentence())
	case op == 2:
		// close or ship: the next lifecycle, with a reason for an issue
		f, _ := familyOf(data)
		h, _ := parseHeader(f, "", data)
		order := Lifecycles(f)
		at := slices.Index(order, h.field("lifecycle").Value)
		if at+1 >= len(order) {
			return data
		}
		out := moveTo(t, data, order[at+1])
		if f == Issues {
			out = appendTo(t, out, SectionResolution, g.sentence())
		}
		return out
	case op == 3:
		// a person rewrites the summary or press release line
		head := map[Family]string{Specs: SectionSummary, Intents: SectionPressRelease, Issues: SectionSummary}[g.fam]
		s := string(data)
		i := strings.Index(s, "## "+head+"\n\n")
		if i < 0 {
			return data
		}
		i += len("## " + head + "\n\n")
		j := i + strings.IndexByte(s[i:], '\n')
		return []byte(s[:i] + g.sentence() + s[j:])
	case op == 4:
		s := string(data)
		i := strings.Index(s, "title: ")
		j := i + strings.IndexByte(s[i:], '\n')
		return []byte(s[:i] + `title: "` + g.sentence() + `"` + s[j:])
	default:
		return appendTo(t, data, map[Family]string{Specs: SectionApproach, Intents: SectionWhy, Issues: SectionNotes}[g.fam], g.sentence())
	}
}

// editEntry is a person rewording a line of an append-only section's entry (a Progress line, a line
// of an audit, a note): no append, an edit.
func (g sideGen) editEntry(data []byte) []byte {
	lines := splitLines(data)
	head := "## " + map[Family]string{Specs: SectionProgress, Intents: SectionAuditNotes, Issues: SectionNotes}[g.fam]
	at := slices.IndexFunc(lines, func(l string) bool { return lineText(l) == head })
	if at < 0 {
		return data
	}
	var candidates []int
	for k := at + 1; k < len(lines) && !strings.HasPrefix(lines[k], "## "); k++ {
		if !blank(lines[k]) && !strings.HasPrefix(lineText(lines[k]), "<!--") {
			candidates = append(candidates, k)
		}
	}
	if len(candidates) == 0 {
		return data
	}
	k := candidates[g.r.IntN(len(candidates))]
	was := lineText(lines[k])
	now := was + " " + g.word() + "."
	lines[k] = now + "\n"
	if g.edited != nil {
		orig := was
		for o, n := range g.edited {
			if n == was {
				orig = o
			}
		}
		g.edited[orig] = now
	}
	return []byte(strings.Join(lines, ""))
}

func (g sideGen) base() []byte {
	switch g.fam {
	case Specs:
		return baseSpec()
	case Intents:
		return baseIntent()
	}
	return baseIssue()
}

func bodyLines(data []byte) []string {
	s := string(data)
	if i := strings.Index(s[min(len(s), 4):], "\n---\n"); i >= 0 {
		s = s[4+i+5:]
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "## ") {
			out = append(out, l)
		}
	}
	return out
}

// appendOnlyEntries lists the entries of a record's append-only sections, each after its section's
// name.
func appendOnlyEntries(fam Family, data []byte) []string {
	d, ok := splitDoc(splitLines(data))
	if !ok {
		return nil
	}
	var out []string
	for _, s := range d.secs {
		name, _ := headingOf(lineText(s.head))
		if appendOnly(fam, name) {
			_, es, _ := entries(s.lines)
			for _, e := range es {
				out = append(out, name+": "+e.id)
			}
		}
	}
	return out
}

func TestMergeProperties(t *testing.T) {
	rounds := 600
	if testing.Short() {
		rounds = 150
	}
	clean, conflicted := 0, 0
	for seed := range rounds {
		g := sideGen{t: t, r: rand.New(rand.NewPCG(uint64(seed), 24)), fam: []Family{Specs, Intents, Issues}[seed%3]}
		base := g.base()
		for range g.r.IntN(3) {
			base = g.edit(base)
		}
		ours, theirs := base, base
		oursEdited, theirsEdited := map[string]string{}, map[string]string{}
		g.edited = oursEdited
		for range 1 + g.r.IntN(4) {
			ours = g.edit(ours)
		}
		g.edited = theirsEdited
		for range 1 + g.r.IntN(4) {
			theirs = g.edit(theirs)
		}
		m, r := Merge(base, ours, theirs, 7, ""), Merge(base, theirs, ours, 7, "")
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d: %s\nbase:\n%s\nours:\n%s\ntheirs:\n%s\nmerged:\n%s", seed, fmt.Sprintf(format, args...), base, ours, theirs, m.Data)
		}
		if (len(m.Conflicts) == 0) != (len(r.Conflicts) == 0) {
			fail("the two orders disagree: %v against %v", m.Conflicts, r.Conflicts)
		}
		if len(m.Conflicts) == 0 {
			clean++
			if string(m.Data) != string(r.Data) {
				fail("the two orders merge differently:\n%s", r.Data)
			}
			if _, ok := ConflictMarkers(m.Data); ok {
				fail("a clean merge holds conflict markers")
			}
			var err error
			switch g.fam {
			case Specs:
				_, err = ParseSpec("f.md", m.Data)
			case Intents:
				_, err = ParseIntent("f.md", m.Data)
			default:
				_, err = ParseIssue("f.md", m.Data)
			}
			if err != nil {
				fail("a clean merge of two valid records does not parse: %v", err)
			}
		} else {
			conflicted++
			if _, ok := ConflictMarkers(m.Data); !ok {
				fail("a conflict %v without markers", m.Conflicts)
			}
		}
		// Nothing either side added is lost, and no entry of an append-only section stands twice.
		out := bodyLines(m.Data)
		baseLines := bodyLines(base)
		for _, side := range [][]byte{ours, theirs} {
			for _, l := range bodyLines(side) {
				if !slices.Contains(baseLines, l) && !slices.Contains(out, l) {
					fail("the line %q is lost", l)
				}
			}
		}
		// A line of the base's entries edited on both sides, differently, is a conflict: never both
		// edits side by side as if appended.
		for was, o := range oursEdited {
			if th, ok := theirsEdited[was]; ok && th != o && strings.Count(string(base), was+"\n") == 1 && len(m.Conflicts) == 0 {
				fail("the line %q was edited on both sides (%q, %q), and the merge is clean", was, o, th)
			}
		}
		got := appendOnlyEntries(g.fam, m.Data)
		for i, e := range got {
			if slices.Contains(got[i+1:], e) {
				fail("the entry %q stands twice", e)
			}
		}
		// An entry a side added stands whole; one it edited may merge, line by line, with the other
		// side's edit of another of its lines (the line check above holds those).
		baseEntries := appendOnlyEntries(g.fam, base)
		for i, side := range [][]byte{ours, theirs} {
			edits := []map[string]string{oursEdited, theirsEdited}[i]
			for _, e := range appendOnlyEntries(g.fam, side) {
				edited := false
				for _, now := range edits {
					edited = edited || strings.Contains(e, now+"\n")
				}
				if !edited && !slices.Contains(baseEntries, e) && !slices.Contains(got, e) && len(m.Conflicts) == 0 {
					fail("the entry %q is lost", e)
				}
			}
		}
	}
	if clean == 0 || conflicted == 0 {
		t.Errorf("the generator made %d clean merges and %d conflicts: both kinds must be exercised", clean, conflicted)
	}
	t.Logf("%d clean merges, %d conflicts", clean, conflicted)
}

// FuzzMerge: any three inputs merge without a panic, the trivial cases are exact, and the result
// holds nothing that none of the three held (besides markers, blank lines, a merged list and the
// closed-twice line), and every line one side added that is not front matter.
func FuzzMerge(f *testing.F) {
	spec := baseSpec()
	f.Add(spec, appendTo(&testing.T{}, spec, SectionProgress, "- Run run-2607011200000001, step 1 (a): x."), moveTo(&testing.T{}, spec, "closed"))
	issue := baseIssue()
	f.Add(issue, appendTo(&testing.T{}, moveTo(&testing.T{}, issue, "closed"), SectionResolution, "A."), appendTo(&testing.T{}, moveTo(&testing.T{}, issue, "closed"), SectionResolution, "B."))
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC\n"))
	f.Add([]byte("---\ntype: intent\n---\n## A\nx\n"), []byte("---\ntype: intent\nlifecycle: x\n---\n## a\ny\n"), []byte("---\n---\n## A\n```\n## B\n"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		if len(base)+len(ours)+len(theirs) > 64<<10 {
			return
		}
		m := Merge(base, ours, theirs, 7, "")
		if string(Merge(base, ours, ours, 7, "").Data) != string(ours) || string(Merge(base, base, theirs, 7, "").Data) != string(theirs) {
			t.Fatal("a trivial merge is not exact")
		}
		known := map[string]bool{"": true}
		for _, in := range [][]byte{base, ours, theirs} {
			for _, l := range splitLines(in) {
				known[lineText(l)] = true
			}
		}
		for _, l := range splitLines(m.Data) {
			tx := lineText(l)
			if known[tx] || blank(tx) || markerKind([]byte(tx)) != 0 || strings.HasPrefix(tx, ClosedTwiceMarker) ||
				strings.HasPrefix(tx, "related: [") || strings.HasPrefix(tx, "supersedes: [") {
				continue
			}
			t.Fatalf("the merge wrote %q, which no side holds", tx)
		}
		out := map[string]bool{}
		for _, l := range splitLines(m.Data) {
			out[lineText(l)] = true
		}
		inBase := map[string]bool{}
		for _, l := range splitLines(base) {
			inBase[lineText(l)] = true
		}
		if m.Mispaired {
			// Different records are not merged: one side's record stands whole (the one git writes at
			// this path), and git keeps every side in its index for the conflict it reports.
			if string(m.Data) != string(ours) && string(m.Data) != string(theirs) || len(m.Conflicts) == 0 {
				t.Fatal("a mispaired merge wrote neither side whole, or reported no conflict")
			}
			return
		}
		_, fenced := splitDoc(splitLines(ours))
		for _, side := range [][]byte{ours, theirs} {
			lines := splitLines(side)
			if d, ok := splitDoc(lines); ok && fenced {
				lines = lines[len(d.front)+2:] // the front matter merges by key (lifecycle by rule)
			}
			for _, l := range lines {
				tx := lineText(l)
				// Blank lines only separate; heading lines are matched by name (either side's case stands).
				if !inBase[tx] && !out[tx] && !blank(tx) && !strings.HasPrefix(tx, "## ") && !strings.HasPrefix(tx, "##\t") && tx != "##" {
					t.Fatalf("the line %q one side added is lost", tx)
				}
			}
		}
	})
}
