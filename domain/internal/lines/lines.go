// Package lines reads text line by line, keeping each line's offsets and its own line ending (\n,
// \r\n or none), for the readers of markdown files (front matter and record bodies) that must
// edit a line in place and leave every other byte as it was.
package lines

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Line is one line of a text, as Reader reads it.
type Line struct {
	N    int    // 1-based line number
	Off  int    // offset of its first byte
	Text string // without its line ending
	End  int    // offset just past its line ending
	EOL  string // "", "\n" or "\r\n"
}

// Reader reads a text line by line, each line with where it starts and ends and its own line
// ending, so a writer can change one line and keep every other byte. N is the number of the line
// last read; start at Pos with N set to read from the middle of a text.
type Reader struct {
	Data []byte
	Pos  int
	N    int
}

// Next is the next line, or false at the end of the text.
func (it *Reader) Next() (Line, bool) {
	if it.Pos >= len(it.Data) {
		return Line{}, false
	}
	rest := it.Data[it.Pos:]
	l := Line{N: it.N + 1, Off: it.Pos}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		body := rest[:i]
		l.EOL = "\n"
		if len(body) > 0 && body[len(body)-1] == '\r' {
			body = body[:len(body)-1]
			l.EOL = "\r\n"
		}
		l.Text = string(body)
		l.End = it.Pos + i + 1
	} else {
		l.Text = string(rest)
		l.End = len(it.Data)
	}
	it.Pos = l.End
	it.N = l.N
	return l, true
}

// Unreadable reports the first thing in s a line of a markdown file abcd reads may not hold: invalid UTF-8, or a control character
// other than tab (C0, DEL, C1; a carriage return is allowed only before a line feed, which the line
// reader has already removed).
func Unreadable(s string) (problem, remedy string, bad bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				return fmt.Sprintf("control character U+%04X", c), "remove it (a carriage return may only end a line, before its line feed)", true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return "invalid UTF-8", "save the file as UTF-8", true
		}
		if r >= 0x80 && r < 0xa0 {
			return fmt.Sprintf("control character U+%04X", r), "remove it", true
		}
		i += size
	}
	return "", "", false
}
