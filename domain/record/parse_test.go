package record

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseIntentValid(t *testing.T) {
	file := ".abcd/development/intents/planned/" + itdID + "-records.md"
	i, err := ParseIntent(file, []byte(doc(intentFM, intentBody)))
	if err != nil {
		t.Fatal(err)
	}
	wantFront := IntentFrontMatter{ID: itdID, Type: "intent", Title: `Records you can "trust"`, Lifecycle: "planned", Kind: "standalone", Severity: "major", Created: "2026-07-01"}
	if i.Front != wantFront {
		t.Errorf("Front = %+v", i.Front)
	}
	wantSecs := []Section{
		{"Press Release", "Today abcd keeps records.", 12},
		{"Acceptance Criteria", "<!-- fill: criteria -->\n- ac-1: Given a repo, when I run lint, then it reports.\n- ac-2: GIVEN two records\n  WHEN merged, THEN no collision.", 16},
		{"Open Questions", "- [ ] Who owns it?\n- [x] Which format?", 23},
		{"Notes", "```sh\n## not a heading\n```", 28},
	}
	if !reflect.DeepEqual(i.Sections, wantSecs) {
		t.Errorf("Sections = %#v", i.Sections)
	}
	wantCrit := []Criterion{
		{"ac-1", "Given a repo, when I run lint, then it reports.", 19},
		{"ac-2", "GIVEN two records WHEN merged, THEN no collision.", 20},
	}
	if !reflect.DeepEqual(i.Criteria, wantCrit) {
		t.Errorf("Criteria = %#v", i.Criteria)
	}
	wantQ := []Question{{"Who owns it?", false, 25}, {"Which format?", true, 26}}
	if !reflect.DeepEqual(i.Questions, wantQ) {
		t.Errorf("Questions = %#v", i.Questions)
	}
	if i.File != file || fieldLine(i.Fields, "lifecycle") != 5 || len(i.Fields) != 7 {
		t.Errorf("File %q Fields %+v", i.File, i.Fields)
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		check func(t *testing.T, i Intent)
	}{
		{"CRLF", strings.ReplaceAll(doc(intentFM, intentBody), "\n", "\r\n"), func(t *testing.T, i Intent) {
			if len(i.Criteria) != 2 || i.Sections[1].Body != "<!-- fill: criteria -->\n- ac-1: Given a repo, when I run lint, then it reports.\n- ac-2: GIVEN two records\n  WHEN merged, THEN no collision." {
				t.Errorf("got %#v", i.Sections)
			}
		}},
		{"keys in another order, blank lines, bare title, spacing", doc("created: 2026-07-01\n\nseverity:\tminor\ntitle: Word\n"+replaceLine(replaceLine(replaceLine(intentFM, "created", ""), "severity", ""), "title", "")+"  \n", ""), func(t *testing.T, i Intent) {
			if i.Front.Title != "Word" || i.Front.Severity != "minor" || len(i.Sections) != 0 {
				t.Errorf("got %+v", i)
			}
		}},
		{"JSON escapes", doc(replaceLine(intentFM, "title", `title: "a\\b \u00e9 \ud83d\ude00 \/"  `), ""), func(t *testing.T, i Intent) {
			if i.Front.Title != `a\b é 😀 /` {
				t.Errorf("title %q", i.Front.Title)
			}
		}},
		{"no sections", doc(intentFM, ""), func(t *testing.T, i Intent) {
			if i.Sections == nil || i.Criteria == nil || i.Questions == nil {
				t.Error("nil slices")
			}
		}},
		{"closing fence at end of file", "---\n" + intentFM + "---", nil},
		{"None. and empty sections", doc(intentFM, "## Open Questions\n\nNone.\n\n## Acceptance Criteria\n"), func(t *testing.T, i Intent) {
			if len(i.Questions) != 0 || len(i.Criteria) != 0 {
				t.Errorf("got %+v", i)
			}
		}},
		{"headings case-insensitive", doc(intentFM, "## acceptance criteria\n- ac-7: given x when y then z\n"), func(t *testing.T, i Intent) {
			if len(i.Criteria) != 1 || i.Criteria[0].ID != "ac-7" {
				t.Errorf("got %+v", i.Criteria)
			}
		}},
		{"tilde fence hides headings", doc(intentFM, "## A\n~~~~\n## B\n~~~\n~~~~\n## C\n"), func(t *testing.T, i Intent) {
			if len(i.Sections) != 2 || i.Sections[1].Heading != "C" {
				t.Errorf("got %+v", i.Sections)
			}
		}},
		{"file at the size limit", func() string {
			d := doc(intentFM, "## Notes\n")
			return d + strings.Repeat("a", MaxFileBytes-len(d))
		}(), nil},
		{"header at the size limit", atHeaderLimit(0), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, err := ParseIntent("x.md", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, i)
			}
		})
	}
}

// atHeaderLimit is an intent whose header is extra bytes over MaxHeaderBytes (counted through the
// closing ---), padded with blank lines before the keys.
func atHeaderLimit(extra int) string {
	pad := MaxHeaderBytes + extra - len("---\n"+intentFM+"---")
	return doc(strings.Repeat("\n", pad)+intentFM, "## Notes\n")
}
