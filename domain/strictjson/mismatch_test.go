package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

type mmInner struct {
	Name  string   `json:"name"`
	Count uint8    `json:"count,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

type mmEmbedded struct {
	Note string `json:"note,omitempty"`
}

type mmLevel string

func (l *mmLevel) UnmarshalJSON(b []byte) error {
	if string(b) != `"low"` && string(b) != `"high"` {
		return errors.New("a level is low or high")
	}
	*l = mmLevel(b)
	return nil
}

type mmDoc struct {
	mmEmbedded
	Version int                `json:"version"`
	Ratio   float64            `json:"ratio,omitempty"`
	On      bool               `json:"on,omitempty"`
	Items   map[string]mmInner `json:"items,omitempty"`
	List    []mmInner          `json:"list,omitempty"`
	Level   mmLevel            `json:"level,omitempty"`
	Next    *mmInner           `json:"next,omitempty"`
	Skipped string             `json:"-"`
	hidden  string             //nolint:unused // an unexported field: the refusal must not list it among the fields
}

// Mismatch names the path, what the value must be and what it is, in words, where encoding/json
// names Go's types.
func TestMismatchSaysWhereAndWhatInWords(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"version":"1"}`, `version must be a whole number; it is the string "1"`},
		{`{"version":1.5}`, `version must be a whole number; it is the number 1.5`},
		{`{"version":1,"verison":2}`, `the document has the unknown field "verison": its fields are note, version, ratio, on, items, list, level, next`}, //nolint:misspell // an unknown field, misspelt on purpose
		{`{"items":{"a b":{"name":"x","count":-1}}}`, `items."a b".count must be a whole number, 0 or more; it is the number -1`},
		{`{"items":{"k":{"name":"x","count":300}}}`, `items.k.count must be a whole number, 0 or more; it is the number 300`},
		{`{"items":{"k":{"nam":"x"}}}`, `items.k has the unknown field "nam": its fields are name, count, tags`},
		{`{"items":[]}`, `items must be an object; it is an array`},
		{`{"list":[{"name":"a"},{"name":true}]}`, `list[1].name must be a string; it is the boolean true`},
		{`{"list":[{"tags":["a",2]}]}`, `list[0].tags[1] must be a string; it is the number 2`},
		{`{"next":{"name":{}}}`, `next.name must be a string; it is an object`},
		{`{"on":"yes"}`, `on must be true or false; it is the string "yes"`},
		{`{"ratio":"x"}`, `ratio must be a number; it is the string "x"`},
		{`{"level":"mid"}`, `level: a level is low or high`},
		{`{"note":7}`, `note must be a string; it is the number 7`},
		{`{"Skipped":"x"}`, `the document has the unknown field "Skipped": its fields are note, version, ratio, on, items, list, level, next`},
		{`[1]`, `the document must be an object; it is an array`},
		{"{\"items\":{\"\\u001b[31m\":{\"name\":1}}}", `items."\x1b[31m".name must be a string; it is the number 1`},
		{`{"version":1,"items":{"k":{"name":"x"}},"next":null}`, ``},
	} {
		assert.Check(t, is.Equal(Mismatch([]byte(c.doc), &mmDoc{}), c.want), c.doc)
	}
}

// Where Mismatch finds nothing, encoding/json decodes the document; where the decoder refuses a
// well-formed document, Mismatch names why (but for case-insensitive names, which the decoder takes).
func FuzzMismatch(f *testing.F) {
	for _, s := range []string{`{"version":"1"}`, `{"items":{"k":{"name":"x","count":300}}}`, `{"list":[{"tags":["a",2]}]}`, `{"level":"mid"}`, `[]`, `null`, `{"next":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || Check(data, Limits{MaxBytes: 1 << 16}) != nil {
			return
		}
		said := Mismatch(data, &mmDoc{})
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err := dec.Decode(&mmDoc{})
		if said != "" && err == nil && !strings.Contains(said, "unknown field") {
			t.Fatalf("Mismatch says %q of a document the decoder takes: %s", said, data)
		}
		if strings.Contains(said, "Go struct") || strings.Contains(said, "json: ") {
			t.Fatalf("Go's words: %q", said)
		}
	})
}
