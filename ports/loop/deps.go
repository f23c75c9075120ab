// Package loop holds the build loop's use cases (implement start, step, receipt, run, status,
// record and abandon; review and intent audit) and its engine: the step, made by the one function
// that takes a run's lock, and the routes it dispatches to.
package loop

import (
	"context"

	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/guard"
	"github.com/abcd-dev/abcd/ports/history"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/rules"
)

// Deps is what the loop's use cases need: the call's core, the families whose use cases a step
// calls (the record it edits, the rules its briefs carry, the history behind its steps, the guard's
// check of what a runner changed), and the routes' own ports.
type Deps struct {
	*core.Core
	Record  *record.Deps
	Rules   *rules.Deps
	History *history.Deps
	Guard   *guard.Deps

	Git       ports.Git
	Random    ports.Random
	Roster    ports.RosterSource
	Schemas   ports.SchemaCatalog
	Prompter  ports.Prompter
	Providers ports.Providers // opens a configured OpenAI-compatible provider
	// DoD runs build.dod on each head before its validators are opened; nil where this build runs
	// none (the briefs say so).
	DoD ports.DoD
	// Validators are the review routes beside the host, by name (rp).
	Validators map[string]ports.Validator
	// Runners drives the coding-agent CLIs this machine configures as runners; nil is none.
	Runners ports.Runners
	// Progress hears a long verb's events as they happen (implement run); nil is nobody.
	Progress ports.Progress
	// RP builds the RepoPrompt route for the server this invocation's configuration names.
	RP ports.RPDialer
	// Notifier runs the machine's build.notify when an implement run ends; nil: none (the bell alone).
	Notifier ports.Notifier
	Tracer   ports.Tracer // hears each implement run and its routes' steps (OpenTelemetry where configured); nil: none
	// Remote and Forge push a finished run's branch and open its pull request (build.finish pr);
	// Finisher takes a finished run where the team works (ports/loop/finish); nil ends every run as
	// its branch.
	Remote   ports.Remote
	Forge    ports.Forge
	Finisher Finisher
}

// Finisher takes a finished run whose audit passed where build.finish (or --finish) says: Ready
// refuses, before a run is driven, a finish that could not be made (run is "" for a run not yet
// started); Finish makes it once the run is finished, recording it in the run and telling it in res.
type Finisher interface {
	Ready(ctx context.Context, a *Deps, in *ImplementRunInput, run string) error
	Finish(ctx context.Context, a *Deps, in *ImplementRunInput, res *ImplementRunResult) error
}
