// Package record holds the record's use cases: intents, specs, issues and decisions, lint, renumber,
// the team merge and the record's merge driver.
package record

import (
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// Deps is what the record's use cases need: the call's core and the record's own ports.
type Deps struct {
	*core.Core
	Journal    ports.Journal // changes to several files, finished by the next writer after a kill
	Git        ports.Git
	Random     ports.Random
	Roster     ports.RosterSource
	MergeFiles ports.MergeFiles // the files git hands the record's merge driver
}
