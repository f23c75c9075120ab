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

// The files git hands the merge driver: read bounded and never through a link, and the merge put in
// place of ours whole, with its mode.
func TestMergeFilesReadAndReplaceOurs(t *testing.T) {
	dir := fs.NewDir(t, "merge",
		fs.WithFile(".merge_file_O", "base\n"),
		fs.WithFile(".merge_file_A", "ours\n", fs.WithMode(0o640)),
		fs.WithSymlink(".merge_file_L", "/etc/passwd"),
		fs.WithDir("sub"))
	m := MergeFiles{}
	data, err := m.Read(dir.Join(".merge_file_O"), 1<<10)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "base\n")
	for _, bad := range []string{".merge_file_L", "sub", "absent"} {
		_, err := m.Read(dir.Join(bad), 1<<10)
		assert.Check(t, err != nil, bad)
	}
	_, err = m.Read(dir.Join(".merge_file_O"), 2)
	assert.Check(t, is.ErrorContains(err, "larger than 2 bytes"))

	assert.NilError(t, m.Replace(dir.Join(".merge_file_A"), []byte("merged\n")))
	assert.Equal(t, string(mustRead(t, dir.Join(".merge_file_A"))), "merged\n")
	assert.Equal(t, mode(t, dir.Join(".merge_file_A")), os.FileMode(0o640))
	assert.Check(t, m.Replace(dir.Join(".merge_file_L"), []byte("x")) != nil, "a link is never written through")
	st, err := os.Lstat(dir.Join(".merge_file_L"))
	assert.NilError(t, err)
	assert.Check(t, st.Mode()&os.ModeSymlink != 0, "the link was replaced")

	// Relative paths are the folder git runs the driver in.
	t.Chdir(dir.Path())
	data, err = m.Read(".merge_file_A", 1<<10)
	assert.NilError(t, err)
	assert.Equal(t, string(data), "merged\n")
	entries, err := os.ReadDir(".")
	assert.NilError(t, err)
	assert.Check(t, is.Len(entries, 4), "no temporary file is left: %v", entries)
}

func TestSetupReadsAndReplacesARepositoryFile(t *testing.T) {
	repo, s := setupRepo(t, fs.WithFile(".gitattributes", "*.png binary\n"), fs.WithSymlink("linked", "/etc/passwd"))
	data, present, err := s.ReadFile(".gitattributes")
	assert.NilError(t, err)
	assert.Check(t, present)
	assert.Equal(t, string(data), "*.png binary\n")
	_, present, err = s.ReadFile("absent")
	assert.NilError(t, err)
	assert.Check(t, !present)
	_, _, err = s.ReadFile("linked")
	assert.Check(t, err != nil, "a link is refused")

	assert.NilError(t, s.ReplaceFile(".gitattributes", []byte("*.png binary\n/x merge=abcd\n")))
	assert.Equal(t, string(mustRead(t, repo.Join(".gitattributes"))), "*.png binary\n/x merge=abcd\n")
	assert.Equal(t, mode(t, repo.Join(".gitattributes")), os.FileMode(0o644))
	assert.Check(t, s.ReplaceFile("linked", []byte("x")) != nil, "a link is never written through")
	assert.Check(t, s.ReplaceFile("../outside", []byte("x")) != nil, "a path out of the repository is refused")
	_, err = os.Stat(filepath.Join(filepath.Dir(repo.Path()), "outside"))
	assert.Check(t, os.IsNotExist(err))
}

func TestNamesListsARecordFolderWithoutReading(t *testing.T) {
	r := Records{Dir: recordRepo(t).Path()}
	names, err := r.Names(context.Background(), ".abcd/development/intents/drafts", "itd")
	assert.NilError(t, err)
	assert.DeepEqual(t, names, []string{
		".abcd/development/intents/drafts/itd-2611300000000001-a.md",
		".abcd/development/intents/drafts/itd-2611300000000002-b.md",
		".abcd/development/intents/drafts/itd-2611300000000004-link.md",
	})
	names, err = r.Names(context.Background(), ".abcd/development/intents/planned", "itd")
	assert.NilError(t, err)
	assert.Check(t, is.Len(names, 0))
	_, err = r.Names(context.Background(), "../x", "itd")
	assert.Check(t, err != nil)
}
