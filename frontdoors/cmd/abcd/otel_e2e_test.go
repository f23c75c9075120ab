//go:build unix

package main

// OpenTelemetry end to end through the built binary: implement run with the fake CLI taking every
// step, exported to a loopback OTLP receiver that decodes what it is sent with the official OTLP
// protobuf definitions (adapters/otel/otlptest); nothing sent when the variables do not ask for it;
// a collector that never answers, or refuses, neither fails nor holds the run.

import (
	"net"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/adapters/otel"
	"github.com/abcd-dev/abcd/adapters/otel/otlptest"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/ports/loop"
)

// tracedRun runs implement run on the spec with the extra environment given, and returns its result
// and how long the invocation took.
func (w runnerWorld) tracedRun(t *testing.T, env ...string) (loop.ImplementRunResult, *icmd.Result, time.Duration) {
	t.Helper()
	began := time.Now()
	res := icmd.RunCmd(icmd.Command(binary, "implement", "run", w.spec, "--json"), icmd.Dir(w.c.dir), icmd.WithEnv(append(w.env(), env...)...))
	took := time.Since(began)
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	return out, res, took
}

// canaryAgents is paidAgents with the canary credential (the runner's ANTHROPIC_API_KEY) in the
// model Claude Code names, which the trace exports, and in the security reviewer's finding.
func (w runnerWorld) canaryAgents(t *testing.T) []runnertest.Directive {
	ds := w.paidAgents(t)
	for i, d := range ds {
		d.Out = strings.ReplaceAll(d.Out, `"model":"claude-x"`, `"model":"claude-x-`+rnCanary+`"`)
		d.Out = strings.ReplaceAll(d.Out, `"what":"a note"`, `"what":"a note on `+rnCanary+`"`)
		ds[i] = d
	}
	return ds
}

func TestAnImplementRunIsOneTraceAtTheCollector(t *testing.T) {
	rcv := otlptest.Start(t)
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.canaryAgents(t)...)
	out, res, _ := w.tracedRun(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL, "OTEL_SERVICE_NAME=abcd-ci")
	assert.Assert(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
	assert.Check(t, !strings.Contains(res.Stderr(), "traces"), "no export failed: %s", res.Stderr())

	spans := rcv.Spans()
	assert.Assert(t, is.Len(spans, 8), "the run and its seven steps")
	var root otlptest.Span
	for _, s := range spans {
		assert.Check(t, is.Equal(s.TraceID, spans[0].TraceID), "one trace")
		if s.ParentID == "" {
			assert.Check(t, is.Equal(root.Name, ""), "one root")
			root = s
		}
	}
	assert.Check(t, is.Equal(root.Name, "implement run"))
	assert.Check(t, is.Equal(root.Attrs["abcd.run.id"], out.Run.Run))
	assert.Check(t, is.Equal(root.Attrs["abcd.spec"], w.spec))
	assert.Check(t, is.Equal(root.Attrs["abcd.run.ended"], "finished"))
	assert.Check(t, is.Equal(root.Attrs["abcd.spend.usd"], 1.75))
	assert.Check(t, is.Equal(root.Attrs["gen_ai.usage.input_tokens"], int64(7000)))
	assert.Check(t, is.Equal(root.Resource["service.name"], "abcd-ci"), "OTEL_SERVICE_NAME names the service")

	roles := map[string]int{}
	for _, s := range spans {
		if s.SpanID == root.SpanID {
			continue
		}
		role, _ := s.Attrs["abcd.role"].(string)
		roles[role]++
		assert.Check(t, is.Equal(s.ParentID, root.SpanID), "%s is a step of the run", s.Name)
		assert.Check(t, is.Equal(s.Name, "invoke_agent "+role))
		assert.Check(t, is.Equal(s.Attrs["gen_ai.operation.name"], "invoke_agent"))
		assert.Check(t, is.Equal(s.Attrs["gen_ai.provider.name"], "anthropic"))
		assert.Check(t, is.Equal(s.Attrs["gen_ai.usage.input_tokens"], int64(1000)))
		assert.Check(t, is.Equal(s.Attrs["gen_ai.usage.output_tokens"], int64(0)))
		assert.Check(t, is.Equal(s.Attrs["gen_ai.response.model"], "claude-x-"+secret.Mark), "the model's words are scrubbed")
		assert.Check(t, is.Equal(s.Attrs["abcd.cost_usd"], 0.25))
		assert.Check(t, is.Equal(s.Attrs["abcd.cost_source"], "reported"))
		assert.Check(t, is.Equal(s.Attrs["abcd.runner.cli"], "claude"))
		want := map[bool]string{true: "cc", false: "rv"}[role == "implementer"]
		assert.Check(t, is.Equal(s.Attrs["abcd.route.asked"], want), "%s", s.Name)
		assert.Check(t, is.Equal(s.Attrs["abcd.route.ran"], want), "%s", s.Name)
		assert.Check(t, !s.Start.Before(root.Start) && !s.End.After(root.End), "%s lies within the run", s.Name)
	}
	assert.Check(t, is.DeepEqual(roles, map[string]int{"implementer": 2, "ruthless-reviewer": 2, "security-reviewer": 2, "intent-auditor": 1}))
	raw := string(rcv.Raw())
	for i := 0; i+secret.Window <= len(rnCanary); i++ {
		assert.Assert(t, !strings.Contains(raw, rnCanary[i:i+secret.Window]), "the canary left the machine")
	}
	assert.Check(t, !strings.Contains(res.Stdout()+res.Stderr(), rnCanary), "the canary leaked")
}

// TestNothingIsExportedUnlessTheVariablesAskForIt: OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none and a
// gRPC protocol leave a configured receiver untouched; with no variable at all, nothing reaches the
// OTLP/HTTP default port either.
func TestNothingIsExportedUnlessTheVariablesAskForIt(t *testing.T) {
	rcv := otlptest.Start(t)
	w := newRunnerWorld(t, "1. Part one of the work.")
	w.play(t, w.paidAgents(t)...)
	for _, env := range [][]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL, "OTEL_SDK_DISABLED=true"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + rcv.URL + "/v1/traces", "OTEL_TRACES_EXPORTER=none"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
	} {
		out, res, _ := w.tracedRun(t, env...)
		assert.Check(t, !strings.Contains(res.Stderr(), "traces"), "%v", env)
		assert.Check(t, is.Equal(rcv.Accepted(), int64(0)), "%v sent traces (run %s)", env, out.Run.Run)
	}
	// The SDK's default endpoint is localhost:4318: a listener there must hear nothing from a run
	// whose environment names no collector.
	ln, err := net.Listen("tcp", "127.0.0.1:4318")
	if err != nil {
		t.Logf("the default OTLP port is taken on this machine (%v): the unset case is proven by the receiver above alone", err)
		return
	}
	heard := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			heard <- struct{}{}
			assert.Check(t, c.Close())
		}
	}()
	w2 := newRunnerWorld(t, "1. Part one of the work.")
	w2.play(t, w2.paidAgents(t)...)
	w2.tracedRun(t)
	assert.NilError(t, ln.Close())
	select {
	case <-heard:
		t.Error("a run with no OTEL variable connected to the default OTLP port")
	default:
	}
}

// TestAnUnreachableCollectorNeitherFailsNorHoldsARun: a collector that accepts and never answers,
// and one that refuses: the run finishes, exits 0, and takes at most the exporter's bounds longer
// than the same run untraced; stderr says once that the traces were not taken, naming no endpoint.
func TestAnUnreachableCollectorNeitherFailsNorHoldsARun(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs, one held by a silent collector: in make test, not under -short")
	}
	run := func(t *testing.T, env ...string) (*icmd.Result, time.Duration) {
		w := newRunnerWorld(t, "1. Part one of the work.")
		w.play(t, w.paidAgents(t)...)
		out, res, took := w.tracedRun(t, env...)
		assert.Check(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
		return res, took
	}
	_, untraced := run(t)
	bound := otel.FlushBound + otel.ShutdownBound + 3*time.Second // the slack: a loaded machine's run-to-run spread
	for name, url := range map[string]string{"silent": otlptest.Silent(t), "refusing": otlptest.Refusing(t)} {
		t.Run(name, func(t *testing.T) {
			res, took := run(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+url, "OTEL_EXPORTER_OTLP_HEADERS=x-team-key=canary-header-value-0123")
			t.Logf("%s: %v traced against %v untraced", name, took, untraced)
			assert.Check(t, took < untraced+bound, "%s: %v against %v untraced", name, took, untraced)
			assert.Check(t, is.Contains(res.Stderr(), "traces' exports failed"))
			assert.Check(t, !strings.Contains(res.Stderr(), strings.TrimPrefix(url, "http://")), "the endpoint is not said")
			assert.Check(t, !strings.Contains(res.Stderr()+res.Stdout(), "canary-header"), "the header is not said")
		})
	}
}
