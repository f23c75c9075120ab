package record

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	const (
		itdDir  = ".abcd/development/intents/"
		spcDir  = ".abcd/development/specs/"
		ready   = "## Press Release\n\nShipped.\n\n## Acceptance Criteria\n\n- ac-1: Given a, when b, then c\n"
		itd2    = "itd-2607011230059999"
		spc2    = "spc-2607011230059999"
		missing = "itd-2000000000000000"
	)
	load := func(f Family, lifecycle, file, data string) Loaded {
		l := Loaded{Family: f, Lifecycle: lifecycle, File: file}
		var err error
		switch f {
		case Intents:
			var i Intent
			i, err = ParseIntent(file, []byte(data))
			l.Intent = &i
		case Specs:
			var s Spec
			s, err = ParseSpec(file, []byte(data))
			l.Spec = &s
		case Issues:
			var i Issue
			i, err = ParseIssue(file, []byte(data))
			l.Issue = &i
		case Decisions:
			var d Decision
			d, err = ParseDecision(file, []byte(data))
			l.Decision = &d
		}
		if err != nil {
			l = Loaded{Family: f, Lifecycle: lifecycle, File: file, Err: err}
		}
		return l
	}
	intentAt := func(id, lifecycle, body string) string {
		return doc(replaceLine(replaceLine(intentFM, "id", "id: "+id), "lifecycle", "lifecycle: "+lifecycle), body)
	}
	specAt := func(id, implements, lifecycle, body string) string {
		return doc(replaceLine(replaceLine(replaceLine(specFM, "id", "id: "+id), "implements", "implements: "+implements), "lifecycle", "lifecycle: "+lifecycle), body)
	}

	clean := []Loaded{
		load(Intents, "planned", itdDir+"planned/"+itdID+"-records.md", intentAt(itdID, "planned", ready)),
		load(Specs, "open", spcDir+"open/"+spcID+"-build.md", doc(specFM, specBody)),
		load(Issues, "open", "iss/open/"+issID+"-slow.md", doc(issueFM, "")),
		load(Decisions, "", "dcn/"+dcnID+".md", doc(replaceLine(decisionFM, "supersedes", "supersedes: []"), "")),
	}
	if got := Lint(clean); len(got) != 0 || got == nil {
		t.Fatalf("clean tree: %#v", got)
	}

	tests := []struct {
		name    string
		records []Loaded
		want    []Finding // Message and Remedy checked as substrings
	}{
		{"malformed", []Loaded{
			load(Intents, "drafts", "a/"+itdID+"-x.md", doc(replaceLine(intentFM, "kind", "kind: epic"), "")),
			{Family: Specs, Lifecycle: "open", File: "b/big.md", Err: errors.New("file too large")},
		}, []Finding{
			{"error", "malformed", "a/" + itdID + "-x.md", 6, `kind "epic" is not allowed`, "standalone"},
			{"error", "malformed", "b/big.md", 0, "file too large", "fix the file"},
		}},
		{"duplicate_id", []Loaded{
			clean[0],
			load(Intents, "planned", itdDir+"planned/"+itdID+"-copy.md", intentAt(itdID, "planned", ready)),
			load(Intents, "planned", itdDir+"planned/"+itdID+"-third.md", intentAt(itdID, "planned", ready)),
		}, []Finding{
			{"error", "duplicate_id", itdDir + "planned/" + itdID + "-copy.md", 2, "also carried by " + itdDir + "planned/" + itdID + "-records.md, " + itdDir + "planned/" + itdID + "-third.md", "new id"},
			{"error", "duplicate_id", itdDir + "planned/" + itdID + "-records.md", 2, "-copy.md, ", "new id"},
			{"error", "duplicate_id", itdDir + "planned/" + itdID + "-third.md", 2, "-copy.md, ", "new id"},
		}},
		{"wrong_folder", []Loaded{
			load(Intents, "drafts", "d/"+itdID+"-records.md", intentAt(itdID, "planned", ready)),
			load(Intents, "planned", "p/"+itd2+"-Old Name.md", intentAt(itdID, "planned", ready)),
		}, []Finding{
			{"error", "duplicate_id", "d/" + itdID + "-records.md", 2, "also carried by p/" + itd2 + "-Old Name.md", ""},
			{"error", "wrong_folder", "d/" + itdID + "-records.md", 5, "lifecycle planned in the drafts folder", "set lifecycle: drafts (the folder is the lifecycle), or move the file to .abcd/development/intents/planned"},
			{"error", "duplicate_id", "p/" + itd2 + "-Old Name.md", 2, "also carried by d/", ""},
			{"error", "wrong_folder", "p/" + itd2 + "-Old Name.md", 2, "does not start with its id " + itdID, "rename the file to " + itdID + "-old-name.md"},
		}},
		{"broken_reference", []Loaded{
			load(Specs, "open", "s/"+spcID+".md", specAt(spcID, missing, "open", specBody)),
			load(Issues, "open", "i/"+issID+".md", doc(replaceLine(issueFM, "related", "related: ["+missing+", "+spcID+", "+itd2+"]"), "")),
			load(Decisions, "", "d/"+dcnID+".md", doc(decisionFM, "")),
			{Family: Intents, Lifecycle: "drafts", File: "m/" + itd2 + "-broken.md", Err: errors.New("unreadable")},
		}, []Finding{
			{"error", "broken_reference", "d/" + dcnID + ".md", 6, "supersedes names " + dcn2 + ", which no record has", "correct the id in supersedes"},
			{"error", "broken_reference", "i/" + issID + ".md", 8, "related names " + missing, ""},
			{"error", "malformed", "m/" + itd2 + "-broken.md", 0, "unreadable", ""},
			{"error", "broken_reference", "s/" + spcID + ".md", 6, "implements names " + missing, ""},
		}},
		{"no_criteria and no_steps", []Loaded{
			load(Intents, "drafts", "a/"+itdID+".md", intentAt(itdID, "drafts", "## Acceptance Criteria\n\n<!-- fill: x -->\n")),
			load(Intents, "planned", "b/"+itd2+".md", intentAt(itd2, "planned", "")),
			load(Specs, "open", "c/"+spcID+".md", specAt(spcID, itdID, "open", "## Steps\n")),
			load(Specs, "closed", "d/"+spc2+".md", specAt(spc2, itd2, "closed", "")),
		}, []Finding{
			// Drafts and open specs are being written: warnings; planned intents and closed specs: errors.
			{"warning", "no_criteria", "a/" + itdID + ".md", 10, "no acceptance criterion", "- ac-1: Given"},
			{"error", "no_criteria", "b/" + itd2 + ".md", 0, "no acceptance criterion", ""},
			{"warning", "unwritten", "b/" + itd2 + ".md", 0, "a planned intent whose ## Press Release is unwritten", "write the ## Press Release"},
			{"warning", "no_steps", "c/" + spcID + ".md", 9, "no step", "1. text"},
			{"error", "no_steps", "d/" + spc2 + ".md", 0, "no step", ""},
		}},
		{"unwritten and shipped_with_open_spec", []Loaded{
			load(Intents, "drafts", "a/"+itdID+".md", intentAt(itdID, "drafts", "## Press Release\n\n<!-- fill: x -->\n"+ready[len("## Press Release\n\nShipped.\n"):])),
			load(Intents, "shipped", "b/"+itd2+".md", intentAt(itd2, "shipped", "## Press Release\n\n<!-- fill: x -->\n\n## Acceptance Criteria\n\n- ac-1: Given a, when b, then c\n")),
			load(Specs, "open", "c/"+spcID+".md", specAt(spcID, itd2, "open", specBody)),
			load(Specs, "closed", "d/"+spc2+".md", specAt(spc2, itd2, "closed", specBody)),
		}, []Finding{
			{"warning", "shipped_with_open_spec", "b/" + itd2 + ".md", 5, "spec " + spcID + " is open (c/" + spcID + ".md)", "abcd spec close " + spcID},
			{"warning", "unwritten", "b/" + itd2 + ".md", 10, "a shipped intent whose ## Press Release is unwritten", "write the ## Press Release"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Lint(tt.records)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tt.want), dump(got))
			}
			for k, w := range tt.want {
				g := got[k]
				if g.Level != w.Level || g.Code != w.Code || g.File != w.File || g.Line != w.Line || !strings.Contains(g.Message, w.Message) || !strings.Contains(g.Remedy, w.Remedy) || g.Remedy == "" {
					t.Errorf("finding %d:\n got %+v\nwant %+v", k, g, w)
				}
			}
			// Sorted by file, line, code; and independent of input order.
			rev := append([]Loaded(nil), tt.records...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			if again := Lint(rev); !reflect.DeepEqual(again, got) {
				t.Errorf("order-dependent:\n%s\n%s", dump(got), dump(again))
			}
		})
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s:%d %s | %s\n", f.Level, f.Code, f.File, f.Line, f.Message, f.Remedy)
	}
	return b.String()
}
