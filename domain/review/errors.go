package review

import (
	"fmt"
	"strings"
)

// ReturnError refuses a return or a receipt, naming every problem with it at once, each with what
// to change. Nothing is recorded from a refused return.
type ReturnError struct {
	Problems []string
}

func (e *ReturnError) Error() string {
	if len(e.Problems) == 0 {
		return "the return is refused"
	}
	return "the return is refused: " + strings.Join(e.Problems, "; ")
}

// problems collects refusals in the order they are found.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return &ReturnError{Problems: p}
}
