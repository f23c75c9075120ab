package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
)

// A start killed before its state leaves a folder with none: Unstarted names it, Runs does not, and
// RemoveAll takes it whole, a link inside removed as a link and what it points at left alone.
func TestAnUnstartedRunIsListedAndRemovedWhole(t *testing.T) {
	dir := fs.NewDir(t, "runs", fs.WithDir(".git"), fs.WithFile("precious.txt", "keep me"))
	r := Runs{Dir: dir.Path()}
	ctx := context.Background()
	for _, id := range []string{"run-2611300000000001", "run-2611300000000002"} {
		_, err := r.Create(ctx, id)
		assert.NilError(t, err)
	}
	assert.NilError(t, r.Write(ctx, runRoot+"/run-2611300000000001/state.json", []byte("{}")))
	assert.NilError(t, r.Write(ctx, runRoot+"/run-2611300000000002/lane-1/brief.md", []byte("brief")))
	assert.NilError(t, os.Symlink(dir.Join("precious.txt"), dir.Join(".abcd/.work.local/run/run-2611300000000002/lane-1/link")))

	stated, err := r.Runs(ctx)
	assert.NilError(t, err)
	assert.DeepEqual(t, stated, []string{"run-2611300000000001"})
	unstarted, err := r.Unstarted(ctx)
	assert.NilError(t, err)
	assert.DeepEqual(t, unstarted, []string{"run-2611300000000002"})

	assert.NilError(t, r.RemoveAll(ctx, runRoot+"/run-2611300000000002"))
	_, err = os.Lstat(dir.Join(".abcd/.work.local/run/run-2611300000000002"))
	assert.Assert(t, os.IsNotExist(err))
	data, err := os.ReadFile(dir.Join("precious.txt"))
	assert.NilError(t, err)
	assert.Equal(t, string(data), "keep me")
	assert.NilError(t, r.RemoveAll(ctx, runRoot+"/run-2611300000000002"), "an absent folder is not an error")

	for _, p := range []string{runRoot, ".abcd", "../x", runRoot + "/../../config.json"} {
		assert.Assert(t, r.RemoveAll(ctx, p) != nil, p)
	}
	_, err = os.Stat(filepath.Join(dir.Path(), ".abcd/.work.local/run/run-2611300000000001/state.json"))
	assert.NilError(t, err)
	unstarted, err = r.Unstarted(ctx)
	assert.NilError(t, err)
	assert.Check(t, is.Len(unstarted, 0))
}
