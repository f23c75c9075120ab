package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// MaxRecordBytes bounds one record file.
const MaxRecordBytes = 256 << 10

// Records implements ports.RecordStore in the repository containing Dir.
type Records struct {
	Dir string
}

// Initialized reports whether .abcd/ exists as a real folder.
func (r Records) Initialized() bool {
	repo, err := openRepo(r.Dir)
	if err != nil {
		return false
	}
	defer repo.Close()
	st, err := repo.lstat(".abcd")
	return err == nil && st != nil && st.IsDir()
}

// InstallMissing lists .abcd/.gitignore and .abcd/config.json where they are missing: ahoy install
// writes them first and last, so a record without them is an install a kill interrupted.
func (r Records) InstallMissing() ([]string, error) {
	repo, err := openRepo(r.Dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	var missing []string
	for _, rel := range []string{".abcd/.gitignore", ".abcd/config.json"} {
		st, err := repo.lstat(rel)
		if err != nil {
			return nil, err
		}
		if st == nil {
			missing = append(missing, rel)
		}
	}
	return missing, nil
}

// recordPath checks the form of a record path: slash-separated, canonical and under .abcd/. Where it
// may lead is the root's to refuse.
func recordPath(rel string) error {
	if filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))) != rel || !strings.HasPrefix(rel, ".abcd/") {
		return fmt.Errorf("record path %q is not under .abcd/", rel)
	}
	return nil
}

// parent opens the folder holding the record rel (made 0755 with mkdir) and returns rel's file name.
func (r Records) parent(rel string, mkdir bool) (*folder, string, error) {
	if err := recordPath(rel); err != nil {
		return nil, "", err
	}
	repo, err := openRepo(r.Dir)
	if err != nil {
		return nil, "", err
	}
	defer repo.Close()
	perm := fs.FileMode(0)
	if mkdir {
		perm = 0o755
	}
	return repo.parent(rel, perm)
}

func recordMissing(rel string) error {
	return refusal.New(refusal.CodeRecordMissing, rel, "does not exist", "run the list command to see the records there are")
}

// List reads the record files of one folder; a file that may not be read carries its own error.
func (r Records) List(ctx context.Context, dir, prefix string, limit int) ([]ports.RecordFile, error) {
	ls, mine, done, err := r.listed(dir, prefix)
	if err != nil || ls == nil {
		return []ports.RecordFile{}, err
	}
	defer done()
	max, whole := int64(MaxRecordBytes), true
	if limit > 0 && int64(limit) < max {
		max, whole = int64(limit), false
	}
	out := make([]ports.RecordFile, len(mine))
	err = eachFile(ctx, len(mine), func(i int, s *slab) {
		rel := dir + "/" + mine[i].name
		data, fault, err := ls.read(mine[i], max, !whole, s)
		out[i] = ports.RecordFile{Path: rel, Data: data, Err: recordFault(rel, fault, err)}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Names lists the record files of one folder without reading them.
func (r Records) Names(_ context.Context, dir, prefix string) ([]string, error) {
	ls, mine, done, err := r.listed(dir, prefix)
	if err != nil || ls == nil {
		return []string{}, err
	}
	defer done()
	out := make([]string, len(mine))
	for i, e := range mine {
		out[i] = dir + "/" + e.name
	}
	return out, nil
}

// listed lists one record folder: its <prefix>-*.md entries sorted by name, and what closes the
// listing; a nil listing for a folder that does not exist.
func (r Records) listed(dir, prefix string) (*listing, []listed, func(), error) {
	if err := recordPath(dir); err != nil {
		return nil, nil, nil, err
	}
	repo, err := openRepo(r.Dir)
	if err != nil {
		return nil, nil, nil, err
	}
	defer repo.Close()
	f, _, err := repo.walk(dir, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	ls, err := f.list()
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	var mine []listed
	for _, e := range ls.entries {
		if strings.HasPrefix(e.name, prefix+"-") && strings.HasSuffix(e.name, ".md") {
			mine = append(mine, e)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].name < mine[j].name })
	return ls, mine, func() { ls.close(); f.Close() }, nil
}

// Read returns one record whole.
func (r Records) Read(_ context.Context, rel string) ([]byte, error) {
	f, name, err := r.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, recordMissing(rel)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// readRecord refuses a link at name with the record's own code.
	return f.readRecord(name, rel, 0)
}

// readRecord reads a regular file, not through a link, to at most limit bytes (0: the maximum; a
// file over the maximum is refused).
func (f *folder) readRecord(name, rel string, limit int) ([]byte, error) {
	max, prefix := int64(MaxRecordBytes), false
	if limit > 0 && int64(limit) < max {
		max, prefix = int64(limit), true
	}
	data, _, fault, err := f.readRegular(name, max, prefix)
	return data, recordFault(rel, fault, err)
}

// recordFault is a read fault of the record rel in the record's words; nil for none.
func recordFault(rel string, fault readFault, err error) error {
	switch fault {
	case faultNone:
		return nil
	case faultLink:
		return recordSymlink(rel)
	case faultMissing:
		return recordMissing(rel)
	case faultNotRegular:
		return refusal.New(refusal.CodeRecordUnreadable, rel, "is not a regular file", "replace it with a regular file")
	case faultTooLarge:
		return refusal.New(refusal.CodeRecordTooLarge, rel, fmt.Sprintf("is larger than %d bytes", MaxRecordBytes), "split the record")
	case faultChanged:
		return refusal.New(refusal.CodeRecordUnreadable, rel, "changed while it was being read", "run the command again")
	}
	return refusal.New(refusal.CodeRecordUnreadable, rel, "cannot be read: "+errText(err), "check the file's permissions")
}

// Create writes a new record; its folder is made when missing.
func (r Records) Create(ctx context.Context, rel string, data []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err // the caller's end came before the write began: nothing is written
	}
	f, name, err := r.parent(rel, true)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if st, err := f.noLink(name); err != nil || st != nil {
		return false, err
	}
	return stagedWrite(r.Dir, rel, f, name, data, 0o644, false)
}

// Replace atomically replaces an existing record's content.
func (r Records) Replace(ctx context.Context, rel string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err // the caller's end came before the write began: nothing is written
	}
	gone := refusal.New(refusal.CodeRecordMissing, rel, "no longer exists (it was moved or removed meanwhile)", "run the command again")
	f, name, err := r.parent(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return gone
	}
	if err != nil {
		return err
	}
	defer f.Close()
	// Replace never creates: a record moved or removed meanwhile is not brought back.
	if st, err := f.noLink(name); err != nil || st == nil {
		if err == nil {
			err = gone
		}
		return err
	}
	_, err = stagedWrite(r.Dir, rel, f, name, data, 0o644, true)
	return err
}

// Lock takes the record lock, an flock on the .abcd folder itself, waiting at most wait for another
// writer; still held then is contention.
func (r Records) Lock(ctx context.Context, wait time.Duration) (func(), error) {
	repo, err := openRepo(r.Dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	abcd, _, err := repo.walk(".abcd", 0)
	if err != nil {
		return nil, err
	}
	defer abcd.Close()
	unlock, err := abcd.lock(ctx, wait)
	if errors.Is(err, errBusy) {
		return nil, heldOn(refusal.CodeRecordLocked, ".abcd", "the record's", wait)
	}
	return unlock, err
}
