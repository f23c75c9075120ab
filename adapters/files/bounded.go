package files

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// readFault is why readRegular could not read a file.
type readFault int

const (
	faultNone readFault = iota
	faultMissing
	faultLink
	faultNotRegular
	faultTooLarge
	faultChanged
	faultOther
)

// readRegular reads the regular file name in f: never through a link, never blocking on a FIFO, and
// only the file it looked at (a file swapped in meanwhile is faultChanged). With prefix, it returns
// at most max bytes of a file of any size; otherwise a file over max bytes is faultTooLarge. It
// returns what it read the file as, for checks on its owner and mode; the stores map each fault to
// their own refusal.
func (f *folder) readRegular(name string, max int64, prefix bool) ([]byte, fs.FileInfo, readFault, error) {
	st, err := f.root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, faultMissing, err
	case err != nil:
		return nil, nil, faultOther, err
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, st, faultLink, nil
	case !st.Mode().IsRegular():
		return nil, st, faultNotRegular, nil
	case !prefix && st.Size() > max:
		return nil, st, faultTooLarge, nil
	}
	if swapHook != nil {
		swapHook(f.join(name))
	}
	// The root refuses a link swapped in that leads outside; one that stays inside is followed, and
	// the comparison below refuses it.
	file, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, st, faultMissing, err
	case err != nil:
		return nil, st, faultOther, err
	}
	defer file.Close()
	got, err := file.Stat()
	if err != nil || !os.SameFile(st, got) {
		return nil, st, faultChanged, err
	}
	// Sized from the open file, so a small file costs one read and one to see its end.
	data, err := readAtMost(file, make([]byte, 0, min(got.Size(), max)+1), max+1)
	if err != nil {
		return nil, got, faultOther, err
	}
	if int64(len(data)) > max {
		if prefix {
			return data[:max], got, faultNone, nil
		}
		return nil, got, faultTooLarge, nil
	}
	return data, got, faultNone, nil
}

// readAtMost appends to buf what r holds, up to limit bytes in all, growing buf only when r holds
// more than its capacity.
func readAtMost(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):int(min(int64(cap(buf)), limit))])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}
