package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// folder is a directory held open as an os.Root. Every name handed to it is resolved by the kernel
// from the held directory, and the root refuses a name that climbs out of it ("..", an absolute
// name, a link leading outside) at the moment of use, so confinement never rests on an earlier check.
// os.Root follows a link that stays inside; abcd refuses links altogether, so each step below also
// compares what it opened with what stands at the name (os.SameFile), which leaves no window between
// the check and the use.
type folder struct {
	root *os.Root
	path string // where the folder is on the machine, for refusals
}

// swapHook, when set by a test, runs between looking at a name and opening it: the window a
// check-then-use design would leave open.
var swapHook func(path string)

// Sentinels enter returns; the callers say them in their own words.
var (
	errLink      = errors.New("is a symbolic link")
	errNotFolder = errors.New("is not a folder")
	errChanged   = errors.New("changed while it was being opened")
)

// openFolder holds path open as the top of a confinement. Links in path itself are followed: the
// repository may live under a linked folder (/tmp on macOS), which is the person's business.
func openFolder(path string) (*folder, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &folder{root: r, path: path}, nil
}

// openRepo holds the repository containing dir open.
func openRepo(dir string) (*folder, error) {
	root, _ := RepoRoot(dir)
	return openFolder(root)
}

func (f *folder) Close() { _ = f.root.Close() }

// join is the machine path of name inside f, as given (a name the root refused is shown unresolved).
func (f *folder) join(name string) string {
	if strings.HasPrefix(name, "/") {
		return name
	}
	return f.path + string(filepath.Separator) + filepath.FromSlash(name)
}

// elements splits a slash-separated path. A leading slash stays on the first element, so that the
// root, not a check here, refuses an absolute name.
func elements(rel string) []string {
	parts := strings.Split(rel, "/")
	if len(parts) > 1 && parts[0] == "" {
		parts = append([]string{"/" + parts[1]}, parts[2:]...)
	}
	return parts
}

// enter opens the folder name (one element) inside f, refusing a link or anything but a folder. With
// perm, a missing folder is made with it and created says so. The result is verified to be the
// folder that stands at name, not whatever a link swapped in meanwhile points at.
func (f *folder) enter(name string, perm os.FileMode) (sub *folder, created bool, st fs.FileInfo, err error) {
	st, err = f.root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && perm != 0 {
		if err = f.root.Mkdir(name, perm); err == nil {
			created = true
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, false, nil, f.fault(name, err)
		}
		st, err = f.root.Lstat(name)
	}
	switch {
	case err != nil:
		return nil, false, nil, f.fault(name, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, false, st, errLink
	case !st.IsDir():
		return nil, false, st, errNotFolder
	}
	if swapHook != nil {
		swapHook(f.join(name))
	}
	r, err := f.root.OpenRoot(name)
	if err != nil {
		return nil, false, st, f.fault(name, err)
	}
	got, err := r.Stat(".")
	if err != nil || !os.SameFile(st, got) {
		_ = r.Close()
		return nil, false, st, errChanged
	}
	return &folder{root: r, path: f.join(name)}, created, st, nil
}

// walk opens the folder rel names (slash-separated, relative to f) one element at a time; with
// perm, missing folders are made. An element that is a link or not a folder is refused. The result
// is a new folder the caller closes; created is true when walk made its last element.
func (f *folder) walk(rel string, perm os.FileMode) (*folder, bool, error) {
	if rel == "" || rel == "." {
		r, err := f.root.OpenRoot(".")
		if err != nil {
			return nil, false, err
		}
		return &folder{root: r, path: f.path}, false, nil
	}
	at, created := f, false
	for _, name := range elements(rel) {
		sub, made, _, err := at.enter(name, perm)
		if err != nil {
			err = at.refuse(name, err)
		}
		if at != f {
			at.Close()
		}
		if err != nil {
			return nil, false, err
		}
		at, created = sub, made
	}
	return at, created, nil
}

// parent opens the folder holding rel's last element and returns that element.
func (f *folder) parent(rel string, perm os.FileMode) (*folder, string, error) {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i > 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	at, _, err := f.walk(dir, perm)
	return at, name, err
}

// lstat looks at the element name without following it; absent is (nil, nil).
func (f *folder) lstat(name string) (fs.FileInfo, error) {
	st, err := f.root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, f.fault(name, err)
	}
	return st, nil
}

// noLink looks at name and refuses a link there: abcd never reads or writes through one.
func (f *folder) noLink(name string) (fs.FileInfo, error) {
	st, err := f.lstat(name)
	if err == nil && st != nil && st.Mode()&fs.ModeSymlink != 0 {
		err = f.refuse(name, errLink)
	}
	return st, err
}

// refuse turns enter's sentinels into the refusals every store shares.
func (f *folder) refuse(name string, err error) error {
	p := f.join(name)
	switch {
	case errors.Is(err, errLink):
		return refusal.New(refusal.CodeSymlinkRefused, p, "is a symbolic link, and abcd does not read or write through links",
			"replace the link with a real folder or file")
	case errors.Is(err, errNotFolder):
		return refusal.New(refusal.CodeNotAFolder, p, "exists and is not a folder", "move it aside")
	case errors.Is(err, errChanged):
		return refusal.New(refusal.CodePathChanged, p, "changed while abcd was opening it", "run the command again")
	}
	return err
}

// fault is an error the root returned for name: a name that climbs out is refused, naming the root's
// own reason; anything else keeps its cause (fs.ErrNotExist stays detectable).
func (f *folder) fault(name string, err error) error {
	if escapes(err) {
		return refusal.New(refusal.CodePathOutside, f.join(name),
			fmt.Sprintf("leaves %s (%s)", f.path, errText(err)), "give a path inside "+f.path)
	}
	return fmt.Errorf("%s: %w", f.join(name), err)
}

// escapes reports whether os.Root refused a name for leaving the root. The os package does not export
// its error, so its text is matched; TestTheRootRefusesAClimb pins it.
func escapes(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err != nil && err.Error() == "path escapes from parent"
}

// readDir lists the folder's entries, in the folder's order. Where the system tells each entry's
// type with the listing (readDirNative), no entry is looked at until its Info is asked for; a
// folder's listing through its root looks at every entry.
func (f *folder) readDir() ([]os.DirEntry, error) {
	if !portableListing {
		if des, ok, err := f.readDirNative(); ok || err != nil {
			return des, err
		}
	}
	d, err := f.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// sync flushes the folder's entries, so a rename or link in it survives a crash. A file system that
// cannot sync a folder does not undo the name already in place, so its error is not the writer's.
func (f *folder) sync() {
	if d, err := f.root.Open("."); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
