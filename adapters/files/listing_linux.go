//go:build linux

package files

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// listNative lists f with getdents and reads its files with openat relative to the held folder,
// with O_NOFOLLOW: a name from the listing is one element, never "." or "..", and the kernel
// refuses to open it when it is a link, so no file is reached through a link or outside the folder,
// and nothing is looked at twice. Each file costs openat, fstat, read and close, and the listing
// looks at no file (a root's listing looks at every entry).
func (f *folder) listNative() (*listing, bool, error) {
	dir, err := f.root.Open(".")
	if err != nil {
		return nil, false, err
	}
	fd := int(dir.Fd())
	entries, err := direntsOf(fd)
	if err != nil {
		_ = dir.Close()
		return nil, false, err
	}
	nr := nativeReader{fd: fd, f: f}
	return &listing{
		entries: entries,
		read:    nr.read,
		close: func() {
			runtime.KeepAlive(dir)
			_ = dir.Close()
		},
	}, true, nil
}

// readDirNative lists f with getdents: names and types as the folder records them, each entry's
// Info looked up (never followed) only when asked for.
func (f *folder) readDirNative() ([]os.DirEntry, bool, error) {
	dir, err := f.root.Open(".")
	if err != nil {
		return nil, false, err
	}
	defer dir.Close()
	entries, err := direntsOf(int(dir.Fd()))
	if err != nil {
		return nil, false, err
	}
	out := make([]os.DirEntry, 0, len(entries))
	for _, e := range entries {
		d := &dirEntry{f: f, name: e.name, typ: e.typ}
		if e.typ == ^fs.FileMode(0) { // the file system did not say: look now
			info, err := f.root.Lstat(e.name)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, false, err
			}
			d.typ, d.info = info.Mode().Type(), info
		}
		out = append(out, d)
	}
	return out, true, nil
}

// dirEntry is one entry of readDirNative.
type dirEntry struct {
	f    *folder
	name string
	typ  fs.FileMode
	info fs.FileInfo
}

func (d *dirEntry) Name() string      { return d.name }
func (d *dirEntry) IsDir() bool       { return d.typ.IsDir() }
func (d *dirEntry) Type() fs.FileMode { return d.typ }
func (d *dirEntry) Info() (fs.FileInfo, error) {
	if d.info != nil {
		return d.info, nil
	}
	return d.f.root.Lstat(d.name)
}

// direntsOf reads every entry of the open folder fd.
func direntsOf(fd int) ([]listed, error) {
	buf := make([]byte, 64<<10)
	var out []listed
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		if out, err = parseDirents(buf[:n], out); err != nil {
			return nil, err
		}
	}
}

// The fields of a linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), d_name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

var errDirent = errors.New("the folder listing is malformed")

// parseDirents appends the entries of a getdents64 buffer to out, leaving out "." and "..".
func parseDirents(buf []byte, out []listed) ([]listed, error) {
	for len(buf) > 0 {
		if len(buf) < direntName {
			return nil, errDirent
		}
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		if reclen <= direntName || reclen > len(buf) {
			return nil, errDirent
		}
		name := buf[direntName:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) > 0 && string(name) != "." && string(name) != ".." {
			out = append(out, listed{name: string(name), typ: direntMode(buf[direntType])})
		}
		buf = buf[reclen:]
	}
	return out, nil
}

// direntMode is a d_type as type bits; ^0 where the file system did not say (DT_UNKNOWN).
func direntMode(t byte) fs.FileMode {
	switch t {
	case syscall.DT_REG:
		return 0
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe
	case syscall.DT_SOCK:
		return fs.ModeSocket
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.DT_BLK:
		return fs.ModeDevice
	}
	return ^fs.FileMode(0)
}

// nativeReader reads the files of one listed folder by name relative to its descriptor.
type nativeReader struct {
	fd int
	f  *folder
}

func (r nativeReader) read(e listed, max int64, prefix bool, s *slab) ([]byte, readFault, error) {
	switch {
	case e.typ&fs.ModeSymlink != 0:
		return nil, faultLink, nil
	case e.typ&fs.ModeType != 0 && e.typ != ^fs.FileMode(0):
		return nil, faultNotRegular, nil
	}
	if swapHook != nil {
		swapHook(r.f.join(e.name))
	}
	fd, err := openNoFollow(r.fd, e.name)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, faultLink, nil
	case errors.Is(err, syscall.ENOENT):
		return nil, faultMissing, &fs.PathError{Op: "open", Path: e.name, Err: err}
	case errors.Is(err, syscall.ENXIO):
		return nil, faultNotRegular, nil
	case err != nil:
		return nil, faultOther, &fs.PathError{Op: "open", Path: e.name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		return nil, faultOther, &fs.PathError{Op: "stat", Path: e.name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, faultNotRegular, nil
	}
	return readSized(fdReader(fd), st.Size, max, prefix, s)
}

// openNoFollow opens the element name of the folder dirfd for reading: never a link, never
// blocking on a FIFO.
func openNoFollow(dirfd int, name string) (int, error) {
	for {
		fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func fstat(fd int, st *syscall.Stat_t) error {
	for {
		if err := syscall.Fstat(fd, st); err != syscall.EINTR {
			return err
		}
	}
}

// fdReader reads a descriptor directly: a file read once and closed needs none of os.File's
// machinery (a poller registration the kernel refuses for a regular file, a finalizer).
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(r), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
