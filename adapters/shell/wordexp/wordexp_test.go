package wordexp

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
)

// lineShell is a Shell holding the variables a test sets and the output each substitution's first
// command prints (its name, when it is not listed: a command the reader cannot tell the output of).
// The walker in adapters/shell is the real one; its tests read every corpus line through it.
type lineShell struct {
	vars    map[string]Value
	outputs map[string]string
	walked  []string
}

func (s *lineShell) Lookup(name string) (Value, bool) { v, ok := s.vars[name]; return v, ok }

func (s *lineShell) IFS() (string, bool) { return " \t\n", true }

func (s *lineShell) Substitute(stmts []*syntax.Stmt, via string) Output {
	name := stmts[0].Cmd.(*syntax.CallExpr).Args[0].Lit()
	s.walked = append(s.walked, via+name)
	if out, ok := s.outputs[name]; ok {
		return Output{Word: guard.Lit(out), Known: true}
	}
	return Output{From: name}
}

func (s *lineShell) Walk(syntax.Node) {}

func (s *lineShell) Tick() bool { return true }

// argWord is the first argument word of a line.
func argWord(t *testing.T, line string) *syntax.Word {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	assert.NilError(t, err)
	return f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
}

// TestAnUnknownValueIsAHoleNeverEmpty: a variable the line did not set and a command's output the
// reader cannot tell are holes named by where they come from, inside or as the whole word.
func TestAnUnknownValueIsAHoleNeverEmpty(t *testing.T) {
	sh := &lineShell{}
	got := Fields(sh, argWord(t, `rm "$TMPDIR/x"`))
	assert.DeepEqual(t, got, []guard.Word{{Parts: []guard.Part{{Hole: true, Var: "TMPDIR", Quoted: true}, {Text: "/x", Quoted: true}}}})
	got = Fields(sh, argWord(t, `kill $X`))
	assert.DeepEqual(t, got, []guard.Word{{Parts: []guard.Part{{Hole: true, Var: "X"}}}})
	got = Fields(sh, argWord(t, `kill $(pgrep node)`))
	assert.DeepEqual(t, got, []guard.Word{guard.HoleWord("pgrep")})
	assert.DeepEqual(t, sh.walked, []string{"$(…)pgrep"})
}

// TestAKnownValueIsSplitWhereBashSplitsIt: an unquoted value splits at $IFS, a quoted one does not,
// and a substitution's output loses its trailing newlines.
func TestAKnownValueIsSplitWhereBashSplitsIt(t *testing.T) {
	sh := &lineShell{vars: map[string]Value{"X": {Words: []guard.Word{guard.Lit("-rf  /")}}}, outputs: map[string]string{"echo": "rm -rf ~\n\n"}}
	texts := func(ws []guard.Word) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.String())
		}
		return out
	}
	assert.DeepEqual(t, texts(Fields(sh, argWord(t, `rm $X`))), []string{"-rf", "/"})
	assert.DeepEqual(t, texts(Fields(sh, argWord(t, `rm "$X"`))), []string{"-rf  /"})
	assert.DeepEqual(t, texts(Fields(sh, argWord(t, `eval $(echo)`))), []string{"rm", "-rf", "~"})
	assert.Equal(t, Unsplit(sh, argWord(t, `x $X`)).String(), "-rf  /")
}

// TestBracesPastTheBoundEndInAnUnknownWord: brace expansion stops at maxFields words, and what it
// did not read is one unknown word, never nothing.
func TestBracesPastTheBoundEndInAnUnknownWord(t *testing.T) {
	got := Fields(&lineShell{}, argWord(t, `rm /{1..1000}`))
	assert.Equal(t, len(got), maxFields+1)
	assert.Equal(t, got[0].String(), "/1")
	assert.Check(t, got[maxFields].AllHole())
}
