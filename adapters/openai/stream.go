package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// failure is why a call did not return: a fallback reason and abcd's own words.
type failure struct {
	reason review.FallbackReason
	detail string
	// formatRejected: the server refused the request for its response_format (a 4xx naming it).
	formatRejected bool
}

func failf(reason review.FallbackReason, format string, args ...any) *failure {
	return &failure{reason: reason, detail: fmt.Sprintf(format, args...)}
}

// fallback fills the outcome's reason and detail: prefixed with the provider's name, scrubbed of the
// key in every encoding, one plain line, bounded.
func (p *provider) fallback(out ports.ReviewOutcome, f *failure, key string) ports.ReviewOutcome {
	out.Return = nil
	out.FallbackReason = string(f.reason)
	out.FallbackDetail = Detail(p.call.Name, f.detail, key)
	return out
}

// Detail is the one way a failure's words leave the adapter: "provider <name>: <words>", with the
// key scrubbed in every encoding it could take, control characters and any URL's scheme separator
// removed, bounded to review.DetailBytes on a rune boundary.
func Detail(name, words, key string) string {
	s := secret.Scrub("provider "+name+": "+words, key)
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "://", ": //")
	return text.ClipAt(s, review.DetailBytes)
}

// answer is what a completed stream assembled.
type answer struct {
	content string
	model   string
	finish  string
	usage   ports.TokenUsage
}

// Causes a call's own clocks end it with, told apart from the caller's.
var (
	errFirstByte = errors.New("first byte")
	errIdle      = errors.New("idle")
	errTotal     = errors.New("total")
)

// complete makes one call and reads its answer within the limits.
func (c *Client) complete(ctx context.Context, call ports.ProviderCall, key string, body []byte, lim Limits) (answer, *failure) {
	target, err := endpoint(call.BaseURL)
	if err != nil {
		return answer{}, failf(review.Failed, "%s", err)
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	callCtx, stop := context.WithTimeoutCause(callCtx, lim.Total, errTotal)
	defer stop()
	clock := newClock(lim, cancel)
	defer clock.stop()

	req, err := http.NewRequestWithContext(callCtx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return answer{}, failf(review.Failed, "the request could not be made")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", "abcd")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return answer{}, c.classify(ctx, callCtx, lim, err, false)
	}
	defer res.Body.Close()
	clock.first()
	r := &meter{r: res.Body, clock: clock, max: lim.MaxStream}

	switch {
	case res.StatusCode >= 300 && res.StatusCode < 400:
		return answer{}, failf(review.Refused, "the provider answered with a redirect (HTTP %d), which abcd does not follow: give the final address as base_url", res.StatusCode)
	case res.StatusCode != http.StatusOK:
		return answer{}, statusFailure(res.StatusCode, r, lim)
	}
	media, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	var ans answer
	var f *failure
	switch media {
	case "text/event-stream":
		ans, f = readStream(r, lim)
	case "application/json":
		ans, f = readWhole(r, lim)
	default:
		return answer{}, failf(review.Unparsable, "the provider answered with %s, neither a stream of events nor JSON", text.Clip(media))
	}
	if f != nil && f.reason == "" {
		// A read that failed: the clocks, the caller, or the connection.
		return ans, c.classify(ctx, callCtx, lim, errors.New(f.detail), true)
	}
	if f == nil && ans.model != "" && !config.ValidModelID(ans.model) {
		f = failf(review.Unparsable, "the provider reported a model id abcd does not accept")
		ans.model = ""
	}
	return ans, f
}

// classify names a transport error: the caller's end (interrupted), one of the call's clocks
// (timeout), or the network (unreachable); midStream says the answer had begun.
func (c *Client) classify(parent, callCtx context.Context, lim Limits, err error, midStream bool) *failure {
	if parent.Err() != nil {
		return failf(review.Interrupted, "the step was interrupted while the provider worked")
	}
	switch cause := context.Cause(callCtx); {
	case errors.Is(cause, errFirstByte):
		return failf(review.Timeout, "no answer began within %s", lim.FirstByte)
	case errors.Is(cause, errIdle):
		return failf(review.Timeout, "the stream stalled: nothing arrived for %s", lim.Idle)
	case errors.Is(cause, errTotal):
		return failf(review.Timeout, "the call ran past its bound of %s", lim.Total)
	}
	var dns *net.DNSError
	switch {
	case midStream:
		return failf(review.Unparsable, "the connection closed before the stream ended")
	case errors.Is(err, syscall.ECONNREFUSED):
		return failf(review.Unreachable, "the provider refused the connection")
	case errors.As(err, &dns):
		return failf(review.Unreachable, "the provider's host name does not resolve")
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return failf(review.Unreachable, "the TLS handshake with the provider failed")
	}
	return failf(review.Unreachable, "the provider could not be reached")
}

// statusFailure names an HTTP error in abcd's words. A 4xx whose body names response_format is
// marked so the call is made once more without it. The body is read, bounded, and never quoted.
func statusFailure(code int, r io.Reader, lim Limits) *failure {
	body, _ := io.ReadAll(io.LimitReader(r, min(lim.MaxBody, 64<<10)))
	lower := strings.ToLower(string(body))
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return failf(review.Refused, "the provider refused the key (HTTP %d): check the key its key_env or key_file holds", code)
	case code == http.StatusTooManyRequests:
		return failf(review.Refused, "the provider is rate limiting or out of quota (HTTP 429)")
	case code == http.StatusNotFound:
		return failf(review.Refused, "the provider has no such model or endpoint (HTTP 404): check base_url's version path and the model")
	case code >= 500:
		return failf(review.Refused, "the provider failed (HTTP %d)", code)
	case code >= 400 && (strings.Contains(lower, "response_format") || strings.Contains(lower, "json_schema")):
		return &failure{reason: review.Refused, detail: fmt.Sprintf("the provider refused the reply schema as response_format (HTTP %d)", code), formatRejected: true}
	}
	return failf(review.Refused, "the provider refused the request (HTTP %d)", code)
}

// chunk is one streamed event, or a whole non-streamed completion.
type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"delta"`
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
		Total      int `json:"total_tokens"`
		Details    *struct {
			Cached int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// assembler folds chunks into an answer, holding the model steady and the answer bounded.
type assembler struct {
	ans   answer
	b     strings.Builder
	limit int64
}

func (a *assembler) add(ch chunk, whole bool) *failure {
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		// Some servers report a refused request inside a 200 stream; one that names response_format
		// is the same refusal as a 4xx naming it.
		if lower := strings.ToLower(string(ch.Error)); strings.Contains(lower, "response_format") || strings.Contains(lower, "json_schema") {
			return &failure{reason: review.Refused, detail: "the provider refused the reply schema as response_format, in its stream", formatRejected: true}
		}
		return failf(review.Refused, "the provider reported an error in its answer")
	}
	if ch.Model != "" {
		if a.ans.model != "" && ch.Model != a.ans.model {
			return failf(review.Unparsable, "the stream changed model mid-answer; the answer was discarded")
		}
		a.ans.model = ch.Model
	}
	if u := ch.Usage; u != nil {
		a.ans.usage = ports.TokenUsage{Prompt: u.Prompt, Completion: u.Completion, Total: u.Total}
		if d := u.Details; d != nil && d.Cached > 0 && d.Cached <= u.Prompt {
			a.ans.usage.Cached = d.Cached
		}
	}
	for i, choice := range ch.Choices {
		if i > 0 {
			break // one choice is asked for; another is ignored
		}
		content, refusal := choice.Delta.Content, choice.Delta.Refusal
		if whole {
			content, refusal = choice.Message.Content, choice.Message.Refusal
		}
		if refusal != nil && *refusal != "" {
			return failf(review.Refused, "the model declined to answer")
		}
		if content != nil {
			if int64(a.b.Len()+len(*content)) > a.limit {
				return failf(review.Invalid, "the answer passed %d bytes, the most an answer may be", a.limit)
			}
			a.b.WriteString(*content)
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			a.ans.finish = *choice.FinishReason
			if a.ans.finish == "content_filter" {
				return failf(review.Refused, "the provider's content filter stopped the answer")
			}
		}
	}
	return nil
}

// readStream reads server-sent events until data: [DONE]. An event over MaxEvent, a stream over
// MaxStream, an answer over MaxAnswer, an event that is not JSON, a model that changes, and a stream
// that ends before [DONE] each fail the call. A failure with no reason is a read error for classify.
func readStream(r io.Reader, lim Limits) (answer, *failure) {
	br := bufio.NewReaderSize(r, 64<<10)
	a := &assembler{limit: lim.MaxAnswer}
	var data bytes.Buffer
	hasData := false
	for {
		line, err := readLine(br, lim.MaxEvent)
		if err != nil {
			var f *failure
			if errors.As(err, &f) {
				return a.ans, f
			}
			if errors.Is(err, io.EOF) {
				return a.ans, failf(review.Unparsable, "the stream ended before [DONE]")
			}
			return a.ans, &failure{detail: err.Error()}
		}
		switch {
		case len(line) == 0: // the event is complete
			if !hasData {
				continue
			}
			payload := bytes.TrimSpace(data.Bytes())
			data.Reset()
			hasData = false
			if string(payload) == "[DONE]" {
				a.ans.content = a.b.String()
				return a.ans, nil
			}
			var ch chunk
			if err := json.Unmarshal(payload, &ch); err != nil {
				return a.ans, failf(review.Unparsable, "an event of the stream is not JSON")
			}
			if f := a.add(ch, false); f != nil {
				return a.ans, f
			}
		case line[0] == ':': // a comment, often a keep-alive
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			if string(field) != "data" {
				continue // event:, id:, retry: carry nothing abcd reads
			}
			value = bytes.TrimPrefix(value, []byte(" "))
			if int64(data.Len()+len(value)+1) > lim.MaxEvent {
				return a.ans, failf(review.Invalid, "an event passed %d bytes, the most an event may be", lim.MaxEvent)
			}
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		}
	}
}

// readLine reads one line without its ending (\n or \r\n), at most max bytes.
func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if int64(len(line)+len(part)) > max+2 {
			return nil, failf(review.Invalid, "an event passed %d bytes, the most an event may be", max)
		}
		line = append(line, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return nil, io.EOF // a last line with no ending: the stream was cut
			}
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// readWhole reads a non-streamed completion, for a server that answers JSON to a streamed request.
func readWhole(r io.Reader, lim Limits) (answer, *failure) {
	data, err := io.ReadAll(io.LimitReader(r, lim.MaxBody+1))
	if err != nil {
		var f *failure
		if errors.As(err, &f) {
			return answer{}, f
		}
		return answer{}, &failure{detail: err.Error()}
	}
	if int64(len(data)) > lim.MaxBody {
		return answer{}, failf(review.Invalid, "the answer's body passed %d bytes, the most a body may be", lim.MaxBody)
	}
	var ch chunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return answer{}, failf(review.Unparsable, "the answer is not a chat completion")
	}
	a := &assembler{limit: lim.MaxAnswer}
	if f := a.add(ch, true); f != nil {
		return a.ans, f
	}
	a.ans.content = a.b.String()
	return a.ans, nil
}

// meter counts a body against MaxStream and tells the clock about every byte that arrives.
type meter struct {
	r     io.Reader
	clock *clock
	n     int64
	max   int64
}

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if n > 0 {
		m.clock.data()
		if m.n+int64(n) > m.max {
			// Only what fits is handed on, so the stream cannot complete past its bound.
			n = int(m.max - m.n)
			m.n = m.max
			return n, failf(review.Invalid, "the stream passed %d bytes, the most a stream may be", m.max)
		}
		m.n += int64(n)
	}
	return n, err
}

// Error makes a failure an error, so a limit hit inside a read travels through bufio and io.
func (f *failure) Error() string { return f.detail }

// clock ends a call that waits too long for its first byte, or then too long for the next.
type clock struct {
	mu     sync.Mutex
	lim    Limits
	cancel context.CancelCauseFunc
	timer  *time.Timer
	begun  bool
}

func newClock(lim Limits, cancel context.CancelCauseFunc) *clock {
	c := &clock{lim: lim, cancel: cancel}
	c.timer = time.AfterFunc(lim.FirstByte, func() { cancel(errFirstByte) })
	return c
}

// first is the response's arrival: from now on the idle bound applies.
func (c *clock) first() { c.data() }

// data is a byte arriving.
func (c *clock) data() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.begun {
		c.begun = true
		c.timer.Stop()
		c.timer = time.AfterFunc(c.lim.Idle, func() { c.cancel(errIdle) })
		return
	}
	c.timer.Reset(c.lim.Idle)
}

func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer.Stop()
}
