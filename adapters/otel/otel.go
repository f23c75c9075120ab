// Package otel is ports.Tracer over the official OpenTelemetry Go SDK: each implement run a trace,
// each step a route beside the host takes a span under it, following OpenTelemetry's GenAI semantic
// conventions, exported over OTLP/HTTP in its JSON encoding by an exporter of abcd's own (otlpjson.go:
// the SDK's own OTLP exporter links protobuf and gRPC into every start). It is wired only where the person configured an exporter with
// the standard variables (Configured), and it never fails or slows a run: every export is bounded,
// none is retried, and what the collector does not take is dropped.
package otel

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	sdkotel "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
)

// ExportTimeout bounds one export to the collector, FlushBound the wait at a run's end for what is
// queued, and ShutdownBound the wait as abcd exits: a collector that never answers costs an
// invocation at most their sum, once.
const (
	ExportTimeout = 2 * time.Second
	FlushBound    = 2 * time.Second
	ShutdownBound = time.Second
)

// Configured reports whether the environment asks for traces: an OTLP endpoint
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT), OTEL_SDK_DISABLED not true,
// OTEL_TRACES_EXPORTER not none (nor another exporter than otlp), and an HTTP protocol
// (http/protobuf, the default, or http/json: abcd sends OTLP's JSON encoding for either, which the
// OpenTelemetry Collector's OTLP/HTTP receiver takes as it takes protobuf; abcd has no gRPC exporter).
func Configured(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if e := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); e != "" && e != "otlp" {
		return false
	}
	protocol := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
	if protocol == "" {
		protocol = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	if protocol != "" && protocol != "http/protobuf" && protocol != "http/json" {
		return false
	}
	return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) != "" ||
		strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")) != ""
}

// Options are what the tracer is built with.
type Options struct {
	// Getenv reads the exporter's OTEL_EXPORTER_OTLP_* variables (the endpoint, the headers, the
	// compression, the timeout and the certificates); the SDK reads its own (the service, the
	// resource's attributes, the sampler) from the process's environment.
	Getenv func(string) string
	// Version is abcd's, the resource's service.version.
	Version string
}

// Tracer exports runs and steps. Its SDK is built on the first run it hears, so an invocation that
// drives none (every hook, every other verb) pays nothing for it.
type Tracer struct {
	opts     Options
	once     sync.Once
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	buildErr error
	// failed counts what the SDK reported it could not do (an export refused, timed out, an
	// unreadable variable): never a run's failure, said once at the end (Shutdown).
	failed atomic.Int64
}

// New is a tracer over the environment opts reads; nothing is built or sent until a run starts.
func New(opts Options) *Tracer {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	return &Tracer{opts: opts}
}

func (t *Tracer) start() trace.Tracer {
	t.once.Do(func() {
		// The SDK's own words (a variable it could not read quotes its value: a header's may be a key)
		// go nowhere; its failures are counted.
		sdkotel.SetLogger(logr.Discard())
		sdkotel.SetErrorHandler(sdkotel.ErrorHandlerFunc(func(error) { t.failed.Add(1) }))
		client, err := t.httpClient()
		if err != nil {
			t.buildErr = err
			return
		}
		exp, err := newJSONExporter(t.opts.Getenv, client, t.opts.Version)
		if err != nil {
			t.buildErr = err
			return
		}
		res, err := resource.Merge(resource.NewSchemaless(attribute.String("service.name", "abcd"),
			attribute.String("service.version", t.opts.Version)), resource.Environment())
		if err != nil {
			// The environment's resource attributes could not be read: the service's own stand.
			res = resource.NewSchemaless(attribute.String("service.name", "abcd"), attribute.String("service.version", t.opts.Version))
		}
		t.provider = sdktrace.NewTracerProvider(sdktrace.WithResource(res),
			sdktrace.WithBatcher(exp, sdktrace.WithExportTimeout(ExportTimeout)))
		t.tracer = t.provider.Tracer("github.com/abcd-dev/abcd", trace.WithInstrumentationVersion(t.opts.Version))
	})
	return t.tracer
}

// httpClient is the exporter's client: bounded by ExportTimeout (or the OTEL timeout variable when
// it is shorter), never redirected (a redirect would carry the headers, a collector's key among them,
// elsewhere), with the certificates the OTEL variables name.
func (t *Tracer) httpClient() (*http.Client, error) {
	timeout := ExportTimeout
	if ms, err := strconv.Atoi(t.env("TIMEOUT")); err == nil && ms > 0 && time.Duration(ms)*time.Millisecond < timeout {
		timeout = time.Duration(ms) * time.Millisecond
	}
	// The person's proxy variables are honoured, as by every OTLP exporter; each wait is bounded.
	transport := &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: (&net.Dialer{Timeout: timeout}).DialContext,
		TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout, MaxIdleConns: 2, IdleConnTimeout: 30 * time.Second, ForceAttemptHTTP2: true}
	if ca := t.env("CERTIFICATE"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("the OTLP certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("the OTLP certificate holds no PEM certificate")
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	if cert, key := t.env("CLIENT_CERTIFICATE"), t.env("CLIENT_KEY"); cert != "" && key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("the OTLP client certificate: %w", err)
		}
		if transport.TLSClientConfig == nil {
			transport.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		transport.TLSClientConfig.Certificates = []tls.Certificate{pair}
	}
	return &http.Client{Transport: transport, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}

// env is the traces' own OTEL_EXPORTER_OTLP_TRACES_<name>, else OTEL_EXPORTER_OTLP_<name>.
func (t *Tracer) env(name string) string {
	if v := strings.TrimSpace(t.opts.Getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
		return v
	}
	return strings.TrimSpace(t.opts.Getenv("OTEL_EXPORTER_OTLP_" + name))
}

// RunStarted opens the run's trace: a new root, whatever the context carried.
func (t *Tracer) RunStarted(ctx context.Context, run loop.RunSpan) context.Context {
	tr := t.start()
	if tr == nil {
		return ctx
	}
	attrs := []attribute.KeyValue{attribute.String("abcd.run.id", run.Run)}
	if run.Spec != "" {
		attrs = append(attrs, attribute.String("abcd.spec", run.Spec))
	}
	ctx, _ = tr.Start(ctx, "implement run", trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx
}

// RunEnded closes the run's span and waits at most FlushBound for what is queued to be sent.
func (t *Tracer) RunEnded(ctx context.Context, end loop.RunEnd) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || t.provider == nil {
		return
	}
	span.SetAttributes(attribute.String("abcd.run.ended", end.Ended),
		attribute.Int("abcd.run.routed", end.Routed), attribute.Int("abcd.run.fell_back", end.FellBack),
		attribute.Int("abcd.spend.steps", end.Spend.Steps), attribute.Float64("abcd.spend.usd", end.Spend.USD),
		attribute.Int64("gen_ai.usage.input_tokens", end.Spend.Input), attribute.Int64("gen_ai.usage.output_tokens", end.Spend.Output))
	if end.Fault != "" {
		span.SetAttributes(attribute.String("error.type", end.Fault))
		span.SetStatus(codes.Error, end.Fault)
	}
	span.End()
	flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), FlushBound)
	defer cancel()
	if err := t.provider.ForceFlush(flush); err != nil {
		t.failed.Add(1)
	}
}

// StepStarted opens the step's span under the run's.
func (t *Tracer) StepStarted(ctx context.Context, s loop.StepSpan) context.Context {
	if t.tracer == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	ctx, _ = t.tracer.Start(ctx, "invoke_agent "+s.Role, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("abcd.run.id", s.Run), attribute.String("abcd.lane", s.Lane), attribute.String("abcd.role", s.Role),
		attribute.String("gen_ai.agent.name", s.Role), attribute.Int("abcd.round", s.Round),
		attribute.String("abcd.step.kind", s.Kind), attribute.String("abcd.route.asked", s.Route)))
	return ctx
}

// StepEnded closes the step's span with what the route made of it.
func (t *Tracer) StepEnded(ctx context.Context, e loop.StepEnd) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	op := e.Operation()
	attrs := []attribute.KeyValue{attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.provider.name", e.Provider()),
		attribute.String("abcd.route.kind", e.RouteKind), attribute.String("abcd.route.ran", e.Ran),
		attribute.String("abcd.cost_source", string(e.CostSource))}
	if op == "chat" {
		span.SetName("chat " + e.ModelAsked)
	}
	if e.CLI != "" {
		attrs = append(attrs, attribute.String("abcd.runner.cli", e.CLI))
	}
	if e.ModelAsked != "" {
		attrs = append(attrs, attribute.String("gen_ai.request.model", e.ModelAsked))
	}
	if e.ModelReported != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.model", e.ModelReported))
	}
	if e.UsageKnown {
		attrs = append(attrs, attribute.Int64("gen_ai.usage.input_tokens", e.InputTokens), attribute.Int64("gen_ai.usage.output_tokens", e.OutputTokens))
	}
	if e.CostSource == runner.CostReported || e.CostSource == runner.CostPriced {
		attrs = append(attrs, attribute.Float64("abcd.cost_usd", e.CostUSD))
	}
	if e.FallbackReason != "" {
		attrs = append(attrs, attribute.String("abcd.fallback.reason", e.FallbackReason), attribute.String("error.type", e.FallbackReason))
		if e.Cause != "" {
			attrs = append(attrs, attribute.String("abcd.fallback.cause", e.Cause))
		}
		span.SetStatus(codes.Error, e.FallbackReason)
	}
	span.SetAttributes(attrs...)
	span.End()
}

// Shutdown sends what is left within ctx's bound and stops the exporter; the error says how many
// exports or readings failed during the invocation (their words are the SDK's, kept out: they may
// quote an endpoint or a header). Nil when no run was traced.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t.provider == nil && t.buildErr == nil {
		return nil
	}
	if t.buildErr != nil {
		return fmt.Errorf("traces were not exported: %w", t.buildErr)
	}
	if err := t.provider.Shutdown(ctx); err != nil {
		t.failed.Add(1)
	}
	if n := t.failed.Load(); n > 0 {
		return fmt.Errorf("%d of the traces' exports failed or were cut short (the collector at the OTLP endpoint did not take them in time); the run was not affected", n)
	}
	return nil
}
