package arch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// limits are the measures the product keeps: at most five functions over 80 lines, no file over 800
// lines, no package over 5,000, and ports/app at most 20 files. Shorten a function by naming its
// phases; give a file's or a package's second job a home of its own.
var limits = Limits{FuncLines: 80, FileLines: 800, PackageLines: 5000, AppFiles: 20}

func TestTheCodeStaysReadable(t *testing.T) {
	t.Parallel() // reads the workspace, writes nothing
	rep, err := Sizes(workspaceRoot(t), limits)
	assert.NilError(t, err)
	assert.Check(t, len(rep.Funcs) <= 5, "%d product functions over 80 lines (at most 5): %q", len(rep.Funcs), rep.Funcs)
	assert.Check(t, is.Len(rep.Files, 0), "product files over 800 lines: %q", rep.Files)
	assert.Check(t, is.Len(rep.Packages, 0), "product packages over 5,000 lines: %q", rep.Packages)
	assert.Check(t, rep.AppFiles <= limits.AppFiles, "ports/app holds %d files (at most %d): the assembly is the table and the wiring", rep.AppFiles, limits.AppFiles)
	assert.Check(t, rep.AppFiles > 0, "ports/app was not found under the workspace root")
	t.Logf("functions over 80 lines: %q", rep.Funcs)
}

// TestSizesFindsWhatIsLong: the walk sees a long function, file and package, counts ports/app's
// files, and leaves tests, test-support packages and tools/ out.
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
	write("domain/big/a.go", "package big\n"+strings.Repeat("\n", 60))
	write("domain/big/b.go", "package big\n"+strings.Repeat("\n", 60))
	rep, err := Sizes(root, Limits{FuncLines: 80, FileLines: 84, PackageLines: 100, AppFiles: 1})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(rep.Funcs, []string{"83 ports/app/long.go Long"}))
	assert.Check(t, is.DeepEqual(rep.Files, []string{"85 ports/app/long.go"}))
	assert.Check(t, is.DeepEqual(rep.Packages, []string{"122 domain/big"}))
	assert.Check(t, is.Equal(rep.AppFiles, 2))
}

// No compiled program is tracked: a build output committed by mistake is found by its first bytes,
// whatever its name.
func TestNoTrackedExecutable(t *testing.T) {
	t.Parallel()
	root := workspaceRoot(t)
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	assert.NilError(t, err)
	paths := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	assert.Assert(t, len(paths) > 100, "git ls-files listed %d files", len(paths))
	found, err := Executables(root, paths)
	assert.NilError(t, err)
	assert.Check(t, is.Len(found, 0), "compiled programs are tracked: %q (git rm them; .gitignore names build outputs)", found)
}

func TestExecutablesFindsABuildOutput(t *testing.T) {
	root := t.TempDir()
	self, err := os.Executable()
	assert.NilError(t, err)
	data, err := os.ReadFile(self)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(filepath.Join(root, "stray"), data, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(root, "script.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(root, "empty"), nil, 0o644))
	found, err := Executables(root, []string{"stray", "script.sh", "empty", "gone"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(found, []string{"stray"}))
}
