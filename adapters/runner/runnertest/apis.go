// Package runnertest holds what the runner adapter's tests stand on: loopback stand-ins of the
// vendors' APIs the real CLIs are pointed at (with a dummy key), and the fake CLI's scripts. It is
// imported by tests only.
package runnertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Reply is one scripted model reply: text, tool calls, or an error status.
type Reply struct {
	Text  string
	Tools []ToolCall
	// Status, when not 0 or 200, answers with that HTTP status and an error body of ErrorType.
	Status    int
	ErrorType string
	// Cut ends the reply's stream in the middle, with no end.
	Cut bool
	// Hang answers nothing until the client goes away (a vendor's API that stalls mid-call).
	Hang bool
}

// Rule answers the requests whose body holds every When string and no Unless string, so a stand-in
// serving several steps at once (lanes in parallel, an implementer and the reviewers) answers each
// from what it asks: which brief, and how far its conversation has gone (a tool call's id is in
// every request after the call).
type Rule struct {
	When, Unless []string
	Reply        Reply
	// Make, when set, builds the reply from the request's body instead (a path the brief names).
	Make func(body string) Reply
}

func (r Rule) matches(body string) bool {
	for _, w := range r.When {
		if !strings.Contains(body, w) {
			return false
		}
	}
	for _, u := range r.Unless {
		if strings.Contains(body, u) {
			return false
		}
	}
	return true
}

// ToolCall is a tool the model calls.
type ToolCall struct {
	ID    string
	Name  string
	Input any
}

// API is a stand-in of a vendor's API on loopback: it answers each model request with the next
// scripted reply (the last one again once the script runs out), and keeps what it was sent.
type API struct {
	*httptest.Server
	mu     sync.Mutex
	script []Reply
	next   int
	rules  []Rule
	// Unmatched counts the requests no rule answered (answered with 400), when rules are set.
	unmatched int
	Requests  []Request
	// Keys are the credentials requests carried (x-api-key, Authorization, x-goog-api-key).
	Keys []string
}

// Request is one model request the stand-in took.
type Request struct {
	Path string
	Body map[string]any
	// Raw is the body as it came.
	Raw string
}

// Route makes the stand-in answer by rules in place of its script: the first rule a request matches
// answers it; a request no rule matches is answered 400 and counted (Unmatched).
func (a *API) Route(rules ...Rule) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rules = rules
}

// Unmatched is how many requests no rule answered.
func (a *API) Unmatched() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.unmatched
}

// Matching lists the raw bodies of the requests that held s.
func (a *API) Matching(s string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, r := range a.Requests {
		if strings.Contains(r.Raw, s) {
			out = append(out, r.Raw)
		}
	}
	return out
}

func (a *API) take(r *http.Request) (Reply, map[string]any, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return Reply{}, nil, err
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		return Reply{}, nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Requests = append(a.Requests, Request{Path: r.URL.Path, Body: v, Raw: string(body)})
	for _, h := range []string{"x-api-key", "Authorization", "x-goog-api-key"} {
		if k := r.Header.Get(h); k != "" {
			a.Keys = append(a.Keys, strings.TrimPrefix(k, "Bearer "))
		}
	}
	if a.rules != nil {
		for _, rule := range a.rules {
			if rule.matches(string(body)) {
				if rule.Make != nil {
					return rule.Make(string(body)), v, nil
				}
				return rule.Reply, v, nil
			}
		}
		a.unmatched++
		return Reply{Status: http.StatusBadRequest, ErrorType: "invalid_request_error"}, v, nil
	}
	if len(a.script) == 0 {
		return Reply{Text: "OK"}, v, nil
	}
	i := a.next
	if i >= len(a.script) {
		i = len(a.script) - 1
	}
	a.next++
	return a.script[i], v, nil
}

// answer takes a model request's scripted reply; a reply that is an error status is answered here
// with the vendor's error body, and ok is false.
func (a *API) answer(w http.ResponseWriter, r *http.Request, errorBody func(Reply) string) (Reply, map[string]any, bool) {
	reply, req, err := a.take(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return Reply{}, nil, false
	}
	if reply.Hang {
		select {
		case <-r.Context().Done():
		case <-time.After(hangBound):
		}
		return Reply{}, nil, false
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		fmt.Fprint(w, errorBody(reply))
		return Reply{}, nil, false
	}
	return reply, req, true
}

// hangBound ends a hanging reply that its client never left, so the stand-in can be closed.
const hangBound = 2 * time.Minute

// Count is how many model requests the stand-in answered.
func (a *API) Count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.Requests)
}

type flushWriter struct {
	w http.ResponseWriter
}

func (f flushWriter) event(name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(f.w, "event: %s\n", name)
	}
	fmt.Fprintf(f.w, "data: %s\n\n", b)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// Anthropic stands in for the Anthropic Messages API (POST /v1/messages, streamed): Claude Code
// reaches it through ANTHROPIC_BASE_URL.
func Anthropic(script ...Reply) *API {
	a := &API{script: script}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		reply, req, ok := a.answer(w, r, func(reply Reply) string {
			return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":"stand-in error %d"}}`, reply.ErrorType, reply.Status)
		})
		if !ok {
			return
		}
		model, _ := req["model"].(string)
		w.Header().Set("Content-Type", "text/event-stream")
		f := flushWriter{w}
		n := a.Count()
		f.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": fmt.Sprintf("msg_%03d", n), "type": "message", "role": "assistant",
			"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 1}}})
		i := 0
		if reply.Text != "" {
			f.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			f.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": reply.Text}})
			if reply.Cut {
				return
			}
			f.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
			i++
		}
		for _, t := range reply.Tools {
			input, _ := json.Marshal(t.Input)
			f.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": t.ID, "name": t.Name, "input": map[string]any{}}})
			f.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
			f.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
			i++
		}
		stop := "end_turn"
		if len(reply.Tools) > 0 {
			stop = "tool_use"
		}
		f.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 7}})
		f.event("message_stop", map[string]any{"type": "message_stop"})
	}))
	return a
}

// OpenAI stands in for the OpenAI Responses API (POST /v1/responses, streamed): Codex reaches it
// through a model provider whose base_url is the stand-in's /v1.
func OpenAI(script ...Reply) *API {
	a := &API{script: script}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
			http.NotFound(w, r)
			return
		}
		reply, req, ok := a.answer(w, r, func(reply Reply) string {
			return fmt.Sprintf(`{"error":{"type":%q,"code":%q,"message":"stand-in error %d"}}`, reply.ErrorType, reply.ErrorType, reply.Status)
		})
		if !ok {
			return
		}
		model, _ := req["model"].(string)
		n := a.Count()
		id := fmt.Sprintf("resp_%03d", n)
		w.Header().Set("Content-Type", "text/event-stream")
		f := flushWriter{w}
		seq := 0
		ev := func(typ string, v map[string]any) {
			v["type"] = typ
			v["sequence_number"] = seq
			seq++
			f.event(typ, v)
		}
		resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
		ev("response.created", map[string]any{"response": resp})
		var output []any
		idx := 0
		if reply.Text != "" {
			msgID := fmt.Sprintf("msg_%03d", n)
			item := map[string]any{"id": msgID, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": item})
			ev("response.content_part.added", map[string]any{"output_index": idx, "item_id": msgID, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			ev("response.output_text.delta", map[string]any{"output_index": idx, "item_id": msgID, "content_index": 0, "delta": reply.Text})
			if reply.Cut {
				return
			}
			ev("response.output_text.done", map[string]any{"output_index": idx, "item_id": msgID, "content_index": 0, "text": reply.Text})
			part := map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}
			ev("response.content_part.done", map[string]any{"output_index": idx, "item_id": msgID, "content_index": 0, "part": part})
			done := map[string]any{"id": msgID, "type": "message", "role": "assistant", "status": "completed", "content": []any{part}}
			ev("response.output_item.done", map[string]any{"output_index": idx, "item": done})
			output = append(output, done)
			idx++
		}
		for _, t := range reply.Tools {
			var item map[string]any
			if s, ok := t.Input.(string); ok { // a custom tool (apply_patch) takes its input as text
				item = map[string]any{"id": "ctc_" + t.ID, "type": "custom_tool_call", "status": "completed", "call_id": t.ID, "name": t.Name, "input": s}
			} else {
				args, _ := json.Marshal(t.Input)
				item = map[string]any{"id": "fc_" + t.ID, "type": "function_call", "status": "completed", "call_id": t.ID, "name": t.Name, "arguments": string(args)}
			}
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": item})
			ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
			output = append(output, item)
			idx++
		}
		resp["status"] = "completed"
		resp["output"] = output
		resp["usage"] = map[string]any{"input_tokens": 21, "input_tokens_details": map[string]any{"cached_tokens": 3}, "output_tokens": 8,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 29}
		ev("response.completed", map[string]any{"response": resp})
	}))
	return a
}

// Gemini stands in for the Gemini API (POST /v1beta/models/<model>:streamGenerateContent?alt=sse, and
// :generateContent): Gemini CLI reaches it through GOOGLE_GEMINI_BASE_URL.
func Gemini(script ...Reply) *API {
	a := &API{script: script}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		model, verb, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
		if r.Method != http.MethodPost || !ok || (verb != "streamGenerateContent" && verb != "generateContent" && verb != "countTokens") {
			http.NotFound(w, r)
			return
		}
		if verb == "countTokens" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"totalTokens":12}`)
			return
		}
		reply, _, ok := a.answer(w, r, func(reply Reply) string {
			return fmt.Sprintf(`{"error":{"code":%d,"message":"stand-in error %d","status":%q}}`, reply.Status, reply.Status, reply.ErrorType)
		})
		if !ok {
			return
		}
		var parts []any
		if reply.Text != "" {
			parts = append(parts, map[string]any{"text": reply.Text})
		}
		for _, t := range reply.Tools {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": t.Name, "args": t.Input, "id": t.ID}})
		}
		chunk := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 17, "candidatesTokenCount": 6, "totalTokenCount": 23}, "modelVersion": model}
		if verb == "generateContent" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(chunk)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := flushWriter{w}
		if reply.Cut {
			f.event("", map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": reply.Text}}}, "index": 0}}})
			return
		}
		f.event("", chunk)
	}))
	return a
}
