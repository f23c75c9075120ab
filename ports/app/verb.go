// Package app is the assembly front doors drive: the verb table, each verb declared once by its
// family (record, loop, setup, guard, rules, history), and the wiring that hands each family its
// dependencies for one call.
package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/guard"
	"github.com/abcd-dev/abcd/ports/history"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/loop/prune"
	"github.com/abcd-dev/abcd/ports/loop/story"
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/rules"
	"github.com/abcd-dev/abcd/ports/setup"
	"github.com/abcd-dev/abcd/ports/verb"
)

// Table is every verb, sorted by name so every listing built from it is deterministic.
func Table() []verb.Verb { return slices.Clone(table()) }

// table is built on first use, not at package init, so start-up pays only for what runs. It is
// assigned in init because use cases reach the table themselves (Routes looks a verb up).
var table func() []verb.Verb

func init() { table = sync.OnceValue(buildTable) }

func buildTable() []verb.Verb {
	verbs := []verb.Verb{setup.StatusVerb(), setup.VersionVerb(), setup.SchemaListVerb(), setup.SchemaShowVerb(), setup.ConfigShowVerb(), setup.AhoyInstallVerb(), setup.AhoySandboxVerb(), setup.AhoyUninstallVerb(), record.LintVerb()}
	verbs = append(verbs, record.IntentVerbs()...)
	verbs = append(verbs, record.SpecVerbs()...)
	verbs = append(verbs, record.IssueVerbs()...)
	verbs = append(verbs, record.DecisionVerbs()...)
	verbs = append(verbs, record.RecordVerbs()...)
	verbs = append(verbs, loop.ImplementVerbs()...)
	verbs = append(verbs, story.RecordVerb(), prune.Verb())
	verbs = append(verbs, loop.ReviewVerbs()...)
	verbs = append(verbs, guard.GuardVerbs()...)
	verbs = append(verbs, rules.RulesVerbs()...)
	verbs = append(verbs, history.HistoryVerbs()...)
	verbs = append(verbs, setup.ConnectVerbs()...)
	slices.SortFunc(verbs, func(a, b verb.Verb) int { return strings.Compare(a.Name, b.Name) })
	return verbs
}

// Lookup finds a verb by name.
func Lookup(name string) (verb.Verb, bool) {
	for _, v := range table() {
		if v.Name == name {
			return v, true
		}
	}
	return verb.Verb{}, false
}

// App is the core a front door drives: use cases over the ports a composition root wired in.
type App struct {
	Inspector ports.Inspector
	Schemas   ports.SchemaCatalog
	Config    ports.ConfigSource
	Roster    ports.RosterSource
	Diag      ports.Diagnostics
	Setup     ports.Setup
	Records   ports.RecordStore
	Journal   ports.Journal // changes to several files, finished by the next writer after a kill
	Clock     ports.Clock
	Random    ports.Random
	Git       ports.Git
	Runs      ports.RunStore
	// DoD runs build.dod on each head before its validators are opened; nil where this build runs
	// none (the briefs say so).
	DoD      ports.DoD
	Commands ports.CommandReader // the guard's shell reader
	Links    ports.Links         // resolves the links on a written path's way, for the guard
	Rules    ports.RulesSource   // the rules' machine and repository files
	// History keeps captured sessions; Transcripts reads the harnesses' session files; Credentials
	// are the keys abcd holds: redaction looks for them, and every text a route says is scrubbed of
	// them (scrub.go).
	History     ports.HistoryStore
	Transcripts ports.TranscriptSource
	Credentials ports.Credentials
	// Validators are the review routes beside the host, by name (rp); none is wired in this build.
	Validators map[string]ports.Validator
	Prompter   ports.Prompter
	// Connections are the providers this machine has configured; nil is none.
	Connections ports.Connections
	Providers   ports.Providers // opens a configured OpenAI-compatible provider (loadConnections, providerValidator)
	// Runners drives the coding-agent CLIs this machine configures as runners; nil is none (DoD,
	// above, proves a runner's implementer's work too).
	Runners ports.Runners
	// Progress hears a long verb's events as they happen (implement run); nil is nobody.
	Progress ports.Progress
	// RP builds the RepoPrompt route for the server this invocation's configuration names.
	RP ports.RPDialer
	// Tracer hears each implement run and its routes' steps: OpenTelemetry, only where the person
	// configured an exporter (OTEL_EXPORTER_OTLP_*); nil is none.
	Tracer ports.Tracer
	// Remote pushes and fast-forwards a finished run's branch; Forge opens its pull request with the
	// person's gh (build.finish). Nil Forge: no pull request can be opened.
	Remote ports.Remote
	Forge  ports.Forge
	// Notifier runs the machine's build.notify when an implement run ends; nil: none.
	Notifier ports.Notifier
	// Reroot is the same core over the repository containing dir (abcd mcp serve --repo); nil where
	// the composition root offers none.
	Reroot func(dir string) *App
	Build  BuildInfo
	// MergeFiles are the files git hands the record's merge driver; Self says how git runs this abcd
	// again as that driver ("abcd" where PATH finds this very binary, else its absolute path), asked
	// only by ahoy install.
	MergeFiles ports.MergeFiles
	Self       func() string
}

// BuildInfo is what the binary knows about itself, stamped at link time (the version verb's).
type BuildInfo = setup.BuildInfo

// Run executes the named verb with an input made by that verb's NewInput.
func (a *App) Run(ctx context.Context, name string, in any) (any, error) {
	v, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no verb named %q", name)
	}
	out, err := v.Run(ctx, a.forCall(ctx).depsOf(v), in)
	return out, interrupted(ctx, name, err)
}

// Call runs the named verb on the arguments a front door collected: Decode, then the use case. It is
// how both front doors run a verb, so both refuse the same input the same way.
func (a *App) Call(ctx context.Context, name string, args map[string]any) (any, error) {
	v, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no verb named %q", name)
	}
	in, err := v.Decode(args)
	if err != nil {
		return nil, err
	}
	out, err := v.Run(ctx, a.forCall(ctx).depsOf(v), in)
	return out, interrupted(ctx, name, err)
}

// interrupted says, as a refusal, that the caller ended the call (Ctrl-C, SIGTERM, an MCP client's
// notifications/cancelled, a deadline) when err is that ending. Every write checks its context before
// it begins and a change of several files is one journal write, so what the call had not begun is not
// made, and the same call run again goes on from what it made, as after a kill.
func interrupted(ctx context.Context, name string, err error) error {
	if err == nil || ctx.Err() == nil || !(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	return refusal.Busy(refusal.CodeInterrupted, "", "the call was ended by its caller before it finished ("+ctx.Err().Error()+"); a write it had not begun was not made",
		"run it again: it goes on from what it made").On(name, "")
}
