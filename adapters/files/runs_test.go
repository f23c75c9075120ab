package files

import (
	"context"
	"os"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"
)

// A run's files are the person's alone: 0600 in 0700 folders, whatever the umask left.
func TestRunFilesArePrivate(t *testing.T) {
	dir := fs.NewDir(t, "runs", fs.WithDir(".git"))
	r := Runs{Dir: dir.Path()}
	ctx := context.Background()
	created, err := r.Create(ctx, "run-2611300000000001")
	assert.NilError(t, err)
	assert.Assert(t, created)
	assert.NilError(t, r.Write(ctx, runRoot+"/run-2611300000000001/lane-1/brief.md", []byte("brief")))
	for _, p := range []string{".abcd/.work.local", ".abcd/.work.local/run", ".abcd/.work.local/run/run-2611300000000001",
		".abcd/.work.local/run/run-2611300000000001/lane-1"} {
		assert.Equal(t, mode(t, dir.Join(p)), os.ModeDir|0o700, p)
	}
	assert.Equal(t, mode(t, dir.Join(".abcd/.work.local/run/run-2611300000000001/lane-1/brief.md")), os.FileMode(0o600))
	assert.Equal(t, len(tempLeftovers(t, dir.Path())), 0)
}
