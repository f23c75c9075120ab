package record

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// TitleCases are generated titles that probe the title rule's every edge: ASCII and multibyte text
// of one, 199, 200 and 201 characters, combining sequences, white space at the ends and alone, and
// every hidden character's class at the start, in the middle and at the end.
func TitleCases() []string {
	var out []string
	for _, unit := range []string{"a", "é", "€", "中", "😀", "e\u0301"} {
		for _, n := range []int{1, 2, 199, 200, 201} {
			s := strings.Repeat(unit, n)
			out = append(out, string([]rune(s)[:min(n, utf8.RuneCountInString(s))]))
		}
	}
	for _, sp := range []string{" ", "\u00a0", "\u3000", "\u2003", "\u2028"} {
		out = append(out, sp, sp+sp, sp+"padded", "padded"+sp, sp+"padded"+sp, "in"+sp+"side",
			strings.Repeat("t", MaxTitleRunes-1)+sp, strings.Repeat("t", MaxTitleRunes)+sp, sp+strings.Repeat("t", MaxTitleRunes))
	}
	for _, h := range []string{"\x00", "\t", "\n", "\r", "\x1f", "\x7f", "\u0085", "\u009f", "\u061c", "\u200e", "\u200f",
		"\u202a", "\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\u2060", "\ufeff"} {
		out = append(out, h, h+"start", "end"+h, "mid"+h+"dle", " "+h+" ")
	}
	return append(out, "", "Faster cold start", strings.Repeat("é", 101), "👨\u200d👩\u200d👧 family", "ﬁ ligature", "Ⅻ", "a\u00adb")
}

// TestTitleRuleIsTheSchemaRule: for every generated title, the type's check and its published
// rule agree, both ways: as typed (Title, Source) and as stored (the front matter).
func TestTitleRuleIsTheSchemaRule(t *testing.T) {
	for _, v := range TitleCases() {
		assertRuleAgrees(t, v)
	}
}

// TitleCase is one generated title with what the rule says of it: the refusal code of a title as
// typed ("" when taken), and whether a record file may hold it.
type TitleCase struct {
	Title  string `json:"title"`
	Typed  string `json:"typed"`
	Stored bool   `json:"stored"`
}

// TestTitleCasesFile keeps testdata/title-cases.json, the generated cases with their outcomes, which
// the front doors' tests and the schema consumers in tools/ read, so every door and every reader of
// the published schema is held to the same cases (go test -update to regenerate, then review).
func TestTitleCasesFile(t *testing.T) {
	var cases []TitleCase
	for _, v := range TitleCases() {
		c := TitleCase{Title: v, Stored: CheckTitle(v) == nil}
		var typed Title
		if err := typed.UnmarshalText([]byte(v)); err != nil {
			r, ok := refusal.As(err)
			assert.Assert(t, ok, "%q: %v", v, err)
			c.Typed = string(r.Code)
		}
		cases = append(cases, c)
	}
	data, err := json.MarshalIndent(cases, "", " ")
	assert.NilError(t, err)
	golden.Assert(t, string(text.EscapeUnseenJSON(data))+"\n", "title-cases.json")
}

// FuzzTitleRule: the same agreement on any valid UTF-8 text (what JSON can carry).
func FuzzTitleRule(f *testing.F) {
	for _, v := range TitleCases() {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) {
			return
		}
		assertRuleAgrees(t, v)
	})
}

func assertRuleAgrees(t *testing.T, v string) {
	t.Helper()
	for name, typ := range map[string]textType{"Title": new(Title), "Source": new(Source)} {
		typed := typ.UnmarshalText([]byte(v)) == nil
		assert.Check(t, typed == ruleTakes(typ.SchemaRule(), v), "%s %q: the type takes it %v, the schema the reverse", name, v, typed)
	}
	fault, _ := checkTitleText(v, true)
	_, _, ok := checkFree("title", v)
	assert.Check(t, ok == (fault == titleOK))
	assert.Check(t, ok == ruleTakes(StoredTitle("").SchemaRule(), v), "stored %q: the file check takes it %v, the schema the reverse", v, ok)
	assert.Check(t, (CheckTitle(v) == nil) == ok)
}

// TestTitleOf: a capture's first line becomes a title the stored rule takes.
func TestTitleOf(t *testing.T) {
	for in, want := range map[string]string{
		"The status line\nflickers":        "The status line",
		"\u200d\n  second line wins ":      "second line wins",
		"tab\tinside":                      "tab inside",
		"bidi \u202eevil":                  "bidi  evil",
		strings.Repeat("é", 250):           strings.Repeat("é", MaxTitleRunes),
		strings.Repeat("x", 199) + " tail": strings.Repeat("x", 199),
		"\xff broken":                      "broken",
		"\n\t\n":                           "",
	} {
		got := TitleOf(in)
		assert.Check(t, got == want, "TitleOf(%q) = %q, want %q", in, got, want)
		if got != "" {
			assert.Check(t, CheckTitle(got), "TitleOf(%q) = %q", in, got)
		}
	}
}
