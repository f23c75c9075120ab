package otel

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// jsonExporter is abcd's own OTLP/HTTP span exporter, speaking the JSON encoding of the OTLP spec.
// The SDK's otlptracehttp links the OTLP protobuf types and through them gRPC and grpc-gateway, whose
// package inits every abcd start (every hook call among them) would pay for, traces configured or
// not; this one is the standard library's encoding/json over the SDK's read-only spans.
//
// One try per batch (the SDK's batcher bounds it by ExportTimeout, the client by its own timeout),
// never retried, never redirected.
type jsonExporter struct {
	client    *http.Client
	url       string
	headers   http.Header
	gzip      bool
	userAgent string
	stopped   atomic.Bool
}

// maxAnswer bounds what is read of a collector's answer (read only so the connection is kept).
const maxAnswer = 64 << 10

var errStopped = errors.New("the trace exporter was shut down")

// newJSONExporter reads the endpoint, the headers and the compression from the OTEL variables. Its
// errors name the variable, never its value: an endpoint or a header may hold a key.
func newJSONExporter(env func(string) string, client *http.Client, version string) (*jsonExporter, error) {
	endpoint, err := tracesURL(env)
	if err != nil {
		return nil, err
	}
	headers := http.Header{}
	name, raw := "OTEL_EXPORTER_OTLP_TRACES_HEADERS", strings.TrimSpace(env("OTEL_EXPORTER_OTLP_TRACES_HEADERS"))
	if raw == "" {
		name, raw = "OTEL_EXPORTER_OTLP_HEADERS", strings.TrimSpace(env("OTEL_EXPORTER_OTLP_HEADERS"))
	}
	if err := parseHeaders(raw, headers); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	name, compression := "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", strings.TrimSpace(env("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"))
	if compression == "" {
		name, compression = "OTEL_EXPORTER_OTLP_COMPRESSION", strings.TrimSpace(env("OTEL_EXPORTER_OTLP_COMPRESSION"))
	}
	if compression != "" && compression != "gzip" && compression != "none" {
		return nil, fmt.Errorf("%s names a compression abcd does not speak (gzip or none)", name)
	}
	return &jsonExporter{client: client, url: endpoint, headers: headers, gzip: compression == "gzip",
		userAgent: "abcd/" + version}, nil
}

// tracesURL is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT with
// /v1/traces added to its path; http or https only.
func tracesURL(env func(string) string) (string, error) {
	name, raw, whole := "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", strings.TrimSpace(env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")), true
	if raw == "" {
		name, raw, whole = "OTEL_EXPORTER_OTLP_ENDPOINT", strings.TrimSpace(env("OTEL_EXPORTER_OTLP_ENDPOINT")), false
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s is not an http or https URL", name)
	}
	if !whole {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
		u.RawPath = ""
	}
	return u.String(), nil
}

// parseHeaders reads the OTEL headers variable: name=value pairs separated by commas, each value
// percent-decoded. A pair that is not one is refused whole rather than sent without it (a
// collector's key would be missing).
func parseHeaders(raw string, into http.Header) error {
	if raw == "" {
		return nil
	}
	for i, pair := range strings.Split(raw, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, value, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		if !ok || !isToken(name) {
			return fmt.Errorf("entry %d is not a name=value pair", i+1)
		}
		decoded, err := url.PathUnescape(strings.TrimSpace(value))
		if err != nil || strings.ContainsAny(decoded, "\r\n\x00") {
			return fmt.Errorf("entry %d's value is not percent-encoded text", i+1)
		}
		into.Set(name, decoded)
	}
	return nil
}

// isToken: an HTTP header name (RFC 9110's token).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// ExportSpans posts one OTLP/JSON export request of the spans, once.
func (e *jsonExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stopped.Load() {
		return errStopped
	}
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(exportRequest(spans))
	if err != nil {
		return fmt.Errorf("encoding the spans: %w", err)
	}
	if e.gzip {
		var zipped bytes.Buffer
		zw := gzip.NewWriter(&zipped)
		if _, err := zw.Write(body); err != nil {
			return fmt.Errorf("compressing the spans: %w", err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("compressing the spans: %w", err)
		}
		body = zipped.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the export request: %w", err)
	}
	for name, values := range e.headers {
		req.Header[name] = values
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", e.userAgent)
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	_, drainErr := io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	closeErr := resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// A redirect lands here too: it is never followed.
		return fmt.Errorf("the collector answered %d", resp.StatusCode)
	}
	return errors.Join(drainErr, closeErr)
}

// Shutdown stops the exporter; what the batcher still holds was flushed before it is called.
func (e *jsonExporter) Shutdown(context.Context) error {
	e.stopped.Store(true)
	e.client.CloseIdleConnections()
	return nil
}

// The OTLP JSON mapping (opentelemetry-proto's ExportTraceServiceRequest): lowerCamelCase names,
// trace and span ids in hex, 64-bit integers as decimal strings, enums as their numbers.
type (
	otlpRequest struct {
		ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
	}
	otlpResourceSpans struct {
		Resource   otlpResource     `json:"resource"`
		ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
		SchemaURL  string           `json:"schemaUrl,omitempty"`
	}
	otlpResource struct {
		Attributes []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpScopeSpans struct {
		Scope     otlpScope  `json:"scope"`
		Spans     []otlpSpan `json:"spans"`
		SchemaURL string     `json:"schemaUrl,omitempty"`
	}
	otlpScope struct {
		Name       string         `json:"name,omitempty"`
		Version    string         `json:"version,omitempty"`
		Attributes []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpSpan struct {
		TraceID                string         `json:"traceId"`
		SpanID                 string         `json:"spanId"`
		TraceState             string         `json:"traceState,omitempty"`
		ParentSpanID           string         `json:"parentSpanId,omitempty"`
		Flags                  uint32         `json:"flags,omitempty"`
		Name                   string         `json:"name"`
		Kind                   int32          `json:"kind,omitempty"`
		StartTimeUnixNano      uint64         `json:"startTimeUnixNano,string"`
		EndTimeUnixNano        uint64         `json:"endTimeUnixNano,string"`
		Attributes             []otlpKeyValue `json:"attributes,omitempty"`
		DroppedAttributesCount uint32         `json:"droppedAttributesCount,omitempty"`
		Events                 []otlpEvent    `json:"events,omitempty"`
		DroppedEventsCount     uint32         `json:"droppedEventsCount,omitempty"`
		Links                  []otlpLink     `json:"links,omitempty"`
		DroppedLinksCount      uint32         `json:"droppedLinksCount,omitempty"`
		Status                 otlpStatus     `json:"status"`
	}
	otlpEvent struct {
		TimeUnixNano           uint64         `json:"timeUnixNano,string"`
		Name                   string         `json:"name"`
		Attributes             []otlpKeyValue `json:"attributes,omitempty"`
		DroppedAttributesCount uint32         `json:"droppedAttributesCount,omitempty"`
	}
	otlpLink struct {
		TraceID                string         `json:"traceId"`
		SpanID                 string         `json:"spanId"`
		TraceState             string         `json:"traceState,omitempty"`
		Attributes             []otlpKeyValue `json:"attributes,omitempty"`
		DroppedAttributesCount uint32         `json:"droppedAttributesCount,omitempty"`
		Flags                  uint32         `json:"flags,omitempty"`
	}
	otlpStatus struct {
		Message string `json:"message,omitempty"`
		Code    int32  `json:"code,omitempty"`
	}
	otlpKeyValue struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	// otlpValue is an AnyValue, encoded by hand: its one-of and a double's NaN and infinities.
	otlpValue struct{ v attribute.Value }
)

// OTLP's span flags: the low byte is the W3C trace flags; these say whether the parent (or the
// link's span) is known to be remote.
const (
	flagsHasIsRemote = 0x100
	flagsIsRemote    = 0x200
)

type scopeKey struct {
	name, version, schemaURL string
	attrs                    attribute.Distinct
}

// exportRequest groups the spans by resource, then by instrumentation scope, in the order met.
func exportRequest(spans []sdktrace.ReadOnlySpan) otlpRequest {
	var req otlpRequest
	resources := map[*resource.Resource]int{}
	scopes := map[*resource.Resource]map[scopeKey]int{}
	for _, s := range spans {
		res := s.Resource()
		ri, ok := resources[res]
		if !ok {
			ri = len(req.ResourceSpans)
			resources[res] = ri
			scopes[res] = map[scopeKey]int{}
			rs := otlpResourceSpans{}
			if res != nil {
				rs.Resource.Attributes = keyValues(res.Attributes())
				rs.SchemaURL = res.SchemaURL()
			}
			req.ResourceSpans = append(req.ResourceSpans, rs)
		}
		sc := s.InstrumentationScope()
		key := scopeKey{sc.Name, sc.Version, sc.SchemaURL, sc.Attributes.Equivalent()}
		si, ok := scopes[res][key]
		if !ok {
			si = len(req.ResourceSpans[ri].ScopeSpans)
			scopes[res][key] = si
			req.ResourceSpans[ri].ScopeSpans = append(req.ResourceSpans[ri].ScopeSpans, otlpScopeSpans{Scope: scopeOf(sc), SchemaURL: sc.SchemaURL})
		}
		ss := &req.ResourceSpans[ri].ScopeSpans[si]
		ss.Spans = append(ss.Spans, spanOf(s))
	}
	return req
}

func scopeOf(sc instrumentation.Scope) otlpScope {
	return otlpScope{Name: sc.Name, Version: sc.Version, Attributes: keyValues(sc.Attributes.ToSlice())}
}

func spanOf(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	out := otlpSpan{TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String(),
		TraceState: sc.TraceState().String(), Flags: flagsOf(sc.TraceFlags(), s.Parent().IsRemote()),
		Name: s.Name(), Kind: kindOf(s.SpanKind()), StartTimeUnixNano: unixNano(s.StartTime()), EndTimeUnixNano: unixNano(s.EndTime()),
		Attributes: keyValues(s.Attributes()), DroppedAttributesCount: count(s.DroppedAttributes()),
		DroppedEventsCount: count(s.DroppedEvents()), DroppedLinksCount: count(s.DroppedLinks())}
	if p := s.Parent(); p.SpanID().IsValid() {
		out.ParentSpanID = p.SpanID().String()
	}
	for _, ev := range s.Events() {
		out.Events = append(out.Events, otlpEvent{TimeUnixNano: unixNano(ev.Time), Name: ev.Name,
			Attributes: keyValues(ev.Attributes), DroppedAttributesCount: count(ev.DroppedAttributeCount)})
	}
	for _, l := range s.Links() {
		out.Links = append(out.Links, otlpLink{TraceID: l.SpanContext.TraceID().String(),
			SpanID: l.SpanContext.SpanID().String(), TraceState: l.SpanContext.TraceState().String(),
			Attributes: keyValues(l.Attributes), DroppedAttributesCount: count(l.DroppedAttributeCount),
			Flags: flagsOf(l.SpanContext.TraceFlags(), l.SpanContext.IsRemote())})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		out.Status = otlpStatus{Code: 2, Message: st.Description}
	case codes.Ok:
		out.Status = otlpStatus{Code: 1}
	}
	return out
}

func flagsOf(f trace.TraceFlags, remote bool) uint32 {
	out := uint32(f) | flagsHasIsRemote
	if remote {
		out |= flagsIsRemote
	}
	return out
}

// kindOf: the SDK's span kinds are OTLP's numbers (internal 1 ... consumer 5).
func kindOf(k trace.SpanKind) int32 {
	if k < trace.SpanKindInternal || k > trace.SpanKindConsumer {
		return int32(trace.SpanKindInternal)
	}
	return int32(k)
}

func unixNano(t time.Time) uint64 {
	if n := t.UnixNano(); n > 0 {
		return uint64(n)
	}
	return 0
}

func count(n int) uint32 {
	if n <= 0 {
		return 0
	}
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}

func keyValues(kvs []attribute.KeyValue) []otlpKeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]otlpKeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, otlpKeyValue{Key: string(kv.Key), Value: otlpValue{kv.Value}})
	}
	return out
}

// MarshalJSON writes the AnyValue of the attribute's type.
func (v otlpValue) MarshalJSON() ([]byte, error) {
	return appendValue(nil, v.v)
}

func appendValue(b []byte, v attribute.Value) ([]byte, error) {
	switch v.Type() {
	case attribute.BOOL:
		return appendBool(b, v.AsBool()), nil
	case attribute.INT64:
		return appendInt(b, v.AsInt64()), nil
	case attribute.FLOAT64:
		return appendDouble(b, v.AsFloat64()), nil
	case attribute.STRING:
		return appendString(b, v.AsString())
	case attribute.BYTESLICE:
		return append(append(append(b, `{"bytesValue":"`...), base64.StdEncoding.EncodeToString(v.AsByteSlice())...), `"}`...), nil
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), func(b []byte, x bool) ([]byte, error) { return appendBool(b, x), nil })
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), func(b []byte, x int64) ([]byte, error) { return appendInt(b, x), nil })
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), func(b []byte, x float64) ([]byte, error) { return appendDouble(b, x), nil })
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), appendString)
	case attribute.SLICE:
		return appendArray(b, v.AsSlice(), appendValue)
	case attribute.MAP:
		b = append(b, `{"kvlistValue":{"values":[`...)
		for i, kv := range v.AsMap() {
			if i > 0 {
				b = append(b, ',')
			}
			entry, err := json.Marshal(otlpKeyValue{Key: string(kv.Key), Value: otlpValue{kv.Value}})
			if err != nil {
				return nil, err
			}
			b = append(b, entry...)
		}
		return append(b, `]}}`...), nil
	default:
		return append(b, `{}`...), nil // an empty value
	}
}

func appendBool(b []byte, x bool) []byte {
	return append(strconv.AppendBool(append(b, `{"boolValue":`...), x), '}')
}

func appendInt(b []byte, n int64) []byte {
	return append(strconv.AppendInt(append(b, `{"intValue":"`...), n, 10), `"}`...)
}

// appendDouble: a JSON number, or protobuf JSON's "NaN", "Infinity" and "-Infinity".
func appendDouble(b []byte, f float64) []byte {
	b = append(b, `{"doubleValue":`...)
	switch {
	case math.IsNaN(f):
		b = append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		b = append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		b = append(b, `"-Infinity"`...)
	default:
		b = strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	return append(b, '}')
}

func appendString(b []byte, s string) ([]byte, error) {
	q, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(append(append(b, `{"stringValue":`...), q...), '}'), nil
}

func appendArray[T any](b []byte, xs []T, each func([]byte, T) ([]byte, error)) ([]byte, error) {
	b = append(b, `{"arrayValue":{"values":[`...)
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = each(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, `]}}`...), nil
}
