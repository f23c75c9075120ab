package loop

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// PreflightRunners checks the CLI of each runner named, as ahoy connect did but without a call: its
// executable, its version against the range abcd knows, every flag abcd passes in its --help. The
// build loop calls it before a run starts, so a CLI that drifted is a refusal naming the flag or the
// version before any lane starts. A name this machine does not configure is refused.
func (a *Deps) PreflightRunners(ctx context.Context, names ...string) error {
	const verb = "implement_start"
	_, runners, err := a.LoadRoutes(ctx)
	if err != nil {
		return err
	}
	for _, name := range names {
		r, ok := runners.Runner(name)
		if !ok {
			return refusal.New(refusal.CodeRunnerUnknown, name, "is not a runner this machine configures",
				"connect it with ", refusal.Run("ahoy_connect", refusal.With("runner", name), refusal.Hole("cli", "claude"))).On(verb, "")
		}
		if a.Runners == nil {
			return refusal.New(refusal.CodeRunnerUnavailable, "", "this build of abcd drives no runner", "use a release build of abcd").On(verb, "")
		}
		rep, err := a.Runners.Check(ctx, ports.RunnerCheck{Runner: r})
		if err != nil {
			return err
		}
		rep = core.ScrubReport(a.Scrubber(ctx), rep)
		if rep.Failure != nil {
			e := CheckRefusal(verb, name, r.CLI, rep, "; no lane was started")
			e.Code, e.What, e.Verb, e.Field = refusal.CodeRunnerDrifted, "runner "+name, "", ""
			return e
		}
	}
	return nil
}

// CheckRefusal is a failed preflight as a refusal: the check that failed (its cause) and its words,
// which name the flag or the version that drifted.
func CheckRefusal(verb, name string, cli runner.Kind, rep ports.RunnerReport, tail string, then ...any) *refusal.Error {
	f := rep.Failure
	why := fmt.Sprintf("%s: %s (%s)%s", cli.Name(), f.Cause.Sentence(), f.Detail, tail)
	var remedy []any
	switch f.Cause {
	case runner.CauseVersion, runner.CauseFlags:
		remedy = []any{fmt.Sprintf("install a %s version abcd knows (%s)", cli.Name(), cli.Known())}
	case runner.CauseExecutable:
		remedy = []any{"install ", cli.Name(), ", or give its absolute path with ", refusal.Field("ahoy_connect", "executable")}
	case runner.CauseCredentials:
		remedy = []any{"export the variables the runner names"}
	case runner.CauseSandboxUnavailable:
		remedy = []any{"run abcd where its sandbox can be built (Linux with unprivileged user namespaces and Landlock), or run the runner unconfined with ",
			refusal.Field("ahoy_connect", "sandbox"), " off (every receipt then says so)"}
	default:
		remedy = []any{"check the CLI's credentials and the variables it is given (", refusal.Field("ahoy_connect", "credential_env"), ", ",
			refusal.Field("ahoy_connect", "pass_env"), ")"}
	}
	if len(then) > 0 {
		remedy = append(remedy, ", then ")
	}
	remedy = append(remedy, then...)
	return refusal.New(refusal.CodeRunnerUnverified, "", why, remedy...).On(verb, "")
}
