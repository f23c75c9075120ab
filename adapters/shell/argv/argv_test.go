package argv

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/guard"
)

func lits(line string) []guard.Word {
	var out []guard.Word
	for _, f := range strings.Fields(line) {
		out = append(out, guard.Lit(f))
	}
	return out
}

func texts(ws []guard.Word) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return strings.Join(out, " ")
}

// TestValuesReadEachSpelling: NAME VALUE, --NAME=VALUE and -XVALUE, wherever they stand.
func TestValuesReadEachSpelling(t *testing.T) {
	got := Values(lits("-e ssh1 --rsh=ssh2 -essh3 --rsh ssh4 -x --rshx=no"), "-e", "--rsh")
	assert.Equal(t, texts(got), "ssh1 ssh2 ssh3 ssh4")
}

// TestSkipStopsAtTheOperands: options, with the values the program's valued options take, end at
// the first operand or --, and a cluster's valued option takes the rest of it or the next word.
func TestSkipStopsAtTheOperands(t *testing.T) {
	rest, seen := Skip(lits("-u root -iE --user=x -C5 -- rm -rf"), []string{"-u", "-C", "--user"})
	assert.Equal(t, texts(rest), "rm -rf")
	assert.Equal(t, seen["-u"].String(), "root")
	assert.Equal(t, seen["--user"].String(), "x")
	assert.Equal(t, seen["-C"].String(), "5")
	_, i := FirstOf(seen, "-x", "-i")
	assert.Check(t, i)
	rest, _ = Skip([]guard.Word{guard.HoleWord("x"), guard.Lit("-rf")}, nil)
	assert.Equal(t, len(rest), 2, "an unknown word is an operand")
}

// TestHasFlagLooksOnlyAtLeadingOptions: a flag counts alone or in a cluster, before the operands.
func TestHasFlagLooksOnlyAtLeadingOptions(t *testing.T) {
	assert.Check(t, HasFlag(lits("-cs cmd"), "-s"))
	assert.Check(t, !HasFlag(lits("cmd -s"), "-s"))
	assert.Check(t, !HasFlag(lits("--silent"), "-s"))
	after, ok := After(lits("-q --args rm -rf"), []string{"--args"})
	assert.Check(t, ok)
	assert.Equal(t, texts(after), "rm -rf")
}
