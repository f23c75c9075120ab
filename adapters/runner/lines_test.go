package runner

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzLines: whatever the stream, the reader hands over each line within its bound, in order, and
// ends with exactly one error: EOF, or the bound the stream broke.
func FuzzLines(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"), 8, 64)
	f.Add([]byte("no newline"), 4, 64)
	f.Add([]byte("\r\n\n\n"), 1, 2)
	f.Add(bytes.Repeat([]byte("x"), 100), 10, 1000)
	f.Fuzz(func(t *testing.T, data []byte, maxLine, maxStream int) {
		if maxLine < 1 || maxLine > 1<<16 || maxStream < 1 || maxStream > 1<<20 {
			return
		}
		out := make(chan line)
		done := make(chan struct{})
		defer close(done)
		go readLines(bytes.NewReader(data), out, done, maxLine, maxStream)
		var got []byte
		for {
			l := <-out
			if l.err != nil {
				switch {
				case errors.Is(l.err, io.EOF):
					if len(data) > maxStream {
						t.Fatalf("EOF after %d bytes, over the stream's bound %d", len(data), maxStream)
					}
					if want := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")); !bytes.Equal(got, want) {
						t.Fatalf("the lines %q do not make the stream %q", got, data)
					}
				case errors.Is(l.err, errLineTooLong), errors.Is(l.err, errStreamTooLong):
				default:
					t.Fatalf("an unexpected error: %v", l.err)
				}
				return
			}
			if len(l.data) > maxLine {
				t.Fatalf("a line of %d bytes passed a bound of %d", len(l.data), maxLine)
			}
			got = append(got, l.data...)
			if !l.cut {
				got = append(got, '\n')
			}
		}
	})
}

func TestTheRingKeepsTheLastBytes(t *testing.T) {
	r := &ring{max: 4}
	write := func(s string) {
		t.Helper()
		if _, err := r.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write("ab")
	write("cdef")
	if r.String() != "cdef" {
		t.Fatalf("ring holds %q", r.String())
	}
	write("0123456789")
	if r.String() != "6789" {
		t.Fatalf("ring holds %q", r.String())
	}
}
