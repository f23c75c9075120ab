package otel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/otel"
	"github.com/abcd-dev/abcd/adapters/otel/otlptest"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
)

// The OTEL variables a test may set; every other is cleared, so the machine's own never leaks in.
var otelVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL",
	"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER"}

// setenv sets the variables given (name, value, ...) and clears the other OTEL ones. Not parallel:
// the exporter reads the process's environment.
func setenv(t *testing.T, kv ...string) {
	for _, name := range otelVars {
		t.Setenv(name, "")
	}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
}

// aRun traces one run of three steps: an implementer on Claude Code (cost reported), a reviewer on a
// provider (tokens, no cost), and a reviewer whose Codex step fell back (cause, priced).
func aRun(tr *otel.Tracer) {
	ctx := tr.RunStarted(context.Background(), loop.RunSpan{Run: "r-1", Spec: "SPEC-1"})
	impl := loop.StepSpan{Run: "r-1", Lane: "L1", Role: "implementer", Round: 0, Kind: "step", Route: "claude-max"}
	sctx := tr.StepStarted(ctx, impl)
	tr.StepEnded(sctx, impl.EndOf(loop.RouteAnswer{Receipt: &runner.Receipt{CLI: runner.Claude, ModelAsked: "opus", ModelsReported: []string{"claude-opus-4"},
		Usage: runner.Usage{Input: 1000, Output: 200, Reported: true}, CostUSD: 0.25, CostReported: true, CostSource: runner.CostReported}}))
	rev := loop.StepSpan{Run: "r-1", Lane: "L1", Role: "ruthless-reviewer", Round: 1, Kind: "review", Route: "local"}
	sctx = tr.StepStarted(ctx, rev)
	tr.StepEnded(sctx, rev.EndOf(loop.RouteAnswer{ModelAsked: "qwen3", ModelReported: "qwen3-32b", TokensIn: 300, TokensOut: 40}))
	sec := loop.StepSpan{Run: "r-1", Lane: "L1", Role: "security-reviewer", Round: 1, Kind: "review", Route: "codex"}
	sctx = tr.StepStarted(ctx, sec)
	tr.StepEnded(sctx, sec.EndOf(loop.RouteAnswer{FallbackReason: "failed", Receipt: &runner.Receipt{CLI: runner.Codex, Cause: runner.CauseWallClock,
		Usage: runner.Usage{Input: 10, Output: 1, Reported: true}, CostUSD: 0.01, CostSource: runner.CostPriced}}))
	tr.RunEnded(ctx, loop.RunEnd{Ended: "finished", Routed: 3, FellBack: 1, Spend: loop.Spend{Steps: 3, USD: 0.26, Input: 1310, Output: 241}})
}

func TestARunIsATraceAndEachStepASpanUnderIt(t *testing.T) {
	rcv := otlptest.Start(t)
	setenv(t, "OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL, "OTEL_EXPORTER_OTLP_HEADERS", "x-team-key=abc%20def")
	assert.Assert(t, otel.Configured(func(n string) string { return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL}[n] }))
	tr := otel.New(otel.Options{Version: "1.2.3"})
	aRun(tr)
	assert.NilError(t, tr.Shutdown(context.Background()))

	spans := rcv.Spans()
	assert.Assert(t, is.Len(spans, 4))
	byName := map[string]otlptest.Span{}
	for _, s := range spans {
		assert.Check(t, is.Equal(s.TraceID, spans[0].TraceID), "one trace")
		byName[s.Name] = s
	}
	root, ok := byName["implement run"]
	assert.Assert(t, ok, "%v", spans)
	assert.Check(t, is.Equal(root.ParentID, ""))
	assert.Check(t, is.DeepEqual(root.Attrs, map[string]any{"abcd.run.id": "r-1", "abcd.spec": "SPEC-1", "abcd.run.ended": "finished",
		"abcd.run.routed": int64(3), "abcd.run.fell_back": int64(1), "abcd.spend.steps": int64(3), "abcd.spend.usd": 0.26,
		"gen_ai.usage.input_tokens": int64(1310), "gen_ai.usage.output_tokens": int64(241)}))
	assert.Check(t, is.Equal(root.Resource["service.name"], "abcd"))
	assert.Check(t, is.Equal(root.Resource["service.version"], "1.2.3"))

	impl := byName["invoke_agent implementer"]
	assert.Check(t, is.Equal(impl.ParentID, root.SpanID))
	assert.Check(t, is.DeepEqual(impl.Attrs, map[string]any{"abcd.run.id": "r-1", "abcd.lane": "L1", "abcd.role": "implementer",
		"gen_ai.agent.name": "implementer", "abcd.round": int64(0), "abcd.step.kind": "step", "abcd.route.asked": "claude-max",
		"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "anthropic", "abcd.route.kind": "runner", "abcd.route.ran": "claude-max",
		"abcd.runner.cli": "claude", "gen_ai.request.model": "opus", "gen_ai.response.model": "claude-opus-4",
		"gen_ai.usage.input_tokens": int64(1000), "gen_ai.usage.output_tokens": int64(200), "abcd.cost_usd": 0.25, "abcd.cost_source": "reported"}))
	assert.Check(t, is.Equal(impl.StatusCode, "STATUS_CODE_UNSET"))

	chat := byName["chat qwen3"]
	assert.Check(t, is.Equal(chat.ParentID, root.SpanID))
	assert.Check(t, is.Equal(chat.Attrs["gen_ai.operation.name"], "chat"))
	assert.Check(t, is.Equal(chat.Attrs["gen_ai.provider.name"], "openai"))
	assert.Check(t, is.Equal(chat.Attrs["gen_ai.response.model"], "qwen3-32b"))
	assert.Check(t, is.Equal(chat.Attrs["gen_ai.usage.input_tokens"], int64(300)))
	assert.Check(t, is.Equal(chat.Attrs["abcd.cost_source"], "unknown"))
	_, priced := chat.Attrs["abcd.cost_usd"]
	assert.Check(t, !priced, "a cost nobody reported is not exported as 0")

	fell := byName["invoke_agent security-reviewer"]
	assert.Check(t, is.Equal(fell.ParentID, root.SpanID))
	assert.Check(t, is.Equal(fell.Attrs["abcd.route.asked"], "codex"))
	assert.Check(t, is.Equal(fell.Attrs["abcd.route.ran"], "host"))
	assert.Check(t, is.Equal(fell.Attrs["abcd.fallback.reason"], "failed"))
	assert.Check(t, is.Equal(fell.Attrs["abcd.fallback.cause"], "wall_clock_timeout"))
	assert.Check(t, is.Equal(fell.Attrs["error.type"], "failed"))
	assert.Check(t, is.Equal(fell.Attrs["abcd.cost_source"], "priced"))
	assert.Check(t, is.Equal(fell.StatusCode, "STATUS_CODE_ERROR"))
	for _, s := range spans {
		assert.Check(t, !s.End.Before(s.Start), "%s ends after it starts", s.Name)
	}

	headers := rcv.Headers()
	assert.Assert(t, len(headers) > 0)
	assert.Check(t, is.Equal(headers[0].Get("X-Team-Key"), "abc def"), "OTEL_EXPORTER_OTLP_HEADERS is sent, percent-decoded")
}

// TestTheTracesEndpointIsTakenAsItIs: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the whole URL (the
// receiver serves /v1/traces), and wins over the general endpoint.
func TestTheTracesEndpointIsTakenAsItIs(t *testing.T) {
	rcv := otlptest.Start(t)
	setenv(t, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rcv.URL+"/v1/traces", "OTEL_EXPORTER_OTLP_ENDPOINT", otlptest.Refusing(t))
	tr := otel.New(otel.Options{})
	aRun(tr)
	assert.NilError(t, tr.Shutdown(context.Background()))
	assert.Check(t, is.Len(rcv.Spans(), 4))
}

func TestConfiguredOnlyByTheStandardVariables(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "TRUE"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "false"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, true},
	}
	for _, c := range cases {
		assert.Check(t, is.Equal(otel.Configured(func(n string) string { return c.env[n] }), c.want), "%v", c.env)
	}
}

// TestAnUnreachableCollectorNeverHoldsARun: a collector that accepts and never answers, and one that
// refuses: the run's end and abcd's exit wait at most their bounds, and the failure is counted, in
// words that name neither the endpoint nor a header.
func TestAnUnreachableCollectorNeverHoldsARun(t *testing.T) {
	for name, url := range map[string]string{"silent": otlptest.Silent(t), "refusing": otlptest.Refusing(t)} {
		t.Run(name, func(t *testing.T) {
			setenv(t, "OTEL_EXPORTER_OTLP_ENDPOINT", url, "OTEL_EXPORTER_OTLP_HEADERS", "x-team-key=canary-otel-header-0123456789")
			tr := otel.New(otel.Options{})
			began := time.Now()
			aRun(tr)
			ran := time.Since(began)
			end, cancel := context.WithTimeout(context.Background(), otel.ShutdownBound)
			defer cancel()
			err := tr.Shutdown(end)
			took := time.Since(began)
			assert.Check(t, ran < otel.FlushBound+500*time.Millisecond, "the run's end waited %v", ran)
			assert.Check(t, took < otel.FlushBound+otel.ShutdownBound+time.Second, "the run and the exit took %v", took)
			assert.Assert(t, err != nil, "a failed export is said")
			assert.Check(t, is.Contains(err.Error(), "the run was not affected"))
			assert.Check(t, !strings.Contains(err.Error(), strings.TrimPrefix(url, "http://")), "%v", err)
			assert.Check(t, !strings.Contains(err.Error(), "canary"), "%v", err)
			t.Logf("%s: run end %v, exit %v", name, ran, took)
		})
	}
}

// TestNothingIsBuiltUntilARunStarts: a tracer no run used sends nothing and says nothing.
func TestNothingIsBuiltUntilARunStarts(t *testing.T) {
	rcv := otlptest.Start(t)
	setenv(t, "OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	tr := otel.New(otel.Options{})
	assert.NilError(t, tr.Shutdown(context.Background()))
	assert.Check(t, is.Equal(rcv.Accepted(), int64(0)))
}

// TestTheExportIsOTLPJSON: the body is OTLP's JSON encoding (the receiver holds it to the spec's
// mapping and decodes it with the official definitions), gzip-compressed when asked.
func TestTheExportIsOTLPJSON(t *testing.T) {
	for _, compression := range []string{"", "gzip"} {
		t.Run("compression="+compression, func(t *testing.T) {
			rcv := otlptest.Start(t)
			setenv(t, "OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL+"/", "OTEL_EXPORTER_OTLP_COMPRESSION", compression)
			tr := otel.New(otel.Options{Version: "1.2.3"})
			aRun(tr)
			assert.NilError(t, tr.Shutdown(context.Background()))
			spans := rcv.Spans()
			assert.Assert(t, is.Len(spans, 4))
			raw := string(rcv.Raw())
			assert.Check(t, is.Contains(raw, `"traceId":"`+spans[0].TraceID+`"`), "ids in hex")
			assert.Check(t, is.Contains(raw, `{"key":"gen_ai.usage.input_tokens","value":{"intValue":"1310"}}`), "64-bit integers as strings")
			assert.Check(t, is.Contains(raw, `{"key":"abcd.spend.usd","value":{"doubleValue":0.26}}`))
			assert.Check(t, is.Contains(raw, `"status":{"message":"failed","code":2}`), "enums as numbers")
			for _, h := range rcv.Headers() {
				assert.Check(t, is.Equal(h.Get("Content-Type"), "application/json"))
				assert.Check(t, is.Equal(h.Get("Content-Encoding"), compression))
				assert.Check(t, is.Equal(h.Get("User-Agent"), "abcd/1.2.3"))
			}
		})
	}
}

// TestAVariableAbcdCannotReadSendsNothingAndIsNotQuoted: a headers variable with a pair that is not
// one, an endpoint that is not http(s), a compression abcd does not speak: nothing is sent, and the
// error names the variable, never its value (a header's is a key).
func TestAVariableAbcdCannotReadSendsNothingAndIsNotQuoted(t *testing.T) {
	rcv := otlptest.Start(t)
	cases := []struct {
		env  []string
		want string
	}{
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL, "OTEL_EXPORTER_OTLP_HEADERS", "x-team-key=canary-otel-header-0123456789,canary-pair"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-team-key=canary%0d%0aX-Other: 1"}, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL, "OTEL_EXPORTER_OTLP_HEADERS", "x team key=canary"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://canary.example/"}, "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "canary.example:4318"}, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL, "OTEL_EXPORTER_OTLP_COMPRESSION", "canary"}, "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "canary"}, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"},
	}
	for _, c := range cases {
		setenv(t, c.env...)
		tr := otel.New(otel.Options{})
		aRun(tr)
		err := tr.Shutdown(context.Background())
		assert.Assert(t, err != nil, "%v", c.env)
		assert.Check(t, is.Contains(err.Error(), c.want))
		assert.Check(t, !strings.Contains(err.Error(), "canary"), "%v", err)
	}
	assert.Check(t, is.Equal(rcv.Accepted(), int64(0)))
}

// TestARedirectIsNeverFollowed: a collector answering with a redirect to another (which would carry
// the headers, a key among them, there): the export fails, is counted, and the other hears nothing.
func TestARedirectIsNeverFollowed(t *testing.T) {
	elsewhere := otlptest.Start(t)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/v1/traces", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	setenv(t, "OTEL_EXPORTER_OTLP_ENDPOINT", redirecting.URL, "OTEL_EXPORTER_OTLP_HEADERS", "x-team-key=canary-otel-header-0123456789")
	tr := otel.New(otel.Options{})
	aRun(tr)
	err := tr.Shutdown(context.Background())
	assert.Assert(t, err != nil, "a refused export is said")
	assert.Check(t, is.Contains(err.Error(), "the run was not affected"))
	assert.Check(t, is.Equal(elsewhere.Accepted(), int64(0)))
}
