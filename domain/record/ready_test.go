package record

import (
	"strings"
	"testing"
)

func mustIntent(t *testing.T, file, data string) Intent {
	t.Helper()
	i, err := ParseIntent(file, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func mustSpec(t *testing.T, file, data string) Spec {
	t.Helper()
	s, err := ParseSpec(file, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadiness(t *testing.T) {
	const file = "intents/planned/" + itdID + "-x.md"
	ready := "## Press Release\n\nShipped.\n\n## Acceptance Criteria\n\n- ac-1: Given a, when b, then c\n\n## Open Questions\n\n- [x] done?\n"
	openSpec := mustSpec(t, "s.md", doc(specFM, specBody))
	steplessSpec := mustSpec(t, "stepless.md", doc(specFM, "## Steps\n\n<!-- fill: steps -->\n"))
	closedSpec := mustSpec(t, "closed.md", doc(replaceLine(specFM, "lifecycle", "lifecycle: closed"), specBody))
	otherSpec := mustSpec(t, "other.md", doc(replaceLine(specFM, "implements", "implements: itd-1111111111111111"), specBody))
	drafts := replaceLine(intentFM, "lifecycle", "lifecycle: drafts")

	type want struct {
		ok            bool
		detail, remed string // substrings
	}
	tests := []struct {
		name  string
		fm    string
		body  string
		specs []Spec
		want  [4]want
	}{
		{"ready", intentFM, ready, []Spec{otherSpec, closedSpec, openSpec}, [4]want{
			{true, "written", ""}, {true, "1 criterion in Given/When/Then form: ac-1", ""}, {true, "no unresolved question (1 resolved)", ""}, {true, "open spec " + spcID + " has 2 steps", ""},
		}},
		{"template draft, no spec", drafts, renderedBody(), nil, [4]want{
			{false, "holds only placeholders", "write the ## Press Release section of " + file}, {false, "no acceptance criterion", "- ac-1: Given"}, {true, "(0 resolved)", ""}, {false, "no open spec implements " + itdID, "abcd intent plan " + itdID},
		}},
		{"missing sections, planned with closed spec", intentFM, "## Open Questions\n\n- [ ] who?\n- [ ] when?\n", []Spec{closedSpec}, [4]want{
			{false, "no ## Press Release section", "add a ## Press Release section to " + file}, {false, "no acceptance criterion", file}, {false, "2 unresolved questions (line 12: who?; line 13: when?)", "mark it - [x]"}, {false, "(1 closed)", `abcd spec new --intent ` + itdID},
		}},
		{"open spec without steps", intentFM, ready, []Spec{steplessSpec}, [4]want{
			{true, "", ""}, {true, "", ""}, {true, "", ""}, {false, "open spec " + spcID + " has no step", "under ## Steps in stepless.md"},
		}},
	}
	names := []string{"press_release", "acceptance_criteria", "open_questions", "linked_spec"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checks := Readiness(mustIntent(t, file, doc(tt.fm, tt.body)), tt.specs)
			if len(checks) != 4 {
				t.Fatalf("%d checks", len(checks))
			}
			for k, c := range checks {
				w := tt.want[k]
				if c.Name != names[k] || c.OK != w.ok || !strings.Contains(c.Detail, w.detail) || c.Detail == "" || !strings.Contains(c.Remedy, w.remed) || (c.OK != (c.Remedy == "")) {
					t.Errorf("check %d = %+v, want %+v", k, c, w)
				}
			}
		})
	}
}

// renderedBody is the body of the intent template as rendered.
func renderedBody() string {
	out := string(RenderIntent(NewIntent(itdID, "x", created)))
	return out[strings.Index(out, "---\n\n")+4:]
}
