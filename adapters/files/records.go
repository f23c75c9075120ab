package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
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

func (r Records) root() string { root, _ := RepoRoot(r.Dir); return root }

// Initialized reports whether .abcd/ exists as a real folder.
func (r Records) Initialized() bool {
	st, err := os.Lstat(filepath.Join(r.root(), ".abcd"))
	return err == nil && st.IsDir()
}

// abs resolves a record path, which must stay under .abcd/ and pass through no symbolic link.
func (r Records) abs(rel string) (string, error) {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if clean != rel || !strings.HasPrefix(clean, ".abcd/") || strings.Contains(clean, "/../") {
		return "", fmt.Errorf("record path %q is not under .abcd/", rel)
	}
	return Setup{Dir: r.Dir}.resolve(clean)
}

// List reads the record files of one folder; a file that may not be read carries its own error.
func (r Records) List(ctx context.Context, dir, prefix string, limit int) ([]ports.RecordFile, error) {
	full, err := r.abs(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(full)
	if errors.Is(err, fs.ErrNotExist) {
		return []ports.RecordFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix+"-") && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	out := make([]ports.RecordFile, 0, len(names))
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rel := dir + "/" + n
		data, err := readRecord(filepath.Join(full, n), rel, limit)
		out = append(out, ports.RecordFile{Path: rel, Data: data, Err: err})
	}
	return out, nil
}

// Read returns one record whole.
func (r Records) Read(_ context.Context, rel string) ([]byte, error) {
	full, err := r.abs(rel)
	if err != nil {
		return nil, err
	}
	return readRecord(full, rel, 0)
}

// readRecord reads a regular file, not through a link, to at most limit bytes (0: the maximum; a
// file over the maximum is refused).
func readRecord(full, rel string, limit int) ([]byte, error) {
	max, prefix := int64(MaxRecordBytes), false
	if limit > 0 && int64(limit) < max {
		max, prefix = int64(limit), true
	}
	data, fault, err := readRegular(full, max, prefix)
	switch fault {
	case faultNone:
		return data, nil
	case faultLink:
		return nil, refusal.New("record_unreadable", rel, "is a symbolic link, which abcd does not follow", "replace the link with the file itself")
	case faultMissing:
		return nil, refusal.New("record_missing", rel, "does not exist", "run the list command to see the records there are")
	case faultNotRegular:
		return nil, refusal.New("record_unreadable", rel, "is not a regular file", "replace it with a regular file")
	case faultTooLarge:
		return nil, refusal.New("record_too_large", rel, fmt.Sprintf("is larger than %d bytes", MaxRecordBytes), "split the record")
	}
	return nil, refusal.New("record_unreadable", rel, "cannot be read: "+errText(err), "check the file's permissions")
}

// Create writes a new record; its folder is made when missing.
func (r Records) Create(_ context.Context, rel string, data []byte) (bool, error) {
	full, err := r.abs(rel)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return false, err
	}
	return createOnly(full, data, 0o644)
}

// Replace writes data to a temporary file beside rel and renames it over rel.
func (r Records) Replace(_ context.Context, rel string, data []byte) error {
	full, err := r.abs(rel)
	if err != nil {
		return err
	}
	// Replace never creates: a record moved or removed meanwhile is not brought back.
	if ok, err := lexists(full); err != nil || !ok {
		if err == nil {
			err = refusal.New("record_missing", rel, "no longer exists (it was moved or removed meanwhile)", "run the command again")
		}
		return err
	}
	return replaceAtomic(full, data, 0o644)
}

// Move renames from to to in one step (refusing to replace anything at to), then replaces the
// content. Between the two, the record stands in its new folder with its old front matter; lint
// names that, and running the transition again completes it.
func (r Records) Move(ctx context.Context, from, to string, data []byte) error {
	src, err := r.abs(from)
	if err != nil {
		return err
	}
	dst, err := r.abs(to)
	if err != nil {
		return err
	}
	if ok, err := lexists(dst); err != nil || ok {
		if err == nil {
			err = refusal.New("record_exists", to, "already exists", "lint the record: two files carry the same name")
		}
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	syncDir(filepath.Dir(src))
	return replaceAtomic(dst, data, 0o644)
}

// Lock takes an exclusive flock on the .abcd folder itself: nothing is created to lock, so a refused
// command writes nothing, and the kernel releases it when the process ends, so a crash never leaves
// a stale lock.
func (r Records) Lock(ctx context.Context) (func(), error) {
	unlock, err := flockDir(filepath.Join(r.root(), ".abcd"), 0)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, refusal.Busy("record_locked", ".abcd", "another abcd is changing the record right now", "run the command again in a moment")
	}
	return unlock, err
}

// flockDir locks a folder exclusively, retrying for at most wait.
func flockDir(dir string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || !time.Now().Before(deadline) {
			_ = f.Close()
			return nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func replaceAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".abcd-tmp-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
