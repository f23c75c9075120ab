package files

import (
	"os"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
)

func heldFolder(t *testing.T, ops ...fs.PathOp) (*fs.Dir, *folder) {
	t.Helper()
	dir := fs.NewDir(t, "atomic", ops...)
	f, err := openFolder(dir.Path())
	assert.NilError(t, err)
	t.Cleanup(f.Close)
	return dir, f
}

func TestWriteFileReplacesInOneStep(t *testing.T) {
	dir, f := heldFolder(t, fs.WithFile("state.json", "old", fs.WithMode(0o644)))
	created, err := f.writeFile("state.json", []byte("new"), 0o600, true)
	assert.NilError(t, err)
	assert.Check(t, created)
	assert.Assert(t, fs.Equal(dir.Path(), fs.Expected(t, fs.WithMode(0o700), fs.WithFile("state.json", "new", fs.WithMode(0o600)))),
		"replaced with exactly the mode asked for, and no temporary file left")

	// A replace that cannot land (a folder stands at the name) leaves the folder and no temporary file.
	assert.NilError(t, os.Mkdir(dir.Join("busy"), 0o700))
	assert.NilError(t, os.WriteFile(dir.Join("busy", "x"), nil, 0o600))
	_, err = f.writeFile("busy", []byte("y"), 0o600, true)
	assert.Assert(t, err != nil)
	assert.Check(t, is.Len(tempLeftovers(t, dir.Path()), 0))
}

func TestWriteFileCreateOnlyNeverReplaces(t *testing.T) {
	dir, f := heldFolder(t, fs.WithFile("taken", "mine", fs.WithMode(0o644)))
	created, err := f.writeFile("taken", []byte("theirs"), 0o644, false)
	assert.NilError(t, err)
	assert.Check(t, !created)
	created, err = f.writeFile("fresh", []byte("made"), 0o640, false)
	assert.NilError(t, err)
	assert.Check(t, created)
	// A dangling link at the name is something standing there too: never followed, never replaced.
	assert.NilError(t, os.Symlink("nowhere", dir.Join("dangling")))
	created, err = f.writeFile("dangling", []byte("x"), 0o644, false)
	assert.NilError(t, err)
	assert.Check(t, !created)
	assert.Assert(t, fs.Equal(dir.Path(), fs.Expected(t, fs.WithMode(0o700),
		fs.WithFile("taken", "mine", fs.WithMode(0o644)),
		fs.WithFile("fresh", "made", fs.WithMode(0o640)),
		fs.WithSymlink("dangling", "nowhere"))))
}

// Where hard links are not available, create-only falls back to an exclusive create.
func TestCreateExclusive(t *testing.T) {
	dir, f := heldFolder(t, fs.WithFile("taken", "mine", fs.WithMode(0o644)))
	created, err := f.createExclusive("taken", []byte("theirs"), 0o600)
	assert.NilError(t, err)
	assert.Check(t, !created)
	created, err = f.createExclusive("new", []byte("data"), 0o600)
	assert.NilError(t, err)
	assert.Check(t, created)
	assert.Assert(t, fs.Equal(dir.Path(), fs.Expected(t, fs.WithMode(0o700),
		fs.WithFile("taken", "mine", fs.WithMode(0o644)),
		fs.WithFile("new", "data", fs.WithMode(0o600)))))
}
