package core

import (
	"context"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/ports"
)

// TraceRun opens the run's trace on t (nil: none), every text scrubbed of the credentials abcd
// holds, and returns the context carrying it and what ends it: the run's end, or the error the
// invocation ended with (a refusal's code alone, a fault as "fault": an error's words are not the
// trace's).
func (a *Core) TraceRun(ctx context.Context, t ports.Tracer, r loop.RunSpan) (context.Context, func(loop.RunEnd, error)) {
	if t == nil {
		return ctx, func(loop.RunEnd, error) {}
	}
	sc := a.Scrubber(ctx)
	ctx = t.RunStarted(ctx, r.Scrubbed(sc.Scrub))
	return ctx, func(end loop.RunEnd, err error) {
		if err != nil {
			end = loop.RunEnd{Fault: FaultCode(err)}
		}
		t.RunEnded(ctx, end.Scrubbed(sc.Scrub))
	}
}

// TraceStep opens a step's span under the run's trace in ctx, and returns what closes it with the
// route's outcome, or the fault it ended with (the loop falls the step back as failed).
func TraceStep(ctx context.Context, t ports.Tracer, sc *secret.Scrubber, s loop.StepSpan) func(ports.ReviewOutcome, error) {
	if t == nil {
		return func(ports.ReviewOutcome, error) {}
	}
	s = s.Scrubbed(sc.Scrub)
	ctx = t.StepStarted(ctx, s)
	return func(out ports.ReviewOutcome, err error) {
		if err != nil && out.FallbackReason == "" {
			out.FallbackReason = string(review.Failed)
		}
		end := s.EndOf(loop.RouteAnswer{Receipt: out.Runner, FallbackReason: out.FallbackReason,
			ModelAsked: out.ModelAsked, ModelReported: out.ModelReported, TokensIn: out.Usage.Prompt, TokensOut: out.Usage.Completion,
			CostUSD: out.CostUSD, CostSource: out.CostSource})
		t.StepEnded(ctx, end.Scrubbed(sc.Scrub))
	}
}

// FaultCode is what an invocation's error may say outside abcd (a trace, a notification): a
// refusal's code alone, anything else "fault". An error's words are never said there.
func FaultCode(err error) string {
	if r, ok := refusal.As(err); ok {
		return string(r.Code)
	}
	return "fault"
}
