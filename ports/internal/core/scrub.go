package core

import (
	"context"
	"errors"

	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/ports"
)

// Scrubber holds every credential abcd holds (heldCredentials).
func (a *Core) Scrubber(ctx context.Context, extra ...ports.ProviderCall) *secret.Scrubber {
	return secret.NewScrubber(a.HeldCredentials(ctx, extra...)...)
}

// HeldCredentials are every credential abcd holds: the key of each provider the machine configures
// (key_env, key_file), each runner's credential_env, the harnesses' keys in the environment, and the
// extra ones given (a provider or runner being connected, named as a provider call's key_env or
// key_file).
func (a *Core) HeldCredentials(ctx context.Context, extra ...ports.ProviderCall) []string {
	if a.Credentials == nil {
		return nil
	}
	calls := extra
	if _, stack, err := a.LoadConfig(ctx); err == nil {
		if m, r, err := MachineRoutes(stack); err == nil {
			for _, name := range m.Names() {
				p, _ := m.Provider(name)
				calls = append(calls, ports.ProviderCall{Name: name, KeyEnv: p.KeyEnv, KeyFile: p.KeyFile})
			}
			for _, name := range r.Names() {
				rn, _ := r.Runner(name)
				for _, env := range rn.CredentialEnv {
					calls = append(calls, ports.ProviderCall{Name: name, KeyEnv: env})
				}
			}
		}
	}
	return a.Credentials.Held(ctx, calls)
}

// ScrubOutcome is a route's outcome with every text in it scrubbed.
func ScrubOutcome(sc *secret.Scrubber, out ports.ReviewOutcome) ports.ReviewOutcome {
	out.Return = sc.Bytes(out.Return)
	out.FallbackDetail = sc.Scrub(out.FallbackDetail)
	out.ModelAsked = sc.Scrub(out.ModelAsked)
	out.ModelReported = sc.Scrub(out.ModelReported)
	return out
}

// ScrubError is err with its words scrubbed: an adapter's fault may quote what a server said.
func ScrubError(sc *secret.Scrubber, err error) error {
	if err == nil {
		return nil
	}
	if msg := sc.Scrub(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}

// ScrubReport is a runner's preflight with every text the CLI said scrubbed: its version (written
// into the machine file), the model it named, a failure's words.
func ScrubReport(sc *secret.Scrubber, rep ports.RunnerReport) ports.RunnerReport {
	rep.Version, rep.ModelReported = sc.Scrub(rep.Version), sc.Scrub(rep.ModelReported)
	if rep.Failure != nil {
		f := *rep.Failure
		f.Detail = sc.Scrub(f.Detail)
		rep.Failure = &f
	}
	return rep
}
