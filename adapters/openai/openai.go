// Package openai is the OpenAI-compatible provider route: a ports.Providers that opens a configured
// provider as a ports.Validator. A review is one streamed chat completion: the agent's definition as
// the system message, the self-contained request as the user message, and the reply's published
// schema as response_format (json_schema) so a server that can constrains the answer. The reply is
// checked and rendered into the return the host's agent would have written. Every way a call can
// fail is a fallback reason, in abcd's own words, never an address, a key or a server's text.
//
// The standard library only: no proxy (a provider is reached directly, loopback never through one),
// no redirect followed, every body, event, answer and stream bounded, and three clocks (first byte,
// idle, total) on every call.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// Limits bound one call. Tests shorten them; the defaults are the issue's.
type Limits struct {
	MaxBody   int64 // a non-streamed body, or an error body
	MaxEvent  int64 // one server-sent event
	MaxAnswer int64 // the assembled answer
	MaxStream int64 // the whole stream
	FirstByte time.Duration
	Idle      time.Duration
	Total     time.Duration
}

// DefaultLimits: 4 MiB per body, event and answer; 64 MiB per stream; the first byte within 5
// minutes, no more than 2 minutes without data, 30 minutes in all.
func DefaultLimits() Limits {
	return Limits{MaxBody: 4 << 20, MaxEvent: 4 << 20, MaxAnswer: 4 << 20, MaxStream: 64 << 20,
		FirstByte: 5 * time.Minute, Idle: 2 * time.Minute, Total: 30 * time.Minute}
}

// verifyLimits bound ahoy connect's one verification call: a person is waiting.
func verifyLimits(l Limits) Limits {
	l.FirstByte = min(l.FirstByte, time.Minute)
	l.Idle = min(l.Idle, time.Minute)
	l.Total = min(l.Total, 2*time.Minute)
	return l
}

// Client is the provider route. Getenv reads a key_env at call time; ReadKeyFile reads a key_file
// (files.ReadSecret in the binary).
type Client struct {
	Limits      Limits
	Getenv      func(string) string
	ReadKeyFile func(path string) ([]byte, error)
	http        *http.Client
}

var _ ports.Providers = (*Client)(nil)

// New is the route with the default limits and a transport that never uses a proxy and never
// follows a redirect.
func New(getenv func(string) string, readKeyFile func(string) ([]byte, error)) *Client {
	transport := &http.Transport{
		Proxy:                  nil, // no proxy: a provider is reached directly, and loopback never through one
		DialContext:            (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:    30 * time.Second,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Client{Limits: DefaultLimits(), Getenv: getenv, ReadKeyFile: readKeyFile, http: &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Open checks the call's address and returns the provider as a Validator; nothing is dialled.
func (c *Client) Open(call ports.ProviderCall) (ports.Validator, error) {
	if _, err := endpoint(call.BaseURL); err != nil {
		return nil, fmt.Errorf("provider %s: %w", call.Name, err)
	}
	return &provider{c: c, call: call}, nil
}

// endpoint is {base_url}/chat/completions, from an address the configuration admits.
func endpoint(base string) (string, error) {
	raw, _ := json.Marshal(base)
	if err := config.CheckValue("oracle.api.p.base_url", raw); err != nil {
		return "", fmt.Errorf("its base URL %w", err)
	}
	u, err := url.Parse(strings.TrimRight(base, "/") + "/chat/completions")
	if err != nil {
		return "", errors.New("its base URL does not parse")
	}
	return u.String(), nil
}

type provider struct {
	c    *Client
	call ports.ProviderCall
}

func (p *provider) Route() string { return p.call.Name }

// Review sends the step and returns the rendered return, or why not. It returns an error only when
// the adapter itself is broken; every fault of the call is a fallback reason.
func (p *provider) Review(ctx context.Context, req ports.ReviewRequest) (ports.ReviewOutcome, error) {
	out := ports.ReviewOutcome{ModelAsked: p.call.Model}
	key, f := p.key()
	if f != nil {
		return p.fallback(out, f, key), nil
	}
	role := review.Role(req.Role)
	if role != review.Ruthless && role != review.Security && role != review.Auditor {
		return p.fallback(out, failf(review.Failed, "the role %s has no reply a provider can give", text.Clip(req.Role)), key), nil
	}
	schemaName := "review_reply"
	if role == review.Auditor {
		schemaName = "audit_return"
	}
	if len(req.Reply) > 0 && !json.Valid(req.Reply) {
		return p.fallback(out, failf(review.Failed, "the reply schema handed to the route is not JSON"), key), nil
	}
	sendFormat := len(req.Reply) > 0
	body, f := p.body(req.Agent, string(req.Request), sendFormat, schemaName, req.Reply)
	if f != nil {
		return p.fallback(out, f, key), nil
	}
	ans, f := p.c.complete(ctx, p.call, key, body, p.c.Limits)
	if f != nil && f.formatRejected && sendFormat {
		// The server does not take response_format: once more without it, and the reply is checked
		// here alone.
		sendFormat = false
		body, _ = p.body(req.Agent, string(req.Request), false, schemaName, nil)
		ans, f = p.c.complete(ctx, p.call, key, body, p.c.Limits)
	}
	out.SchemaEnforced = sendFormat
	out.ModelReported, out.Usage = ans.model, ans.usage
	if f != nil {
		return p.fallback(out, f, key), nil
	}
	if f := p.denied(ans.model); f != nil {
		return p.fallback(out, f, key), nil
	}
	ret, f := render(role, ans)
	if f != nil {
		return p.fallback(out, f, key), nil
	}
	out.Return = ret
	return out, nil
}

// Verify makes one small call with no response_format and reports the model that answered.
func (c *Client) Verify(ctx context.Context, call ports.ProviderCall) (ports.ProviderCheck, error) {
	p := &provider{c: c, call: call}
	if _, err := endpoint(call.BaseURL); err != nil {
		return ports.ProviderCheck{}, fmt.Errorf("provider %s: %w", call.Name, err)
	}
	key, f := p.key()
	if f == nil {
		var body []byte
		body, f = p.body("You check that a connection works. Answer with the single word ok.", "ok", false, "", nil)
		if f == nil {
			var ans answer
			ans, f = c.complete(ctx, call, key, body, verifyLimits(c.Limits))
			if f == nil {
				f = p.denied(ans.model)
			}
			if f == nil {
				return ports.ProviderCheck{ModelReported: ans.model}, nil
			}
		}
	}
	out := p.fallback(ports.ReviewOutcome{}, f, key)
	return ports.ProviderCheck{FallbackReason: out.FallbackReason, Detail: out.FallbackDetail}, nil
}

// key reads the credential the call names, at call time.
func (p *provider) key() (string, *failure) {
	switch {
	case p.call.KeyEnv != "":
		if p.c.Getenv == nil {
			return "", failf(review.Failed, "this build reads no environment")
		}
		k := strings.TrimSpace(p.c.Getenv(p.call.KeyEnv))
		if k == "" {
			return "", failf(review.Failed, "the environment variable %s (its key_env) is not set", p.call.KeyEnv)
		}
		return k, nil
	case p.call.KeyFile != "":
		if p.c.ReadKeyFile == nil {
			return "", failf(review.Failed, "this build reads no key file")
		}
		k, err := p.c.ReadKeyFile(p.call.KeyFile)
		if err != nil {
			return "", failf(review.Failed, "its key_file could not be read: %s", err)
		}
		return strings.TrimSpace(string(k)), nil
	}
	return "", nil
}

// body is the request: the model, the two messages, streaming with usage, the settings, and the
// reply schema as response_format when sendFormat.
func (p *provider) body(system, user string, sendFormat bool, schemaName string, schema []byte) ([]byte, *failure) {
	msgs := []map[string]string{}
	if system != "" {
		msgs = append(msgs, map[string]string{"role": "system", "content": system})
	}
	msgs = append(msgs, map[string]string{"role": "user", "content": user})
	m := map[string]any{
		"model":          p.call.Model,
		"messages":       msgs,
		"stream":         true,
		"stream_options": map[string]bool{"include_usage": true},
	}
	for k, v := range p.call.Settings {
		if err := config.CheckProviderSetting(k, json.RawMessage(v)); err != nil {
			return nil, failf(review.Failed, "the setting %s %s; it was not sent, and nothing was", text.Clip(k), err)
		}
		if _, taken := m[k]; taken {
			return nil, failf(review.Failed, "the setting %s would replace a member of the request", text.Clip(k))
		}
		m[k] = json.RawMessage(v)
	}
	if sendFormat {
		m["response_format"] = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": schemaName, "strict": true, "schema": json.RawMessage(schema)}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, failf(review.Failed, "the request could not be written as JSON")
	}
	if int64(b.Len()) > p.c.Limits.MaxBody {
		return nil, failf(review.Failed, "the request is %d bytes, over the %d a body may be", b.Len(), p.c.Limits.MaxBody)
	}
	return b.Bytes(), nil
}

// denied refuses an answer from a model the denylist denies: it is discarded.
func (p *provider) denied(model string) *failure {
	if p.call.Denied == nil || model == "" {
		return nil
	}
	if entry, ok := p.call.Denied(model); ok {
		return failf(review.Invalid, "the provider answered with %s, which the denylist entry %s denies; the answer was discarded", model, entry)
	}
	return nil
}

// render checks the reply against its role's shape and writes the host's return.
func render(role review.Role, ans answer) ([]byte, *failure) {
	text := unfence(ans.content)
	var ret []byte
	var err error
	if role == review.Auditor {
		var a review.AuditReturn
		if a, err = review.DecodeAuditReply([]byte(text)); err == nil {
			ret, err = review.RenderAuditReply(a)
		}
	} else {
		var r review.ReviewReply
		if r, err = review.DecodeReviewReply(role, []byte(text)); err == nil {
			ret, err = review.RenderReviewReply(role, r)
		}
	}
	if err == nil {
		return ret, nil
	}
	detail := "the reply did not match its schema"
	var re *review.ReturnError
	if errors.As(err, &re) && len(re.Problems) > 0 {
		detail = fmt.Sprintf("the reply broke %d of its schema's rules", len(re.Problems))
		if first := re.Problems[0]; !strings.Contains(first, "://") {
			detail += "; the first: " + first
		}
	}
	if ans.finish == "length" {
		detail = "the answer was cut at the provider's token limit; " + detail
	}
	return nil, failf(review.Invalid, "%s", detail)
}

// unfence takes a reply out of one ```json fence, which a model not held to the schema often adds.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return s
	}
	t = strings.TrimSuffix(t, "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		return t[i+1:]
	}
	return s
}
