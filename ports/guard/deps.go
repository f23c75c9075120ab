// Package guard holds the guard's use cases: checking a command line against the rules in force, and
// the person's allow of a repository's weaker guard file.
package guard

import (
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// Deps is what the guard's use cases need.
type Deps struct {
	*core.Core
	Commands ports.CommandReader // the guard's shell reader
	Prompter ports.Prompter
	Links    ports.Links // resolves the links on a written path's way; nil reads every path as written
	// Reroot is the guard over the repository containing dir (abcd mcp serve --repo); nil where the
	// assembly offers none.
	Reroot func(dir string) *Deps
}
