package files

import (
	"context"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func recordRepo(t *testing.T) *fs.Dir {
	t.Helper()
	return fs.NewDir(t, "records",
		fs.WithDir(".git"),
		fs.WithDir(".abcd",
			fs.WithDir("development",
				fs.WithDir("intents",
					fs.WithDir("drafts",
						fs.WithFile("itd-2611300000000002-b.md", "second"),
						fs.WithFile("itd-2611300000000001-a.md", "first whole file"),
						fs.WithFile("notes.md", "not a record"),
						fs.WithFile("spc-2611300000000003-x.md", "another family"),
						fs.WithSymlink("itd-2611300000000004-link.md", "/etc/passwd"),
					),
				),
			),
		),
	)
}

func TestListReadsEachRecordBoundedAndReportsBadFilesBeside(t *testing.T) {
	dir := recordRepo(t)
	r := Records{Dir: dir.Path()}
	assert.Assert(t, r.Initialized())
	files, err := r.List(context.Background(), ".abcd/development/intents/drafts", "itd", 5)
	assert.NilError(t, err)
	assert.Equal(t, len(files), 3)
	assert.Equal(t, files[0].Path, ".abcd/development/intents/drafts/itd-2611300000000001-a.md")
	assert.Equal(t, string(files[0].Data), "first")
	assert.Equal(t, string(files[1].Data), "secon")
	assert.Assert(t, files[2].Err != nil, "a symlinked record is reported, not followed")
	assert.Assert(t, is.Contains(files[2].Err.Error(), "symbolic link"))

	files, err = r.List(context.Background(), ".abcd/development/intents/planned", "itd", 0)
	assert.NilError(t, err)
	assert.Equal(t, len(files), 0)
}

func TestRecordPathsStayInsideTheRecord(t *testing.T) {
	r := Records{Dir: recordRepo(t).Path()}
	for _, p := range []string{"../x.md", ".abcd/../../x.md", "/etc/passwd", "src/main.go", ".abcd/./x/../../y"} {
		_, err := r.Read(context.Background(), p)
		assert.Assert(t, err != nil, p)
		_, err = r.Create(context.Background(), p, []byte("x"))
		assert.Assert(t, err != nil, p)
	}
}

func TestCreateAndReplace(t *testing.T) {
	dir := recordRepo(t)
	r := Records{Dir: dir.Path()}
	ctx := context.Background()
	p := ".abcd/work/issues/open/iss-2611300000000009-new.md"
	created, err := r.Create(ctx, p, []byte("one"))
	assert.NilError(t, err)
	assert.Assert(t, created)
	created, err = r.Create(ctx, p, []byte("two"))
	assert.NilError(t, err)
	assert.Assert(t, !created, "create never replaces")
	data, err := r.Read(ctx, p)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "one")

	assert.NilError(t, r.Replace(ctx, p, []byte("three")))
	data, _ = r.Read(ctx, p)
	assert.Equal(t, string(data), "three")

	entries, _ := os.ReadDir(dir.Join(".abcd/work/issues/open"))
	for _, e := range entries {
		assert.Assert(t, !strings.HasPrefix(e.Name(), ".abcd-tmp"), "a temporary file was left: %s", e.Name())
	}
}

func TestReadRefusesATooLargeRecord(t *testing.T) {
	dir := recordRepo(t)
	big := ".abcd/development/intents/drafts/itd-2611300000000005-big.md"
	assert.NilError(t, os.WriteFile(dir.Join(big), []byte(strings.Repeat("x", MaxRecordBytes+1)), 0o644))
	_, err := Records{Dir: dir.Path()}.Read(context.Background(), big)
	assert.ErrorContains(t, err, "larger than")
}

func TestTheLockIsContention(t *testing.T) {
	r := Records{Dir: recordRepo(t).Path()}
	unlock, err := r.Lock(context.Background(), 0)
	assert.NilError(t, err)
	_, err = r.Lock(context.Background(), 0)
	ref, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, ref.Kind, refusal.Contention)
	unlock()
	unlock2, err := r.Lock(context.Background(), 0)
	assert.NilError(t, err)
	unlock2()
}
