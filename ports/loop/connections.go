package loop

import (
	"context"
	"fmt"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// ProviderValidator opens the provider conn names as a review route. ok is false when conn is not a
// configured provider (the harness, rp, or a name this machine does not configure): the caller keeps
// its own route. The validator decides each call when Review runs: the model (the agent's
// oracle.roles.<agent>.model when pointed at conn, else conn's model for req.Tier, else conn's only
// model), the settings (req.Settings, each a setting's JSON text, over conn's defaults), the key
// (read at call time). A step it cannot make falls back with a reason (failed; not-available when this
// build wires no provider adapter); an answer from a denied model is discarded.
func (a *Deps) ProviderValidator(ctx context.Context, conn string) (ports.Validator, bool, error) {
	m, err := a.LoadMachine(ctx)
	if err != nil {
		return nil, false, err
	}
	if _, ok := m.Named(conn); !ok {
		return nil, false, nil
	}
	return &providerRoute{providers: a.Providers, machine: m, conn: conn}, true, nil
}

// providerRoute is a configured provider as a Validator: the domain decides the call, the adapter
// makes it.
type providerRoute struct {
	providers ports.Providers
	machine   *provider.Machine
	conn      string
}

func (r *providerRoute) Route() string { return r.conn }

func (r *providerRoute) Review(ctx context.Context, req ports.ReviewRequest) (ports.ReviewOutcome, error) {
	settings := oracle.Settings{}
	for k, v := range req.Settings {
		settings[k] = oracle.Scalar(v)
	}
	call, err := r.machine.CallFor(r.conn, req.Role, oracle.Tier(req.Tier), settings)
	if err != nil {
		return r.fallback(ports.ReviewOutcome{}, review.Failed, err.Error()), nil
	}
	out := ports.ReviewOutcome{ModelAsked: call.Model}
	if r.providers == nil {
		return r.fallback(out, review.Failed, "this build of abcd has no provider adapter wired"), nil
	}
	sent := make(map[string]string, len(call.Settings))
	for k, v := range call.Settings {
		sent[k] = string(v)
	}
	deny := r.machine.Denylist()
	p := call.Provider
	v, err := r.providers.Open(ports.ProviderCall{Name: r.conn, BaseURL: p.BaseURL, KeyEnv: p.KeyEnv, KeyFile: p.KeyFile,
		Model: call.Model, Settings: sent, Denied: deny.Denies})
	if err != nil {
		return r.fallback(out, review.Failed, err.Error()), nil
	}
	got, err := v.Review(ctx, req)
	if err != nil {
		return got, err
	}
	if got.ModelAsked == "" {
		got.ModelAsked = call.Model
	}
	got.CostUSD, got.CostSource = runner.ProviderCost(p.Billing, got.ModelAsked, got.ModelReported, got.Usage.Prompt, got.Usage.Completion, got.Usage.Cached)
	// The adapter discards a denied model's answer; so does the route, whatever adapter is wired.
	if entry, denied := deny.Denies(got.ModelReported); denied && got.ModelReported != "" && got.FallbackReason == "" {
		return r.fallback(got, review.Invalid, fmt.Sprintf("the provider answered with %s, which the denylist entry %s denies; the answer was discarded", got.ModelReported, entry)), nil
	}
	return got, nil
}

func (r *providerRoute) fallback(out ports.ReviewOutcome, reason review.FallbackReason, detail string) ports.ReviewOutcome {
	out.Return = nil
	out.FallbackReason = string(reason)
	out.FallbackDetail = text.ClipAt("provider "+r.conn+": "+detail, review.DetailBytes)
	return out
}
