package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Prompter asks on stderr and reads answers from stdin, only when stdin is a terminal.
type Prompter struct {
	s      *IO
	reader *bufio.Reader
}

// NewPrompter returns the prompter over s.
func NewPrompter(s *IO) *Prompter { return &Prompter{s: s} }

// Interactive is true when a person can answer.
func (p *Prompter) Interactive() bool { return p.s.InTTY }

// Show writes text for the person, on stderr.
func (p *Prompter) Show(text string) { fmt.Fprint(p.s.Err, text) }

// Confirm asks a yes/no question; anything but y or yes is no, and the end of input is no.
func (p *Prompter) Confirm(ctx context.Context, question string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if p.reader == nil {
		p.reader = bufio.NewReader(io.LimitReader(p.s.In, 1<<16))
	}
	fmt.Fprintf(p.s.Err, "%s [y/N] ", question)
	// The answer is waited for only while ctx lasts: Ctrl-C or SIGTERM at the question ends the
	// command, and the read left waiting ends with the process.
	type reply struct {
		line string
		err  error
	}
	got := make(chan reply, 1)
	go func() {
		line, err := p.reader.ReadString('\n')
		got <- reply{line, err}
	}()
	var line string
	var err error
	select {
	case a := <-got:
		line, err = a.line, a.err
	case <-ctx.Done():
		fmt.Fprintln(p.s.Err)
		return false, ctx.Err()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	if errors.Is(err, io.EOF) && line == "" {
		fmt.Fprintln(p.s.Err)
	}
	return answer == "y" || answer == "yes", nil
}

// Diag writes warnings to stderr.
type Diag struct{ s *IO }

// NewDiag returns diagnostics over s.
func NewDiag(s *IO) Diag { return Diag{s: s} }

// Warn writes one line.
func (d Diag) Warn(msg string) { fmt.Fprintf(d.s.Err, "abcd: warning: %s\n", msg) }
