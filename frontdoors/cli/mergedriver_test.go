package cli

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports/app"
)

// driverFiles are the three files git hands the driver, in memory.
type driverFiles map[string][]byte

func (d driverFiles) Read(p string, _ int) ([]byte, error) { return d[p], nil }
func (d driverFiles) Replace(p string, data []byte) error  { d[p] = data; return nil }

// TestMergeRecordSpeaksGitsDriverProtocol: five arguments in git's placeholders' order, the merge
// written over ours, exit 0 clean and 1 for a conflict with a line on stderr; hidden from help.
func TestMergeRecordSpeaksGitsDriverProtocol(t *testing.T) {
	files := driverFiles{"O": []byte("a\nb\nc\n"), "A": []byte("A\nb\nc\n"), "B": []byte("a\nb\nC\n")}
	a := &app.App{MergeFiles: files}
	res := run(t, a, "merge-record", "O", "A", "B", "7", ".abcd/x.md")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Equal(t, res.stdout, "")
	assert.Equal(t, res.stderr, "")
	assert.Equal(t, string(files["A"]), "A\nb\nC\n")

	files["A"], files["B"] = []byte("X\nb\nc\n"), []byte("Y\nb\nc\n")
	res = run(t, a, "merge-record", "O", "A", "B", "9", ".abcd/x.md")
	assert.Equal(t, res.code, 1)
	assert.Check(t, is.Contains(res.stderr, ".abcd/x.md: a conflict in the file"))
	assert.Equal(t, string(files["A"]), "<<<<<<<<< ours\nX\n=========\nY\n>>>>>>>>> theirs\nb\nc\n")

	for _, args := range [][]string{{"merge-record", "O", "A", "B"}, {"merge-record", "O", "A", "B", "seven", "p"}} {
		res = run(t, a, args...)
		assert.Check(t, is.Equal(res.code, 2), "%v", args)
		assert.Check(t, is.Contains(res.stderr, "usage"), "%v", args)
	}
	help := run(t, a, "--help")
	assert.Check(t, !is.Contains(help.stdout, "merge-record")().Success(), "the driver is hidden from help:\n%s", help.stdout)
}
