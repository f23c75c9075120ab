package app

import (
	"context"
	"fmt"
	"reflect"

	dguard "github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/secret"

	"github.com/abcd-dev/abcd/ports/guard"
	"github.com/abcd-dev/abcd/ports/history"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/loop/finish"
	"github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/rules"
	"github.com/abcd-dev/abcd/ports/setup"
	"github.com/abcd-dev/abcd/ports/verb"
)

// families is one call's dependencies: one core (whose lock wait is read once, when the call first
// takes a lock, and never when it takes none) and each family's struct holding the ports it uses.
type families struct {
	record  *record.Deps
	guard   *guard.Deps
	rules   *rules.Deps
	history *history.Deps
	loop    *loop.Deps
	setup   *setup.Deps
}

// forCall wires one call: the only place that hands a family its ports.
func (a *App) forCall(ctx context.Context) *families {
	c := core.Core{Config: a.Config, Setup: a.Setup, Records: a.Records, Runs: a.Runs, Clock: a.Clock, Diag: a.Diag,
		Credentials: a.Credentials, Connections: a.Connections, Verbs: Lookup}.ForCall(ctx)
	f := &families{}
	f.record = &record.Deps{Core: c, Journal: a.Journal, Git: a.Git, Random: a.Random, Roster: a.Roster, MergeFiles: a.MergeFiles}
	f.guard = &guard.Deps{Core: c, Commands: a.Commands, Prompter: a.Prompter, Links: a.Links}
	if a.Reroot != nil {
		f.guard.Reroot = func(dir string) *guard.Deps { return a.Reroot(dir).forCall(ctx).guard }
	}
	f.rules = &rules.Deps{Core: c, Rules: a.Rules}
	f.history = &history.Deps{Core: c, History: a.History, Transcripts: a.Transcripts, Git: a.Git}
	f.loop = &loop.Deps{Core: c, Record: f.record, Rules: f.rules, History: f.history, Guard: f.guard,
		Git: a.Git, Random: a.Random, Roster: a.Roster, Schemas: a.Schemas, Prompter: a.Prompter, Providers: a.Providers,
		DoD: a.DoD, Validators: a.Validators, Runners: a.Runners, Progress: a.Progress, RP: a.RP, Tracer: a.Tracer,
		Remote: a.Remote, Forge: a.Forge, Finisher: finish.Finisher{}, Notifier: a.Notifier}
	f.setup = &setup.Deps{Core: c, Record: f.record, Loop: f.loop, Inspector: a.Inspector, Schemas: a.Schemas, Git: a.Git,
		Prompter: a.Prompter, Providers: a.Providers, Runners: a.Runners, Build: a.Build, Self: a.Self}
	return f
}

// Scrubber holds every credential abcd holds, for a front door that passes a route's words on where
// no route scrubbed them for it (an MCP task's status message): the routes' one scrubber.
func (a *App) Scrubber(ctx context.Context) *secret.Scrubber {
	return a.forCall(ctx).loop.Scrubber(ctx)
}

// depsOf is the family struct v's use case takes.
func (f *families) depsOf(v verb.Verb) any {
	switch v.DepsType() {
	case reflect.TypeFor[*record.Deps]():
		return f.record
	case reflect.TypeFor[*guard.Deps]():
		return f.guard
	case reflect.TypeFor[*rules.Deps]():
		return f.rules
	case reflect.TypeFor[*history.Deps]():
		return f.history
	case reflect.TypeFor[*loop.Deps]():
		return f.loop
	case reflect.TypeFor[*setup.Deps]():
		return f.setup
	}
	panic(fmt.Sprintf("verb %s takes %v, which no family provides", v.Name, v.DepsType()))
}

// MergeRecord merges one record file as git's merge driver (record.Deps.MergeRecord).
func (a *App) MergeRecord(ctx context.Context, in record.MergeDriverInput) (record.MergeDriverResult, error) {
	return a.forCall(ctx).record.MergeRecord(ctx, in)
}

// GuardWrites is the guard's verdict on writes an agent's tool makes in the folder cwd, for the
// guard hook (guard.CheckWrites): a file tool's write or a patch's files, links on the way followed.
func (a *App) GuardWrites(ctx context.Context, cwd string, writes []dguard.Write) (guard.GuardVerdict, error) {
	return guard.CheckWrites(ctx, a.forCall(ctx).guard, cwd, writes)
}

// RulesHook is the prompt hook's match of the rules a prompt calls for (rules.Deps.RulesHook).
func (a *App) RulesHook(ctx context.Context, in *rules.RulesMatchInput) (rules.RulesMatchResult, error) {
	return a.forCall(ctx).rules.RulesHook(ctx, in)
}

// DepsOf is what the wiring hands the family whose dependency struct is D for one call, so a test of
// one family's use case can call it directly on an App's ports.
func DepsOf[D any](ctx context.Context, a *App) D {
	f := a.forCall(ctx)
	for _, d := range []any{f.record, f.guard, f.rules, f.history, f.loop, f.setup} {
		if x, ok := d.(D); ok {
			return x
		}
	}
	panic(fmt.Sprintf("no family takes %v", reflect.TypeFor[D]()))
}
