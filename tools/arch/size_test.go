package arch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestTheCodeStaysReadable: at most five product functions over 80 lines, and no file of ports/app
// over 450 lines. Shorten a function by naming its phases; split a use case's file by its jobs.
func TestTheCodeStaysReadable(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	funcs, files, err := Sizes(workspaceRoot(t), 80, 450)
	assert.NilError(t, err)
	assert.Check(t, len(funcs) <= 5, "%d product functions over 80 lines (at most 5): %q", len(funcs), funcs)
	assert.Check(t, is.Len(files, 0), "files of ports/app over 450 lines: %q", files)
	t.Logf("functions over 80 lines: %q", funcs)
}

// TestSizesFindsWhatIsLong: the walk sees a long function and a long use-case file, and leaves
// tests, test-support packages and tools/ out.
func TestSizesFindsWhatIsLong(t *testing.T) {
	root := t.TempDir()
	long := "package p\n\nfunc Long() {\n" + strings.Repeat("\t_ = 1\n", 81) + "}\n"
	write := func(rel, data string) {
		assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(root, rel), []byte(data), 0o644))
	}
	write("ports/app/long.go", long)
	write("ports/app/long_test.go", long)
	write("tools/x/long.go", long)
	write("adapters/x/xtest/long.go", long)
	write("domain/short.go", "package p\n\nfunc Short() {}\n")
	funcs, files, err := Sizes(root, 80, 50)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(funcs, []string{"83 ports/app/long.go Long"}))
	assert.Check(t, is.DeepEqual(files, []string{"85 ports/app/long.go"}))
}
