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
	faultOther
)

// readRegular reads a regular file without following a link at its name and without blocking on a
// FIFO. With prefix, it returns at most max bytes of a file of any size; otherwise a file over max
// bytes is faultTooLarge. The stores map each fault to their own refusal.
func readRegular(full string, max int64, prefix bool) ([]byte, readFault, error) {
	f, err := os.OpenFile(full, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, faultLink, err
	case errors.Is(err, fs.ErrNotExist):
		return nil, faultMissing, err
	case err != nil:
		return nil, faultOther, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, faultNotRegular, err
	}
	if !prefix && st.Size() > max {
		return nil, faultTooLarge, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, faultOther, err
	}
	if int64(len(data)) > max {
		if prefix {
			return data[:max], faultNone, nil
		}
		return nil, faultTooLarge, nil
	}
	return data, faultNone, nil
}
