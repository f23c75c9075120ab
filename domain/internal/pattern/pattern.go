// Package pattern holds regular expressions compiled on first use, so a package that declares them
// costs nothing at start-up for commands that never match.
package pattern

import (
	"regexp"
	"sync"
)

// Pattern is a regular expression compiled the first time it is matched.
type Pattern struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New declares a pattern; expr must compile (a bad one panics on first use, as MustCompile would).
func New(expr string) *Pattern { return &Pattern{expr: expr} }

// MatchString reports whether s matches.
func (p *Pattern) MatchString(s string) bool {
	p.once.Do(func() { p.re = regexp.MustCompile(p.expr) })
	return p.re.MatchString(s)
}

// String is the expression.
func (p *Pattern) String() string { return p.expr }
