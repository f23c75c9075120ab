// Package rules holds the rules' use cases: listing, showing and matching the rule domains a prompt
// calls for, and composing what the prompt hook injects.
package rules

import (
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// Deps is what the rules' use cases need.
type Deps struct {
	*core.Core
	Rules ports.RulesSource // the rules' machine and repository files
}
