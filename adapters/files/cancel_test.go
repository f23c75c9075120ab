package files

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A write whose caller's context ended before it began (Ctrl-C, an MCP client's cancellation, a
// deadline) makes nothing: no record, no run file, no journal, not even a temporary file in the
// staging folder. Each returns the context's error, which the core says as interrupted.
func TestAWriteWhoseContextEndedMakesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir, c := journalRepo(t)
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(jState)), 0o700))
	before, staged := tree(t, dir), stagedFiles(t, dir)
	_, err := Records{Dir: dir}.Create(ctx, ".abcd/work/issues/open/iss-2612010000000001-b.md", []byte("lifecycle: open\n"))
	assert.Check(t, errors.Is(err, context.Canceled), "Create: %v", err)
	err = Records{Dir: dir}.Replace(ctx, jOpen, []byte("lifecycle: changed\n"))
	assert.Check(t, errors.Is(err, context.Canceled), "Replace: %v", err)
	err = Runs{Dir: dir}.Write(ctx, jState, []byte(`{"state":2}`+"\n"))
	assert.Check(t, errors.Is(err, context.Canceled), "Runs.Write: %v", err)
	err = Journal{Dir: dir}.Commit(ctx, c)
	assert.Check(t, errors.Is(err, context.Canceled), "Journal.Commit: %v", err)
	assert.Check(t, is.DeepEqual(tree(t, dir), before))
	assert.Check(t, is.DeepEqual(stagedFiles(t, dir), staged), "no temporary file was staged")

	// The same writes with a live context are made: the check stops only an ended call.
	_, err = Records{Dir: dir}.Create(context.Background(), ".abcd/work/issues/open/iss-2612010000000001-b.md", []byte("lifecycle: open\n"))
	assert.NilError(t, err)
	assert.NilError(t, Journal{Dir: dir}.Commit(context.Background(), c))
	assert.Check(t, is.Equal(tree(t, dir)[jClosed], "-rw-r--r-- lifecycle: closed\n"))
}

// stagedFiles names what the staging folder holds.
func stagedFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".abcd", stagingRel))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	assert.NilError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
