// Package cli is the command-line front door: cobra wiring that fills each verb's input from args and
// flags and renders its result. It holds transport and input validation only, never logic.
package cli

import (
	"io"
	"os"
)

// IO is the streams a command writes to; tests hand in buffers instead of the process's files.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// InTTY is true when stdin is a terminal, so a person can answer a question.
	InTTY bool
	// Color is true when stdout is a terminal, NO_COLOR is unset and TERM is not dumb.
	Color bool
	// ErrTTY is true when stderr is a terminal (and TERM is not dumb): progress is a live view there,
	// one line per event elsewhere.
	ErrTTY bool
	// ErrLive is true when progress may move the cursor on stderr: ErrTTY, stdout a terminal too, and
	// NO_COLOR unset. A person who asked for no colour is given plain lines, no escape codes at all;
	// so is one whose result goes to a file or a pipe (a script, a log), where a board redrawn in
	// place is noise.
	ErrLive bool
	// ErrSize is stderr's terminal size in columns and rows, asked afresh at each call (the person
	// may resize it); 0 when it does not say. Nil: never known.
	ErrSize func() (cols, rows int)
}

// SystemIO is the process's own streams, with colour decided from the environment.
func SystemIO(getenv func(string) string) *IO {
	errTTY := isTerminal(os.Stderr) && getenv("TERM") != "dumb"
	return &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, InTTY: isTerminal(os.Stdin),
		Color: ColorWanted(isTerminal(os.Stdout), getenv), ErrTTY: errTTY, ErrLive: errTTY && isTerminal(os.Stdout) && getenv("NO_COLOR") == "",
		ErrSize: func() (int, int) { return terminalSize(os.Stderr) }}
}

// ColorWanted follows no-color.org: any non-empty NO_COLOR turns colour off.
func ColorWanted(terminal bool, getenv func(string) string) bool {
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// bold wraps s in the terminal's bold sequence when colour is on.
func (s *IO) bold(t string) string {
	if !s.Color {
		return t
	}
	return "\x1b[1m" + t + "\x1b[0m"
}
