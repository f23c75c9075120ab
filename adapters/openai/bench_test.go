package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/ports"
)

// BenchmarkDispatch measures what the route adds to a review: each iteration sends the same request
// bytes twice, once as a plain POST read to its end (the reference) and once through the adapter
// (stream parsing, the reply checked and rendered), and reports each one's p50 and p99 and the
// overhead between the medians. ABCD_OPENAI_BENCH_URL names a server (make bench starts
// @dwmkerr/mock-llm through tools/bench/openai); without it an in-process server answers.
func BenchmarkDispatch(b *testing.B) {
	base := os.Getenv("ABCD_OPENAI_BENCH_URL")
	model := "strict-review"
	if base == "" {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"model\":%q,\"choices\":[{\"delta\":{\"content\":%q},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", model, shipReply)
		}))
		defer srv.Close()
		base = srv.URL + "/v1"
	}
	c := New(func(string) string { return "" }, nil)
	pc := ports.ProviderCall{Name: "bench", BaseURL: base, Model: model}
	v, err := c.Open(pc)
	if err != nil {
		b.Fatal(err)
	}
	req := reviewReq("ruthless-reviewer")
	body, f := (&provider{c: c, call: pc}).body(req.Agent, string(req.Request), true, "review_reply", req.Reply)
	if f != nil {
		b.Fatal(f.detail)
	}
	target, _ := endpoint(base)
	direct := &http.Client{Transport: &http.Transport{Proxy: nil}}
	var plain, routed []time.Duration
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/json")
		res, err := direct.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		if err := res.Body.Close(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		out, err := v.Review(ctx, req)
		if err != nil || out.FallbackReason != "" {
			b.Fatalf("the route fell back: %v %s", err, out.FallbackDetail)
		}
		plain, routed = append(plain, t1.Sub(t0)), append(routed, time.Since(t1))
	}
	b.StopTimer()
	pct := func(d []time.Duration, p int) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[min(len(s)-1, len(s)*p/100)].Microseconds())
	}
	b.ReportMetric(pct(plain, 50), "direct-p50-µs")
	b.ReportMetric(pct(plain, 99), "direct-p99-µs")
	b.ReportMetric(pct(routed, 50), "route-p50-µs")
	b.ReportMetric(pct(routed, 99), "route-p99-µs")
	if p := pct(plain, 50); p > 0 {
		b.ReportMetric(pct(routed, 50)/p, "p50-ratio")
	}
}
