package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// rootRefused asserts err is the refusal of a name the os.Root itself would not resolve: its reason
// is the root's own words, so no check of abcd's ran before it.
func rootRefused(t *testing.T, err error) {
	t.Helper()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal, got %v", err)
	assert.Equal(t, r.Code, refusal.CodePathOutside, "%v", err)
	assert.Assert(t, is.Contains(r.Why, "path escapes from parent"))
}

// swapDuring sets swapHook for one test: when the path at is looked at and about to be opened, swap
// runs once.
func swapDuring(t *testing.T, at string, swap func()) {
	t.Helper()
	swapHook = func(p string) {
		if p == at {
			swapHook = nil
			swap()
		}
	}
	t.Cleanup(func() { swapHook = nil })
}

// replaceWithLink swaps the folder or file at p for a link to target.
func replaceWithLink(t *testing.T, p, target string) {
	t.Helper()
	assert.NilError(t, os.Rename(p, p+".moved"))
	assert.NilError(t, os.Symlink(target, p))
}

func TestTheRootRefusesAClimb(t *testing.T) {
	parent := fs.NewDir(t, "climb", fs.WithDir("repo", fs.WithDir(".git"), fs.WithDir(".abcd")))
	repo, err := openFolder(parent.Join("repo"))
	assert.NilError(t, err)
	defer repo.Close()
	for _, rel := range []string{"..", "../x", "/etc", "/etc/passwd", ".abcd/../..", ".abcd/../../x"} {
		_, _, err := repo.walk(rel, 0)
		rootRefused(t, err)
		_, _, err = repo.walk(rel, 0o755)
		rootRefused(t, err)
	}
	// Setup cleans a path and hands it on: nothing of its own stands between a climb and the root.
	s := Setup{Dir: parent.Join("repo")}
	for _, rel := range []string{"..", "../escape", ".abcd/../../escape", "/tmp/escape"} {
		_, err := s.CreateFile(rel, []byte("x"))
		rootRefused(t, err)
		_, err = s.MkdirAll(rel)
		rootRefused(t, err)
	}
	assert.Assert(t, fs.Equal(parent.Path(), fs.Expected(t, fs.WithMode(0o700),
		fs.WithDir("repo", fs.WithDir(".git"), fs.WithDir(".abcd")))))
}

// A folder that is real when looked at and a link leading outside when opened is refused by the
// root: abcd's own look saw nothing wrong.
func TestALinkSwappedInBeforeUseIsRefusedByTheRoot(t *testing.T) {
	outside := fs.NewDir(t, "outside", fs.WithDir("open"))
	dir := recordRepo(t)
	open := dir.Join(".abcd", "work", "issues", "open")
	assert.NilError(t, os.MkdirAll(open, 0o755))
	swapDuring(t, open, func() { replaceWithLink(t, open, outside.Join("open")) })

	_, err := Records{Dir: dir.Path()}.Create(context.Background(), ".abcd/work/issues/open/iss-2611300000000001-x.md", []byte("x"))
	rootRefused(t, err)
	assert.Assert(t, fs.Equal(outside.Path(), fs.Expected(t, fs.WithMode(0o700), fs.WithDir("open", fs.MatchAnyFileMode))),
		"a record was written outside the repository")
}

// The same for a file: looked at as a regular file, swapped for a link outside before it is opened.
func TestAFileSwappedForALinkBeforeReadIsRefusedByTheRoot(t *testing.T) {
	outside := fs.NewDir(t, "outside", fs.WithFile("secret", "not yours"))
	dir := recordRepo(t)
	p := ".abcd/development/intents/drafts/itd-2611300000000001-a.md"
	swapDuring(t, dir.Join(filepath.FromSlash(p)), func() { replaceWithLink(t, dir.Join(filepath.FromSlash(p)), outside.Join("secret")) })

	_, err := Records{Dir: dir.Path()}.Read(context.Background(), p)
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Code, refusal.CodeRecordUnreadable)
	assert.Assert(t, is.Contains(r.Why, "path escapes from parent"), "the root refused it: %v", err)
}

// A link swapped in that stays inside the held folder is followed by the root, so abcd compares what
// it opened with what stood at the name, and refuses the difference.
func TestALinkSwappedInInsideTheRepositoryIsRefused(t *testing.T) {
	dir := recordRepo(t)
	intents := dir.Join(".abcd", "development", "intents")
	drafts := filepath.Join(intents, "drafts")
	assert.NilError(t, os.MkdirAll(filepath.Join(intents, "planned"), 0o755))
	swapDuring(t, drafts, func() { replaceWithLink(t, drafts, "planned") })
	_, err := Records{Dir: dir.Path()}.Create(context.Background(), ".abcd/development/intents/drafts/itd-2611300000000009-n.md", []byte("x"))
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Code, refusal.CodePathChanged)
	entries, err := os.ReadDir(filepath.Join(intents, "planned"))
	assert.NilError(t, err)
	assert.Equal(t, len(entries), 0, "written through the link")

	p := ".abcd/development/intents/drafts.moved/itd-2611300000000002-b.md"
	file := dir.Join(filepath.FromSlash(p))
	swapDuring(t, file, func() {
		assert.NilError(t, os.Remove(file))
		assert.NilError(t, os.Symlink("itd-2611300000000001-a.md", file))
	})
	_, err = Records{Dir: dir.Path()}.Read(context.Background(), p)
	r, ok = refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Code, refusal.CodeRecordUnreadable)
	assert.Assert(t, is.Contains(r.Why, "changed while it was being read"))
}

// A linked folder in the middle of a path is refused with the code people and tests know, whatever
// the link points at; the store neither reads nor writes through it.
func TestALinkedFolderInTheMiddleIsRefused(t *testing.T) {
	outside := fs.NewDir(t, "outside", fs.WithDir("open", fs.WithFile("iss-2611300000000001-x.md", "outside")))
	dir := recordRepo(t)
	assert.NilError(t, os.MkdirAll(dir.Join(".abcd", "work"), 0o755))
	assert.NilError(t, os.Symlink(outside.Path(), dir.Join(".abcd", "work", "issues")))
	r := Records{Dir: dir.Path()}
	ctx := context.Background()
	p := ".abcd/work/issues/open/iss-2611300000000001-x.md"
	_, err := r.Read(ctx, p)
	assertSetupRefused(t, err, "symlink_refused", dir.Join(".abcd", "work", "issues"))
	_, err = r.Create(ctx, ".abcd/work/issues/open/iss-2611300000000002-y.md", []byte("x"))
	assertSetupRefused(t, err, "symlink_refused", dir.Join(".abcd", "work", "issues"))
	assertSetupRefused(t, r.Replace(ctx, p, []byte("x")), "symlink_refused", dir.Join(".abcd", "work", "issues"))
	_, err = r.List(ctx, ".abcd/work/issues/open", "iss", 0)
	assertSetupRefused(t, err, "symlink_refused", dir.Join(".abcd", "work", "issues"))
	assert.Assert(t, fs.Equal(outside.Path(), fs.Expected(t, fs.WithMode(0o700),
		fs.WithDir("open", fs.MatchAnyFileMode, fs.WithFile("iss-2611300000000001-x.md", "outside", fs.MatchAnyFileMode)))))
}

func TestElementsKeepsAnAbsoluteNameForTheRoot(t *testing.T) {
	assert.DeepEqual(t, elements("a/b/c"), []string{"a", "b", "c"})
	assert.DeepEqual(t, elements("/etc/passwd"), []string{"/etc", "passwd"})
	assert.DeepEqual(t, elements("/"), []string{"/"})
	assert.DeepEqual(t, elements("a"), []string{"a"})
}
