// Package history holds history's use cases: capturing the harnesses' sessions, redacted, and
// listing, showing and searching them; and the sessions behind a run's steps.
package history

import (
	"context"

	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// Deps is what history's use cases need.
type Deps struct {
	*core.Core
	History     ports.HistoryStore     // captured sessions
	Transcripts ports.TranscriptSource // the harnesses' session files
	Git         ports.Git
	// RedactionFor, when a test sets it, stands in for the redaction a capture builds.
	RedactionFor func(context.Context) (Redaction, error)
}
