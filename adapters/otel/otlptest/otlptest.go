// Package otlptest is a loopback OTLP/HTTP trace receiver for tests: it takes OTLP's JSON encoding
// (what adapters/otel sends), holds it to the spec's JSON mapping (lowerCamelCase names, hex trace
// and span ids, 64-bit integers and times as strings, enums as numbers), decodes it with the
// official OTLP protobuf definitions (go.opentelemetry.io/proto/otlp, through protojson), as a
// collector does, and keeps the spans, the headers and the raw bodies; and the two collectors a run
// must survive: one that accepts and never answers, one that refuses.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// maxBody bounds one request's body, as a collector's receiver does.
const maxBody = 4 << 20

// Span is one span as the receiver decoded it: ids in hex, the parent's "" for a root, every
// attribute's value as a Go string, int64, float64 or bool, and the resource's attributes beside.
type Span struct {
	TraceID, SpanID, ParentID string
	Name, Kind                string
	StatusCode, StatusMessage string
	Attrs                     map[string]any
	Resource                  map[string]any
	Start, End                time.Time
}

// Receiver is an OTLP/HTTP receiver on a loopback port.
type Receiver struct {
	// URL is its base (http://127.0.0.1:port): OTEL_EXPORTER_OTLP_ENDPOINT's value.
	URL      string
	accepted atomic.Int64
	mu       sync.Mutex
	spans    []Span
	raw      []byte
	headers  []http.Header
	problems []string
}

// Start serves a receiver until the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otlptest: %v", err)
	}
	r := &Receiver{URL: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(counting{ln, &r.accepted}) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("otlptest: closing the receiver: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("otlptest: the receiver ended: %v", err)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, p := range r.problems {
			t.Errorf("otlptest: %s", p)
		}
	})
	return r
}

type counting struct {
	net.Listener
	n *atomic.Int64
}

func (c counting) Accept() (net.Conn, error) {
	conn, err := c.Listener.Accept()
	if err == nil {
		c.n.Add(1)
	}
	return conn, err
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	problem := func(code int, format string, args ...any) {
		r.mu.Lock()
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
		r.mu.Unlock()
		http.Error(w, "refused", code)
	}
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		problem(http.StatusNotFound, "%s %s: not the OTLP traces endpoint", req.Method, req.URL.Path)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		problem(http.StatusUnsupportedMediaType, "content type %q, not OTLP JSON", ct)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, maxBody)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			problem(http.StatusBadRequest, "gzip: %v", err)
			return
		}
		body = io.LimitReader(zr, maxBody)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		problem(http.StatusBadRequest, "reading the body: %v", err)
		return
	}
	canonical, err := fromOTLPJSON(data)
	if err != nil {
		problem(http.StatusBadRequest, "the body breaks OTLP's JSON mapping: %v", err)
		return
	}
	var export coltracepb.ExportTraceServiceRequest
	if err := protojson.Unmarshal(canonical, &export); err != nil {
		problem(http.StatusBadRequest, "decoding the body: %v", err)
		return
	}
	r.mu.Lock()
	r.raw = append(r.raw, data...)
	r.headers = append(r.headers, req.Header.Clone())
	for _, rs := range export.GetResourceSpans() {
		resource := values(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, Span{TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(), Kind: s.GetKind().String(),
					StatusCode: s.GetStatus().GetCode().String(), StatusMessage: s.GetStatus().GetMessage(),
					Attrs: values(s.GetAttributes()), Resource: resource,
					Start: time.Unix(0, int64(s.GetStartTimeUnixNano())), End: time.Unix(0, int64(s.GetEndTimeUnixNano()))}) //nolint:gosec // a span's times fit an int64 until 2262
			}
		}
	}
	r.mu.Unlock()
	out, err := protojson.Marshal(&coltracepb.ExportTraceServiceResponse{})
	if err != nil {
		problem(http.StatusInternalServerError, "encoding the answer: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if _, err := w.Write(out); err != nil {
		problem(http.StatusInternalServerError, "writing the answer: %v", err)
	}
}

func values(kvs []*commonpb.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.GetKey()] = v.GetStringValue()
		case *commonpb.AnyValue_IntValue:
			m[kv.GetKey()] = v.GetIntValue()
		case *commonpb.AnyValue_DoubleValue:
			m[kv.GetKey()] = v.GetDoubleValue()
		case *commonpb.AnyValue_BoolValue:
			m[kv.GetKey()] = v.GetBoolValue()
		default:
			m[kv.GetKey()] = v.String()
		}
	}
	return m
}

// Spans are the spans received so far, in the order they came.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Raw is every request body received, decompressed, one after another: what left the machine.
func (r *Receiver) Raw() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.raw...)
}

// Headers are each request's headers, in order.
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}

// Accepted counts the connections the receiver accepted: 0 where nothing may be exported.
func (r *Receiver) Accepted() int64 { return r.accepted.Load() }

// Silent is a collector that accepts every connection and never answers, until the test ends; it
// returns its base URL.
func Silent(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otlptest: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener was closed: the test is over
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if err := ln.Close(); err != nil {
			t.Errorf("otlptest: closing the silent collector: %v", err)
		}
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			if err := c.Close(); err != nil {
				t.Errorf("otlptest: closing a connection: %v", err)
			}
		}
	})
	return "http://" + ln.Addr().String()
}

// Refusing is a loopback address nothing listens on any more: every connection to it is refused.
func Refusing(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otlptest: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("otlptest: %v", err)
	}
	return "http://" + addr
}

// fromOTLPJSON checks a body against the OTLP spec's JSON mapping and returns it in protobuf's
// canonical JSON mapping, which protojson reads: the two differ only in the trace and span ids (hex
// in OTLP, base64 in protobuf's). protojson alone would take snake_case names, numbers for 64-bit
// integers and enum names too; the spec asks for the former forms, so they are checked here.
func fromOTLPJSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if err := canonical(doc, ""); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// idLengths are the byte lengths of the id fields; asStrings the 64-bit integer and time fields,
// which the mapping writes as decimal strings; asNumbers the enums, which it writes as numbers.
var (
	idLengths = map[string]int{"traceId": 16, "spanId": 8, "parentSpanId": 8}
	asStrings = map[string]bool{"intValue": true, "startTimeUnixNano": true, "endTimeUnixNano": true, "timeUnixNano": true}
	asNumbers = map[string]bool{"kind": true, "code": true}
)

func canonical(node any, at string) error {
	switch v := node.(type) {
	case []any:
		for _, e := range v {
			if err := canonical(e, at); err != nil {
				return err
			}
		}
	case map[string]any:
		for name, value := range v {
			where := at + "." + name
			if strings.Contains(name, "_") {
				return fmt.Errorf("%s: not a lowerCamelCase name", where)
			}
			if size, ok := idLengths[name]; ok {
				s, isString := value.(string)
				id, err := hex.DecodeString(s)
				if !isString || err != nil || len(id) != size || s != strings.ToLower(s) {
					return fmt.Errorf("%s: %v is not a %d-byte id in lowercase hex", where, value, size)
				}
				v[name] = base64.StdEncoding.EncodeToString(id)
				continue
			}
			if _, isString := value.(string); asStrings[name] && !isString {
				return fmt.Errorf("%s: %v is not a decimal string", where, value)
			}
			if _, isNumber := value.(json.Number); asNumbers[name] && !isNumber {
				return fmt.Errorf("%s: %v is not an enum's number", where, value)
			}
			if err := canonical(value, where); err != nil {
				return err
			}
		}
	}
	return nil
}
