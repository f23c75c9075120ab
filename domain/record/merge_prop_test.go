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
	switch op := g.r.IntN(6); {
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
		for range 1 + g.r.IntN(4) {
			ours = g.edit(ours)
		}
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
		got := appendOnlyEntries(g.fam, m.Data)
		for i, e := range got {
			if slices.Contains(got[i+1:], e) {
				fail("the entry %q stands twice", e)
			}
		}
		baseEntries := appendOnlyEntries(g.fam, base)
		for _, side := range [][]byte{ours, theirs} {
			for _, e := range appendOnlyEntries(g.fam, side) {
				if !slices.Contains(baseEntries, e) && !slices.Contains(got, e) && len(m.Conflicts) == 0 {
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
			// Different records are not merged: ours stands as it was, and git keeps every side in
			// its index for the conflict it reports.
			if string(m.Data) != string(ours) || len(m.Conflicts) == 0 {
				t.Fatal("a mispaired merge changed ours or reported no conflict")
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
