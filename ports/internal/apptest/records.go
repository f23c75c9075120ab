package apptest

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// RecNow is the fixed clock: ids made now start with 260701123005.
var RecNow = time.Date(2026, 7, 1, 12, 30, 5, 0, time.UTC)

const (
	RecDrafts        = ".abcd/development/intents/drafts"
	RecPlanned       = ".abcd/development/intents/planned"
	RecShipped       = ".abcd/development/intents/shipped"
	RecSpecsOpen     = ".abcd/development/specs/open"
	RecSpecsClosed   = ".abcd/development/specs/closed"
	RecIssuesOpen    = ".abcd/work/issues/open"
	RecIssuesClosed  = ".abcd/work/issues/closed"
	RecDecisions     = ".abcd/development/decisions"
	RecPressRelease  = "Today anyone can start abcd in under 50 ms."
	RecCriterion     = "- ac-1: Given a cold machine, when I run abcd, then it answers within 50 ms."
	RecTwoSteps      = "1. Make config loading lazy.\n2. Build the binary static."
	RecMutatingVerbs = "capture decision_new intent_new intent_plan intent_ship issue_close spec_close spec_new"
)

// RecApp is the core over the record store r, with every other port a fake.
func RecApp(r *fake.Records) *app.App {
	runs := fake.NewRuns()
	return &app.App{
		Records: r,
		Runs:    runs,
		Journal: fake.NewJournal(r, runs),
		Clock:   fake.Clock{T: RecNow},
		Random:  &fake.Random{},
		Roster:  fake.Roster{},
		Config:  fake.Config{},
		Inspector: fake.Inspector{Facts: ports.RepoFacts{Root: "/work/repo", Git: true, Initialized: r.Init,
			Records: map[string]int{}}},
	}
}

// RecStep is a next step's invocation on one line: the verb, each argument as name=value in name
// order, then the arguments to fill in; "" when it runs none.
func RecStep(n hint.Next) string {
	if n.Run == nil {
		return ""
	}
	words := []string{n.Run.Verb}
	for _, k := range slices.Sorted(maps.Keys(n.Run.Args)) {
		words = append(words, k+"="+n.Run.Args[k])
	}
	if len(n.Run.Fill) > 0 {
		words = append(words, "fill="+strings.Join(n.Run.Fill, ","))
	}
	return strings.Join(words, " ")
}

// RecRun runs a verb that must succeed and returns its typed result.
func RecRun[R any](t *testing.T, a *app.App, verb string, in map[string]any) R {
	t.Helper()
	res, err := a.Call(context.Background(), verb, in)
	assert.NilError(t, err, "%s", verb)
	r, ok := res.(R)
	assert.Assert(t, ok, "%s returned %T", verb, res)
	return r
}

// RecRefused asserts err is a refusal of kind and code ("" for any code).
func RecRefused(t *testing.T, err error, kind refusal.Kind, code refusal.Code) *refusal.Error {
	t.Helper()
	assert.Assert(t, err != nil, "want refusal %q, got success", code)
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want refusal %q, got %T: %v", code, err, err)
	assert.Check(t, is.Equal(r.Kind, kind), "%v", err)
	if code != "" {
		assert.Check(t, is.Equal(r.Code, code), "%v", err)
	}
	assert.Check(t, (r.What != "" || r.Verb != "") && r.Why != "" && len(r.Remedy) > 0, "a refusal names what, why and the remedy: %+v", r)
	return r
}

// SameFiles is is.DeepEqual for a store's files, compared first with reflect.DeepEqual (as strict:
// nil and empty differ, and it compares bytes as bytes); go-cmp's walk of every byte of every file
// was most of the refusal tests' time, so its diff is made only when the files differ.
func SameFiles(got, want map[string][]byte) is.Comparison {
	if reflect.DeepEqual(got, want) {
		return func() is.Result { return is.ResultSuccess }
	}
	return is.DeepEqual(got, want)
}

func RecClone(m map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = append([]byte(nil), v...)
	}
	return out
}

// RecFill replaces the body of the ## heading section of a record with text.
func RecFill(t *testing.T, data []byte, heading, text string) []byte {
	t.Helper()
	s := string(data)
	h := "\n## " + heading + "\n"
	i := strings.Index(s, h)
	assert.Assert(t, i >= 0, "no ## %s in:\n%s", heading, s)
	rest := s[i+len(h):]
	tail := ""
	if j := strings.Index(rest, "\n## "); j >= 0 {
		tail = rest[j:]
	}
	return []byte(s[:i] + h + "\n" + text + "\n" + tail)
}

// RecEdit edits one section of a stored record in place, as a person would.
func RecEdit(t *testing.T, r *fake.Records, p, heading, text string) {
	t.Helper()
	data, ok := r.Files[p]
	assert.Assert(t, ok, "no file %s", p)
	r.Files[p] = RecFill(t, data, heading, text)
}

// RecNewIntent drafts an intent; with filled, its press release and a criterion are written.
func RecNewIntent(t *testing.T, a *app.App, r *fake.Records, title string, filled bool) recorduc.RecordSummary {
	t.Helper()
	c := RecRun[recorduc.RecordCreated](t, a, "intent_new", map[string]any{"title": title})
	if filled {
		RecEdit(t, r, c.Record.Path, "Press Release", RecPressRelease)
		RecEdit(t, r, c.Record.Path, "Acceptance Criteria", RecCriterion)
	}
	return c.Record
}

// RecPlan plans an intent and, with steps, writes two steps into its spec.
func RecPlan(t *testing.T, a *app.App, r *fake.Records, id string, steps bool) recorduc.IntentPlanResult {
	t.Helper()
	p := RecRun[recorduc.IntentPlanResult](t, a, "intent_plan", map[string]any{"ref": id})
	if steps {
		RecEdit(t, r, p.Spec.Path, "Steps", RecTwoSteps)
	}
	return p
}

// RecWorld is a record with one of each thing a mutating verb acts on.
type RecWorld struct {
	R *fake.Records
	A *app.App
	// intents
	Draft, Draft2, Planned, Shippable, Shipped string
	// specs
	OpenSpec, ClosedSpec string
	Issue, Decision      string
}

func NewRecWorld(t *testing.T) RecWorld {
	t.Helper()
	r := fake.NewRecords()
	a := RecApp(r)
	w := RecWorld{R: r, A: a}
	w.Draft = RecNewIntent(t, a, r, "Faster cold start", true).ID
	w.Draft2 = RecNewIntent(t, a, r, "Faster warm start", false).ID
	w.Planned = RecNewIntent(t, a, r, "Planned thing", true).ID
	w.OpenSpec = RecPlan(t, a, r, w.Planned, true).Spec.ID

	w.Shippable = RecNewIntent(t, a, r, "Shippable", true).ID
	sp := RecPlan(t, a, r, w.Shippable, true)
	RecRun[recorduc.MoveResult](t, a, "spec_close", map[string]any{"ref": sp.Spec.ID})

	w.Shipped = RecNewIntent(t, a, r, "Already out", true).ID
	sp = RecPlan(t, a, r, w.Shipped, true)
	w.ClosedSpec = sp.Spec.ID
	RecRun[recorduc.MoveResult](t, a, "spec_close", map[string]any{"ref": w.ClosedSpec})
	RecRun[recorduc.MoveResult](t, a, "intent_ship", map[string]any{"ref": w.Shipped})

	w.Issue = RecRun[recorduc.RecordCreated](t, a, "capture", map[string]any{"text": "The status line flickers"}).Record.ID
	w.Decision = RecRun[recorduc.RecordCreated](t, a, "decision_new", map[string]any{"title": "Use flock for the record lock"}).Record.ID
	return w
}

// ValidInputs is an input for each mutating verb that succeeds on a fresh recWorld.
func (w RecWorld) ValidInputs() map[string]func() map[string]any {
	return map[string]func() map[string]any{
		"intent_new":  func() map[string]any { return map[string]any{"title": "Another intent"} },
		"intent_plan": func() map[string]any { return map[string]any{"ref": w.Draft} },
		"intent_ship": func() map[string]any { return map[string]any{"ref": w.Shippable} },
		"spec_new":    func() map[string]any { return map[string]any{"intent": w.Planned, "title": "A second spec"} },
		"spec_close":  func() map[string]any { return map[string]any{"ref": w.OpenSpec} },
		"capture":     func() map[string]any { return map[string]any{"text": "Something else", "related": []string{w.Draft}} },
		"issue_close": func() map[string]any { return map[string]any{"ref": w.Issue, "why": "fixed"} },
		"decision_new": func() map[string]any {
			return map[string]any{"title": "Another ruling", "supersedes": []string{w.Decision}}
		},
	}
}
