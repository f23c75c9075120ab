package files

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/layout"
)

// The lanes' folder abcd makes at the repository's top is 0700 and ignores itself: git status of the
// repository shows nothing of it or what a worktree in it holds, and the person's own .gitignore and
// .git/info/exclude are left as they were. Made again, it changes nothing; a worktree's folder is
// removed by RemoveAll, the run's with its last worktree, the lanes' folder itself never.
func TestTheLanesFolderIsPrivateAndIgnoredByGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	dir := fs.NewDir(t, "lanes", fs.WithFile(".gitignore", "*.log\n"), fs.WithFile("a.txt", "one\n"))
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "core.excludesFile=/dev/null"}, args...)...)
		cmd.Dir, cmd.Env = dir.Path(), append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir.Path())
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
		return string(out)
	}
	git("init", "-q")
	exclude, err := os.ReadFile(dir.Join(".git/info/exclude"))
	assert.NilError(t, err)
	before := git("status", "--porcelain", "--ignored=no", "--untracked-files=all")

	r := Runs{Dir: dir.Path()}
	ctx := context.Background()
	wt := layout.LanesDir("run-2611300000000001") + "/lane-1"
	assert.NilError(t, r.MakeLanes(ctx, wt))
	assert.NilError(t, r.MakeLanes(ctx, wt), "made again: nothing changes")
	_, err = os.Lstat(dir.Join(wt))
	assert.Check(t, os.IsNotExist(err), "the worktree's own folder is git's to make")
	for _, p := range []string{layout.Lanes, layout.LanesDir("run-2611300000000001")} {
		assert.Equal(t, mode(t, dir.Join(p)), os.ModeDir|0o700, p)
	}
	assert.Equal(t, mode(t, dir.Join(layout.LanesIgnore)), os.FileMode(0o600))
	// What a lane's worktree would hold, and a stray file beside the runs.
	for _, lane := range []string{"lane-1", "lane-2"} {
		assert.NilError(t, os.MkdirAll(dir.Join(layout.LanesDir("run-2611300000000001"), lane, "src"), 0o700))
		assert.NilError(t, os.WriteFile(dir.Join(layout.LanesDir("run-2611300000000001"), lane, "src", "x.go"), []byte("package x\n"), 0o600))
	}
	assert.NilError(t, os.WriteFile(dir.Join(layout.Lanes, "stray"), []byte("x"), 0o600))

	assert.Check(t, is.Equal(git("status", "--porcelain", "--ignored=no", "--untracked-files=all"), before))
	assert.Check(t, is.Contains(before, "?? a.txt"), "the check can see an untracked file")
	ignore, err := os.ReadFile(dir.Join(".gitignore"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(ignore), "*.log\n"), "the person's .gitignore is untouched")
	after, err := os.ReadFile(dir.Join(".git/info/exclude"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(after), string(exclude)), "the person's exclude file is untouched")

	assert.NilError(t, r.RemoveAll(ctx, wt))
	_, err = os.Lstat(dir.Join(layout.LanesDir("run-2611300000000001"), "lane-2", "src", "x.go"))
	assert.Check(t, err, "the run's folder stays while a worktree stands in it")
	assert.NilError(t, r.RemoveAll(ctx, layout.LanesDir("run-2611300000000001")+"/lane-2"))
	_, err = os.Lstat(dir.Join(layout.LanesDir("run-2611300000000001")))
	assert.Check(t, os.IsNotExist(err), "the run's folder goes with its last worktree")
	assert.NilError(t, r.RemoveAll(ctx, layout.LanesDir("run-2611300000000001")), "an absent folder is not an error")
	for _, p := range []string{layout.Lanes, layout.LanesIgnore, layout.Lanes + "/stray", layout.Lanes + "/../a.txt", layout.Lanes + "/run-1/../../a.txt"} {
		assert.Check(t, r.RemoveAll(ctx, p) != nil, p)
	}
	_, err = os.Lstat(dir.Join(layout.LanesIgnore))
	assert.Check(t, err)
}

// The lanes' folder, or a run's folder in it, standing as a link is refused, never followed: nothing
// is made where it points. A path that is no lane's worktree in it is refused before anything is
// made; one an earlier abcd made inside its run's folder needs nothing made.
func TestTheLanesFolderIsNeverMadeThroughALink(t *testing.T) {
	for _, link := range []string{layout.Lanes, layout.LanesDir("run-2611300000000001")} {
		t.Run(strings.ReplaceAll(link, "/", "_"), func(t *testing.T) {
			dir := fs.NewDir(t, "lanes", fs.WithDir(".git"), fs.WithDir("elsewhere"))
			assert.NilError(t, os.MkdirAll(filepath.Dir(dir.Join(link)), 0o700))
			assert.NilError(t, os.Symlink(dir.Join("elsewhere"), dir.Join(link)))
			err := Runs{Dir: dir.Path()}.MakeLanes(context.Background(), layout.LanesDir("run-2611300000000001")+"/lane-1")
			assert.Check(t, err != nil, "a link is refused")
			entries, err := os.ReadDir(dir.Join("elsewhere"))
			assert.NilError(t, err)
			assert.Check(t, is.Len(entries, 0), "nothing is made where the link points")
		})
	}
	dir := fs.NewDir(t, "lanes", fs.WithDir(".git"))
	for _, wt := range []string{"", ".abcd-lanes", ".abcd-lanes/run-1", ".abcd-lanes/run-1/../../x", ".abcd-lanes/lane-1/lane-1",
		".abcd-lanes/run-1/lane-1/x", "src/run-1/lane-1", ".abcd/.work.local/run/run-1/lane-1"} {
		assert.Check(t, Runs{Dir: dir.Path()}.MakeLanes(context.Background(), wt) != nil, wt)
	}
	assert.NilError(t, Runs{Dir: dir.Path()}.MakeLanes(context.Background(), ".abcd/.work.local/run/run-1/worktrees/lane-1"))
	_, err := os.Lstat(dir.Join(layout.Lanes))
	assert.Check(t, os.IsNotExist(err), "a refused run id makes nothing")
}
