// Package dod runs a repository's definition of done (build.dod) in a lane's checkout, through the
// system's shell, as the person would: bounded in time, its whole process tree ended with it, and
// only the output's last lines kept.
package dod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// grace is how long the command has to exit after it is asked to, before it is killed.
const grace = 5 * time.Second

// Runner is the DoD port over the system's shell.
type Runner struct {
	// Fence builds the fence RunFenced runs the command in (nil: abcd's own, its helper the running
	// executable).
	Fence *sandbox.Fence
	// Environ is abcd's environment (os.Environ when nil): RunFenced passes only the allowlist from it.
	Environ func() []string
}

var _ ports.DoD = Runner{}

// Run runs command in dir, with abcd's environment and unconfined. The output (stdout and stderr, as
// they came) is read to its end and only its last lines are kept.
func (r Runner) Run(ctx context.Context, dir, command string, timeout time.Duration) (ports.DoDResult, error) {
	return r.run(ctx, job{dir: dir, command: command, timeout: timeout, grace: grace, env: r.environ(), what: "build.dod"})
}

var _ ports.Notifier = Runner{}

// notifyGrace is how long build.notify has to exit after it is asked to, and its output to drain
// after: a notifier is never worth holding a run's end for long.
const notifyGrace = time.Second

// Notify runs build.notify (ports.Notifier) as Run runs build.dod, with the event on its stdin and a
// grace of a second: at most timeout and two seconds in all.
func (r Runner) Notify(ctx context.Context, dir, command string, event []byte, timeout time.Duration) (ports.DoDResult, error) {
	return r.run(ctx, job{dir: dir, command: command, timeout: timeout, grace: notifyGrace, env: r.environ(), stdin: event, what: "build.notify"})
}

// RunFenced runs it inside the fence the run asks for, with a runner's allowlisted environment
// (runner.Environment: PATH, HOME, the locale, the git identity, abcd's fixed variables) and the
// names run.Env lists; a fence that cannot be built is a result saying what is missing, and nothing
// ran. A policy without a temporary folder is given one of its own, removed after.
func (r Runner) RunFenced(ctx context.Context, run ports.DoDRun) (ports.DoDResult, error) {
	env, _, _ := runner.Environment(r.environ(), runner.Runner{PassEnv: run.Env}, nil)
	j := job{dir: run.Dir, command: run.Command, timeout: run.Timeout, grace: grace, env: env, what: "build.dod"}
	if run.Sandbox == nil {
		return r.run(ctx, j)
	}
	if run.Sandbox.Off {
		res, err := r.run(ctx, j)
		off := sandbox.Off()
		res.Sandbox = &off
		return res, err
	}
	p := *run.Sandbox
	if p.Temp == "" {
		tmp, err := os.MkdirTemp("", "abcd-dod-")
		if err != nil {
			return ports.DoDResult{}, fmt.Errorf("making the definition of done's temporary folder: %w", err)
		}
		// Best effort: the command may leave its temporary folder unremovable (a subfolder it made
		// unreadable), and that must not turn its result into abcd's error; what stays is under the
		// system's temporary folder.
		defer func() { _ = os.RemoveAll(tmp) }()
		p.Temp = tmp
	}
	j.policy = &p
	return r.run(ctx, j)
}

func (r Runner) environ() []string {
	if r.Environ != nil {
		return r.Environ()
	}
	return os.Environ()
}

func (r Runner) fence() *sandbox.Fence {
	if r.Fence != nil {
		return r.Fence
	}
	return sandbox.New(sandbox.Options{})
}

// job is one command to run: in dir with env, for at most timeout and then grace to exit, inside the
// fence policy describes when it is not nil, with stdin its input (none when nil); what names it.
type job struct {
	dir, command   string
	timeout, grace time.Duration
	env            []string
	policy         *ports.SandboxPolicy
	stdin          []byte
	what           string
}

// run runs the job's command.
func (r Runner) run(ctx context.Context, j job) (ports.DoDResult, error) {
	dir, command, timeout, grace := j.dir, j.command, j.timeout, j.grace
	if err := ctx.Err(); err != nil {
		return ports.DoDResult{}, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ports.DoDResult{ExitCode: -1, Problem: fmt.Sprintf("the checkout %s is not a folder abcd can run it in", dir)}, nil
	}
	pr, w, err := os.Pipe()
	if err != nil {
		return ports.DoDResult{}, err
	}
	began := time.Now()
	var fence *sandbox.Fence
	if j.policy != nil {
		fence = r.fence()
	}
	p, fenced, err := start(dir, command, w, j.stdin, j.env, fence, j.policy)
	// Closing a pipe's end loses nothing: the child holds its own copy of the writer (the read below
	// ends when every writer is gone), and the reader is only read.
	_ = w.Close()
	if err != nil {
		_ = pr.Close()
		if u, ok := sandbox.IsUnavailable(err); ok {
			return ports.DoDResult{ExitCode: -1, Problem: u.Error(), Unavailable: true}, nil
		}
		var pe *sandbox.PolicyError
		if errors.As(err, &pe) {
			return ports.DoDResult{}, err // the caller's policy, not the command's problem
		}
		return ports.DoDResult{ExitCode: -1, Problem: "the shell could not start it: " + err.Error()}, nil
	}
	defer fenced.Close()
	tail := newTail(loop.CheckTailLines, loop.CheckTailBytes)
	read := make(chan error, 1)
	go func() { _, err := io.Copy(tail, pr); read <- err }()

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
	_ = pr.Close() // a pipe's read end: what was read is in tail, and closing it ends a read still waiting
	if err := ctx.Err(); err != nil {
		return ports.DoDResult{}, err
	}
	if readErr != nil { // its tail would be a part read as the whole: the adapter's fault
		return ports.DoDResult{}, fmt.Errorf("reading the output of %s: %w", j.what, readErr)
	}
	res := ports.DoDResult{Tail: tail.String(), Lines: tail.lines, Duration: time.Since(began), Problem: problem}
	if fenced != nil {
		rc := fenced.Receipt()
		res.Sandbox = &rc
	}
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
