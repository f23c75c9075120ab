package record

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

var created = time.Date(2026, 7, 1, 23, 30, 5, 0, time.FixedZone("x", -2*3600)) // 2026-07-02 UTC

func TestRoundTrips(t *testing.T) {
	t.Run("intent", func(t *testing.T) {
		for _, data := range []string{doc(intentFM, intentBody), strings.ReplaceAll(doc(intentFM, intentBody), "\n", "\r\n"), doc(intentFM, "")} {
			x, err := ParseIntent("x.md", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			out := RenderIntent(x)
			y, err := ParseIntent("x.md", out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !reflect.DeepEqual(stripIntent(x), stripIntent(y)) {
				t.Errorf("round trip\n%#v\n%#v", x, y)
			}
			if again := RenderIntent(y); !bytes.Equal(out, again) {
				t.Errorf("not a fixed point:\n%s\n%s", out, again)
			}
		}
	})
	t.Run("spec", func(t *testing.T) {
		x, err := ParseSpec("x.md", []byte(doc(specFM, specBody)))
		if err != nil {
			t.Fatal(err)
		}
		want := []Step{{N: 1, Text: "Parse the front matter.", Line: 11}, {N: 2, Text: "Render it canonically.", Line: 12}}
		if !reflect.DeepEqual(x.Steps, want) {
			t.Errorf("Steps = %#v", x.Steps)
		}
		y, err := ParseSpec("x.md", RenderSpec(x))
		if err != nil || !reflect.DeepEqual(stripSpec(x), stripSpec(y)) {
			t.Errorf("round trip %v\n%#v\n%#v", err, x, y)
		}
	})
	t.Run("issue", func(t *testing.T) {
		fm := replaceLine(issueFM, "source", `source: "a \"harness\": claude\\code"`)
		x, err := ParseIssue("x.md", []byte(doc(fm, "## Summary\n\ntext\n")))
		if err != nil {
			t.Fatal(err)
		}
		y, err := ParseIssue("x.md", RenderIssue(x))
		if err != nil || !reflect.DeepEqual(stripIssue(x), stripIssue(y)) {
			t.Errorf("round trip %v\n%#v\n%#v", err, x, y)
		}
		x.Front.Related = []string{}
		if out := RenderIssue(x); !bytes.Contains(out, []byte("\nrelated: []\n")) {
			t.Errorf("empty related rendered as\n%s", out)
		}
	})
	t.Run("decision", func(t *testing.T) {
		x, err := ParseDecision("x.md", []byte(doc(decisionFM, "## Decision\n\nTime plus random.\n")))
		if err != nil {
			t.Fatal(err)
		}
		y, err := ParseDecision("x.md", RenderDecision(x))
		if err != nil || !reflect.DeepEqual(stripDecision(x), stripDecision(y)) {
			t.Errorf("round trip %v\n%#v\n%#v", err, x, y)
		}
	})
}

func TestRenderCanonical(t *testing.T) {
	i := NewIntent(itdID, `Say "hi" \ now`, created)
	i.Sections = []Section{{Heading: "Press Release", Body: "Hello."}, {Heading: "Notes"}}
	want := "---\n" +
		"id: " + itdID + "\n" +
		"type: intent\n" +
		`title: "Say \"hi\" \\ now"` + "\n" +
		"lifecycle: drafts\n" +
		"kind: standalone\n" +
		"severity: major\n" +
		"created: 2026-07-02\n" +
		"---\n" +
		"\n## Press Release\n\nHello.\n" +
		"\n## Notes\n"
	if got := string(RenderIntent(i)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTemplatesParseBack(t *testing.T) {
	intent := NewIntent(itdID, "Records", created)
	spec := NewSpec(spcID, "Build it", intent.Front, created)
	issue := NewIssue(issID, "Slow", "line one\r\nline two\n\n", "minor", "harness", nil, created)
	issue2 := NewIssue(issID, "Slow", "", "minor", "harness", []string{itdID}, created)
	dec := NewDecision(dcnID, "Ids", []string{dcn2}, created)
	dec0 := NewDecision(dcnID, "Ids", nil, created)

	i, err := ParseIntent("x.md", RenderIntent(intent))
	if err != nil || !reflect.DeepEqual(stripIntent(i), intent) {
		t.Errorf("intent: %v\n%#v\n%#v", err, i, intent)
	}
	var heads []string
	for _, s := range i.Sections {
		heads = append(heads, s.Heading)
		if Written(s) {
			t.Errorf("template section %s counts as written", s.Heading)
		}
	}
	if strings.Join(heads, "|") != "Press Release|Why This Matters|What's In Scope|What's Out of Scope|Acceptance Criteria|Open Questions|Audit Notes" {
		t.Errorf("intent sections %q", heads)
	}
	if intent.Front.Created != "2026-07-02" || intent.Front.Lifecycle != "drafts" || intent.Front.Kind != "standalone" || intent.Front.Severity != "major" {
		t.Errorf("intent front %+v", intent.Front)
	}
	if s, _ := FindSection(intent.Sections, SectionCriteria); !strings.Contains(s.Body, "- ac-1: Given …, when …, then …") {
		t.Errorf("criteria placeholder %q", s.Body)
	}

	s, err := ParseSpec("x.md", RenderSpec(spec))
	if err != nil || !reflect.DeepEqual(stripSpec(s), spec) {
		t.Errorf("spec: %v\n%#v\n%#v", err, s, spec)
	}
	if spec.Front.Implements != itdID || spec.Front.Lifecycle != "open" || len(spec.Sections) != 7 || spec.Sections[6].Heading != SectionProgress {
		t.Errorf("spec %+v", spec)
	}
	for _, x := range []Issue{issue, issue2} {
		got, err := ParseIssue("x.md", RenderIssue(x))
		if err != nil || !reflect.DeepEqual(stripIssue(got), x) {
			t.Errorf("issue: %v\n%#v\n%#v", err, got, x)
		}
	}
	if issue.Sections[0].Body != "line one\nline two" || issue.Front.Related == nil || Written(issue2.Sections[0]) {
		t.Errorf("issue %+v", issue)
	}
	for _, x := range []Decision{dec, dec0} {
		got, err := ParseDecision("x.md", RenderDecision(x))
		if err != nil || !reflect.DeepEqual(stripDecision(got), x) {
			t.Errorf("decision: %v\n%#v\n%#v", err, got, x)
		}
	}
	if dec.Sections[2].Body != "- "+dcn2 || dec0.Sections[2].Body != "None." || dec0.Front.Supersedes == nil || dec.Front.Date != "2026-07-02" {
		t.Errorf("decisions %+v %+v", dec, dec0)
	}
}

func TestWritten(t *testing.T) {
	for body, want := range map[string]bool{
		"":                                    false,
		"<!-- fill: x -->":                    false,
		"<!-- fill: x -->\n\nNone.\n  ":       false,
		"<!--\nmulti\nline -->":               false,
		"<!-- unclosed":                       false,
		"Text <!-- fill: more -->":            true,
		"<!-- fill: a --> b <!-- fill: c -->": true,
		"None. Really.":                       true,
	} {
		if got := Written(Section{Heading: "H", Body: body}); got != want {
			t.Errorf("Written(%q) = %v", body, got)
		}
	}
}

func TestSetLifecycle(t *testing.T) {
	orig := doc(replaceLine(intentFM, "lifecycle", "lifecycle:   drafts  "), intentBody)
	for _, data := range []string{orig, strings.ReplaceAll(orig, "\n", "\r\n")} {
		out, err := SetLifecycle([]byte(data), "planned")
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Replace(data, "lifecycle:   drafts  ", "lifecycle: planned", 1); string(out) != want {
			t.Errorf("got\n%q\nwant\n%q", out, want)
		}
	}
	spec := doc(specFM, specBody)
	if out, err := SetLifecycle([]byte(spec), "closed"); err != nil || string(out) != strings.Replace(spec, "lifecycle: open", "lifecycle: closed", 1) {
		t.Errorf("spec: %v\n%s", err, out)
	}
	for _, tt := range []struct {
		name, data, lifecycle, msg string
	}{
		{"not a lifecycle", orig, "open", "not an intent lifecycle"},
		{"decision", doc(decisionFM, ""), "open", "no lifecycle"},
		{"malformed", doc(replaceLine(intentFM, "kind", "kind: epic"), ""), "planned", "kind"},
		{"no type", doc(replaceLine(intentFM, "type", ""), ""), "planned", "no type line"},
		{"unknown type", doc(replaceLine(intentFM, "type", "type: memo"), ""), "planned", "not a record type"},
		{"not a record", "hello", "planned", "does not start with ---"},
	} {
		if _, err := SetLifecycle([]byte(tt.data), tt.lifecycle); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestAppendToSection(t *testing.T) {
	rendered := string(RenderIssue(NewIssue(issID, "Slow", "It is slow.", "minor", "harness", nil, created)))
	tests := []struct {
		name, data, heading, text, want string
	}{
		{"existing last section", doc(issueFM, "## Summary\n\nx\n\n## Notes\n\nfirst\n"), "Notes", "second\nthird\n",
			doc(issueFM, "## Summary\n\nx\n\n## Notes\n\nfirst\n\nsecond\nthird\n")},
		{"existing middle section keeps the blank lines after it", doc(issueFM, "## Summary\n\nx\n\n\n## Notes\n"), "summary", "y",
			doc(issueFM, "## Summary\n\nx\n\ny\n\n\n## Notes\n")},
		{"empty section", doc(issueFM, "## Notes\n## Summary\n"), "Notes", "n",
			doc(issueFM, "## Notes\n\nn\n## Summary\n")},
		{"no final newline", doc(issueFM, "## Notes\n\nfirst"), "Notes", "n",
			doc(issueFM, "## Notes\n\nfirst\n\nn\n")},
		{"absent section", doc(issueFM, "## Notes\n\nfirst\n"), "Resolution", "\n\nFixed in abc.\n\n",
			doc(issueFM, "## Notes\n\nfirst\n\n## Resolution\n\nFixed in abc.\n")},
		{"absent section, file without final newline", doc(issueFM, "x"), "Resolution", "done",
			doc(issueFM, "x\n\n## Resolution\n\ndone\n")},
		{"absent section, file ending in a blank line", doc(issueFM, "x\n\n"), "Resolution", "done",
			doc(issueFM, "x\n\n## Resolution\n\ndone\n")},
		{"CRLF", strings.ReplaceAll(doc(issueFM, "## Notes\n\nfirst\n"), "\n", "\r\n"), "Resolution", "a\nb",
			strings.ReplaceAll(doc(issueFM, "## Notes\n\nfirst\n\n## Resolution\n\na\nb\n"), "\n", "\r\n")},
		{"fenced heading in text", doc(issueFM, ""), "Notes", "```\n## x\n```",
			doc(issueFM, "\n## Notes\n\n```\n## x\n```\n")},
		{"matches Render", rendered, "Resolution", "Done.", rendered + "\n## Resolution\n\nDone.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AppendToSection([]byte(tt.data), tt.heading, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", out, tt.want)
			}
		})
	}
	// Appending to a rendered record gives what rendering the record with the text would.
	x, _ := ParseIssue("x.md", []byte(rendered))
	x.Sections[0].Body += "\n\nMore."
	if out, _ := AppendToSection([]byte(rendered), "Summary", "More."); string(out) != string(RenderIssue(x)) {
		t.Errorf("append vs render:\n%s\n%s", out, RenderIssue(x))
	}

	refusals := []struct {
		name, data, heading, text, msg string
	}{
		{"empty text", doc(issueFM, ""), "Notes", " \n", "empty"},
		{"heading in text", doc(issueFM, ""), "Notes", "a\n## B", "starts a section"},
		{"control character", doc(issueFM, ""), "Notes", "a\x1b[31m", "U+001B"},
		{"open fence in text", doc(issueFM, ""), "Notes", "```\ncode", "never closes"},
		{"bad heading", doc(issueFM, ""), "## Notes", "a", "starts with #"},
		{"empty heading", doc(issueFM, ""), " ", "a", "empty"},
		{"malformed record", doc(replaceLine(issueFM, "severity", ""), ""), "Notes", "a", "missing key"},
		{"invalid result", doc(intentFM, "## Acceptance Criteria\n"), "Acceptance Criteria", "just prose", "would make the record invalid"},
		{"section ends in an open fence", doc(issueFM, "## Notes\n```\ncode\n"), "Notes", "a", "never closed"},
		{"file ends in an open fence", doc(issueFM, "## Notes\n```\ncode\n"), "Resolution", "a", "never closed"},
	}
	for _, tt := range refusals {
		if _, err := AppendToSection([]byte(tt.data), tt.heading, tt.text); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestParseErrorWithoutFile(t *testing.T) {
	_, err := SetLifecycle([]byte(doc(replaceLine(intentFM, "kind", "kind: epic"), "")), "planned")
	if pe := parseErr(t, err); pe.File != "" || err.Error() != "line 6: "+pe.Msg {
		t.Errorf("got %q", err)
	}
	_, err = SetLifecycle([]byte(doc(intentFM, "")), "open")
	if pe := parseErr(t, err); pe.Line != 0 || err.Error() != pe.Msg {
		t.Errorf("got %q", err)
	}
}
