package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/ports"
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

// The merge driver's temporary file is written in the git folder, where git never lists it, and
// renamed over ours: at the moment a kill would leave it, the work tree holds no temp `git add -A`
// would commit. In a linked worktree it is the repository's common git folder.
func TestTheMergeDriversTempLivesInTheGitFolder(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main")
	wt := filepath.Join(root, "lanes", "wt")
	for _, d := range []string{filepath.Join(main, ".git", "worktrees", "wt"), wt} {
		assert.NilError(t, os.MkdirAll(d, 0o755))
	}
	assert.NilError(t, os.WriteFile(filepath.Join(main, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n"), 0o644))
	for _, top := range []string{main, wt} {
		t.Run(filepath.Base(top), func(t *testing.T) {
			ours := filepath.Join(top, ".merge_file_A")
			assert.NilError(t, os.WriteFile(ours, []byte("ours\n"), 0o640))
			var tmp string
			var beside []string
			beforePlace = func(p string) {
				tmp = p
				beside, _ = filepath.Glob(filepath.Join(top, tempPrefix+"*"))
			}
			defer func() { beforePlace = nil }()
			assert.NilError(t, MergeFiles{}.Replace(ours, []byte("merged\n")))
			assert.Check(t, is.Equal(filepath.Dir(tmp), filepath.Join(realDir(t, main), ".git", mergeTempDir)), "the temp was written at %s", tmp)
			assert.Check(t, is.Len(beside, 0), "a temp stood in the work tree while the merge was written: %v", beside)
			assert.Equal(t, string(mustRead(t, ours)), "merged\n")
			assert.Equal(t, mode(t, ours), os.FileMode(0o640))
			left, err := os.ReadDir(filepath.Join(main, ".git", mergeTempDir))
			assert.NilError(t, err)
			assert.Check(t, is.Len(left, 0), "the temp was renamed into place")
		})
	}
}

func realDir(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	assert.NilError(t, err)
	return r
}

// A killed driver's temp in the git folder is listed for lint, as git-ignored, and the next merge
// removes it; one at the top of the work tree (an older abcd's, or one written where the git folder
// is on another file system) is listed as one git would commit.
func TestMergeTempsListsWhatKilledDriversLeft(t *testing.T) {
	top := t.TempDir()
	tmpDir := filepath.Join(top, ".git", mergeTempDir)
	assert.NilError(t, os.MkdirAll(tmpDir, 0o700))
	dead := fmt.Sprintf("%s%d-%016x", tempPrefix, deadPid(t), 1)
	live := fmt.Sprintf("%s%d-%016x", tempPrefix, os.Getpid(), 2)
	for _, p := range []string{filepath.Join(tmpDir, dead), filepath.Join(tmpDir, live), filepath.Join(top, dead)} {
		assert.NilError(t, os.WriteFile(p, []byte("a record whole\n"), 0o600))
	}
	r := Records{Dir: top}
	temps, err := r.MergeTemps(context.Background())
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(temps, []ports.StrayTemp{{Path: dead}, {Path: ".git/" + mergeTempDir + "/" + dead, Ignored: true}}))

	ours := filepath.Join(top, ".merge_file_A")
	assert.NilError(t, os.WriteFile(ours, []byte("ours\n"), 0o644))
	assert.NilError(t, MergeFiles{}.Replace(ours, []byte("merged\n")))
	temps, err = r.MergeTemps(context.Background())
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(temps, []ports.StrayTemp{{Path: dead}}), "the next merge removed the dead driver's temp in the git folder")
	_, err = os.Stat(filepath.Join(tmpDir, live))
	assert.Check(t, err == nil, "a live writer's temp is left alone")
}
