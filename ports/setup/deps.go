// Package setup holds the use cases that set abcd up and show where it stands: ahoy install and
// uninstall, connect and disconnect, config show, the status board, version and the schemas.
package setup

import (
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
)

// Deps is what setup's use cases need: the call's core, the record and the loop whose state the
// status board shows, and setup's own ports.
type Deps struct {
	*core.Core
	Record *record.Deps
	Loop   *loop.Deps

	Inspector ports.Inspector
	Schemas   ports.SchemaCatalog
	Git       ports.Git
	Prompter  ports.Prompter
	Providers ports.Providers
	Runners   ports.Runners
	Build     BuildInfo
	// Self says how git runs this abcd again as the record's merge driver ("abcd" where PATH finds
	// this very binary, else its absolute path).
	Self func() string
}

// BuildInfo is what the binary knows about itself, stamped at link time.
type BuildInfo struct {
	Version string
	Commit  string
	Go      string
}
