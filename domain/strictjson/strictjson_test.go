package strictjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %v", err)
	}
	return e
}

func TestParseValues(t *testing.T) {
	v, err := Parse([]byte(` {"a": [1, -2.5e3, "x\u00e9\ud83d\ude00\n\/", true, false, null], "b": {}, "c": []} `), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": []any{json.Number("1"), json.Number("-2.5e3"), "xé😀\n/", true, false, nil},
		"b": map[string]any{},
		"c": []any{},
	}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got %#v", v)
	}
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
		{"duplicate after an escape", `{"a":1,"\u0061":2}`, Duplicate, "a", "twice"},
		{"trailing content", `{} {}`, Syntax, "", "invalid character '{' after top-level value"},
		{"trailing garbage", `{}x`, Syntax, "", "invalid character 'x' after top-level value"},
		{"empty", ``, Syntax, "", "unexpected end of JSON input"},
		{"only space", " \n", Syntax, "", "unexpected end of JSON input"},
		{"invalid utf-8 in a string", "{\"a\":\"\xff\"}", Syntax, "", "not valid UTF-8"},
		{"invalid utf-8 outside", "{\"a\":1}\xc3", Syntax, "", "not valid UTF-8"},
		{"lone high surrogate", `{"a":"\ud800"}`, Syntax, "a", "lone UTF-16 surrogate"},
		{"lone low surrogate", `{"a":"\udc00"}`, Syntax, "a", "lone UTF-16 surrogate"},
		{"high surrogate then a letter", `{"a":"\ud800\u0041"}`, Syntax, "a", "lone UTF-16 surrogate"},
		{"raw control character", "{\"a\":\"x\ty\"}", Syntax, "a", `invalid character '\t' in string literal`},
		{"bad escape", `{"a":"\q"}`, Syntax, "a", "invalid character 'q' in string escape code"},
		{"bad hex", `{"a":"\u12g4"}`, Syntax, "a", `invalid character 'g' in \u hexadecimal character escape`},
		{"leading zero", `{"a":01}`, Syntax, "", "invalid character '1' after object key:value pair"},
		{"bare minus", `-`, Syntax, "", "invalid character ' ' in numeric literal"},
		{"minus letter", `-x`, Syntax, "", "invalid character 'x' in numeric literal"},
		{"no fraction", `[1.]`, Syntax, "[0]", "invalid character ']' after decimal point in numeric literal"},
		{"no exponent", `[1e+]`, Syntax, "[0]", "invalid character ']' in exponent of numeric literal"},
		{"single quotes", `{'a':1}`, Syntax, "", `invalid character '\'' looking for beginning of object key string`},
		{"trailing comma", `[1,]`, Syntax, "[1]", "invalid character ']' looking for beginning of value"},
		{"trailing comma in an object", `{"a":1,}`, Syntax, "", "invalid character '}' looking for beginning of object key string"},
		{"no colon", `{"a" 1}`, Syntax, "", "invalid character '1' after object key"},
		{"no comma", `[1 2]`, Syntax, "", "invalid character '2' after array element"},
		{"NaN", `NaN`, Syntax, "", "invalid character 'N' looking for beginning of value"},
		{"short literal", `tru`, Syntax, "", "invalid character ' ' in literal true (expecting 'e')"},
		{"wrong literal", `nul1`, Syntax, "", "invalid character '1' in literal null (expecting 'l')"},
		{"unterminated string", `"abc`, Syntax, "", "unexpected end of JSON input"},
		{"unterminated object", `{"a":1`, Syntax, "", "unexpected end of JSON input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.in), Limits{})
			e := asError(t, err)
			if e.Kind != c.kind || e.Path != c.path || !strings.Contains(e.Msg, c.msg) {
				t.Fatalf("got kind %d path %q msg %q; want kind %d path %q msg containing %q", e.Kind, e.Path, e.Msg, c.kind, c.path, c.msg)
			}
			// Check refuses the same way, without building a value.
			if ce := asError(t, Check([]byte(c.in), Limits{})); ce.Msg != e.Msg || ce.Offset != e.Offset || ce.Path != e.Path {
				t.Fatalf("Check says %v, Parse says %v", ce, e)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	if e := asError(t, Check([]byte(deep), Limits{})); e.Kind != Limit || e.Msg != "nests deeper than 64 levels" {
		t.Fatalf("got %v", e)
	}
	if err := Check([]byte(strings.Repeat("[", 64)+strings.Repeat("]", 64)), Limits{}); err != nil {
		t.Fatal(err)
	}
	if e := asError(t, Check([]byte(`{"a":{"b":{}}}`), Limits{MaxDepth: 2})); e.Kind != Limit || e.Path != "a.b" {
		t.Fatalf("got %v", e)
	}

	e := asError(t, Check([]byte(`{"a":"`+strings.Repeat("x", 11)+`"}`), Limits{MaxString: 10}))
	if e.Kind != Limit || e.Path != "a" {
		t.Fatalf("got %v", e)
	}
	if err := Check([]byte(`{"a":"`+strings.Repeat("x", 10)+`"}`), Limits{MaxString: 10}); err != nil {
		t.Fatal(err)
	}
	// The bound is on the decoded string: six escapes of one byte each are six bytes.
	if err := Check([]byte(`{"a":"\n\n\n\n\n\n"}`), Limits{MaxString: 6}); err != nil {
		t.Fatal(err)
	}
	if e := asError(t, Check([]byte(`{"a":"\n\n\n\n\n\n\n"}`), Limits{MaxString: 6})); e.Kind != Limit {
		t.Fatalf("got %v", e)
	}

	if e := asError(t, Check([]byte(`{"a": 1}`), Limits{MaxBytes: 7})); e.Kind != Limit || e.Describe() != "is larger than 7 bytes" {
		t.Fatalf("got %v: %s", e, e.Describe())
	}
	if err := Check([]byte(`{"a":1}`), Limits{MaxBytes: 7}); err != nil {
		t.Fatal(err)
	}
}

// TestParseValueLimit: a document of many small values ("[0,0,0,...]") takes a hundred bytes or
// more per value once parsed, far more than its text; MaxValues refuses it at the bound, naming the
// bound, before the tree grows past it.
func TestParseValueLimit(t *testing.T) {
	million := []byte("[" + strings.Repeat("0,", 999_999) + "0]")
	e := asError(t, func() error { _, err := Parse(million, Limits{MaxValues: 100_000}); return err }())
	if e.Kind != Limit || !strings.Contains(e.Msg, "more than 100000 values") || e.Path != "[99999]" {
		t.Fatalf("got %v", e)
	}
	if e.Offset >= 200_002 {
		t.Fatalf("refused at byte %d, not where the bound is passed", e.Offset)
	}

	keys := []byte(`{"a":{},"b":[true,null,"x",1]}`)
	v, n, err := ParseCount(keys, Limits{MaxValues: 7})
	if err != nil || v == nil || n != 7 {
		t.Fatalf("got %v, %d, %v: keys are not values", v, n, err)
	}
	if _, err := Parse(keys, Limits{MaxValues: 6}); err == nil || !strings.Contains(err.Error(), "more than 6 values") {
		t.Fatalf("got %v", err)
	}
	if _, n, err = ParseCount(million, Limits{}); err != nil || n != 1_000_001 {
		t.Fatalf("no bound unless one is set: %d, %v", n, err)
	}
}

// TestErrorPathsAreShort: a path is written out only for an error, and each key in it is clipped,
// so a 1 MiB key does not make a 1 MiB error (nor cost its length for every value under it).
func TestErrorPathsAreShort(t *testing.T) {
	key := strings.Repeat("k", 1<<20)
	doc := `{"` + key + `":[` + strings.Repeat(`{"a":1},`, 20_000) + `{"a":1,"a":2}]}`
	e := asError(t, Check([]byte(doc), Limits{}))
	if e.Kind != Duplicate || e.Path != strings.Repeat("k", 80)+"…[20000].a" {
		t.Fatalf("got %v", e)
	}
	if len(e.Error()) > 300 || len(e.Describe()) > 300 {
		t.Fatalf("%d and %d bytes", len(e.Error()), len(e.Describe()))
	}
}

// TestCheckObject: the shape every file abcd reads has, and the sentences a reader builds from
// Describe ("<file> <predicate>").
func TestCheckObject(t *testing.T) {
	cases := []struct {
		name, data string
		kind       Kind
		says       string
	}{
		{"not json", `{"a":`, Syntax, "is not JSON: it ends before its object closes"},
		{"prose", "Here is the audit:\n{}", Syntax, "is not JSON: invalid character 'H' looking for beginning of value at byte 1"},
		{"an array", `[1]`, Shape, "must hold one JSON object"},
		{"a string", `"x"`, Shape, "must hold one JSON object"},
		{"an unterminated array", `[1`, Shape, "must hold one JSON object"},
		{"duplicate at top", `{"a":1,"a":2}`, Duplicate, `names the key "a" twice: keep one`},
		{"duplicate at depth", `{"oracle":{"rp":{"url":"x","url":"y"}}}`, Duplicate, `names the key "oracle.rp.url" twice`},
		{"duplicate inside an array's object", `{"a":[{"b":1,"b":2}]}`, Duplicate, `names the key "a.b" twice`},
		{"trailing content", `{"a":1} {"b":2}`, Syntax, "has content after its object: remove everything after the closing }"},
		{"trailing garbage", `{"a":1}x`, Syntax, "has content after its object"},
		{"invalid utf-8", "{\"a\":\"\xff\"}", Syntax, "is not valid UTF-8"},
		{"lone surrogate", `{"a":"\ud800"}`, Syntax, "is not valid UTF-8: a lone UTF-16 surrogate in a \\u escape at byte 7"},
		{"too deep", strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40), Limit, "nests deeper than 32 levels"},
		{"too large", `{"a":"` + strings.Repeat("x", 2000) + `"}`, Limit, "is larger than 1024 bytes"},
		{"a long string", `{"a":["` + strings.Repeat("x", 20) + `"]}`, Limit, "holds a string longer than 16 bytes at a[0]"},
		{"unterminated", `{"a":1`, Syntax, "is not JSON"},
		{"empty", ``, Syntax, "is not JSON: it ends before its value is complete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := asError(t, CheckObject([]byte(c.data), Limits{MaxBytes: 1024, MaxDepth: 32, MaxString: 16}))
			if e.Kind != c.kind || !strings.Contains(e.Describe(), c.says) {
				t.Fatalf("got kind %d %q, want kind %d %q", e.Kind, e.Describe(), c.kind, c.says)
			}
		})
	}
	if err := CheckObject([]byte(" {\"a\":{\"b\":[1,{\"c\":2}]},\"d\":\"e\"}\n"), Limits{}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("k", 300)
	e := asError(t, CheckObject([]byte(`{"`+long+`":{"`+long+`":1,"`+long+`":2}}`), Limits{}))
	if len(e.Describe()) > 120 {
		t.Fatalf("an echoed key is not clipped: %q", e.Describe())
	}
}

// TestParseOpaque: a payload that breaks a rule is kept as text, unread, so the envelope around it
// can still be read strictly; the envelope's own faults are still refused.
func TestParseOpaque(t *testing.T) {
	args := []string{"params", "arguments"}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	in := `{"id":1,"params":{"name":"x","arguments":{"a":1,"a":[` + deep + `,"\ud800"]}},"after":true}`
	if _, err := Parse([]byte(in), Limits{}); err == nil {
		t.Fatal("the strict parse accepted a payload named twice")
	}
	v, err := ParseOpaque([]byte(in), Limits{MaxDepth: 8}, args)
	if err != nil {
		t.Fatal(err)
	}
	params := v.(map[string]any)["params"].(map[string]any)
	raw, ok := params["arguments"].(json.RawMessage)
	if !ok || !strings.HasPrefix(string(raw), `{"a":1,"a":[[[`) || !strings.HasSuffix(string(raw), `]]],"\ud800"]}`) {
		t.Fatalf("arguments kept as %T %.40q", params["arguments"], params["arguments"])
	}
	if params["name"] != "x" || v.(map[string]any)["after"] != true {
		t.Fatalf("envelope read as %v", v)
	}
	for _, bad := range []string{
		`{"id":1,"id":2,"params":{"arguments":{}}}`,
		`{"params":{"name":"x","name":"y","arguments":{}}}`,
		`{"params":{"arguments":{"a":}}}`,
		`{"params":{"arguments":{"a":1]}}`,
		`{"params":{"arguments":[1,]}}`,
		`{"params":{"arguments":{"a" 1}}}`,
		`{"params":{"arguments":{"a":1}`,
		`{"params":{"arguments":{"a":1}},"x":` + deep + `}`,
	} {
		if _, err := ParseOpaque([]byte(bad), Limits{MaxDepth: 8}, args); err == nil {
			t.Errorf("accepted %.80s", bad)
		}
	}
	// Only the named path is opaque: the same payload one level down is read strictly.
	if _, err := ParseOpaque([]byte(`{"params":{"x":{"arguments":{"a":1,"a":2}}}}`), Limits{}, args); err == nil {
		t.Fatal("a payload at another path was not read strictly")
	}
	if _, err := ParseOpaque([]byte(`{"params":[{"arguments":{"a":1,"a":2}}]}`), Limits{}, []string{"params", "arguments"}); err == nil {
		t.Fatal("an array element matched a key path")
	}
}

func TestDecodeFileHoldsTheWholeFile(t *testing.T) {
	type file struct {
		SchemaVersion int    `json:"schema_version"`
		Name          string `json:"name"`
	}
	version := func(f *file) int { return f.SchemaVersion }
	lim := Limits{MaxBytes: 64, MaxDepth: 2}
	got, err := DecodeFile("f.json", []byte(`{"schema_version":1,"name":"x"}`), lim, 1, version)
	if err != nil || got != (file{SchemaVersion: 1, Name: "x"}) {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"schema_version":1,"name":"x","name":"y"}`, `f.json: names the key "name" twice`},
		{`{"schema_version":1} {}`, `f.json: has content after its object`},
		{`{"schema_version":1,"other":1}`, `f.json: the document has the unknown field "other": its fields are schema_version, name`},
		{`{"schema_version":2,"name":"x"}`, `f.json: declares schema_version 2; this abcd reads version 1 (add "schema_version": 1)`},
		{`{"name":"x"}`, `f.json: declares schema_version 0`},
		{`{"schema_version":1,"name":"` + strings.Repeat("x", 64) + `"}`, `f.json: is larger than 64 bytes`},
		{`[{"schema_version":1}]`, `f.json: must hold one JSON object`},
	} {
		if _, err := DecodeFile("f.json", []byte(c.in), lim, 1, version); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.in, err, c.want)
		}
	}
}
