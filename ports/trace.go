package ports

import (
	"context"

	"github.com/abcd-dev/abcd/domain/loop"
)

// Tracer hears a run's invocation of implement run and each step a route beside the host takes, as
// they start and end (an OpenTelemetry exporter, where the person configured one; nil is none). It
// is given texts already scrubbed of every credential abcd holds. It never fails or slows the run:
// whatever it cannot send it drops, and RunEnded waits a bounded time for what is queued.
type Tracer interface {
	// RunStarted opens the run's trace; the context it returns carries it to the steps.
	RunStarted(ctx context.Context, run loop.RunSpan) context.Context
	RunEnded(ctx context.Context, end loop.RunEnd)
	// StepStarted opens a step under the run's trace in ctx; StepEnded closes the step its context
	// carries.
	StepStarted(ctx context.Context, step loop.StepSpan) context.Context
	StepEnded(ctx context.Context, end loop.StepEnd)
}
