package frontmatter

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

var spec = Spec{Noun: "thing", Keys: []string{"id", "title", "tags"}, Lists: []string{"tags"}, MaxBytes: 256}

func TestRead(t *testing.T) {
	b, err := Read([]byte("---\r\nid: a-1\n\ntitle: \"caf\\u00e9 \\\"x\\\"\"\ntags: [a, b]\n---\nbody\n"), spec)
	if err != nil {
		t.Fatal(err)
	}
	if b.Field("id").Value != "a-1" || b.Field("title").Value != `café "x"` || !slices.Equal(b.Field("tags").List, []string{"a", "b"}) {
		t.Fatalf("%+v", b)
	}
	if b.Close != 6 || b.Size != len("---\r\nid: a-1\n\ntitle: \"caf\\u00e9 \\\"x\\\"\"\ntags: [a, b]\n---\n") || b.Field("tags").Line != 5 {
		t.Fatalf("close %d size %d", b.Close, b.Size)
	}
}

func TestReadRefuses(t *testing.T) {
	for _, c := range []struct {
		doc  string
		line int
		want string
	}{
		{"", 1, "the file is empty"},
		{"\ufeff---\n", 1, "byte-order mark"},
		{"--- \n", 1, "opening --- has trailing white space"},
		{"id: a\n", 1, "line 1 is not ---"},
		{"---\nid: a\n", 1, "never closed"},
		{"---\nid: a\ntitle: t\ntags: []\n--- \n", 5, "closing --- has trailing white space"},
		{"---\n # x\n", 2, "indented line"},
		{"---\n# x\n", 2, "comment line"},
		{"---\nid a\n", 2, "not a key: value line"},
		{"---\nid:a\n", 2, "no space after the colon of id"},
		{"---\nname: a\n", 2, `unknown key "name"`},
		{"---\nid:\n", 2, "key id has no value"},
		{"---\nid: a\nid: b\n", 3, "key id appears twice (first on line 2)"},
		{"---\nid: [a]\n", 2, "id is a list"},
		{"---\ntags: a\n", 2, "tags is not a list"},
		{"---\ntags: [a,,b]\n", 2, "item 2 of the list is empty"},
		{"---\ntags: [a b]\n", 2, `list item "a b" is not a bare value`},
		{"---\ntags: [a\n", 2, "the list does not end with ]"},
		{"---\nid: 'a'\n", 2, "single-quoted value"},
		{"---\nid: a b\n", 2, "wrap it in double quotes"},
		{"---\nid: \"a\" b\n", 2, "text after the closing quote"},
		{"---\nid: \"a\n", 2, "the quote is never closed"},
		{"---\nid: \"a\\\n", 2, "a backslash ends the value"},
		{"---\nid: \"\\x\"\n", 2, `unknown escape \x`},
		{"---\nid: \"\\ud800\"\n", 2, "surrogate is not paired"},
		{"---\nid: \"\\u12\"\n", 2, `\u is not followed by four hex digits`},
		{"---\nid: a\x01\n", 2, "control character U+0001"},
		{"---\nid: \"a\u0085\"\n", 2, "control character U+0085"},
		{"---\nid: \"a\xff\"\n", 2, "invalid UTF-8"},
		{"---\nid: a\n---\n", 3, "missing key(s) title, tags: add them before the closing --- (the thing keys are id, title, tags)"},
		{"---\ntitle: \"" + strings.Repeat("x", 300) + "\"\n", 2, "over 256 bytes"},
	} {
		_, err := Read([]byte(c.doc), spec)
		if err == nil || err.Line != c.line || !strings.Contains(err.Problem+": "+err.Remedy, c.want) {
			t.Errorf("%q: got %v, want line %d with %q", c.doc, err, c.line, c.want)
		}
	}
}

// FuzzRead: whatever the bytes, Read either refuses with a line inside the text or returns every
// key once, a size that ends on the closing fence's line, and values that read back the same when
// written as JSON strings.
func FuzzRead(f *testing.F) {
	f.Add([]byte("---\nid: a-1\ntitle: \"t\\u00e9\"\ntags: [a, b]\n---\nbody"))
	f.Add([]byte("---\r\nid: x\r\n\r\ntitle: y\r\ntags: []\r\n---\r\n"))
	f.Add([]byte("---\nid: \"\\ud83d\\ude00\"\ntitle: \"\\\"\"\ntags: [x]\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Read(data, spec)
		if err != nil {
			if err.Line < 1 || err.Line > strings.Count(string(data), "\n")+1 || err.Problem == "" || err.Remedy == "" {
				t.Fatalf("bad error %+v", err)
			}
			return
		}
		if len(b.Fields) != len(spec.Keys) || b.Size > len(data) || b.Size > spec.MaxBytes+2 {
			t.Fatalf("%+v", b)
		}
		if close := strings.TrimRight(string(data[:b.Size]), "\r\n"); !strings.HasSuffix(close, "\n"+Fence) {
			t.Fatalf("size %d does not end on the closing fence: %q", b.Size, data[:b.Size])
		}
		var again strings.Builder
		again.WriteString("---\n")
		for _, fd := range b.Fields {
			if fd.IsList {
				again.WriteString(fd.Key + ": [" + strings.Join(fd.List, ", ") + "]\n")
				continue
			}
			q, _ := json.Marshal(fd.Value)
			again.WriteString(fd.Key + ": " + string(q) + "\n")
		}
		again.WriteString("---\n")
		b2, err := Read([]byte(again.String()), spec)
		if err != nil {
			t.Fatalf("written back, refused: %v\n%s", err, again.String())
		}
		for i, fd := range b2.Fields {
			if fd.Value != b.Fields[i].Value || !slices.Equal(fd.List, b.Fields[i].List) {
				t.Fatalf("written back, %q became %q", b.Fields[i].Value, fd.Value)
			}
		}
	})
}
