package runner

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// Faults of the line reader, told apart from a read's own error.
var (
	errLineTooLong   = errors.New("a line is longer than its bound")
	errStreamTooLong = errors.New("the stream is longer than its bound")
)

// line is one line of the stream (without its newline), or the error that ended it (io.EOF at a
// clean end). cut is true for a last line with no newline: the stream ended inside it, or on it.
type line struct {
	data []byte
	cut  bool
	err  error
}

// readLines reads r a line at a time, within maxLine bytes a line and maxStream bytes in all, and
// sends each line on out. It ends with one line carrying an error, and returns early when done
// closes, so it never blocks a step that stopped reading.
func readLines(r io.Reader, out chan<- line, done <-chan struct{}, maxLine, maxStream int) {
	send := func(l line) bool {
		select {
		case out <- l:
			return true
		case <-done:
			return false
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	total := 0
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		total += len(chunk)
		if total > maxStream {
			send(line{err: errStreamTooLong})
			return
		}
		buf = append(buf, chunk...)
		n := len(buf)
		if err == nil {
			n-- // the newline is not the line's
		}
		if n > maxLine {
			send(line{err: errLineTooLong})
			return
		}
		switch {
		case err == nil:
			data := buf[:len(buf)-1]
			if n := len(data); n > 0 && data[n-1] == '\r' {
				data = data[:n-1]
			}
			if !send(line{data: append([]byte(nil), data...)}) {
				return
			}
			buf = buf[:0]
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if len(buf) > 0 && !send(line{data: append([]byte(nil), buf...), cut: true}) {
				return
			}
			send(line{err: err})
			return
		}
	}
}

// ring keeps the last max bytes written to it (a CLI's stderr, for a failure's detail). It is written
// by the goroutine reading stderr and read by the step.
type ring struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// String is what the ring holds.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if len(p) >= r.max {
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		return n, nil
	}
	if over := len(r.buf) + len(p) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
	return n, nil
}
