package jsonstrict

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseValues(t *testing.T) {
	v, err := Parse([]byte(` {"a": [1, -2.5e3, "x\u00e9\ud83d\ude00\n", true, false, null], "b": {}} `), Limits{})
	assert.NilError(t, err)
	assert.DeepEqual(t, v, map[string]any{
		"a": []any{json.Number("1"), json.Number("-2.5e3"), "xé😀\n", true, false, nil},
		"b": map[string]any{},
	})
}

func TestParseRefuses(t *testing.T) {
	cases := []struct {
		name, in string
		kind     Kind
		path     string
		msg      string
	}{
		{"duplicate key", `{"a":1,"a":2}`, Duplicate, "a", `the key "a" appears twice`},
		{"nested duplicate", `{"p":{"args":[{"x":1,"x":1}]}}`, Duplicate, "p.args[0].x", "twice"},
		{"trailing content", `{} {}`, Syntax, "", "content after"},
		{"trailing garbage", `{}x`, Syntax, "", "content after"},
		{"empty", ``, Syntax, "", "unexpected end"},
		{"invalid utf-8", "{\"a\":\"\xff\"}", Syntax, "a", "not valid UTF-8"},
		{"lone high surrogate", `{"a":"\ud800"}`, Syntax, "a", "lone UTF-16 surrogate"},
		{"lone low surrogate", `{"a":"\udc00"}`, Syntax, "a", "lone UTF-16 surrogate"},
		{"raw control character", "{\"a\":\"x\ty\"}", Syntax, "a", "control character"},
		{"bad escape", `{"a":"\q"}`, Syntax, "a", "invalid escape"},
		{"leading zero", `{"a":01}`, Syntax, "", "want ',' or '}'"},
		{"bare minus", `-`, Syntax, "", "invalid number"},
		{"single quotes", `{'a':1}`, Syntax, "", "string key"},
		{"trailing comma", `[1,]`, Syntax, "[1]", "looking for a value"},
		{"NaN", `NaN`, Syntax, "", "looking for a value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.in), Limits{})
			e, ok := err.(*Error)
			assert.Assert(t, ok, "want *Error, got %v", err)
			assert.Check(t, is.Equal(e.Kind, c.kind), "%v", e)
			assert.Check(t, is.Equal(e.Path, c.path), "%v", e)
			assert.Check(t, is.Contains(e.Msg, c.msg))
		})
	}
}

func TestParseLimits(t *testing.T) {
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	_, err := Parse([]byte(deep), Limits{})
	e, ok := err.(*Error)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(e.Kind, Limit))

	_, err = Parse([]byte(strings.Repeat("[", 64)+strings.Repeat("]", 64)), Limits{})
	assert.NilError(t, err)

	_, err = Parse([]byte(`{"a":"`+strings.Repeat("x", 11)+`"}`), Limits{MaxString: 10})
	e, ok = err.(*Error)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(e.Kind, Limit))
	assert.Check(t, is.Equal(e.Path, "a"))
	_, err = Parse([]byte(`{"a":"`+strings.Repeat("x", 10)+`"}`), Limits{MaxString: 10})
	assert.NilError(t, err)
}

// TestParseValueLimit: a document of many small values ("[0,0,0,...]") takes a hundred bytes or
// more per value once parsed, far more than its text; MaxValues refuses it at the bound, naming the
// bound, before the tree grows past it.
func TestParseValueLimit(t *testing.T) {
	million := []byte("[" + strings.Repeat("0,", 999_999) + "0]")
	_, err := Parse(million, Limits{MaxValues: 100_000})
	e, ok := err.(*Error)
	assert.Assert(t, ok, "want *Error, got %v", err)
	assert.Check(t, is.Equal(e.Kind, Limit))
	assert.Check(t, is.Contains(e.Msg, "more than 100000 values"))
	assert.Check(t, is.Equal(e.Path, "[99999]"), "the array is the first value, so its element 99999 is the 100001st")
	assert.Check(t, e.Offset < 200_002, "refused where the bound is passed, not at the end: byte %d", e.Offset)

	keys := []byte(`{"a":{},"b":[true,null,"x",1]}`)
	v, n, err := ParseCount(keys, Limits{MaxValues: 7})
	assert.NilError(t, err)
	assert.Check(t, v != nil)
	assert.Check(t, is.Equal(n, 7), "keys are not values")
	_, err = Parse(keys, Limits{MaxValues: 6})
	assert.Check(t, is.ErrorContains(err, "more than 6 values"))
	_, n, err = ParseCount(million, Limits{})
	assert.NilError(t, err, "no bound unless one is set")
	assert.Check(t, is.Equal(n, 1_000_001))
}

// TestErrorPathsAreShort: a path is written out only for an error, and each key in it is clipped,
// so a 1 MiB key does not make a 1 MiB error (nor cost its length for every value under it).
func TestErrorPathsAreShort(t *testing.T) {
	key := strings.Repeat("k", 1<<20)
	doc := `{"` + key + `":[` + strings.Repeat(`{"a":1},`, 20_000) + `{"a":1,"a":2}]}`
	_, err := Parse([]byte(doc), Limits{})
	e, ok := err.(*Error)
	assert.Assert(t, ok, "want *Error, got %v", err)
	assert.Check(t, is.Equal(e.Kind, Duplicate))
	assert.Check(t, is.Equal(e.Path, strings.Repeat("k", 64)+"…[20000].a"))
	assert.Check(t, len(e.Error()) < 300, "%d bytes", len(e.Error()))
}

// FuzzParse holds Parse to encoding/json: what Parse accepts, encoding/json accepts and decodes to
// the same value; what encoding/json refuses, Parse refuses. Parse may refuse more: duplicate keys,
// invalid UTF-8, lone surrogates and nesting beyond its bound.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `0`, `-0.5e-7`, `"\u00e9"`, `{"a":[1,{"b":null}]}`, `{"a":1,"a":2}`,
		"\"\xff\"", `"\ud800"`, `[1,]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(data, Limits{MaxDepth: 1000})
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		stdErr := dec.Decode(&want)
		if stdErr == nil {
			if _, tailErr := dec.Token(); tailErr == nil || tailErr.Error() != "EOF" {
				stdErr = tailErr
				if stdErr == nil {
					stdErr = errTrailing
				}
			}
		}
		if err == nil {
			if stdErr != nil {
				t.Fatalf("Parse accepted what encoding/json refuses (%v): %q", stdErr, data)
			}
			assert.DeepEqual(t, got, want)
			return
		}
		if stdErr == nil && err.(*Error).Kind == Syntax && utf8.Valid(data) && !strings.Contains(err.Error(), "surrogate") {
			t.Fatalf("Parse refused valid JSON: %v: %q", err, data)
		}
	})
}

var errTrailing = &Error{Msg: "trailing"}
