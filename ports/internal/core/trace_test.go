package core_test

import (
	"context"
	"errors"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

const canary = "sk-trace-canary-5f0e9d8c7b6a"

// heard is a tracer that keeps what it is told, for the checks: the SDK's own is adapters/otel's.
type heard struct {
	runs  []loop.RunSpan
	ends  []loop.RunEnd
	steps []loop.StepSpan
	done  []loop.StepEnd
}

func (h *heard) RunStarted(ctx context.Context, r loop.RunSpan) context.Context {
	h.runs = append(h.runs, r)
	return ctx
}
func (h *heard) RunEnded(_ context.Context, e loop.RunEnd) { h.ends = append(h.ends, e) }
func (h *heard) StepStarted(ctx context.Context, s loop.StepSpan) context.Context {
	h.steps = append(h.steps, s)
	return ctx
}
func (h *heard) StepEnded(_ context.Context, e loop.StepEnd) { h.done = append(h.done, e) }

type held struct{}

func (held) Held(context.Context, []ports.ProviderCall) []string { return []string{canary} }

// TestATracerIsToldNoCredential: every text handed to the tracer, a run's and a step's, at their
// start and end, is scrubbed of the credentials abcd holds; an error's words never reach it.
func TestATracerIsToldNoCredential(t *testing.T) {
	h := &heard{}
	c := &core.Core{Config: fake.Config{}, Credentials: held{}}
	ctx, end := c.TraceRun(context.Background(), h, loop.RunSpan{Run: "r-" + canary, Spec: canary})
	sc := c.Scrubber(ctx)
	closeStep := core.TraceStep(ctx, h, sc, loop.StepSpan{Run: "r", Lane: canary, Role: "implementer", Route: "cc"})
	closeStep(ports.ReviewOutcome{FallbackReason: "failed", Runner: &runner.Receipt{CLI: runner.Claude, ModelAsked: canary,
		ModelsReported: []string{"m-" + canary}, Cause: runner.Cause(canary)}}, nil)
	closeFault := core.TraceStep(ctx, h, sc, loop.StepSpan{Route: "local"})
	closeFault(ports.ReviewOutcome{ModelAsked: canary}, errors.New("the server said "+canary))
	end(loop.RunEnd{Ended: canary}, nil)
	end(loop.RunEnd{}, errors.New("a fault quoting "+canary))
	end(loop.RunEnd{}, refusal.New(refusal.CodeRunAmbiguous, "x", canary, canary))

	assert.Check(t, is.DeepEqual(h.runs, []loop.RunSpan{{Run: "r-" + secret.Mark, Spec: secret.Mark}}))
	assert.Check(t, is.Equal(h.steps[0].Lane, secret.Mark))
	assert.Check(t, is.Equal(h.done[0].ModelAsked, secret.Mark))
	assert.Check(t, is.Equal(h.done[0].ModelReported, "m-"+secret.Mark))
	assert.Check(t, is.Equal(h.done[0].Cause, secret.Mark))
	assert.Check(t, is.Equal(h.done[0].Ran, "host"))
	assert.Check(t, is.Equal(h.done[1].FallbackReason, "failed"), "a fault falls the step back as failed")
	assert.Check(t, is.Equal(h.done[1].ModelAsked, secret.Mark))
	assert.Check(t, is.DeepEqual(h.ends, []loop.RunEnd{{Ended: secret.Mark}, {Fault: "fault"}, {Fault: string(refusal.CodeRunAmbiguous)}}))
}

// TestNoTracerIsNoTrace: a nil tracer is none, and costs the run no credential lookup.
func TestNoTracerIsNoTrace(t *testing.T) {
	c := &core.Core{}
	ctx, end := c.TraceRun(context.Background(), nil, loop.RunSpan{Run: "r"})
	end(loop.RunEnd{}, nil)
	core.TraceStep(ctx, nil, nil, loop.StepSpan{})(ports.ReviewOutcome{}, nil)
	assert.Check(t, ctx == context.Background())
}
