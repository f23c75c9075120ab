package record

import (
	"strings"
	"testing"
)

func TestParseRefuses(t *testing.T) {
	type parser func(string, []byte) error
	intent := func(f string, d []byte) error { _, err := ParseIntent(f, d); return err }
	spec := func(f string, d []byte) error { _, err := ParseSpec(f, d); return err }
	issue := func(f string, d []byte) error { _, err := ParseIssue(f, d); return err }
	decision := func(f string, d []byte) error { _, err := ParseDecision(f, d); return err }
	header := func(f string, d []byte) error { _, _, err := ParseHeader(Intents, f, d); return err }
	fm := func(key, line string) string { return doc(replaceLine(intentFM, key, line), "") }
	ac := func(lines string) string { return doc(intentFM, "## Acceptance Criteria\n\n"+lines) } // items from line 12
	oq := func(lines string) string { return doc(intentFM, "## Open Questions\n\n"+lines) }
	steps := func(lines string) string { return doc(specFM, "## Steps\n\n"+lines) } // items from line 11

	tests := []struct {
		name  string
		parse parser
		data  string
		line  int
		msg   string // a substring of the message
	}{
		// the file
		{"too large", intent, doc(intentFM, strings.Repeat("a", MaxFileBytes)), 0, "256 KiB"},
		{"empty", intent, "", 1, "file is empty"},
		{"BOM", intent, "\ufeff" + doc(intentFM, ""), 1, "byte-order mark"},
		{"no opening fence", intent, intentFM, 1, "line 1 is not ---"},
		{"opening fence with space", intent, "--- \n" + intentFM + "---\n", 1, "trailing white space"},
		{"never closed", intent, "---\n" + intentFM, 1, "never closed"},
		{"closing fence with space", intent, "---\n" + intentFM + "---  \n", 9, "trailing white space"},
		{"header over 8 KiB", intent, atHeaderLimit(1), 1 + MaxHeaderBytes + 1 - len("---\n"+intentFM+"---") + 8, "8 KiB"},
		{"header over 8 KiB, never closed", header, "---\n" + strings.Repeat("\n", MaxHeaderBytes), MaxHeaderBytes - 1, "8 KiB"},
		{"invalid UTF-8 in header", intent, fm("title", "title: \"a\xffb\""), 4, "invalid UTF-8"},
		{"control character in header", intent, fm("title", "title: \"a\x1bb\""), 4, "U+001B"},
		{"lone CR", intent, fm("kind", "kind: standalone\rx"), 6, "U+000D"},
		{"invalid UTF-8 in body", intent, doc(intentFM, "## A\n\nok\n\xc3(\n"), 13, "invalid UTF-8"},
		{"C1 control in body", intent, doc(intentFM, "## A\n\u009b31m\n"), 11, "U+009B"},
		{"DEL in preamble", intent, doc(intentFM, "x\x7f\n"), 10, "U+007F"},

		// front matter lines
		{"indented key", intent, fm("kind", " kind: standalone"), 6, "indented"},
		{"comment", intent, fm("kind", "# kind: standalone"), 6, "comment"},
		{"not key value", intent, fm("kind", "kind standalone"), 6, "not a key: value"},
		{"unknown key", intent, fm("kind", "Kind: standalone"), 6, `unknown key "Kind"`},
		{"duplicate key", intent, doc(intentFM+"kind: standalone\n", ""), 9, "appears twice (first on line 6)"},
		{"missing keys", intent, fm("kind", ""), 8, "missing key(s) kind"},
		{"no space after colon", intent, fm("kind", "kind:standalone"), 6, "no space after the colon"},
		{"no value", intent, fm("kind", "kind:"), 6, "has no value"},
		{"bare value with space", intent, fm("title", "title: two words"), 4, "wrap it in double quotes"},
		{"single quotes", intent, fm("title", "title: 'x'"), 4, "single-quoted"},
		{"unclosed quote", intent, fm("title", `title: "x`), 4, "never closed"},
		{"text after quote", intent, fm("title", `title: "x" y`), 4, "after the closing quote"},
		{"unknown escape", intent, fm("title", `title: "\x41"`), 4, `unknown escape \x`},
		{"short unicode escape", intent, fm("title", `title: "\u12"`), 4, "four hex digits"},
		{"lone surrogate", intent, fm("title", `title: "\ud800x"`), 4, "surrogate"},
		{"trailing backslash", intent, fm("title", `title: "\`), 4, "backslash ends"},
		{"escaped control in title", intent, fm("title", `title: "a\nb"`), 4, "an escape writes control character U+000A"},
		{"empty title", intent, fm("title", `title: "  "`), 4, "title is empty"},
		{"padded title", intent, fm("title", `title: " x"`), 4, "leading or trailing white space"},
		{"long title", intent, fm("title", `title: "`+strings.Repeat("é", 201)+`"`), 4, "201 characters"},
		{"list for scalar", intent, fm("kind", "kind: [standalone]"), 6, "kind is a list"},

		// intent values
		{"bad id", intent, fm("id", "id: itd-123"), 2, `not an intent id`},
		{"id of another family", intent, fm("id", "id: "+spcID), 2, "write itd-"},
		{"wrong type", intent, fm("type", "type: spec"), 3, `type "spec" where this file must be an intent`},
		{"bad lifecycle", intent, fm("lifecycle", "lifecycle: open"), 5, "drafts, planned, shipped"},
		{"bad kind", intent, fm("kind", "kind: epic"), 6, "standalone, bundle-member, discipline"},
		{"bad severity", intent, fm("severity", "severity: high"), 7, "critical, major, minor, trivial"},
		{"bad date", intent, fm("created", "created: 2026-02-30"), 8, "YYYY-MM-DD"},
		{"header parse refuses too", header, fm("kind", "kind: epic"), 6, "kind"},

		// sections
		{"duplicate section", intent, doc(intentFM, "## Notes\n## notes\n"), 11, "appears twice (first on line 10)"},
		{"empty heading", intent, doc(intentFM, "## A\n##\n"), 11, "empty ## heading"},

		// acceptance criteria (line 10 heading, 12 first item)
		{"criterion without id", intent, ac("- Given a, when b, then c\n"), 12, "without an id"},
		{"criterion bad id", intent, ac("- ac1: Given a, when b, then c\n"), 12, "without an id"},
		{"criterion not GWT", intent, ac("- ac-1: Given a, then c\n"), 12, "does not read Given"},
		{"criterion wrong order", intent, ac("- ac-1: When b, given a, then c\n"), 12, "does not read Given"},
		{"criterion words only", intent, ac("- ac-1: Givens whenever thence\n"), 12, "does not read Given"},
		{"criterion duplicate id", intent, ac("- ac-1: Given a, when b, then c\n- ac-1: Given a, when b, then c\n"), 13, "used twice (first on line 12)"},
		{"criterion prose", intent, ac("The criteria:\n"), 12, "not a criterion"},
		{"criterion star bullet", intent, ac("* ac-1: Given a, when b, then c\n"), 12, "not a criterion"},
		{"criteria beside None.", intent, ac("None.\n- ac-1: Given a, when b, then c\n"), 13, "both None. and items"},
		{"indented line before any item", intent, ac("  Given a, when b, then c\n"), 12, "not a criterion"},

		// open questions
		{"question without box", intent, oq("- who?\n"), 12, "without a [ ] or [x] box"},
		{"question empty", intent, oq("- [ ]\n"), 12, "no text"},
		{"question prose", intent, oq("Some text\n"), 12, "not a question"},
		{"questions beside None.", intent, oq("- [ ] who?\n\nNone.\n"), 14, "both None. and items"},

		// specs
		{"spec implements non-intent", spec, doc(replaceLine(specFM, "implements", "implements: "+spcID), ""), 6, "not an intent id"},
		{"spec wrong type", spec, doc(replaceLine(specFM, "type", "type: intent"), ""), 3, "must be a spec"},
		{"spec intent key", spec, doc(specFM+"kind: standalone\n", ""), 8, `unknown key "kind"`},
		{"step out of order", spec, steps("1. a\n3. b\n"), 12, "numbered 3 where 2 is expected"},
		{"step leading zero", spec, steps("01. a\n"), 11, "numbered 01 where 1 is expected"},
		{"step without text", spec, steps("1.\n"), 11, "no text"},
		{"step bullet", spec, steps("- a\n"), 11, "not a numbered step"},

		// issues
		{"related not a list", issue, doc(replaceLine(issueFM, "related", "related: "+itdID), ""), 8, "related is not a list"},
		{"related not an id", issue, doc(replaceLine(issueFM, "related", "related: [itd-1]"), ""), 8, `related item "itd-1" is not a record id`},
		{"related empty item", issue, doc(replaceLine(issueFM, "related", "related: ["+itdID+",,]"), ""), 8, "item 2 of the list is empty"},
		{"related quoted item", issue, doc(replaceLine(issueFM, "related", `related: ["`+itdID+`"]`), ""), 8, "not a bare value"},
		{"related unterminated", issue, doc(replaceLine(issueFM, "related", "related: ["+itdID), ""), 8, "does not end with ]"},
		{"related twice", issue, doc(replaceLine(issueFM, "related", "related: ["+itdID+", "+itdID+"]"), ""), 8, "twice"},
		{"related self", issue, doc(replaceLine(issueFM, "related", "related: ["+issID+"]"), ""), 8, "own id"},
		{"issue empty source", issue, doc(replaceLine(issueFM, "source", `source: ""`), ""), 7, "source is empty"},

		// decisions
		{"supersedes non-decision", decision, doc(replaceLine(decisionFM, "supersedes", "supersedes: ["+itdID+"]"), ""), 6, "not a decision id"},
		{"supersedes self", decision, doc(replaceLine(decisionFM, "supersedes", "supersedes: ["+dcnID+"]"), ""), 6, "own id"},
		{"decision lifecycle key", decision, doc(decisionFM+"lifecycle: open\n", ""), 7, "unknown key"},
		{"decision missing date", decision, doc(replaceLine(decisionFM, "date", ""), ""), 6, "missing key(s) date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse("rec.md", []byte(tt.data))
			if err == nil {
				t.Fatal("accepted")
			}
			pe := parseErr(t, err)
			if pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) || pe.File != "rec.md" {
				t.Errorf("got %v (line %d), want line %d with %q", err, pe.Line, tt.line, tt.msg)
			}
			if pe.Remedy == "" || pe.Problem == "" || pe.Msg != pe.Problem+": "+pe.Remedy {
				t.Errorf("problem %q remedy %q msg %q", pe.Problem, pe.Remedy, pe.Msg)
			}
			if want := "rec.md:"; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestParseHeader(t *testing.T) {
	full := doc(intentFM, intentBody)
	hdrLen := len("---\n" + intentFM + "---\n")
	for _, tt := range []struct {
		name string
		data string
	}{
		{"whole file", full},
		{"header only", full[:hdrLen]},
		{"cut inside a rune of the body", full[:hdrLen] + "\xc3"},
		{"invalid body is not read", full[:hdrLen] + "## A\n## A\n\x01"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, n, err := ParseHeader(Intents, "x.md", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if n != hdrLen {
				t.Errorf("length %d, want %d", n, hdrLen)
			}
			if fm, ok := v.(IntentFrontMatter); !ok || fm.ID != itdID {
				t.Errorf("got %#v", v)
			}
		})
	}
	for _, tt := range []struct {
		f    Family
		data string
		want any
	}{
		{Specs, doc(specFM, "x\x00"), SpecFrontMatter{ID: spcID, Type: "spec", Title: "Build records", Lifecycle: "open", Implements: itdID, Created: "2026-07-01"}},
		{Issues, doc(issueFM, ""), IssueFrontMatter{ID: issID, Type: "issue", Title: "Lint is slow", Lifecycle: "open", Severity: "minor", Source: "person:alice", Related: []string{itdID, spcID}, Created: "2026-07-02"}},
		{Decisions, doc(decisionFM, ""), DecisionFrontMatter{ID: dcnID, Type: "decision", Title: "Ids are time plus random", Date: "2026-07-03", Supersedes: []string{dcn2}}},
	} {
		v, _, err := ParseHeader(tt.f, "x.md", []byte(tt.data))
		if err != nil || !deepEqual(v, tt.want) {
			t.Errorf("%s: got %#v, %v", tt.f, v, err)
		}
	}
	// A header that fits is read from HeaderReadBytes of a large file.
	big := atHeaderLimit(0) + strings.Repeat("x", 1000)
	if _, n, err := ParseHeader(Intents, "x.md", []byte(big[:HeaderReadBytes])); err != nil || n != MaxHeaderBytes+1 {
		t.Errorf("at the limit: %d %v", n, err)
	}
	if _, _, err := ParseHeader("things", "x.md", []byte(doc(intentFM, ""))); err == nil || parseErr(t, err).Line != 0 {
		t.Errorf("unknown family: %v", err)
	}
	if _, _, err := ParseHeader(Specs, "x.md", []byte(doc(intentFM, ""))); err == nil {
		t.Error("an intent read as a spec")
	}
}
