package record

import (
	"reflect"
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

func TestStepsThatBuildOnEarlierSteps(t *testing.T) {
	spec := func(steps string) Spec {
		data := []byte("---\nid: spc-2607011230050004\ntype: spec\ntitle: Faster\nlifecycle: open\nimplements: itd-2607011230050001\ncreated: 2026-07-01\n---\n\n## Steps\n\n" + steps)
		s, err := ParseSpec("spc.md", data)
		if err != nil {
			t.Fatalf("%s: %v", steps, err)
		}
		return s
	}
	s := spec("1. Read the headers.\n2. Parse them.\n3. (after 1, 2) Render the listing\n   on one line.\n")
	if got := s.Steps[2]; got.N != 3 || got.Text != "Render the listing on one line." || !reflect.DeepEqual(got.After, []int{1, 2}) {
		t.Errorf("step 3 = %#v", got)
	}
	if s.Steps[0].After != nil {
		t.Errorf("step 1 builds on %v", s.Steps[0].After)
	}
	if p, _ := StepOrderProblem(s.Steps); p != "" {
		t.Errorf("a good order is refused: %s", p)
	}
	for steps, want := range map[string]string{
		"1. (after 2) A.\n2. B.\n":                            "",
		"1. (after 1) A.\n":                                   "step 1 builds on itself",
		"1. A.\n2. (after 3) B.\n":                            "step 2 builds on step 3, which does not exist",
		"1. (after 3) A.\n2. (after 1) B.\n3. (after 2) C.\n": "the steps build on each other in a cycle: 1 after 3 after 2 after 1",
	} {
		if got, _ := StepOrderProblem(spec(steps).Steps); got != want {
			t.Errorf("%q: got %q, want %q", steps, got, want)
		}
	}
	for _, bad := range []string{"1. (after one) A.\n", "1. (after 1 A.\n", "2. B.\n", "1. (after 0) A.\n", "1. A.\n2. (after 1, 1) B.\n"} {
		data := []byte("---\nid: spc-2607011230050004\ntype: spec\ntitle: Faster\nlifecycle: open\nimplements: itd-2607011230050001\ncreated: 2026-07-01\n---\n\n## Steps\n\n" + bad)
		if _, err := ParseSpec("spc.md", data); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
