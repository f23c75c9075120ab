package record

import (
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
)

type textType interface {
	contract.Described
	UnmarshalText([]byte) error
}

// decodeCase is one value and the code its type refuses it with ("" when it takes it).
type decodeCase struct {
	in, code string
	want     string // the value kept, when taken; in when empty
}

func checkDecode(t *testing.T, name string, fresh func() textType, value func(textType) string, cases []decodeCase) {
	t.Helper()
	for _, c := range cases {
		v := fresh()
		err := v.UnmarshalText([]byte(c.in))
		if c.code == "" {
			assert.Check(t, err, "%s %q", name, c.in)
			want := c.want
			if want == "" {
				want = c.in
			}
			assert.Check(t, is.Equal(value(v), want), "%s %q", name, c.in)
			continue
		}
		r, ok := refusal.As(err)
		if !assert.Check(t, ok, "%s %q: want refusal %s, got %v", name, c.in, c.code, err) {
			continue
		}
		assert.Check(t, is.Equal(string(r.Code), c.code), "%s %q", name, c.in)
		assert.Check(t, r.Why != "" && len(r.Remedy) > 0, "%s %q: a refusal says why and what to do", name, c.in)
		assert.Check(t, len(r.Why) < 300, "%s: the refusal bounds what it echoes", name)
		assert.Check(t, r.What == "" && r.Verb == "", "%s: the type names no verb; the decoder adds the field", name)
	}
}

func TestRefChecksItsShape(t *testing.T) {
	checkDecode(t, "Ref", func() textType { return new(Ref) }, func(v textType) string { return string(*v.(*Ref)) }, []decodeCase{
		{in: "itd-2611300000000001"}, {in: "first-intent"}, {in: " cold "},
		{in: "", code: "ref_invalid"}, {in: "  ", code: "ref_invalid"},
		{in: "../x", code: "ref_invalid"}, {in: "/etc/passwd", code: "ref_invalid"}, {in: `a\b`, code: "ref_invalid"},
		{in: "..", code: "ref_invalid"}, {in: "-rf", code: "ref_invalid"}, {in: ".hidden", code: "ref_invalid"},
		{in: "~root", code: "ref_invalid"}, {in: "a\x00b", code: "ref_invalid"}, {in: "a\xffb", code: "ref_invalid"},
		{in: strings.Repeat("r", 201), code: "ref_invalid"},
	})
}

func TestTitleTrimsAndRefusesWhatALineMayNotHold(t *testing.T) {
	checkDecode(t, "Title", func() textType { return new(Title) }, func(v textType) string { return string(*v.(*Title)) }, []decodeCase{
		{in: "Faster cold start"}, {in: "  padded  ", want: "padded"}, {in: strings.Repeat("é", 200)},
		{in: "\u3000ideographic\u00a0spaces\u3000", want: "ideographic\u00a0spaces"},
		{in: "", code: "title_empty"}, {in: " \u00a0 ", code: "title_empty"}, {in: " \t ", code: "title_invalid"},
		{in: strings.Repeat("t", 201), code: "title_too_long"}, {in: strings.Repeat("é", 201), code: "title_too_long"},
		{in: " " + strings.Repeat("t", 200), code: "title_too_long"},
		{in: "a\x00b", code: "title_invalid"}, {in: "a\nb", code: "title_invalid"}, {in: "a\u0085b", code: "title_invalid"},
		{in: "a\u202eb", code: "title_invalid"}, {in: "a\u200bb", code: "title_invalid"}, {in: "a\ufeffb", code: "title_invalid"},
		{in: "a\xffb", code: "title_invalid"},
	})
}

func TestNotesAndReasonsHoldLinesButNotSections(t *testing.T) {
	checkDecode(t, "Note", func() textType { return new(Note) }, func(v textType) string { return string(*v.(*Note)) }, []decodeCase{
		{in: "line one\nline two\ttabbed"}, {in: "family 👨\u200d👩\u200d👧"}, {in: "\n trimmed \n", want: "trimmed"},
		{in: " ", code: "text_empty"}, {in: "a\x1b[31m", code: "text_invalid"}, {in: "a\u202eb", code: "text_invalid"},
		{in: "it breaks\n## Notes\nsee", code: "text_invalid"}, {in: "```\nopen", code: "text_invalid"},
		{in: strings.Repeat("n", MaxNoteBytes+1), code: "text_invalid"},
	})
	checkDecode(t, "Reason", func() textType { return new(Reason) }, func(v textType) string { return string(*v.(*Reason)) }, []decodeCase{
		{in: "fixed in 1a2b3c4"}, {in: "", code: "why_empty"}, {in: " \n ", code: "why_empty"}, {in: "x\n## Resolution", code: "why_invalid"},
	})
}

func TestSourceSeverityAndLifecycle(t *testing.T) {
	checkDecode(t, "Source", func() textType { return new(Source) }, func(v textType) string { return string(*v.(*Source)) }, []decodeCase{
		{in: "ci"}, {in: " ada ", want: "ada"}, {in: "ada\x01", code: "source_invalid"}, {in: strings.Repeat("s", 201), code: "source_too_long"},
	})
	checkDecode(t, "Severity", func() textType { return new(Severity) }, func(v textType) string { return string(*v.(*Severity)) }, []decodeCase{
		{in: "critical"}, {in: "trivial"}, {in: "", code: "severity_unknown"}, {in: "Major", code: "severity_unknown"},
	})
	checkDecode(t, "Lifecycle", func() textType { return new(Lifecycle) }, func(v textType) string { return string(*v.(*Lifecycle)) }, []decodeCase{
		{in: "drafts"}, {in: "closed"}, {in: "", code: "lifecycle_unknown"}, {in: "open ", code: "lifecycle_unknown"},
	})
}

// TestTheSchemaSaysNoMoreThanTheType: every value the type takes, its published rule takes too, so
// no door that checks the schema refuses what the type (and so another door) would take.
func TestTheSchemaSaysNoMoreThanTheType(t *testing.T) {
	taken := map[string][]string{
		"Ref":       {"itd-2611300000000001", "first", " cold ", "a b"},
		"Title":     {"Faster cold start", strings.Repeat("é", 100)},
		"Note":      {"line one\nline two"},
		"Reason":    {"fixed"},
		"Source":    {"ci"},
		"Severity":  Severities(),
		"Lifecycle": AllLifecycles(),
	}
	types := map[string]textType{"Ref": new(Ref), "Title": new(Title), "Note": new(Note), "Reason": new(Reason),
		"Source": new(Source), "Severity": new(Severity), "Lifecycle": new(Lifecycle)}
	for name, typ := range types {
		rule := typ.SchemaRule()
		for _, v := range taken[name] {
			assert.Check(t, typ.UnmarshalText([]byte(v)), "%s takes %q", name, v)
			assert.Check(t, ruleTakes(rule, v), "%s: the schema refuses %q, which the type takes", name, v)
		}
	}
}

func ruleTakes(r contract.Rule, v string) bool {
	n := len([]rune(v))
	if r.MinLength > 0 && n < r.MinLength || r.MaxLength > 0 && n > r.MaxLength {
		return false
	}
	if r.Pattern != "" && !regexp.MustCompile(r.Pattern).MatchString(v) {
		return false
	}
	if len(r.Enum) > 0 {
		for _, e := range r.Enum {
			if e == v {
				return true
			}
		}
		return false
	}
	return true
}
