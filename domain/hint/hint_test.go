package hint

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// door spells the parts the way a test can recognise.
type door struct{}

func (door) Run(inv refusal.Invocation) string {
	return "<run " + inv.Verb + " " + refusal.ArgsJSON(inv.Args) + ">"
}
func (door) Field(verb, field string) string   { return "<field " + verb + "." + field + ">" }
func (door) Subject(verb, field string) string { return "<subject " + verb + "." + field + ">" }

func TestAStepIsDataAndWordsTheDoorSpells(t *testing.T) {
	n := Say("close ", At("/r/iss-1.md", "Resolution"), " when it is dealt with: ", Do("issue_close", With("ref", "iss-1"), Hole("why", "why")),
		"; or give ", refusal.Field("issue_close", "why"))
	if n.Text != "" {
		t.Fatalf("the core spells nothing: %q", n.Text)
	}
	want := &Run{Verb: "issue_close", Args: map[string]string{"ref": "iss-1", "why": "<why>"}, Fill: []string{"why"}}
	if !reflect.DeepEqual(n.Run, want) {
		t.Fatalf("Run = %+v", n.Run)
	}
	if !reflect.DeepEqual(n.File, &File{Path: "/r/iss-1.md", Key: "Resolution"}) {
		t.Fatalf("File = %+v", n.File)
	}
	got := n.Spelled(door{}).Text
	if want := `close /r/iss-1.md when it is dealt with: <run issue_close {"ref":"iss-1","why":"<why>"}>; or give <field issue_close.why>`; got != want {
		t.Fatalf("spelled:\n got %s\nwant %s", got, want)
	}
	if plain := n.String(); plain != `close /r/iss-1.md when it is dealt with: run issue_close with {"ref":"iss-1","why":"<why>"}; or give the why argument` {
		t.Fatalf("String = %s", plain)
	}
}

// On the wire a step is its text and its data; a step that runs nothing and names no file carries
// neither member, never a null.
func TestAStepOnTheWire(t *testing.T) {
	wire := func(n Next) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(n); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	if got := wire(Say("the review passed").Spelled(door{})); got != `{"text":"the review passed"}` {
		t.Fatal(got)
	}
	if got := wire(Say(Do("status")).Spelled(door{})); got != `{"text":"<run status {}>","run":{"verb":"status","args":{},"fill":[]}}` {
		t.Fatal(got)
	}
}

// A step runs one verb and names one file: a second is a programming error, said in words so it
// shows, and the data keeps the first.
func TestASecondVerbOrFileShows(t *testing.T) {
	n := Say(Do("a"), Do("b"), At("x", ""), At("y", ""))
	if n.Run.Verb != "a" || n.File.Path != "x" {
		t.Fatalf("%+v %+v", n.Run, n.File)
	}
	if got := n.String(); got != "run a(a second verb: b)xy" {
		t.Fatalf("%q", got)
	}
}

type result struct {
	Name  string
	Next  []Next
	One   Next
	Ptr   *Next
	Inner struct{ Deep [2]Next }
	Any   any
	Embedded
	hidden Next
}

type Embedded struct{ Step Next }

// Spell fills every step at any depth of a result, and leaves the value it was handed as it was.
func TestSpellFillsEveryStepAndChangesNothingElse(t *testing.T) {
	step := func(w string) Next { return Say(w, Do("v")) }
	p := step("ptr ")
	in := result{Name: "r", Next: []Next{step("a "), step("b ")}, One: step("one "), Ptr: &p, Any: step("any "),
		Embedded: Embedded{Step: step("embedded ")}, hidden: step("hidden ")}
	in.Inner.Deep[1] = step("deep ")
	out := Spell(in, door{})
	for what, c := range map[string]struct {
		n    Next
		word string
	}{"slice": {out.Next[1], "b "}, "field": {out.One, "one "}, "pointer": {*out.Ptr, "ptr "}, "array": {out.Inner.Deep[1], "deep "},
		"interface": {out.Any.(Next), "any "}, "embedded": {out.Step, "embedded "}} {
		if c.n.Text != c.word+"<run v {}>" {
			t.Errorf("%s: %q", what, c.n.Text)
		}
	}
	if out.Inner.Deep[0].Text != "" || len(out.Inner.Deep[0].Parts) != 0 {
		t.Errorf("an empty step stays empty: %+v", out.Inner.Deep[0])
	}
	if out.hidden.Text != "" {
		t.Error("an unexported field is not the result's")
	}
	if in.Next[0].Text != "" || in.Ptr.Text != "" || in.One.Text != "" || in.Any.(Next).Text != "" {
		t.Error("the value handed in was changed")
	}
	asAny := Spell[any](in, door{}).(result)
	if asAny.Next[0].Text == "" {
		t.Error("a result handed in as any is spelled too")
	}
}

// A result type that holds no step comes back as it is, without a walk.
func TestSpellSkipsATypeWithoutSteps(t *testing.T) {
	type listing struct {
		Names []string
		Deep  []struct{ N int }
	}
	if holds(reflect.TypeFor[listing]()) {
		t.Fatal("a listing holds no step")
	}
	in := listing{Names: []string{"a"}}
	if out := Spell(in, door{}); !reflect.DeepEqual(out, in) {
		t.Fatalf("%+v", out)
	}
	if !holds(reflect.TypeFor[result]()) || !holds(reflect.TypeFor[[]*Next]()) {
		t.Fatal("a result with steps holds them")
	}
}
