package text

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestFenceForOutrunsEveryBacktickRun(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "```"},
		{"plain text", "```"},
		{"a ``` b", "````"},
		{"x\n`````\ny ``", "``````"},
		{"`a` `b`", "```"},
	} {
		assert.Check(t, is.Equal(FenceFor(c.in), c.want), "%q", c.in)
	}
}

// No line of what is quoted can close the quote: every line of it inside the fence is shorter in
// backticks than the fence itself.
func FuzzFenced(f *testing.F) {
	for _, s := range []string{"", "```\nclose\n```", "a\n````\n", "`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Fenced(s)
		fence := FenceFor(s)
		lines := strings.Split(out, "\n")
		assert.Assert(t, len(lines) >= 2)
		assert.Equal(t, lines[0], fence)
		assert.Equal(t, lines[len(lines)-1], fence)
		for _, l := range lines[1 : len(lines)-1] {
			assert.Check(t, !strings.HasPrefix(strings.TrimLeft(l, " "), fence), "%q closes the fence %q", l, fence)
		}
	})
}
