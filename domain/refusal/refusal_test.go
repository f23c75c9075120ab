package refusal

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// door spells the parts the way a test can recognise.
type door struct{}

func (door) Run(inv Invocation) string         { return "<run " + inv.Verb + " " + ArgsJSON(inv.Args) + ">" }
func (door) Field(verb, field string) string   { return "<field " + verb + "." + field + ">" }
func (door) Subject(verb, field string) string { return "<subject " + verb + "." + field + ">" }

func TestARemedyIsSpelledByTheDoor(t *testing.T) {
	r := Say("start one: ", Run("implement_start", Hole("spec", "spec"), With("base", "main")), ", or give ", Field("review", "base"))
	assert.Equal(t, r.Render(door{}), `start one: <run implement_start {"spec":"<spec>","base":"main"}>, or give <field review.base>`)
	assert.Equal(t, r.String(), `start one: run implement_start with {"spec":"<spec>","base":"main"}, or give the base argument`)
	assert.DeepEqual(t, r.Runs(), []Invocation{{Verb: "implement_start", Args: []Arg{{Name: "spec", Value: "spec", Placeholder: true}, {Name: "base", Value: "main"}}}})
}

func TestSayKeepsEveryPartInOrder(t *testing.T) {
	inner := Say("b", Run("x"))
	r := Say("a", inner, "", 7, true)
	assert.Equal(t, r.Render(door{}), "ab<run x {}>7true")
}

func TestArgsJSONKeepsTheOrderAndEveryKind(t *testing.T) {
	got := ArgsJSON([]Arg{With("z", "a\"b"), With("yes", true), With("n", 3), With("list", []string{"a", "b"}), Hole("ref", "id")})
	assert.Equal(t, got, `{"z":"a\"b","yes":true,"n":3,"list":["a","b"],"ref":"<id>"}`)
}

func TestTheSubjectIsTheVerbWhenNothingIsNamed(t *testing.T) {
	e := New("title_empty", "", "the title is empty", "give one").On("intent_new", "title")
	doc := DocumentFor(e, door{})
	assert.Equal(t, doc.What, "<subject intent_new.title>")
	assert.Equal(t, doc.Remedy, "give one")
	assert.Equal(t, doc.ExitCode, 2)
	assert.Equal(t, DocumentOf(e).What, "intent_new title")
	// A thing named in words wins over nothing: On replaces it.
	named := New("spec_closed", "spc-1", "is closed", "")
	assert.Equal(t, DocumentFor(named, door{}).What, "spc-1")
	assert.Equal(t, DocumentFor(named.On("implement_start", ""), door{}).What, "<subject implement_start.>")
}

func TestAnErrorThatIsNotARefusalIsAFault(t *testing.T) {
	doc := DocumentFor(errors.New("disk on fire"), door{})
	assert.Check(t, is.Equal(doc.Kind, Fault))
	assert.Check(t, is.Equal(doc.ExitCode, 1))
	assert.Check(t, is.Equal(doc.Why, "disk on fire"))
	assert.Check(t, doc.Remedy != "")
	busy := DocumentFor(Busy("locked", "the record", "another writer holds it", "run it again"), door{})
	assert.Check(t, is.Equal(busy.ExitCode, 3))
}

func TestErrorReadsInNoDoorsTerms(t *testing.T) {
	e := New("no_run", "", "no run", Run("implement_start", Hole("spec", "spec"))).On("implement_step", "")
	assert.Check(t, is.Equal(e.Error(), `implement_step: no run (run implement_start with {"spec":"<spec>"})`))
	assert.Check(t, !strings.Contains(e.Error(), "`"))
}

// TestDeclaredCodes: each code is declared once, in order, snake_case, with a one-sentence meaning.
func TestDeclaredCodes(t *testing.T) {
	codes := Codes()
	assert.Assert(t, len(codes) > 100)
	shape := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	for i, d := range codes {
		assert.Check(t, shape.MatchString(string(d.Code)), "%q is not snake_case", d.Code)
		assert.Check(t, i == 0 || codes[i-1].Code < d.Code, "%q is out of order or declared twice", d.Code)
		m := d.Meaning
		assert.Check(t, len(m) > 10 && unicode.IsUpper([]rune(m)[0]) && strings.HasSuffix(m, ".") && strings.Count(m, ". ") == 0 && !strings.Contains(m, "\n"),
			"%s: the meaning is not one sentence: %q", d.Code, m)
	}
}
