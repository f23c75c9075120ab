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

// A run file created create-only never replaces one that stands, however it came to be there, and
// leaves no temporary file behind either way.
func TestARunFileCreatedCreateOnlyNeverReplacesOne(t *testing.T) {
	dir := fs.NewDir(t, "runs", fs.WithDir(".git"))
	r := Runs{Dir: dir.Path()}
	ctx := context.Background()
	_, err := r.Create(ctx, "run-2611300000000001")
	assert.NilError(t, err)
	p := runRoot + "/run-2611300000000001/lane-1/validate/round-1/ruthless-reviewer/rp-return.md"
	created, err := r.CreateFile(ctx, p, []byte("the first answer"))
	assert.NilError(t, err)
	assert.Assert(t, created)
	created, err = r.CreateFile(ctx, p, []byte("a second answer"))
	assert.NilError(t, err)
	assert.Assert(t, !created, "a taken name is never replaced")
	data, err := os.ReadFile(dir.Join(p))
	assert.NilError(t, err)
	assert.Equal(t, string(data), "the first answer")
	assert.Equal(t, mode(t, dir.Join(p)), os.FileMode(0o600))
	assert.Equal(t, len(tempLeftovers(t, dir.Path())), 0)
	// A link standing at the name is refused, never followed.
	outside := dir.Join("outside")
	assert.NilError(t, os.WriteFile(outside, []byte("theirs"), 0o600))
	link := runRoot + "/run-2611300000000001/lane-1/rp-return-2.md"
	assert.NilError(t, os.Symlink(outside, dir.Join(link)))
	_, err = r.CreateFile(ctx, link, []byte("x"))
	assert.Assert(t, err != nil, "a link at the name is refused")
	data, err = os.ReadFile(outside)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "theirs")
}
