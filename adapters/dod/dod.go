// Package dod runs a repository's definition of done (build.dod) in a lane's checkout, through the
// system's shell, as the person would: bounded in time, its whole process tree ended with it, and
// only the output's last lines kept.
package dod

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports"
)

// grace is how long the command has to exit after it is asked to, before it is killed.
const grace = 5 * time.Second

// Runner is the DoD port over the system's shell.
type Runner struct{}

var _ ports.DoD = Runner{}

// Run runs command in dir. The output (stdout and stderr, as they came) is read to its end and only
// its last lines are kept.
func (Runner) Run(ctx context.Context, dir, command string, timeout time.Duration) (ports.DoDResult, error) {
	if err := ctx.Err(); err != nil {
		return ports.DoDResult{}, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ports.DoDResult{ExitCode: -1, Problem: fmt.Sprintf("the checkout %s is not a folder abcd can run it in", dir)}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return ports.DoDResult{}, err
	}
	began := time.Now()
	p, err := start(dir, command, w)
	// Closing a pipe's end loses nothing: its error would name a descriptor already gone.
	_ = w.Close() // the child holds its own copy; the read below ends when every writer is gone
	if err != nil {
		_ = r.Close()
		return ports.DoDResult{ExitCode: -1, Problem: "the shell could not start it: " + err.Error()}, nil
	}
	tail := newTail(loop.CheckTailLines, loop.CheckTailBytes)
	read := make(chan error, 1)
	go func() { _, err := io.Copy(tail, r); read <- err }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	problem := ""
	select {
	case <-p.exited:
	case <-timer.C:
		problem = fmt.Sprintf("it did not exit within %s, so abcd ended it", timeout)
		p.end(grace)
	case <-ctx.Done():
		p.end(grace)
	}
	// A grandchild may keep the pipe open after the shell exited; the group is ended, and the read
	// is given a grace to drain before the pipe is closed under it.
	p.endGroup()
	var readErr error
	select {
	case readErr = <-read:
	case <-time.After(grace):
	}
	_ = r.Close()
	if err := ctx.Err(); err != nil {
		return ports.DoDResult{}, err
	}
	if readErr != nil { // its tail would be a part read as the whole: the adapter's fault
		return ports.DoDResult{}, fmt.Errorf("reading the output of build.dod: %w", readErr)
	}
	res := ports.DoDResult{Tail: tail.String(), Lines: tail.lines, Duration: time.Since(began), Problem: problem}
	code, signal := p.exit()
	res.ExitCode = code
	if problem == "" && signal != "" {
		res.Problem = "it was ended by " + signal
	}
	if problem != "" {
		res.ExitCode = -1
	}
	return res, nil
}

// tail keeps the last lines of what is written to it: at most maxLines lines and maxBytes bytes
// (a line longer than that keeps its end), with control characters and terminal escapes dropped and
// a carriage return read as the end of a line. lines counts every line written.
type tail struct {
	maxLines, maxBytes int
	kept               []string
	size               int
	cur                []byte
	lines              int
	esc, cr            bool
}

func newTail(lines, bytes int) *tail { return &tail{maxLines: lines, maxBytes: bytes} }

func (t *tail) Write(p []byte) (int, error) {
	for _, c := range p {
		afterCR := t.cr
		t.cr = c == '\r'
		switch {
		case t.esc:
			// An escape sequence (colours, cursor moves) ends at its first letter.
			if c >= 0x40 && c <= 0x7e && c != '[' {
				t.esc = false
			}
		case c == 0x1b:
			t.esc = true
		case c == '\n' && afterCR:
			// \r\n ended the line at its \r
		case c == '\n' || c == '\r':
			t.endLine()
		case c == '\t' || c >= 0x20 && c != 0x7f:
			t.cur = append(t.cur, c)
			if len(t.cur) > 2*t.maxBytes {
				t.cur = append(t.cur[:0], t.cur[len(t.cur)-t.maxBytes:]...)
			}
		}
	}
	return len(p), nil
}

func (t *tail) endLine() {
	// One long line keeps its end, a quarter of the bound, so the lines before it still show.
	line := t.cur
	if limit := t.maxBytes / 4; len(line) > limit {
		line = append([]byte("[...]"), line[len(line)-limit:]...)
	}
	t.kept = append(t.kept, strings.ToValidUTF8(string(line), string(utf8.RuneError)))
	t.size += len(t.kept[len(t.kept)-1]) + 1
	t.cur = t.cur[:0]
	t.lines++
	for len(t.kept) > t.maxLines || t.size > t.maxBytes && len(t.kept) > 1 {
		t.size -= len(t.kept[0]) + 1
		t.kept = t.kept[1:]
	}
}

// String is the lines kept, each ending in a newline; a last line without one counts too.
func (t *tail) String() string {
	if len(t.cur) > 0 {
		t.endLine()
	}
	if len(t.kept) == 0 {
		return ""
	}
	s := strings.Join(t.kept, "\n") + "\n"
	if len(s) > t.maxBytes {
		s = s[len(s)-t.maxBytes:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
	}
	return s
}
