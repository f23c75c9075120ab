package loop

import (
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
)

// What a trace tells of a run (OpenTelemetry, where the person configured an exporter): the run as
// it starts and ends, and each step a route beside the host takes. Plain values: the port that hears
// them (ports.Tracer) owns how they are written down.

// RunSpan is a run as its invocation of implement run starts driving it.
type RunSpan struct {
	Run, Spec string
}

// RunEnd is how the invocation left the run: why it stopped ("" when it failed: Fault then says
// how), the steps sent to routes beside the host and those that fell back, and what the run has
// spent in all.
type RunEnd struct {
	Ended            string
	Fault            string
	Routed, FellBack int
	Spend            Spend
}

// StepSpan is a step as it is sent to a route beside the host.
type StepSpan struct {
	Run, Lane, Role string
	Round           int
	// Kind is what the step hands back (step, review, audit); Route the route asked for (a runner's
	// or a connection's name, rp).
	Kind, Route string
}

// The route kinds a step can be sent to.
const (
	RouteRunner   = "runner"
	RouteProvider = "provider"
	RouteRP       = "rp"
)

// StepEnd is what the route made of a step: the route's kind and the one that ran it (the route
// asked, or the host when it fell back), the models, the tokens, the cost and where its figure came
// from, and why it fell back.
type StepEnd struct {
	RouteKind                 string
	CLI                       string // a runner's CLI; "" for every other route
	Ran                       string
	ModelAsked, ModelReported string
	// UsageKnown says the route reported its tokens (InputTokens, OutputTokens).
	UsageKnown                bool
	InputTokens, OutputTokens int64
	CostUSD                   float64
	CostSource                runner.CostSource
	// FallbackReason is one of review.FallbackReasons ("" when the route answered); Cause a
	// runner's closed cause.
	FallbackReason string
	Cause          string
}

// RouteAnswer is what a route said of its step, as the loop hands it back: a runner's receipt (nil
// for every other route), the fallback reason, and a provider's models and tokens.
type RouteAnswer struct {
	Receipt                   *runner.Receipt
	FallbackReason            string
	ModelAsked, ModelReported string
	TokensIn, TokensOut       int
	// CostUSD and CostSource are a provider's call's cost and where it came from ("" for unknown).
	CostUSD    float64
	CostSource runner.CostSource
}

// EndOf is the step's end as a trace tells it. A runner's receipt gives its CLI, models, tokens and
// cost; a provider's answer its models, tokens and cost (priced from its block's table, or unknown);
// rp reports none.
func (s StepSpan) EndOf(a RouteAnswer) StepEnd {
	e := StepEnd{Ran: s.Route, FallbackReason: a.FallbackReason, CostSource: runner.CostUnknown}
	if a.FallbackReason != "" {
		e.Ran = review.RanHost
	}
	switch {
	case a.Receipt != nil:
		r := a.Receipt
		e.RouteKind, e.CLI, e.ModelAsked = RouteRunner, string(r.CLI), r.ModelAsked
		if n := len(r.ModelsReported); n > 0 {
			e.ModelReported = r.ModelsReported[n-1]
		}
		e.UsageKnown, e.InputTokens, e.OutputTokens = r.Usage.Reported, r.Usage.Input, r.Usage.Output
		e.CostUSD, e.CostSource, e.Cause = r.CostUSD, r.SourceOf(), string(r.Cause)
	case s.Route == RouteRP:
		e.RouteKind = RouteRP
	default:
		e.RouteKind, e.ModelAsked, e.ModelReported = RouteProvider, a.ModelAsked, a.ModelReported
		e.UsageKnown, e.InputTokens, e.OutputTokens = a.TokensIn+a.TokensOut > 0, int64(a.TokensIn), int64(a.TokensOut)
		if a.CostSource.Valid() {
			e.CostUSD, e.CostSource = a.CostUSD, a.CostSource
		}
	}
	return e
}

// Operation is the step's GenAI operation (OpenTelemetry's gen_ai.operation.name): a provider is
// asked for a chat completion; a runner's CLI and RepoPrompt are agents abcd invokes.
func (e StepEnd) Operation() string {
	if e.RouteKind == RouteProvider {
		return "chat"
	}
	return "invoke_agent"
}

// Provider is the GenAI provider as OpenTelemetry names it (gen_ai.provider.name): a CLI's vendor
// where the CLI is its vendor's own, OpenAI's API for a provider (the protocol abcd speaks to it,
// whoever serves it), else the CLI's or the route's own name.
func (e StepEnd) Provider() string {
	switch e.RouteKind {
	case RouteProvider:
		return "openai"
	case RouteRP:
		return "repoprompt"
	}
	switch runner.Kind(e.CLI) {
	case runner.Claude:
		return "anthropic"
	case runner.Codex:
		return "openai"
	case runner.Gemini:
		return "gcp.gemini"
	}
	return e.CLI
}

// Scrubbed is the span with every text passed through scrub (the credentials abcd holds taken out).
func (s StepSpan) Scrubbed(scrub func(string) string) StepSpan {
	s.Run, s.Lane, s.Role, s.Kind, s.Route = scrub(s.Run), scrub(s.Lane), scrub(s.Role), scrub(s.Kind), scrub(s.Route)
	return s
}

// Scrubbed is the end with every text passed through scrub.
func (e StepEnd) Scrubbed(scrub func(string) string) StepEnd {
	e.RouteKind, e.CLI, e.Ran = scrub(e.RouteKind), scrub(e.CLI), scrub(e.Ran)
	e.ModelAsked, e.ModelReported = scrub(e.ModelAsked), scrub(e.ModelReported)
	e.CostSource = runner.CostSource(scrub(string(e.CostSource)))
	e.FallbackReason, e.Cause = scrub(e.FallbackReason), scrub(e.Cause)
	return e
}

// Scrubbed is the run's start with every text passed through scrub.
func (r RunSpan) Scrubbed(scrub func(string) string) RunSpan {
	r.Run, r.Spec = scrub(r.Run), scrub(r.Spec)
	return r
}

// Scrubbed is the run's end with every text passed through scrub.
func (r RunEnd) Scrubbed(scrub func(string) string) RunEnd {
	r.Ended, r.Fault = scrub(r.Ended), scrub(r.Fault)
	return r
}
