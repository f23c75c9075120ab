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
	mu       sync.Mutex
	script   []Reply
	next     int
	Requests []Request
	// Keys are the credentials requests carried (x-api-key, Authorization, x-goog-api-key).
	Keys []string
}

// Request is one model request the stand-in took.
type Request struct {
	Path string
	Body map[string]any
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
	a.Requests = append(a.Requests, Request{Path: r.URL.Path, Body: v})
	for _, h := range []string{"x-api-key", "Authorization", "x-goog-api-key"} {
		if k := r.Header.Get(h); k != "" {
			a.Keys = append(a.Keys, strings.TrimPrefix(k, "Bearer "))
		}
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
		reply, req, err := a.take(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if reply.Status != 0 && reply.Status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(reply.Status)
			fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"stand-in error %d"}}`, reply.ErrorType, reply.Status)
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
