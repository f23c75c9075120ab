package verb_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestEveryInputStringChecksItself: a verb's input holds no plain string. Every text field is a
// value type that checks itself when decoded and describes itself to the schema generator, so no
// rule about a value lives in a front door, and no door can take a value another refuses.
func TestEveryInputStringChecksItself(t *testing.T) {
	described := reflect.TypeFor[contract.Described]()
	for _, v := range app.Table() {
		typ := v.InputType()
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			ft := f.Type
			if ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Bool, reflect.Int:
				continue
			case reflect.String:
				assert.Check(t, ft != reflect.TypeFor[string]() && ft.Implements(described),
					"%s.%s is a %s: give it a value type that checks itself (UnmarshalText) and describes itself (SchemaRule)", v.Name, f.Name, f.Type)
			default:
				t.Errorf("%s.%s has a type (%s) no front door can fill", v.Name, f.Name, f.Type)
			}
		}
	}
}

func TestDecodeNamesTheFieldItRefuses(t *testing.T) {
	v, _ := app.Lookup("capture")
	for _, c := range []struct {
		args  map[string]any
		code  string
		field string
	}{
		{map[string]any{}, "input_missing", "text"},
		{map[string]any{"text": 7}, "input_invalid", "text"},
		{map[string]any{"text": "x", "severity": "dire"}, "severity_unknown", "severity"},
		{map[string]any{"text": "x", "related": []any{"ok", 3}}, "input_invalid", "related"},
		{map[string]any{"text": "x", "related": "itd-1"}, "input_invalid", "related"},
		{map[string]any{"text": "x", "zz": 1}, "input_invalid", ""},
		{map[string]any{"text": "x", "source": "ada\x00"}, "source_invalid", "source"},
	} {
		_, err := v.Decode(c.args)
		r, ok := refusal.As(err)
		if assert.Check(t, ok, "%v: want a refusal, got %v", c.args, err) {
			assert.Check(t, is.Equal(string(r.Code), c.code), "%v", c.args)
			assert.Check(t, is.Equal(r.Verb, "capture"), "%v", c.args)
			assert.Check(t, is.Equal(r.Field, c.field), "%v", c.args)
			assert.Check(t, r.What == "", "%v: the subject is the verb's field, spelled by the door", c.args)
		}
	}
	in, err := v.Decode(map[string]any{"text": "  it flickers\n", "related": []string{"itd-1"}, "severity": "major"})
	assert.NilError(t, err)
	got := in.(*record.CaptureInput)
	assert.Check(t, is.Equal(string(got.Text), "it flickers"), "a value type keeps its checked form")
	assert.Check(t, is.Equal(string(got.Severity), "major"))
	assert.Check(t, is.Len(got.Related, 1))
}

func TestDecodeIsTheSameWhateverTheNumberType(t *testing.T) {
	// No verb takes an int today; the decoder still reads the JSON numbers both doors produce, so a
	// future one cannot drift between them. Checked through a bool field for the refusal path.
	v, _ := app.Lookup("ahoy_install")
	_, err := v.Decode(map[string]any{"yes": "true"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(r.Code, refusal.CodeInputInvalid))
	assert.Check(t, is.Contains(r.Why, "boolean"))
}

func TestCallDecodesThenRuns(t *testing.T) {
	a := &app.App{}
	_, err := a.Call(context.Background(), "schema_show", map[string]any{"name": "../etc"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(r.Code, refusal.CodeSchemaNameInvalid), "the type refuses before the use case runs (it has no catalog here)")
	_, err = a.Call(context.Background(), "nope", nil)
	assert.Check(t, err != nil && strings.Contains(err.Error(), "no verb"))
}
