package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// eachListing runs the test with the system's own listing and with the listing through the root
// that other systems use, so both keep the same promises.
func eachListing(t *testing.T, test func(t *testing.T)) {
	for _, portable := range []bool{false, true} {
		t.Run(fmt.Sprintf("portable=%v", portable), func(t *testing.T) {
			portableListing = portable
			t.Cleanup(func() { portableListing = false })
			test(t)
		})
	}
}

const draftsRel = ".abcd/development/intents/drafts"

// draftsRepo is a repository whose drafts folder holds n records; record i holds i%50 bytes of a
// letter of its own, so each file differs in content and size (some are empty).
func draftsRepo(t *testing.T, n int) (*fs.Dir, []string) {
	t.Helper()
	dir := recordRepo(t)
	drafts := dir.Join(filepath.FromSlash(draftsRel))
	for _, e := range []string{"itd-2611300000000001-a.md", "itd-2611300000000002-b.md", "itd-2611300000000004-link.md"} {
		assert.NilError(t, os.Remove(filepath.Join(drafts, e)))
	}
	want := make([]string, n)
	for i := range n {
		want[i] = strings.Repeat(string(rune('a'+i%26)), i%50)
		name := fmt.Sprintf("itd-26113000%08d-r.md", i)
		assert.NilError(t, os.WriteFile(filepath.Join(drafts, name), []byte(want[i]), 0o644))
	}
	return dir, want
}

// Enough records to be read by several goroutines come back in name order, each its own bytes.
func TestListReadsManyRecordsInOrderEachWhole(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		dir, want := draftsRepo(t, 700)
		r := Records{Dir: dir.Path()}
		for _, limit := range []int{0, 20} {
			files, err := r.List(context.Background(), draftsRel, "itd", limit)
			assert.NilError(t, err)
			assert.Equal(t, len(files), len(want))
			for i, f := range files {
				assert.Equal(t, f.Path, fmt.Sprintf("%s/itd-26113000%08d-r.md", draftsRel, i))
				assert.NilError(t, f.Err)
				w := want[i]
				if limit > 0 && len(w) > limit {
					w = w[:limit]
				}
				assert.Equal(t, string(f.Data), w, "file %d at limit %d", i, limit)
			}
			// Each file's bytes are its own: appending to one does not write into the next.
			if limit == 0 {
				_ = append(files[1].Data, 'Z')
				assert.Equal(t, string(files[2].Data), want[2])
			}
		}
	})
}

// A link (leading inside or outside), a folder and a FIFO under a record's name are each reported
// beside the others, never read, and the FIFO does not block the listing.
func TestListReportsWhatIsNotARegularFile(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		outside := fs.NewDir(t, "outside", fs.WithFile("secret", "not yours"))
		dir := recordRepo(t)
		drafts := dir.Join(filepath.FromSlash(draftsRel))
		assert.NilError(t, os.Symlink("itd-2611300000000001-a.md", filepath.Join(drafts, "itd-2611300000000005-in.md")))
		assert.NilError(t, os.Symlink(outside.Join("secret"), filepath.Join(drafts, "itd-2611300000000006-out.md")))
		assert.NilError(t, os.Mkdir(filepath.Join(drafts, "itd-2611300000000007-dir.md"), 0o755))
		mkfifo(t, filepath.Join(drafts, "itd-2611300000000008-fifo.md"))
		files, err := Records{Dir: dir.Path()}.List(context.Background(), draftsRel, "itd", 0)
		assert.NilError(t, err)
		byName := map[string]error{}
		for _, f := range files {
			byName[filepath.Base(f.Path)] = f.Err
			if f.Err != nil {
				assert.Assert(t, f.Data == nil, "%s was read", f.Path)
			}
		}
		assert.NilError(t, byName["itd-2611300000000001-a.md"])
		for _, link := range []string{"itd-2611300000000004-link.md", "itd-2611300000000005-in.md", "itd-2611300000000006-out.md"} {
			r, ok := refusal.As(byName[link])
			assert.Assert(t, ok, "%s: %v", link, byName[link])
			assert.Equal(t, r.Code, refusal.CodeRecordSymlink, link)
		}
		for _, odd := range []string{"itd-2611300000000007-dir.md", "itd-2611300000000008-fifo.md"} {
			assert.Assert(t, byName[odd] != nil, odd)
			assert.Assert(t, is.Contains(byName[odd].Error(), "not a regular file"), odd)
		}
	})
}

// A listed file swapped for a link before it is opened is not read through the link: one leading
// outside, nor one leading to another record inside.
func TestListDoesNotReadAFileSwappedForALink(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		outside := fs.NewDir(t, "outside", fs.WithFile("secret", "not yours"))
		for _, target := range []string{outside.Join("secret"), "itd-2611300000000002-b.md"} {
			dir := recordRepo(t)
			p := dir.Join(filepath.FromSlash(draftsRel), "itd-2611300000000001-a.md")
			swapDuring(t, p, func() { replaceWithLink(t, p, target) })
			files, err := Records{Dir: dir.Path()}.List(context.Background(), draftsRel, "itd", 0)
			assert.NilError(t, err)
			assert.Equal(t, filepath.Base(files[0].Path), "itd-2611300000000001-a.md")
			assert.Assert(t, files[0].Err != nil, "read through a link to %s", target)
			assert.Assert(t, files[0].Data == nil)
			assert.Equal(t, string(files[1].Data), "second", "the other records are read")
		}
	})
}

// A listed file swapped for a FIFO before it is opened neither blocks the listing nor is read.
func TestListDoesNotBlockOnAFIFOSwappedIn(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		dir := recordRepo(t)
		p := dir.Join(filepath.FromSlash(draftsRel), "itd-2611300000000001-a.md")
		swapDuring(t, p, func() {
			assert.NilError(t, os.Remove(p))
			mkfifo(t, p)
		})
		files, err := Records{Dir: dir.Path()}.List(context.Background(), draftsRel, "itd", 0)
		assert.NilError(t, err)
		assert.Assert(t, files[0].Err != nil)
		assert.Assert(t, files[0].Data == nil)
	})
}

func TestListBoundsEachFile(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		dir := recordRepo(t)
		big := filepath.Join(dir.Join(filepath.FromSlash(draftsRel)), "itd-2611300000000003-big.md")
		assert.NilError(t, os.WriteFile(big, []byte(strings.Repeat("x", MaxRecordBytes+1)), 0o644))
		r := Records{Dir: dir.Path()}
		files, err := r.List(context.Background(), draftsRel, "itd", 0)
		assert.NilError(t, err)
		ref, ok := refusal.As(files[2].Err)
		assert.Assert(t, ok, "%v", files[2].Err)
		assert.Equal(t, ref.Code, refusal.CodeRecordTooLarge)
		files, err = r.List(context.Background(), draftsRel, "itd", 100)
		assert.NilError(t, err)
		assert.NilError(t, files[2].Err)
		assert.Equal(t, len(files[2].Data), 100)
	})
}

func TestListStopsWhenTheContextEnds(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		dir, _ := draftsRepo(t, 300)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Records{Dir: dir.Path()}.List(ctx, draftsRel, "itd", 0)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

// Status counts regular record files alone, with either listing.
func TestInspectCountsRegularRecordFilesOnly(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		dir, _ := draftsRepo(t, 120)
		drafts := dir.Join(filepath.FromSlash(draftsRel))
		assert.NilError(t, os.Symlink("itd-2611300000000000-r.md", filepath.Join(drafts, "itd-2611300000000999-l.md")))
		assert.NilError(t, os.Mkdir(filepath.Join(drafts, "itd-2611300000000998-d.md"), 0o755))
		facts, err := Inspector{Dir: dir.Path(), Home: t.TempDir()}.Inspect(context.Background())
		assert.NilError(t, err)
		assert.Equal(t, facts.Records[draftsRel], 120)
	})
}

// The folder listing tells each entry's type without following it, and looks an entry up when its
// description is asked for.
func TestReadDirTellsTypesWithoutFollowing(t *testing.T) {
	eachListing(t, func(t *testing.T) {
		dir := recordRepo(t)
		repo, err := openFolder(dir.Path())
		assert.NilError(t, err)
		defer repo.Close()
		f, _, err := repo.walk(draftsRel, 0)
		assert.NilError(t, err)
		defer f.Close()
		des, err := f.readDir()
		assert.NilError(t, err)
		types := map[string]os.FileMode{}
		for _, d := range des {
			types[d.Name()] = d.Type()
			info, err := d.Info()
			assert.NilError(t, err)
			assert.Equal(t, info.Name(), d.Name())
			assert.Equal(t, info.Mode().Type(), d.Type())
		}
		assert.Equal(t, len(types), 5)
		assert.Equal(t, types["itd-2611300000000004-link.md"], os.ModeSymlink)
		assert.Equal(t, types["notes.md"], os.FileMode(0))
	})
}
