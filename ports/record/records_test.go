package record_test

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestRecordMutatingVerbsAreTheOnesCovered(t *testing.T) {
	var got []string
	for _, v := range app.Table() {
		// intent audit opens a build-loop run; its refusals are covered with the loop's.
		if !v.ReadOnly && v.Name != "intent_audit" && slices.Contains([]string{"intent", "spec", "capture", "issue", "decision"}, v.Path[0]) {
			got = append(got, v.Name)
		}
	}
	slices.Sort(got)
	assert.DeepEqual(t, got, strings.Fields(apptest.RecMutatingVerbs))
}

func TestRecordIntentNewCreatesAParseableDraft(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	res := apptest.RecRun[recorduc.RecordCreated](t, a, "intent_new", map[string]any{"title": "  Faster cold start  "})

	id := "itd-2607011230050001" // the clock's second, then the first random draw
	assert.Check(t, regexp.MustCompile(`^itd-260701123005[0-9]{4}$`).MatchString(res.Record.ID), res.Record.ID)
	assert.Check(t, is.Equal(res.Record.ID, id))
	wantPath := apptest.RecDrafts + "/" + id + "-faster-cold-start.md"
	assert.Check(t, is.DeepEqual(res.Record, recorduc.RecordSummary{ID: id, Family: "intents", Title: "Faster cold start",
		Lifecycle: "drafts", Path: wantPath, Severity: "major", Date: "2026-07-01"}))
	assert.Check(t, is.DeepEqual(res.Next.File, &hint.File{Path: wantPath}))
	assert.Check(t, is.Equal(apptest.RecStep(res.Next), "intent_ready ref="+id))
	assert.Check(t, is.DeepEqual(slices.Sorted(maps.Keys(r.Files)), []string{wantPath}))

	it, err := record.ParseIntent(wantPath, r.Files[wantPath])
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(it.Front, record.IntentFrontMatter{ID: id, Type: "intent", Title: "Faster cold start",
		Lifecycle: "drafts", Kind: "standalone", Severity: "major", Created: "2026-07-01"}))
	for _, h := range []string{"Press Release", "Why This Matters", "What's In Scope", "What's Out of Scope",
		"Acceptance Criteria", "Open Questions", "Audit Notes"} {
		s, ok := record.FindSection(it.Sections, h)
		assert.Check(t, ok, "no ## %s", h)
		assert.Check(t, !record.Written(s), "## %s of a new draft holds more than its placeholder", h)
	}

	// The result's shape is the listing's: intent list and intent show report the same summary.
	l := apptest.RecRun[recorduc.RecordListResult](t, a, "intent_list", map[string]any{})
	assert.Check(t, is.DeepEqual(l.Records, []recorduc.RecordSummary{res.Record}))
	assert.Check(t, is.Len(l.Problems, 0))
}

func TestRecordIntentNewUsesTheUTCDateAndSlugsTheTitle(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	// 23:30 five hours west of UTC is 04:30 the next day in UTC.
	a.Clock = fake.Clock{T: time.Date(2026, 7, 1, 23, 30, 5, 0, time.FixedZone("west", -5*3600))}
	res := apptest.RecRun[recorduc.RecordCreated](t, a, "intent_new", map[string]any{"title": "Don't break the Café's API!"})
	assert.Check(t, is.Equal(res.Record.ID, "itd-2607020430050001"))
	assert.Check(t, is.Equal(res.Record.Date, "2026-07-02"))
	assert.Check(t, is.Equal(res.Record.Path, apptest.RecDrafts+"/itd-2607020430050001-dont-break-the-cafes-api.md"))
	it, err := record.ParseIntent(res.Record.Path, r.Files[res.Record.Path])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.Created, "2026-07-02"))
	assert.Check(t, is.Equal(it.Front.Title, "Don't break the Café's API!"))
}

// repeating is randomness that draws from a fixed list, then repeats its last value.
type repeating struct {
	vals []uint32
	n    int
}

func (r *repeating) Uint32() uint32 {
	v := r.vals[min(r.n, len(r.vals)-1)]
	r.n++
	return v
}

func TestRecordIntentNewRetriesATakenID(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	a.Random = &repeating{vals: []uint32{7, 7, 10008}}
	first := apptest.RecRun[recorduc.RecordCreated](t, a, "intent_new", map[string]any{"title": "Same title"})
	second := apptest.RecRun[recorduc.RecordCreated](t, a, "intent_new", map[string]any{"title": "Same title"})
	assert.Check(t, is.Equal(first.Record.ID, "itd-2607011230050007"))
	assert.Check(t, is.Equal(second.Record.ID, "itd-2607011230050008"), "the same second and draw must retry to a fresh id")
	assert.Check(t, is.Len(r.Files, 2))
	for _, p := range []string{first.Record.Path, second.Record.Path} {
		_, ok := r.Files[p]
		assert.Check(t, ok, "missing %s", p)
	}
	// A different title with the taken id is retried too: the id, not the file name, must be fresh.
	a.Random = &repeating{vals: []uint32{7, 8, 9}}
	third := apptest.RecRun[recorduc.RecordCreated](t, a, "intent_new", map[string]any{"title": "Other title"})
	assert.Check(t, is.Equal(third.Record.ID, "itd-2607011230050009"))
}

func TestRecordIntentNewGivesUpWhenEveryDrawIsTaken(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	a.Random = &repeating{vals: []uint32{7}}
	apptest.RecRun[recorduc.RecordCreated](t, a, "intent_new", map[string]any{"title": "First"})
	before := apptest.RecClone(r.Files)
	_, err := a.Call(context.Background(), "intent_new", map[string]any{"title": "Second"})
	re := apptest.RecRefused(t, err, refusal.Contention, "id_contention")
	assert.Check(t, is.Equal(re.Kind.ExitCode(), 3))
	assert.Check(t, apptest.SameFiles(r.Files, before))
}

func TestRecordTitlesAreChecked(t *testing.T) {
	cases := []struct {
		name, title string
		code        refusal.Code
	}{
		{"empty", "", "title_empty"},
		{"blank", " \u00a0 ", "title_empty"},
		{"blank with a tab", " \t ", "title_invalid"},
		{"over 200 characters", strings.Repeat("a", 201), "title_too_long"},
		{"over 200 characters of two bytes", strings.Repeat("é", 201), "title_too_long"},
		{"bidirectional control", "a\u202eb", "title_invalid"},
		{"zero-width", "a\u200bb", "title_invalid"},
		{"NUL", "a\x00b", "title_invalid"},
		{"newline", "two\nlines", "title_invalid"},
		{"tab", "a\tb", "title_invalid"},
		{"escape", "red \x1b[31m", "title_invalid"},
		{"C1 control", "a\u0085b", "title_invalid"},
		{"invalid UTF-8", "a\xffb", "title_invalid"},
	}
	for _, verb := range []string{"intent_new", "decision_new", "spec_new"} {
		for _, c := range cases {
			t.Run(verb+"/"+c.name, func(t *testing.T) {
				w := apptest.NewRecWorld(t)
				var in map[string]any
				switch verb {
				case "intent_new":
					in = map[string]any{"title": c.title}
				case "decision_new":
					in = map[string]any{"title": c.title}
				case "spec_new":
					in = map[string]any{"intent": w.Planned, "title": c.title}
				}
				before := apptest.RecClone(w.R.Files)
				_, err := w.A.Call(context.Background(), verb, in)
				re := apptest.RecRefused(t, err, refusal.Refused, c.code)
				assert.Check(t, is.Equal(re.Kind.ExitCode(), 2))
				assert.Check(t, apptest.SameFiles(w.R.Files, before))
			})
		}
	}
	t.Run("exactly 200 characters of two bytes is accepted, and the file holds it", func(t *testing.T) {
		r := fake.NewRecords()
		res := apptest.RecRun[recorduc.RecordCreated](t, apptest.RecApp(r), "intent_new", map[string]any{"title": strings.Repeat("é", 200)})
		_, err := record.ParseIntent(res.Record.Path, r.Files[res.Record.Path])
		assert.NilError(t, err)
	})
}

// TestRecordRefusalsChangeNothing: every refusal of every mutating verb leaves the store byte for
// byte as it was, with exit code 2 (refused) or 3 (contention).
func TestRecordRefusalsChangeNothing(t *testing.T) {
	type refCase struct {
		name, verb string
		in         func(w apptest.RecWorld) map[string]any
		code       refusal.Code
		remedyHas  func(w apptest.RecWorld) []string
	}
	ref := func(s string) func(apptest.RecWorld) map[string]any {
		return func(apptest.RecWorld) map[string]any { return map[string]any{"ref": s} }
	}
	long := strings.Repeat("a", 300)
	cases := []refCase{
		{name: "plan: unknown ref", verb: "intent_plan", in: ref("no-such-thing"), code: "ref_unresolved"},
		{name: "plan: ambiguous ref", verb: "intent_plan", in: ref("faster"), code: "ref_unresolved",
			remedyHas: func(w apptest.RecWorld) []string { return []string{"candidates", w.Draft, w.Draft2} }},
		{name: "plan: ambiguous id prefix", verb: "intent_plan", in: ref("itd-2607"), code: "ref_unresolved",
			remedyHas: func(w apptest.RecWorld) []string { return []string{"candidates", w.Draft, w.Draft2} }},
		{name: "plan: path ref", verb: "intent_plan", in: ref("../x")},
		{name: "plan: absolute path ref", verb: "intent_plan", in: ref("/etc/passwd")},
		{name: "plan: 300-byte ref", verb: "intent_plan", in: ref(long)},
		{name: "plan: control character ref", verb: "intent_plan", in: ref("fast\x00er")},
		{name: "plan: empty ref", verb: "intent_plan", in: ref("")},
		{name: "ship: path ref", verb: "intent_ship", in: ref("../x")},
		{name: "ship: 300-byte ref", verb: "intent_ship", in: ref(long)},
		{name: "spec close: path ref", verb: "spec_close", in: ref(`..\x`)},
		{name: "spec close: unknown ref", verb: "spec_close", in: ref("no-such-thing"), code: "ref_unresolved"},
		{name: "issue close: path ref", verb: "issue_close", code: "",
			in: func(apptest.RecWorld) map[string]any { return map[string]any{"ref": "../x", "why": "fixed"} }},
		{name: "issue close: unknown ref", verb: "issue_close", code: "ref_unresolved",
			in: func(apptest.RecWorld) map[string]any { return map[string]any{"ref": "no-such-thing", "why": "fixed"} }},
		{name: "plan a planned intent", verb: "intent_plan", code: "transition_refused",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.Planned} }},
		{name: "plan a shipped intent", verb: "intent_plan", code: "transition_refused",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.Shipped} }},
		{name: "close a closed spec", verb: "spec_close", code: "transition_refused",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.ClosedSpec} }},
		{name: "ship a draft", verb: "intent_ship", code: "transition_refused",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.Draft} }},
		{name: "ship a shipped intent", verb: "intent_ship", code: "transition_refused",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.Shipped} }},
		{name: "ship with an open spec", verb: "intent_ship", code: "spec_open",
			in:        func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.Planned} },
			remedyHas: func(w apptest.RecWorld) []string { return []string{`run spec_close with {"ref":"` + w.OpenSpec + `"}`} }},
		{name: "spec new for a shipped intent", verb: "spec_new", code: "intent_shipped",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"intent": w.Shipped, "title": "More"} }},
		{name: "spec new for an unknown intent", verb: "spec_new", code: "ref_unresolved",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"intent": "no-such-thing", "title": "More"}
			}},
		{name: "spec new for an ambiguous intent", verb: "spec_new", code: "ref_unresolved",
			in:        func(w apptest.RecWorld) map[string]any { return map[string]any{"intent": "faster", "title": "More"} },
			remedyHas: func(w apptest.RecWorld) []string { return []string{w.Draft, w.Draft2} }},
		{name: "capture: bad severity", verb: "capture", code: "severity_unknown",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"text": "x", "severity": "urgent"} }},
		{name: "capture: unknown related", verb: "capture", code: "ref_unresolved",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"text": "x", "related": []string{w.Draft, "no-such-thing"}}
			}},
		{name: "capture: unknown related id", verb: "capture", code: "ref_unresolved",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"text": "x", "related": []string{"spc-2607011230059999"}}
			}},
		{name: "capture: ambiguous related", verb: "capture", code: "ref_unresolved",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"text": "x", "related": []string{"faster"}}
			}},
		{name: "capture: path related", verb: "capture",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"text": "x", "related": []string{"../x"}}
			}},
		{name: "capture: empty text", verb: "capture", code: "text_empty",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"text": "  "} }},
		{name: "capture: control character", verb: "capture", code: "text_invalid",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"text": "a\x00b"} }},
		{name: "issue close without why", verb: "issue_close", code: "input_missing",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.Issue} }},
		{name: "issue close with a blank why", verb: "issue_close", code: "why_empty",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"ref": w.Issue, "why": " \n "} }},
		{name: "decision superseding an unknown decision", verb: "decision_new", code: "ref_unresolved",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"title": "New ruling", "supersedes": []string{w.Decision, "dcn-2607011230059999"}}
			}},
		{name: "decision superseding an intent", verb: "decision_new", code: "ref_unresolved",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"title": "New ruling", "supersedes": []string{w.Draft}}
			}},
		{name: "intent new: no title", verb: "intent_new", code: "input_missing",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{} }},
		{name: "intent new: empty title", verb: "intent_new", code: "title_empty",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"title": " "} }},
		{name: "intent new: an unknown field", verb: "intent_new", code: "input_invalid",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"title": "x", "force": true} }},
		{name: "capture: too many related", verb: "capture", code: "input_invalid",
			in: func(w apptest.RecWorld) map[string]any {
				return map[string]any{"text": "x", "related": []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q"}}
			}},
		{name: "capture: a related ref of the wrong type", verb: "capture", code: "input_invalid",
			in: func(w apptest.RecWorld) map[string]any { return map[string]any{"text": "x", "related": "itd-1"} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := apptest.NewRecWorld(t)
			before := apptest.RecClone(w.R.Files)
			_, err := w.A.Call(context.Background(), c.verb, c.in(w))
			re := apptest.RecRefused(t, err, refusal.Refused, c.code)
			assert.Check(t, is.Equal(re.Kind.ExitCode(), 2))
			if c.remedyHas != nil {
				for _, s := range c.remedyHas(w) {
					assert.Check(t, is.Contains(re.Remedy.String(), s))
				}
			}
			assert.Check(t, apptest.SameFiles(w.R.Files, before))
		})
	}

	// Each mutating verb, with an input it accepts, before ahoy install and under a held lock.
	for verb := range apptest.NewRecWorld(t).ValidInputs() {
		t.Run(verb+": not initialized", func(t *testing.T) {
			w := apptest.NewRecWorld(t)
			w.R.Init = false
			before := apptest.RecClone(w.R.Files)
			_, err := w.A.Call(context.Background(), verb, w.ValidInputs()[verb]())
			re := apptest.RecRefused(t, err, refusal.Refused, "not_initialized")
			assert.Check(t, is.Contains(re.Remedy.String(), "run ahoy_install"))
			assert.Check(t, apptest.SameFiles(w.R.Files, before))
		})
		t.Run(verb+": lock held", func(t *testing.T) {
			w := apptest.NewRecWorld(t)
			w.R.Locked = true
			before := apptest.RecClone(w.R.Files)
			_, err := w.A.Call(context.Background(), verb, w.ValidInputs()[verb]())
			re := apptest.RecRefused(t, err, refusal.Contention, "record_locked")
			assert.Check(t, is.Equal(re.Kind.ExitCode(), 3))
			assert.Check(t, is.Equal(refusal.DocumentOf(err).ExitCode, 3))
			assert.Check(t, apptest.SameFiles(w.R.Files, before))
		})
		t.Run(verb+": the input is valid", func(t *testing.T) {
			w := apptest.NewRecWorld(t)
			before := len(w.R.Files)
			_, err := w.A.Call(context.Background(), verb, w.ValidInputs()[verb]())
			assert.NilError(t, err)
			assert.Check(t, len(w.R.Files) >= before)
		})
	}
}

// TestRecordHostileRefIsRefusedAsNotARef: a ref that is not a ref at all (a path, control
// characters, over 200 bytes, empty) is refused as ref_invalid, with the remedy saying what a ref
// is, not as a ref that matched nothing.
func TestRecordHostileRefIsRefusedAsNotARef(t *testing.T) {
	for _, ref := range []string{"../x", "/etc/passwd", `a\b`, strings.Repeat("a", 300), "a\x00b", ""} {
		t.Run(ref[:min(len(ref), 12)], func(t *testing.T) {
			w := apptest.NewRecWorld(t)
			before := apptest.RecClone(w.R.Files)
			_, err := w.A.Call(context.Background(), "intent_plan", map[string]any{"ref": ref})
			re := apptest.RecRefused(t, err, refusal.Refused, "ref_invalid")
			assert.Check(t, is.Contains(re.Remedy.String(), "slug fragment"))
			assert.Check(t, apptest.SameFiles(w.R.Files, before))
		})
	}
}

func TestRecordRefs(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	cold := apptest.RecNewIntent(t, a, r, "Faster cold start", false)
	a.Clock = fake.Clock{T: time.Date(2026, 8, 15, 9, 0, 0, 0, time.UTC)}
	warm := apptest.RecNewIntent(t, a, r, "Faster warm start", false)
	a.Clock = fake.Clock{T: time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)}
	coldOnly := apptest.RecNewIntent(t, a, r, "Cold", false)

	show := func(ref string) (recorduc.IntentShowResult, error) {
		res, err := a.Call(context.Background(), "intent_show", map[string]any{"ref": ref})
		if err != nil {
			return recorduc.IntentShowResult{}, err
		}
		return res.(recorduc.IntentShowResult), nil
	}
	for ref, want := range map[string]string{
		cold.ID:                     cold.ID, // full id
		"itd-2607":                  cold.ID, // unique id prefix
		"itd-2608":                  warm.ID,
		strings.ToUpper(warm.ID):    warm.ID, // case does not matter
		"  " + warm.ID + " ":        warm.ID, // surrounding white space is trimmed
		"warm":                      warm.ID, // unique slug fragment
		"cold-st":                   cold.ID,
		"cold":                      coldOnly.ID, // an exact slug beats the slugs it is part of
		"faster-cold-start":         cold.ID,
		cold.ID + "-anything":       cold.ID, // a file name counts as its id
		path0(cold.Path):            cold.ID,
		cold.ID[:len(cold.ID)-4]:    cold.ID,
		coldOnly.ID[:len("itd-26")]: "",
	} {
		res, err := show(ref)
		if want == "" {
			apptest.RecRefused(t, err, refusal.Refused, "ref_unresolved")
			continue
		}
		assert.Check(t, err, "ref %q", ref)
		if err == nil {
			assert.Check(t, is.Equal(res.Intent.ID, want), "ref %q", ref)
		}
	}

	// An exact id beats an id it is a prefix of: a malformed file named with one more digit.
	longer := apptest.RecDrafts + "/" + cold.ID + "1-broken.md"
	r.Files[longer] = []byte("not a record\n")
	res, err := show(cold.ID)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Intent.ID, cold.ID))
	_, err = show(cold.ID[:len(cold.ID)-1])
	re := apptest.RecRefused(t, err, refusal.Refused, "ref_unresolved")
	assert.Check(t, is.Contains(re.Remedy.String(), cold.ID))
	assert.Check(t, is.Contains(re.Remedy.String(), cold.ID+"1"))
	// Naming the malformed file itself is refused with the fix, and a mutating verb writes nothing.
	before := apptest.RecClone(r.Files)
	_, err = a.Call(context.Background(), "intent_plan", map[string]any{"ref": "broken"})
	re = apptest.RecRefused(t, err, refusal.Refused, "record_malformed")
	assert.Check(t, is.Contains(re.What, longer))
	assert.Check(t, apptest.SameFiles(r.Files, before))
}

// path0 is the base name of a record path.
func path0(p string) string { return p[strings.LastIndex(p, "/")+1:] }

func TestRecordIntentPlanMovesTheDraftAndCreatesItsSpec(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	in := apptest.RecNewIntent(t, a, r, "Faster cold start", true)
	draftBytes := append([]byte(nil), r.Files[in.Path]...)

	res := apptest.RecRun[recorduc.IntentPlanResult](t, a, "intent_plan", map[string]any{"ref": "cold"})
	to := apptest.RecPlanned + "/" + path0(in.Path)
	assert.Check(t, is.Equal(res.From, in.Path))
	assert.Check(t, is.Equal(res.To, to))
	assert.Check(t, is.Equal(res.Intent.ID, in.ID))
	assert.Check(t, is.Equal(res.Intent.Lifecycle, "planned"))
	assert.Check(t, is.Equal(res.Intent.Path, to))
	_, stillThere := r.Files[in.Path]
	assert.Check(t, !stillThere, "the draft is still in drafts/")

	// The planned file is the draft with its lifecycle line changed, nothing else.
	want := strings.Replace(string(draftBytes), "\nlifecycle: drafts\n", "\nlifecycle: planned\n", 1)
	assert.Check(t, is.Equal(string(r.Files[to]), want))
	it, err := record.ParseIntent(to, r.Files[to])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.Lifecycle, "planned"))

	// Its spec: open, implementing the intent, from the template.
	assert.Check(t, is.Equal(res.Spec.Family, "specs"))
	assert.Check(t, is.Equal(res.Spec.Lifecycle, "open"))
	assert.Check(t, is.Equal(res.Spec.Implements, in.ID))
	assert.Check(t, strings.HasPrefix(res.Spec.Path, apptest.RecSpecsOpen+"/spc-260701123005"), res.Spec.Path)
	sp, err := record.ParseSpec(res.Spec.Path, r.Files[res.Spec.Path])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(sp.Front.ID, res.Spec.ID))
	assert.Check(t, is.Equal(sp.Front.Implements, in.ID))
	assert.Check(t, is.Equal(sp.Front.Lifecycle, "open"))
	assert.Check(t, is.Equal(sp.Front.Created, "2026-07-01"))
	assert.Check(t, is.Len(sp.Steps, 0))
	assert.Check(t, is.Len(r.Files, 2))

	// The intent shows its spec; lint sees no error.
	show := apptest.RecRun[recorduc.IntentShowResult](t, a, "intent_show", map[string]any{"ref": in.ID})
	assert.Check(t, is.DeepEqual(show.Specs, []recorduc.RecordSummary{res.Spec}))
	lint := apptest.RecRun[recorduc.LintResult](t, a, "lint", map[string]any{})
	assert.Check(t, is.Equal(lint.Errors, 0), "%+v", lint.Findings)
}

func checkNames(cs []record.Check) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func checkOK(cs []record.Check) map[string]bool {
	out := map[string]bool{}
	for _, c := range cs {
		out[c.Name] = c.OK
	}
	return out
}

func TestRecordIntentReadyGate(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	in := apptest.RecNewIntent(t, a, r, "Faster cold start", false)
	ready := func(ref string) recorduc.IntentReadyResult {
		t.Helper()
		before := apptest.RecClone(r.Files)
		res := apptest.RecRun[recorduc.IntentReadyResult](t, a, "intent_ready", map[string]any{"ref": ref})
		assert.Check(t, apptest.SameFiles(r.Files, before), "intent ready wrote")
		assert.Check(t, is.DeepEqual(checkNames(res.Checks), []string{"press_release", "acceptance_criteria", "open_questions", "linked_spec"}))
		ok := true
		for _, c := range res.Checks {
			ok = ok && c.OK
			if !c.OK {
				assert.Check(t, c.Remedy != "", "check %s fails without a remedy", c.Name)
			}
			assert.Check(t, c.Detail != "", "check %s has no detail", c.Name)
		}
		assert.Check(t, is.Equal(res.Ready, ok))
		return res
	}

	res := ready(in.ID)
	assert.Check(t, !res.Ready)
	assert.Check(t, is.DeepEqual(checkOK(res.Checks), map[string]bool{"press_release": false, "acceptance_criteria": false, "open_questions": true, "linked_spec": false}))
	assert.Check(t, is.Contains(res.Checks[3].Remedy, "abcd intent plan "+in.ID))

	apptest.RecEdit(t, r, in.Path, "Press Release", apptest.RecPressRelease)
	res = ready(in.ID)
	assert.Check(t, is.DeepEqual(checkOK(res.Checks), map[string]bool{"press_release": true, "acceptance_criteria": false, "open_questions": true, "linked_spec": false}))

	apptest.RecEdit(t, r, in.Path, "Acceptance Criteria", apptest.RecCriterion)
	apptest.RecEdit(t, r, in.Path, "Open Questions", "- [ ] Which machines count as cold?\n- [x] Is 50 ms enough?")
	res = ready(in.ID)
	assert.Check(t, is.DeepEqual(checkOK(res.Checks), map[string]bool{"press_release": true, "acceptance_criteria": true, "open_questions": false, "linked_spec": false}))
	assert.Check(t, is.Contains(res.Checks[2].Detail, "Which machines count as cold?"))

	apptest.RecEdit(t, r, in.Path, "Open Questions", "- [x] Which machines count as cold?\n- [x] Is 50 ms enough?")
	res = ready(in.ID)
	assert.Check(t, is.DeepEqual(checkOK(res.Checks), map[string]bool{"press_release": true, "acceptance_criteria": true, "open_questions": true, "linked_spec": false}))

	plan := apptest.RecRun[recorduc.IntentPlanResult](t, a, "intent_plan", map[string]any{"ref": in.ID})
	res = ready(in.ID)
	assert.Check(t, !res.Ready, "a spec without a step is not enough")
	assert.Check(t, is.Contains(res.Checks[3].Detail, "has no step"))
	assert.Check(t, is.Contains(res.Checks[3].Remedy, plan.Spec.Path))

	apptest.RecEdit(t, r, plan.Spec.Path, "Steps", apptest.RecTwoSteps)
	res = ready("cold")
	assert.Check(t, res.Ready, "%+v", res.Checks)
	assert.Check(t, is.Equal(res.Intent.Lifecycle, "planned"))

	spec := apptest.RecRun[recorduc.SpecShowResult](t, a, "spec_show", map[string]any{"ref": plan.Spec.ID})
	assert.Check(t, is.DeepEqual(spec.Steps, []recorduc.StepView{{N: 1, Text: "Make config loading lazy."}, {N: 2, Text: "Build the binary static."}}))

	// Closing the spec leaves no open spec: not ready again.
	apptest.RecRun[recorduc.MoveResult](t, a, "spec_close", map[string]any{"ref": plan.Spec.ID})
	res = ready(in.ID)
	assert.Check(t, !res.Ready)
	assert.Check(t, !res.Checks[3].OK)
}

func TestRecordIntentShipAfterItsSpecCloses(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	in := apptest.RecNewIntent(t, a, r, "Faster cold start", true)
	plan := apptest.RecPlan(t, a, r, in.ID, true)

	before := apptest.RecClone(r.Files)
	_, err := a.Call(context.Background(), "intent_ship", map[string]any{"ref": in.ID})
	apptest.RecRefused(t, err, refusal.Refused, "spec_open")
	assert.Check(t, apptest.SameFiles(r.Files, before))

	closed := apptest.RecRun[recorduc.MoveResult](t, a, "spec_close", map[string]any{"ref": plan.Spec.ID})
	assert.Check(t, is.Equal(closed.To, apptest.RecSpecsClosed+"/"+path0(plan.Spec.Path)))
	sp, err := record.ParseSpec(closed.To, r.Files[closed.To])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(sp.Front.Lifecycle, "closed"))

	shipped := apptest.RecRun[recorduc.MoveResult](t, a, "intent_ship", map[string]any{"ref": in.ID})
	assert.Check(t, is.Equal(shipped.From, plan.Intent.Path))
	assert.Check(t, is.Equal(shipped.To, apptest.RecShipped+"/"+path0(in.Path)))
	assert.Check(t, is.Equal(shipped.Record.Lifecycle, "shipped"))
	it, err := record.ParseIntent(shipped.To, r.Files[shipped.To])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.Lifecycle, "shipped"))
	assert.Check(t, is.Len(r.Files, 2))

	lint := apptest.RecRun[recorduc.LintResult](t, a, "lint", map[string]any{})
	assert.Check(t, is.Equal(lint.Errors, 0), "%+v", lint.Findings)
	assert.Check(t, is.Equal(lint.Warnings, 0), "%+v", lint.Findings)
}

func TestRecordIssueCloseAppendsTheResolution(t *testing.T) {
	w := apptest.NewRecWorld(t)
	c := apptest.RecRun[recorduc.RecordCreated](t, w.A, "capture", map[string]any{"text": "The spinner hides errors\n\nRun abcd with a bad config.", "severity": "major", "source": "ada", "related": []string{"cold", w.Planned, w.OpenSpec, w.Decision}})
	assert.Check(t, is.Equal(c.Record.Title, "The spinner hides errors"))
	assert.Check(t, is.Equal(c.Record.Severity, "major"))
	is1, err := record.ParseIssue(c.Record.Path, w.R.Files[c.Record.Path])
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(is1.Front.Related, []string{w.Draft, w.Planned, w.OpenSpec, w.Decision}))
	assert.Check(t, is.Equal(is1.Front.Source, "ada"))

	why := "Fixed: errors now print above the spinner."
	res := apptest.RecRun[recorduc.MoveResult](t, w.A, "issue_close", map[string]any{"ref": c.Record.ID, "why": "  " + why + "\n"})
	to := apptest.RecIssuesClosed + "/" + path0(c.Record.Path)
	assert.Check(t, is.Equal(res.From, c.Record.Path))
	assert.Check(t, is.Equal(res.To, to))
	assert.Check(t, is.Equal(res.Record.Lifecycle, "closed"))
	_, still := w.R.Files[c.Record.Path]
	assert.Check(t, !still)
	closed, err := record.ParseIssue(to, w.R.Files[to])
	assert.NilError(t, err)
	assert.Check(t, is.Equal(closed.Front.Lifecycle, "closed"))
	sec, ok := record.FindSection(closed.Sections, "Resolution")
	assert.Assert(t, ok, "no ## Resolution in:\n%s", w.R.Files[to])
	assert.Check(t, is.Contains(sec.Body, why))
	sum, _ := record.FindSection(closed.Sections, "Summary")
	assert.Check(t, is.Contains(sum.Body, "Run abcd with a bad config."))

	show := apptest.RecRun[recorduc.RecordShowResult](t, w.A, "issue_show", map[string]any{"ref": c.Record.ID})
	assert.Check(t, is.Equal(show.Record.Lifecycle, "closed"))
	assert.Check(t, is.Len(show.Related, 4))

	// Closing it again is a transition the lifecycle does not allow.
	before := apptest.RecClone(w.R.Files)
	_, err = w.A.Call(context.Background(), "issue_close", map[string]any{"ref": c.Record.ID, "why": "again"})
	apptest.RecRefused(t, err, refusal.Refused, "transition_refused")
	assert.Check(t, apptest.SameFiles(w.R.Files, before))
}

// TestRecordIssueCloseRefusesAWhyItCannotWrite: a --why the record cannot hold (a line that would
// start a section, an unclosed code fence) is bad input: a refusal (exit 2), not a fault (exit 1).
func TestRecordIssueCloseRefusesAWhyItCannotWrite(t *testing.T) {
	for name, why := range map[string]string{
		"a heading line": "fixed\n## Sneaky",
		"an open fence":  "fixed\n```\ncode",
	} {
		t.Run(name, func(t *testing.T) {
			w := apptest.NewRecWorld(t)
			before := apptest.RecClone(w.R.Files)
			_, err := w.A.Call(context.Background(), "issue_close", map[string]any{"ref": w.Issue, "why": why})
			apptest.RecRefused(t, err, refusal.Refused, "")
			assert.Check(t, apptest.SameFiles(w.R.Files, before))
		})
	}
}

// TestRecordCaptureNeverWritesAnUnreadableIssue: whatever capture accepts, it writes an issue that
// parses, that lint passes and that issue close can close; what it cannot write that way it refuses,
// writing nothing.
func TestRecordCaptureNeverWritesAnUnreadableIssue(t *testing.T) {
	for name, in := range map[string]map[string]any{
		"first line ends in a space":       {"text": "trailing space \nsecond line"},
		"a line that starts a section":     {"text": "it breaks\n## Notes\nsee above"},
		"an open code fence":               {"text": "it breaks\n```\nstack trace"},
		"a source with a control":          {"text": "it breaks", "source": "ada\x01"},
		"a source over 200 characters":     {"text": "it breaks", "source": strings.Repeat("s", 201)},
		"a long first line cut at a space": {"text": strings.Repeat("a", 199) + " " + strings.Repeat("b", 20)},
	} {
		t.Run(name, func(t *testing.T) {
			w := apptest.NewRecWorld(t)
			before := apptest.RecClone(w.R.Files)
			res, err := w.A.Call(context.Background(), "capture", in)
			if err != nil {
				apptest.RecRefused(t, err, refusal.Refused, "")
				assert.Check(t, apptest.SameFiles(w.R.Files, before))
				return
			}
			c := res.(recorduc.RecordCreated)
			_, perr := record.ParseIssue(c.Record.Path, w.R.Files[c.Record.Path])
			assert.Check(t, perr, "capture wrote an issue that does not parse:\n%s", w.R.Files[c.Record.Path])
			lint := apptest.RecRun[recorduc.LintResult](t, w.A, "lint", map[string]any{})
			assert.Check(t, is.Equal(lint.Errors, 0), "%+v", lint.Findings)
			_, err = w.A.Call(context.Background(), "issue_close", map[string]any{"ref": c.Record.ID, "why": "fixed"})
			assert.Check(t, err, "the captured issue cannot be closed")
		})
	}
}

func TestRecordDecisionSupersedesRecordsResolvedIDs(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	first := apptest.RecRun[recorduc.RecordCreated](t, a, "decision_new", map[string]any{"title": "Use flock"})
	assert.Check(t, is.Equal(first.Record.Family, "decisions"))
	assert.Check(t, is.Equal(first.Record.Lifecycle, ""))
	assert.Check(t, is.Equal(first.Record.Date, "2026-07-01"))
	assert.Check(t, is.Equal(path0(first.Record.Path[:strings.LastIndex(first.Record.Path, "/")]), "decisions"))
	second := apptest.RecRun[recorduc.RecordCreated](t, a, "decision_new", map[string]any{"title": "Use fcntl locks"})

	third := apptest.RecRun[recorduc.RecordCreated](t, a, "decision_new", map[string]any{"title": "Use the kernel's lock", "supersedes": []string{"flock", second.Record.ID, first.Record.ID}})
	d, err := record.ParseDecision(third.Record.Path, r.Files[third.Record.Path])
	assert.NilError(t, err)
	want := []string{first.Record.ID, second.Record.ID}
	assert.Check(t, is.DeepEqual(d.Front.Supersedes, want))
	sec, _ := record.FindSection(d.Sections, "Supersedes")
	assert.Check(t, is.Equal(sec.Body, "- "+first.Record.ID+"\n- "+second.Record.ID))
	show := apptest.RecRun[recorduc.RecordShowResult](t, a, "decision_show", map[string]any{"ref": "kernel"})
	assert.Check(t, is.DeepEqual(show.Related, want))

	none := apptest.RecRun[recorduc.RecordShowResult](t, a, "decision_show", map[string]any{"ref": first.Record.ID})
	assert.Check(t, is.DeepEqual(none.Related, []string{}))
	l := apptest.RecRun[recorduc.RecordListResult](t, a, "decision_list", map[string]any{})
	assert.Check(t, is.Len(l.Records, 3))
	lint := apptest.RecRun[recorduc.LintResult](t, a, "lint", map[string]any{})
	assert.Check(t, is.Equal(lint.Errors, 0), "%+v", lint.Findings)
}

func TestRecordListsReportAMalformedFileBesideTheOthers(t *testing.T) {
	w := apptest.NewRecWorld(t)
	bad := map[string]string{
		"intent_list":   apptest.RecDrafts + "/itd-2607011230059990-broken.md",
		"spec_list":     apptest.RecSpecsOpen + "/spc-2607011230059991-broken.md",
		"issue_list":    apptest.RecIssuesOpen + "/iss-2607011230059992-broken.md",
		"decision_list": apptest.RecDecisions + "/dcn-2607011230059993-broken.md",
	}
	want := map[string]int{"intent_list": 5, "spec_list": 3, "issue_list": 1, "decision_list": 1}
	for _, p := range bad {
		w.R.Files[p] = []byte("---\nid: nope\n---\n")
	}
	// A second problem: the front matter closes but misses keys.
	w.R.Files[apptest.RecPlanned+"/itd-2607011230059994-half.md"] = []byte("---\nid: itd-2607011230059994\ntype: intent\n---\n")
	for verb, p := range bad {
		t.Run(verb, func(t *testing.T) {
			l := apptest.RecRun[recorduc.RecordListResult](t, w.A, verb, map[string]any{})
			assert.Check(t, is.Len(l.Records, want[verb]))
			paths := []string{}
			for _, pr := range l.Problems {
				paths = append(paths, pr.Path)
				assert.Check(t, pr.Problem != "", "problem without a reason: %s", pr.Path)
			}
			assert.Check(t, slices.Contains(paths, p), "%v", paths)
			for _, rec := range l.Records {
				assert.Check(t, rec.ID != "" && rec.Title != "" && rec.Path != "", "%+v", rec)
			}
		})
	}
	l := apptest.RecRun[recorduc.RecordListResult](t, w.A, "intent_list", map[string]any{})
	assert.Check(t, is.Len(l.Problems, 2))
	l = apptest.RecRun[recorduc.RecordListResult](t, w.A, "intent_list", map[string]any{"lifecycle": "drafts"})
	assert.Check(t, is.Len(l.Records, 2))
	assert.Check(t, is.Len(l.Problems, 1))
	for _, rec := range l.Records {
		assert.Check(t, is.Equal(rec.Lifecycle, "drafts"))
	}
	l = apptest.RecRun[recorduc.RecordListResult](t, w.A, "intent_list", map[string]any{"lifecycle": "shipped"})
	assert.Check(t, is.DeepEqual(recIDs(l.Records), []string{w.Shipped}))

	_, err := w.A.Call(context.Background(), "intent_list", map[string]any{"lifecycle": "open"})
	apptest.RecRefused(t, err, refusal.Refused, "lifecycle_unknown")
}

func recIDs(rs []recorduc.RecordSummary) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestRecordLintFindings(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	good := apptest.RecNewIntent(t, a, r, "Faster cold start", true)
	plan := apptest.RecPlan(t, a, r, good.ID, true)
	clean := apptest.RecRun[recorduc.LintResult](t, a, "lint", map[string]any{})
	assert.Check(t, is.DeepEqual(clean, recorduc.LintResult{Checked: 2, Findings: []record.Finding{}}))

	// A duplicate id: the same intent in drafts under two names.
	dup := "itd-2607011230058888"
	dupIntent := record.NewIntent(dup, "Twice", apptest.RecNow)
	dupData := apptest.RecFill(t, apptest.RecFill(t, record.RenderIntent(dupIntent), "Press Release", apptest.RecPressRelease), "Acceptance Criteria", apptest.RecCriterion)
	dupA, dupB := apptest.RecDrafts+"/"+dup+"-one.md", apptest.RecDrafts+"/"+dup+"-two.md"
	r.Files[dupA], r.Files[dupB] = dupData, dupData
	// A broken reference: a spec implementing an intent no record has.
	orphan := record.NewSpec("spc-2607011230057777", "Orphan", record.IntentFrontMatter{ID: "itd-2607011230050000"}, apptest.RecNow)
	orphanPath := apptest.RecSpecsOpen + "/spc-2607011230057777-orphan.md"
	r.Files[orphanPath] = apptest.RecFill(t, record.RenderSpec(orphan), "Steps", apptest.RecTwoSteps)
	// A wrong folder: a draft (by its front matter) in planned/.
	stray := record.NewIntent("itd-2607011230056666", "Stray", apptest.RecNow)
	strayPath := apptest.RecPlanned + "/itd-2607011230056666-stray.md"
	r.Files[strayPath] = apptest.RecFill(t, apptest.RecFill(t, record.RenderIntent(stray), "Press Release", apptest.RecPressRelease), "Acceptance Criteria", apptest.RecCriterion)
	// Malformed front matter.
	brokenPath := apptest.RecIssuesOpen + "/iss-2607011230055555-broken.md"
	r.Files[brokenPath] = []byte("---\nid: iss-2607011230055555\ntype: issue\nbogus: 1\n---\n")
	// A warning: a draft with no criterion.
	thin := apptest.RecNewIntent(t, a, r, "Thin draft", false)

	before := apptest.RecClone(r.Files)
	res := apptest.RecRun[recorduc.LintResult](t, a, "lint", map[string]any{})
	assert.Check(t, apptest.SameFiles(r.Files, before), "lint wrote")
	assert.Check(t, is.Equal(res.Checked, len(r.Files)))
	errs, warns := 0, 0
	byCode := map[string][]string{}
	for _, f := range res.Findings {
		switch f.Level {
		case "error":
			errs++
		case "warning":
			warns++
		default:
			t.Errorf("finding with level %q", f.Level)
		}
		assert.Check(t, f.Message != "" && f.Remedy != "", "%+v", f)
		byCode[f.Code] = append(byCode[f.Code], f.File)
	}
	assert.Check(t, is.Equal(res.Errors, errs))
	assert.Check(t, is.Equal(res.Warnings, warns))
	assert.Check(t, is.DeepEqual(byCode["duplicate_id"], []string{dupA, dupB}))
	assert.Check(t, is.DeepEqual(byCode["broken_reference"], []string{orphanPath}))
	assert.Check(t, is.DeepEqual(byCode["wrong_folder"], []string{strayPath}))
	assert.Check(t, is.DeepEqual(byCode["malformed"], []string{brokenPath}))
	assert.Check(t, is.DeepEqual(byCode["no_criteria"], []string{thin.Path}))
	assert.Check(t, is.Equal(res.Errors, 5), "%+v", res.Findings)
	assert.Check(t, is.Equal(res.Warnings, 1), "%+v", res.Findings)
	for _, f := range res.Findings {
		assert.Check(t, f.File != plan.Intent.Path && f.File != plan.Spec.Path, "the good records have a finding: %+v", f)
	}

	r.Init = false
	_, err := a.Call(context.Background(), "lint", map[string]any{})
	apptest.RecRefused(t, err, refusal.Refused, "not_initialized")
}

func TestRecordStatusSuggestsPlanningAReadyDraftOnly(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	ready := apptest.RecNewIntent(t, a, r, "Ready draft", true)
	apptest.RecNewIntent(t, a, r, "Placeholder draft", false)
	open := apptest.RecNewIntent(t, a, r, "Questioning draft", true)
	apptest.RecEdit(t, r, open.Path, "Open Questions", "- [ ] Is this wanted?")
	planned := apptest.RecNewIntent(t, a, r, "Planned already", true)
	apptest.RecPlan(t, a, r, planned.ID, true)
	r.Files[apptest.RecDrafts+"/itd-2607011230059999-broken.md"] = []byte("garbage\n")

	before := apptest.RecClone(r.Files)
	st := apptest.RecRun[setup.StatusResult](t, a, "status", map[string]any{})
	assert.Check(t, apptest.SameFiles(r.Files, before), "status wrote")
	var plans []setup.NextAction
	for _, n := range st.Next {
		if strings.HasPrefix(apptest.RecStep(n.Next), "intent_plan") {
			plans = append(plans, n)
		}
	}
	assert.Assert(t, is.Len(plans, 1), "%+v", st.Next)
	assert.Check(t, is.Equal(apptest.RecStep(plans[0].Next), "intent_plan ref="+ready.ID))
	assert.Check(t, is.Contains(plans[0].Why, "Ready draft"))

	// Once it is planned, nothing is left to plan.
	apptest.RecRun[recorduc.IntentPlanResult](t, a, "intent_plan", map[string]any{"ref": ready.ID})
	st = apptest.RecRun[setup.StatusResult](t, a, "status", map[string]any{})
	for _, n := range st.Next {
		assert.Check(t, !strings.HasPrefix(apptest.RecStep(n.Next), "intent_plan"), "%+v", st.Next)
	}
}
