package files

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"syscall"
)

// listed is one entry of a folder listing: its name, its type bits as the listing saw them (^0
// when the listing could not tell) and, where the listing looked at it, its own (never followed)
// description.
type listed struct {
	name string
	typ  fs.FileMode
	info fs.FileInfo
}

// listing is one folder's entries, with a way to read them. On Linux the folder is listed and its
// files opened by the kernel relative to the held folder (listing_linux.go); elsewhere, and where
// tests ask for it, through the root (portableListing).
type listing struct {
	entries []listed
	read    func(e listed, max int64, prefix bool, s *slab) ([]byte, readFault, error)
	close   func()
}

// portableListing makes Linux list through the root as other systems do, so tests cover both.
var portableListing = false

// list lists the folder f for reading its files.
func (f *folder) list() (*listing, error) {
	if !portableListing {
		if l, ok, err := f.listNative(); ok || err != nil {
			return l, err
		}
	}
	des, err := f.readDir()
	if err != nil {
		return nil, err
	}
	l := &listing{entries: make([]listed, 0, len(des)), read: f.readListed, close: func() {}}
	for _, d := range des {
		e := listed{name: d.Name(), typ: d.Type()}
		// A folder held as a root is listed with each entry looked at (lstat), so this costs
		// nothing more; elsewhere Info looks now.
		if info, err := d.Info(); err == nil {
			e.info = info
		}
		l.entries = append(l.entries, e)
	}
	return l, nil
}

// maxReaders bounds the goroutines one listing reads files with: enough to keep every processor
// busy while others wait on the kernel, few enough that a listing never floods the machine.
const maxReaders = 4

// readers is how many goroutines read the n files of a listing.
func readers(n int) int {
	return max(1, min(n/64, runtime.GOMAXPROCS(0), maxReaders))
}

// eachFile runs read over the n indices on a small bounded pool; each goroutine has its own slab,
// so the files' bytes come from a few large allocations instead of one per file. It stops early when
// ctx ends and returns ctx's error.
func eachFile(ctx context.Context, n int, read func(i int, s *slab)) error {
	workers := readers(n)
	if workers == 1 {
		s := &slab{}
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			read(i, s)
		}
		return nil
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	// Work is handed out in runs of indices, so neighbours in the folder (read in name order) are
	// read by one goroutine and the hand-out costs little.
	const run = 32
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &slab{}
			for ctx.Err() == nil {
				mu.Lock()
				from := next
				next += run
				mu.Unlock()
				if from >= n {
					return
				}
				for i := from; i < min(from+run, n); i++ {
					read(i, s)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// slab hands out byte slices carved from large blocks. Each slice is capped at its own length, so
// appending to one never writes into its neighbour.
type slab struct{ free []byte }

const slabBlock = 64 << 10

func (s *slab) take(n int) []byte {
	if n > slabBlock/4 {
		return make([]byte, n)
	}
	if len(s.free) < n {
		s.free = make([]byte, slabBlock)
	}
	b := s.free[:n:n]
	s.free = s.free[n:]
	return b
}

// readListed reads the entry e of f, seen by a listing, to at most max bytes (with prefix, a longer
// file gives its first max bytes; without, it is faultTooLarge). It reads the file as it was when
// opened: a file growing meanwhile gives the bytes it held then. What is opened must be what the
// listing saw: a link is never opened, and a link swapped in meanwhile (which the root follows
// while it stays inside, and refuses when it leads out) is caught by comparing the opened file with
// what stands at the name.
func (f *folder) readListed(e listed, max int64, prefix bool, s *slab) ([]byte, readFault, error) {
	switch {
	case e.typ&fs.ModeSymlink != 0:
		return nil, faultLink, nil
	case e.typ&fs.ModeType != 0 && e.typ != ^fs.FileMode(0):
		return nil, faultNotRegular, nil
	}
	if swapHook != nil {
		swapHook(f.join(e.name))
	}
	file, err := f.root.OpenFile(e.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, faultMissing, err
	case err != nil:
		return nil, faultOther, err
	}
	defer file.Close()
	got, err := file.Stat()
	if err != nil {
		return nil, faultOther, err
	}
	if fault := f.sameAsListed(e, got); fault != faultNone {
		return nil, fault, nil
	}
	return readSized(file, got.Size(), max, prefix, s)
}

// readSized reads an open regular file that said it holds size bytes, to at most max bytes (with
// prefix, a longer file gives its first max bytes; without, it is faultTooLarge).
func readSized(r io.Reader, size, max int64, prefix bool, s *slab) ([]byte, readFault, error) {
	if !prefix && size > max {
		return nil, faultTooLarge, nil
	}
	if size == 0 {
		// A file that says it is empty is read to its end all the same (bounded), so a file system
		// that reports no size (a pseudo file) is not taken for an empty record.
		data, err := readAtMost(r, nil, max+1)
		switch {
		case err != nil:
			return nil, faultOther, err
		case int64(len(data)) <= max:
			return data, faultNone, nil
		case prefix:
			return data[:max], faultNone, nil
		}
		return nil, faultTooLarge, nil
	}
	buf := s.take(int(min(size, max)))
	n, err := io.ReadFull(r, buf)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, faultOther, err
	}
	return buf[:n], faultNone, nil
}

// sameAsListed checks that the file opened for e is a regular file and the one the listing saw.
func (f *folder) sameAsListed(e listed, got fs.FileInfo) readFault {
	if !got.Mode().IsRegular() {
		return faultChanged
	}
	if e.info != nil {
		if os.SameFile(e.info, got) {
			return faultNone
		}
		return faultChanged
	}
	// The listing did not look at it: look at the name now, without following it.
	st, err := f.root.Lstat(e.name)
	if err != nil || st.Mode()&fs.ModeSymlink != 0 || !os.SameFile(st, got) {
		return faultChanged
	}
	return faultNone
}
