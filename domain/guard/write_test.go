package guard

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestAWriteIsTheLineThatMakesTheSameChange(t *testing.T) {
	cases := []struct {
		name     string
		w        Write
		resolved string
		want     []string
	}{
		{"a write", Write{Path: "a b.txt"}, "", []string{": > 'a b.txt'"}},
		{"a removal", Write{Path: "x", Remove: true}, "", []string{"rm -- 'x'"}},
		{"a link is a write and its making", Write{Path: "l", Link: "../.abcd/guard.json"}, "", []string{": > 'l'", "ln -s -- '../.abcd/guard.json' 'l'"}},
		{"through a link, the path it resolves to too", Write{Path: "/w/l/guard.json"}, "/w/.abcd/guard.json", []string{": > '/w/l/guard.json'", ": > '/w/.abcd/guard.json'"}},
		{"a removal through a link", Write{Path: "/w/l/x", Remove: true}, "/w/y/x", []string{"rm -- '/w/l/x'", "rm -- '/w/y/x'"}},
		{"a quote in the name", Write{Path: "it's"}, "", []string{`: > 'it'\''s'`}},
	}
	for _, c := range cases {
		assert.Check(t, is.DeepEqual(c.w.Lines(c.resolved), c.want), c.name)
	}
}
