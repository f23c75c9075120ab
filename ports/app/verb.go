// Package app holds the use cases front doors call and the verb table that declares them once.
package app

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// Verb is one declaration: everything a front door or the schema generator needs to know about it.
type Verb struct {
	// Name is the verb's one name: the MCP tool name and its schemas' prefix. Plain [a-z0-9_].
	Name string
	// Path is the CLI command words under abcd.
	Path    []string
	Summary string
	// ReadOnly, Destructive, Idempotent and OpenWorld are the MCP tool annotations, true to what the
	// use case does.
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// Dispatches names the roster agents this verb may hand work to; empty for most verbs.
	Dispatches []string
	// Long marks a verb that may run for hours (it drives a run to its end, bounded by the routes'
	// own bounds): a front door gives it no short deadline of its own, and reports its progress.
	Long bool

	inputType  reflect.Type
	resultType reflect.Type
	run        func(context.Context, *App, any) (any, error)
}

// InputType and ResultType are the boundary types the schema generator reflects.
func (v Verb) InputType() reflect.Type  { return v.inputType }
func (v Verb) ResultType() reflect.Type { return v.resultType }

// NewInput returns a pointer to a fresh zero input, for a front door to fill.
func (v Verb) NewInput() any { return reflect.New(v.inputType).Interface() }

// declare binds a typed use case to its declaration, so the table cannot pair a verb with the wrong
// input or result type.
func declare[I, R any](v Verb, run func(context.Context, *App, *I) (R, error)) Verb {
	v.inputType = reflect.TypeFor[I]()
	v.resultType = reflect.TypeFor[R]()
	v.run = func(ctx context.Context, a *App, in any) (any, error) {
		typed, ok := in.(*I)
		if !ok {
			return nil, fmt.Errorf("verb %s: input is %T, want *%s", v.Name, in, v.inputType)
		}
		return run(ctx, a.forCall(ctx), typed)
	}
	return v
}

// Table is every verb, sorted by name so every listing built from it is deterministic.
func Table() []Verb { return slices.Clone(table()) }

// table is built on first use, not at package init, so start-up pays only for what runs. It is
// assigned in init because use cases reach the table themselves (Routes looks a verb up).
var table func() []Verb

func init() { table = sync.OnceValue(buildTable) }

func buildTable() []Verb {
	verbs := []Verb{statusVerb(), versionVerb(), schemaListVerb(), schemaShowVerb(), configShowVerb(), ahoyInstallVerb(), ahoyUninstallVerb(), lintVerb()}
	verbs = append(verbs, intentVerbs()...)
	verbs = append(verbs, specVerbs()...)
	verbs = append(verbs, issueVerbs()...)
	verbs = append(verbs, decisionVerbs()...)
	verbs = append(verbs, recordVerbs()...)
	verbs = append(verbs, implementVerbs()...)
	verbs = append(verbs, reviewVerbs()...)
	verbs = append(verbs, guardVerbs()...)
	verbs = append(verbs, rulesVerbs()...)
	verbs = append(verbs, historyVerbs()...)
	verbs = append(verbs, connectVerbs()...)
	slices.SortFunc(verbs, func(a, b Verb) int { return strings.Compare(a.Name, b.Name) })
	return verbs
}

// Lookup finds a verb by name.
func Lookup(name string) (Verb, bool) {
	for _, v := range table() {
		if v.Name == name {
			return v, true
		}
	}
	return Verb{}, false
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
	Rules    ports.RulesSource   // the rules' machine and repository files
	// History keeps captured sessions; Transcripts reads the harnesses' session files; Credentials
	// are the keys abcd holds: redaction looks for them, and every text a route says is scrubbed of
	// them (scrub.go).
	History     ports.HistoryStore
	Transcripts ports.TranscriptSource
	Credentials ports.Credentials
	// redactionFor, when a test sets it, stands in for the redaction a capture builds.
	redactionFor func(context.Context) (redaction, error)
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
	// Reroot is the same core over the repository containing dir (abcd mcp serve --repo); nil where
	// the composition root offers none.
	Reroot func(dir string) *App
	Build  BuildInfo
	// MergeFiles are the files git hands the record's merge driver; Self says how git runs this abcd
	// again as that driver ("abcd" where PATH finds this very binary, else its absolute path), asked
	// only by ahoy install.
	MergeFiles ports.MergeFiles
	Self       func() string

	// wait is this call's lock wait, read once when the call first takes a lock (forCall).
	wait func() (time.Duration, error)
}

// BuildInfo is what the binary knows about itself, stamped at link time.
type BuildInfo struct {
	Version string
	Commit  string
	Go      string
}

// Run executes the named verb with an input made by that verb's NewInput.
func (a *App) Run(ctx context.Context, name string, in any) (any, error) {
	v, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no verb named %q", name)
	}
	out, err := v.run(ctx, a, in)
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
	out, err := v.run(ctx, a, in)
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
