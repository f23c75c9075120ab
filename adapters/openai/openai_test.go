package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	domainprovider "github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

// canary is the key every test sends; no output, error or file may carry it in any encoding.
const canary = "sk-canary-7f3a9c1e5b2d4068"

func canaryForms() []string {
	j, _ := json.Marshal(canary)
	return []string{canary, base64.StdEncoding.EncodeToString([]byte(canary)), base64.RawURLEncoding.EncodeToString([]byte(canary)),
		url.QueryEscape(canary), string(j[1 : len(j)-1]), "canary-7f3a"}
}

func assertNoCanary(t *testing.T, where string, s string) {
	t.Helper()
	for _, f := range canaryForms() {
		assert.Check(t, !strings.Contains(s, f), "%s carries the key (%q): %s", where, f, s)
	}
}

// reviewSchema is a stand-in for the published review_reply schema (the loop hands the real one).
var reviewSchema = []byte(`{"type":"object","properties":{"summary":{"type":"string"}},"additionalProperties":false}`)

const shipReply = `{"summary":"Small and tested.","verdict":"SHIP","findings":[]}`

// request records what the fake server was sent.
type request struct {
	Auth string
	Body map[string]any
}

type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []request
}

func (s *fakeServer) got() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.requests...)
}

// serve starts a fake provider; handle answers the n-th request (0-based).
func serve(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int, body map[string]any)) *fakeServer {
	t.Helper()
	fs := &fakeServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &body)
		fs.mu.Lock()
		n := len(fs.requests)
		fs.requests = append(fs.requests, request{Auth: r.Header.Get("Authorization"), Body: body})
		fs.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusTeapot)
			return
		}
		handle(w, r, n, body)
	}))
	t.Cleanup(fs.Close)
	return fs
}

// sse writes a streamed completion of content in pieces from model, then [DONE] when done.
func sse(w http.ResponseWriter, model string, pieces []string, done bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	for i, p := range pieces {
		ch := map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": p}, "finish_reason": nil}}}
		if i == len(pieces)-1 {
			ch["choices"].([]any)[0].(map[string]any)["finish_reason"] = "stop"
		}
		data, _ := json.Marshal(ch)
		fmt.Fprintf(w, "data: %s\n\n", data)
		fl.Flush()
	}
	usage, _ := json.Marshal(map[string]any{"model": model, "choices": []any{}, "usage": map[string]int{"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}})
	fmt.Fprintf(w, ": keep-alive\n\ndata: %s\n\n", usage)
	if done {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
	fl.Flush()
}

// errorBody is an error a server writes, carrying the key in every encoding, as a careless server
// might echo it.
func errorBody(w http.ResponseWriter, code int, msg string) {
	body := map[string]any{"error": map[string]any{"message": msg + " key " + strings.Join(canaryForms(), " "), "code": code}}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

func testClient(lim Limits) *Client {
	c := New(func(k string) string {
		if k == "ABCD_TEST_KEY" {
			return canary
		}
		return ""
	}, nil)
	c.Limits = lim
	return c
}

func fastLimits() Limits {
	l := DefaultLimits()
	l.FirstByte, l.Idle, l.Total = 2*time.Second, 300*time.Millisecond, 5*time.Second
	return l
}

func call(srv string, model string) ports.ProviderCall {
	d := domainprovider.NewDenylist([]string{"deepseek/*"})
	return ports.ProviderCall{Name: "fake", BaseURL: srv + "/v1", KeyEnv: "ABCD_TEST_KEY", Model: model,
		Settings: map[string]string{"temperature": "0.2"}, Denied: d.Denies}
}

func reviewReq(role string) ports.ReviewRequest {
	return ports.ReviewRequest{Run: "r1", Lane: "lane-1", Role: role, Round: 1, Agent: "You are the reviewer.",
		Request: []byte("Review this diff."), Reply: reviewSchema, Tier: "economy"}
}

func dispatch(t *testing.T, c *Client, pc ports.ProviderCall, req ports.ReviewRequest) ports.ReviewOutcome {
	t.Helper()
	v, err := c.Open(pc)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(v.Route(), pc.Name))
	out, err := v.Review(context.Background(), req)
	assert.NilError(t, err, "a call's fault is a fallback reason, never an adapter error")
	assertNoCanary(t, "the return", string(out.Return))
	assertNoCanary(t, "the detail", out.FallbackDetail)
	assertNoCanary(t, "the model", out.ModelReported)
	if out.FallbackReason != "" {
		assert.Check(t, review.FallbackReason(out.FallbackReason).Valid(), out.FallbackReason)
		assert.Check(t, out.Return == nil, "a fallback carries no return")
		assert.Check(t, strings.HasPrefix(out.FallbackDetail, "provider "+pc.Name+": "), out.FallbackDetail)
		assert.Check(t, !strings.Contains(out.FallbackDetail, "://") && !strings.Contains(out.FallbackDetail, "127.0.0.1"),
			"the detail names no address: %s", out.FallbackDetail)
		rec := review.FallbackReceipt{At: "2026-01-02T15:04:05Z", Run: "r1", Lane: "lane-1", Round: 1, Role: review.Role(req.Role),
			Asked: pc.Name, Reason: review.FallbackReason(out.FallbackReason), Detail: out.FallbackDetail, Ran: "host"}
		assert.Check(t, rec.Check(), "the detail fits a fallback receipt")
	}
	return out
}

func TestAReviewIsStreamedCheckedAndRendered(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		half := len(shipReply) / 2
		sse(w, "m-1", []string{shipReply[:half], shipReply[half:]}, true)
	})
	out := dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
	v, err := review.ParseReviewerReturn(review.Ruthless, out.Return)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(v.Word, "SHIP"))
	assert.Check(t, is.Equal(out.ModelAsked, "m-1"))
	assert.Check(t, is.Equal(out.ModelReported, "m-1"))
	assert.Check(t, out.SchemaEnforced)
	assert.Check(t, is.DeepEqual(out.Usage, ports.TokenUsage{Prompt: 11, Completion: 7, Total: 18}))

	reqs := srv.got()
	assert.Assert(t, is.Len(reqs, 1))
	assert.Check(t, is.Equal(reqs[0].Auth, "Bearer "+canary), "the key is sent, and only in the header")
	body := reqs[0].Body
	assert.Check(t, is.Equal(body["model"], "m-1"))
	assert.Check(t, is.Equal(body["stream"], true))
	assert.Check(t, is.Equal(body["temperature"], 0.2))
	msgs := body["messages"].([]any)
	assert.Check(t, is.DeepEqual(msgs[0], map[string]any{"role": "system", "content": "You are the reviewer."}))
	assert.Check(t, is.DeepEqual(msgs[1], map[string]any{"role": "user", "content": "Review this diff."}))
	rf := body["response_format"].(map[string]any)
	assert.Check(t, is.Equal(rf["type"], "json_schema"))
	js := rf["json_schema"].(map[string]any)
	assert.Check(t, is.Equal(js["name"], "review_reply"))
	assert.Check(t, is.Equal(js["strict"], true))
	assert.Check(t, is.DeepEqual(js["schema"], map[string]any{"type": "object", "properties": map[string]any{"summary": map[string]any{"type": "string"}}, "additionalProperties": false}))
}

func TestAnAuditIsRenderedAsTheAuditorsJSON(t *testing.T) {
	reply := `{"schema_version":1,"intent":"itd-1","verdicts":[{"criterion":"ac-1","verdict":"MET","evidence":"a_test.go:1","concerns":""}],"summary":"1 of 1."}`
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		sse(w, "m-1", []string{"```json\n" + reply + "\n```"}, true)
	})
	out := dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("intent-auditor"))
	assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
	_, v, err := review.ParseAuditReturn(out.Return, "itd-1", []string{"ac-1"})
	assert.NilError(t, err)
	assert.Check(t, v.Pass)
	assert.Check(t, is.Equal(srv.got()[0].Body["response_format"].(map[string]any)["json_schema"].(map[string]any)["name"], "audit_return"))
}

// The fault table: every way a call fails gives its fallback reason, in the adapter's own words.
func TestEveryFaultFallsBack(t *testing.T) {
	hang := func(r *http.Request) { <-r.Context().Done() }
	for _, c := range []struct {
		name   string
		lim    func(*Limits)
		handle func(w http.ResponseWriter, r *http.Request, n int, body map[string]any)
		reason review.FallbackReason
		detail string
		model  string
	}{
		{"401", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			errorBody(w, 401, "Incorrect API key")
		},
			review.Refused, "refused the key (HTTP 401)", ""},
		{"429", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) { errorBody(w, 429, "slow down") },
			review.Refused, "rate limiting or out of quota", ""},
		{"500", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) { errorBody(w, 500, "boom") },
			review.Refused, "the provider failed (HTTP 500)", ""},
		{"404", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) { errorBody(w, 404, "no model") },
			review.Refused, "no such model or endpoint", ""},
		{"stalled stream", nil, func(w http.ResponseWriter, r *http.Request, _ int, _ map[string]any) {
			sse(w, "m-1", []string{`{"summary":`}, false)
			hang(r)
		}, review.Timeout, "the stream stalled: nothing arrived for 300ms", "m-1"},
		{"no first byte", func(l *Limits) { l.FirstByte = 200 * time.Millisecond }, func(w http.ResponseWriter, r *http.Request, _ int, _ map[string]any) { hang(r) },
			review.Timeout, "no answer began within 200ms", ""},
		{"total bound", func(l *Limits) { l.Total, l.Idle = 400*time.Millisecond, time.Second }, func(w http.ResponseWriter, r *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				fmt.Fprint(w, ": still thinking\n\n")
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
		}, review.Timeout, "ran past its bound of 400ms", ""},
		{"missing [DONE]", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "m-1", []string{shipReply}, false)
		},
			review.Unparsable, "ended before [DONE]", "m-1"},
		{"model change mid-stream", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"model":"m-1","choices":[{"delta":{"content":"{\"summary\":"}}]}`+"\n\n")
			fmt.Fprint(w, `data: {"model":"m-2","choices":[{"delta":{"content":"\"x\"}"}}]}`+"\n\ndata: [DONE]\n\n")
		}, review.Unparsable, "changed model mid-answer", "m-1"},
		{"oversize answer", func(l *Limits) { l.MaxAnswer = 64 }, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "m-1", []string{strings.Repeat("x", 40), strings.Repeat("y", 40)}, true)
		}, review.Invalid, "the answer passed 64 bytes", "m-1"},
		{"oversize event", func(l *Limits) { l.MaxEvent = 128 }, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "m-1", []string{strings.Repeat("x", 400)}, true)
		}, review.Invalid, "an event passed 128 bytes", ""},
		{"oversize stream", func(l *Limits) { l.MaxStream = 1024 }, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "m-1", strings.Split(strings.Repeat("abcdefgh", 200), "h"), true)
		}, review.Invalid, "the stream passed 1024 bytes", "m-1"},
		{"oversize body", func(l *Limits) { l.MaxBody = 2048 }, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"model":"m-1","choices":[{"message":{"content":%q}}]}`, strings.Repeat("z", 4096))
		}, review.Invalid, "the answer's body passed 2048 bytes", ""},
		{"invalid JSON reply", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "m-1", []string{"Looks good to me! SHIP"}, true)
		}, review.Invalid, "the reply broke 1 of its schema's rules", "m-1"},
		{"a reply off its role", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "m-1", []string{`{"summary":"x","verdict":"APPROVE","findings":[]}`}, true)
		}, review.Invalid, `"verdict" is "APPROVE"`, "m-1"},
		{"an event that is not JSON", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {not json\n\ndata: [DONE]\n\n")
		}, review.Unparsable, "not JSON", ""},
		{"denied model reported", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "DeepSeek/r1:free", []string{shipReply}, true)
		}, review.Invalid, "answered with DeepSeek/r1:free, which the denylist entry deepseek/* denies; the answer was discarded", "DeepSeek/r1:free"},
		{"a model id abcd does not accept", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			sse(w, "http://evil.example/m", []string{shipReply}, true)
		}, review.Unparsable, "a model id abcd does not accept", ""},
		{"an error mid-stream", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"error\":{\"message\":%q}}\n\n", "overloaded "+canary)
		}, review.Refused, "reported an error in its answer", ""},
		{"the model declines", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"model":"m-1","choices":[{"delta":{"refusal":"I can't help with that."}}]}`+"\n\ndata: [DONE]\n\n")
		}, review.Refused, "declined to answer", "m-1"},
		{"a content filter", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"model":"m-1","choices":[{"delta":{"content":""},"finish_reason":"content_filter"}]}`+"\n\ndata: [DONE]\n\n")
		}, review.Refused, "content filter", "m-1"},
		{"cut at the token limit", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"model":"m-1","choices":[{"delta":{"content":"{\"summary\":\"x"},"finish_reason":"length"}]}`+"\n\ndata: [DONE]\n\n")
		}, review.Invalid, "cut at the provider's token limit", "m-1"},
		{"neither events nor JSON", nil, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>login</html>")
		}, review.Unparsable, "neither a stream of events nor JSON", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := serve(t, c.handle)
			lim := fastLimits()
			if c.lim != nil {
				c.lim(&lim)
			}
			out := dispatch(t, testClient(lim), call(srv.URL, "m-1"), reviewReq("ruthless-reviewer"))
			assert.Check(t, is.Equal(out.FallbackReason, string(c.reason)), out.FallbackDetail)
			assert.Check(t, is.Contains(out.FallbackDetail, c.detail))
			assert.Check(t, is.Equal(out.ModelAsked, "m-1"))
			assert.Check(t, is.Equal(out.ModelReported, c.model))
		})
	}
}

func TestAServerThatRejectsResponseFormatIsAskedOnceMoreWithoutIt(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, body map[string]any) {
		if _, ok := body["response_format"]; ok {
			errorBody(w, 400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.")
			return
		}
		sse(w, "m-1", []string{shipReply}, true)
	})
	out := dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
	assert.Check(t, !out.SchemaEnforced, "the receipt says the reply was checked here, not by the server")
	_, err := review.ParseReviewerReturn(review.Ruthless, out.Return)
	assert.NilError(t, err)
	reqs := srv.got()
	assert.Assert(t, is.Len(reqs, 2), "one retry, no more")
	_, again := reqs[1].Body["response_format"]
	assert.Check(t, !again)

	// Rejected both times: the second answer's fault stands, and there is no third call.
	srv = serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		errorBody(w, 400, "response_format is not supported")
	})
	out = dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, "refused"))
	assert.Check(t, is.Len(srv.got(), 2))

	// Refused inside a 200 stream, as some servers do: the same one retry.
	srv = serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, body map[string]any) {
		if _, ok := body["response_format"]; ok {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"error":{"message":"'response_format' is not supported"}}`+"\n\n")
			return
		}
		sse(w, "m-1", []string{shipReply}, true)
	})
	out = dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
	assert.Check(t, !out.SchemaEnforced)
	assert.Check(t, is.Len(srv.got(), 2))

	// A 400 for another reason is not retried.
	srv = serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		errorBody(w, 400, "messages too long")
	})
	out = dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Contains(out.FallbackDetail, "refused the request (HTTP 400)"))
	assert.Check(t, is.Len(srv.got(), 1))
}

func TestNothingIsSentThatCouldNotBeHonoured(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		sse(w, "m-1", []string{shipReply}, true)
	})
	for _, c := range []struct {
		name   string
		change func(*ports.ProviderCall, *ports.ReviewRequest)
		detail string
	}{
		{"a setting no provider accepts", func(pc *ports.ProviderCall, _ *ports.ReviewRequest) {
			pc.Settings = map[string]string{"logit_bias": "1"}
		},
			"the setting logit_bias is not a setting a provider accepts"},
		{"a setting out of range", func(pc *ports.ProviderCall, _ *ports.ReviewRequest) { pc.Settings = map[string]string{"top_p": "7"} },
			"the setting top_p takes a number from 0 to 1"},
		{"an unset key", func(pc *ports.ProviderCall, _ *ports.ReviewRequest) { pc.KeyEnv = "ABCD_UNSET_KEY" },
			"the environment variable ABCD_UNSET_KEY (its key_env) is not set"},
		{"a role with no reply", func(_ *ports.ProviderCall, r *ports.ReviewRequest) { r.Role = "implementer" }, "has no reply a provider can give"},
		{"a reply schema that is not JSON", func(_ *ports.ProviderCall, r *ports.ReviewRequest) { r.Reply = []byte("{") }, "is not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pc, req := call(srv.URL, "m-1"), reviewReq("ruthless-reviewer")
			c.change(&pc, &req)
			out := dispatch(t, testClient(fastLimits()), pc, req)
			assert.Check(t, is.Equal(out.FallbackReason, "failed"))
			assert.Check(t, is.Contains(out.FallbackDetail, c.detail))
		})
	}
	assert.Check(t, is.Len(srv.got(), 0), "nothing reached the server")
	_, err := testClient(fastLimits()).Open(ports.ProviderCall{Name: "p", BaseURL: "http://api.example.com/v1"})
	assert.Check(t, err != nil && strings.Contains(err.Error(), "http only to a loopback"), "%v", err)
}

func TestUnreachableRedirectedAndInterrupted(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	assert.NilError(t, err)
	closed := "http://" + l.Addr().String()
	assert.NilError(t, l.Close())
	out := dispatch(t, testClient(fastLimits()), call(closed, "m-1"), reviewReq("security-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, "unreachable"))
	assert.Check(t, is.Contains(out.FallbackDetail, "refused the connection"))

	var followed atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Store(true) }))
	defer target.Close()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ map[string]any) {
		http.Redirect(w, r, target.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	})
	out = dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("security-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, "refused"))
	assert.Check(t, is.Contains(out.FallbackDetail, "redirect (HTTP 307), which abcd does not follow"))
	assert.Check(t, !followed.Load(), "the redirect was followed")

	slow := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ map[string]any) { <-r.Context().Done() })
	v, err := testClient(fastLimits()).Open(call(slow.URL, "m-1"))
	assert.NilError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	got, err := v.Review(ctx, reviewReq("security-reviewer"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(got.FallbackReason, "interrupted"))
}

func TestNoProxyIsEverUsed(t *testing.T) {
	var proxied atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		proxied.Store(true)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		sse(w, "m-1", []string{shipReply}, true)
	})
	out := dispatch(t, testClient(fastLimits()), call(srv.URL, "m-1"), reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
	assert.Check(t, !proxied.Load())
}

func TestAKeyFileIsReadAtCallTime(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		sse(w, "m-1", []string{shipReply}, true)
	})
	path := filepath.Join(t.TempDir(), "k")
	c := testClient(fastLimits())
	c.ReadKeyFile = os.ReadFile
	pc := call(srv.URL, "m-1")
	pc.KeyEnv, pc.KeyFile = "", path
	out := dispatch(t, c, pc, reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, "failed"), "no file yet")
	assert.NilError(t, os.WriteFile(path, []byte(canary+"\n"), 0o600))
	out = dispatch(t, c, pc, reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
	assert.Check(t, is.Equal(srv.got()[0].Auth, "Bearer "+canary))

	pc.KeyFile = "" // a keyless local server: no Authorization header at all
	dispatch(t, c, pc, reviewReq("ruthless-reviewer"))
	assert.Check(t, is.Equal(srv.got()[1].Auth, ""))
}

func TestVerifyProvesTheKeyAndModel(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, body map[string]any) {
		_, schema := body["response_format"]
		if schema || body["model"] != "m-1" {
			errorBody(w, 400, "bad")
			return
		}
		sse(w, "m-1-2026", []string{"ok"}, true)
	})
	check, err := testClient(fastLimits()).Verify(context.Background(), call(srv.URL, "m-1"))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(check, ports.ProviderCheck{ModelReported: "m-1-2026"}))

	bad := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) { errorBody(w, 401, "no") })
	check, err = testClient(fastLimits()).Verify(context.Background(), call(bad.URL, "m-1"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(check.FallbackReason, "refused"))
	assertNoCanary(t, "the check", check.Detail)

	denied := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		sse(w, "deepseek/v3", []string{"ok"}, true)
	})
	check, _ = testClient(fastLimits()).Verify(context.Background(), call(denied.URL, "m-1"))
	assert.Check(t, is.Equal(check.FallbackReason, "invalid"))
	assert.Check(t, is.Contains(check.Detail, "denylist"))
}

func TestDetailScrubsTheKeyInEveryEncoding(t *testing.T) {
	for _, f := range canaryForms()[:5] {
		got := Detail("p", "the server said "+f+" twice: "+f, canary)
		assertNoCanary(t, "Detail", got)
		assert.Check(t, is.Contains(got, "[key]"))
	}
	long := Detail("p", strings.Repeat("é", 400)+"\n://", "")
	assert.Check(t, len(long) <= review.DetailBytes+len("…"))
	assert.Check(t, !strings.Contains(Detail("p", "at http://x\nnext", ""), "://"))
	assert.Check(t, !strings.Contains(Detail("p", "a\nb", ""), "\n"))
}
