package canary

// The hostile servers: an OpenAI-compatible provider and a RepoPrompt MCP server, on loopback, each
// echoing the canary key in every place a server can put text abcd reads or might keep: the model
// id, a valid answer, headers, errors, a protocol revision, a session id. Each has modes, one fault a
// mode; the test sets the mode before each command.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// quoted is the canary in every spelling a hostile server tries, for quoting in what it says.
func quoted(key string) string {
	raw := []byte(key)
	body := key[strings.LastIndexAny(key[:len(key)/2], "-_")+1:]
	parts := []string{
		"as is " + key,
		"without its prefix " + body,
		"std " + base64.StdEncoding.EncodeToString(raw),
		"url " + base64.RawURLEncoding.EncodeToString(raw),
		"basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key)),
		"bearer " + base64.StdEncoding.EncodeToString([]byte("Authorization: Bearer "+key)),
		"body " + base64.StdEncoding.EncodeToString([]byte(body)),
		"query " + url.QueryEscape(key),
		"path " + url.PathEscape(key),
		"hex " + fmt.Sprintf("%x", raw),
	}
	return strings.Join(parts, "; ")
}

// headers sets response headers that carry the key.
func headers(w http.ResponseWriter, key string) {
	w.Header().Set("X-Echo-Key", key)
	w.Header().Set("X-Echo-Base64", base64.StdEncoding.EncodeToString([]byte(key)))
	w.Header().Set("Set-Cookie", "session="+url.QueryEscape(key))
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+key+`"`)
}

// provider is a hostile OpenAI-compatible server.
type provider struct {
	*httptest.Server
	key    string
	intent string
	mu     sync.Mutex
	mode   string
	calls  int
}

// Provider modes: each a way to echo the key.
var providerModes = []string{
	"echo",          // a valid streamed answer whose model id is the key and whose text quotes it
	"whole",         // a valid non-streamed answer, the same
	"unauthorized",  // 401, the key quoted in the body and headers
	"failed",        // 500, the same
	"error-event",   // a 200 stream whose event is an error quoting the key
	"content-type",  // a media type that spells the key
	"not-json",      // an event that is not JSON, quoting the key
	"cut",           // a stream that ends before [DONE], after text quoting the key
	"format",        // a 400 naming response_format and quoting the key, then a valid answer
	"model-changes", // the model id changes mid-stream, each a spelling of the key
	"bad-reply",     // a valid stream whose reply breaks its schema, quoting the key in the broken member
}

func newProvider(t *testing.T, key, intent string) *provider {
	p := &provider{key: key, intent: intent, mode: "echo"}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *provider) set(mode string) {
	p.mu.Lock()
	p.mode = mode
	p.mu.Unlock()
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	mode := p.mode
	p.calls++
	p.mu.Unlock()
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req struct {
		Messages       []struct{ Role, Content string } `json:"messages"`
		ResponseFormat *struct {
			JSONSchema struct{ Name string } `json:"json_schema"`
		} `json:"response_format"`
	}
	_ = json.Unmarshal(body, &req)
	headers(w, p.key)
	reply := p.reply(req.Messages, req.ResponseFormat != nil && req.ResponseFormat.JSONSchema.Name == "audit_return")
	switch mode {
	case "unauthorized", "failed":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(map[string]int{"unauthorized": 401, "failed": 500}[mode])
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":%q}}`, "Incorrect API key provided: "+quoted(p.key), p.key)
		return
	case "content-type":
		// A media type takes every character of the key but "/"; the client folds its case.
		w.Header().Set("Content-Type", "application/x-"+strings.ReplaceAll(p.key, "/", ""))
		fmt.Fprint(w, p.key)
		return
	case "format":
		if req.ResponseFormat != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"response_format json_schema is not supported for %s"}}`, quoted(p.key))
			return
		}
	case "whole":
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(map[string]any{"model": p.key, "choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
			"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
		w.Write(out)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	chunk := func(model, content string) map[string]any {
		return map[string]any{"id": "chatcmpl-" + p.key, "object": "chat.completion.chunk", "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}}}
	}
	switch mode {
	case "error-event":
		event(map[string]any{"error": map[string]any{"message": "the key " + quoted(p.key) + " was refused", "code": p.key}})
		return
	case "not-json":
		fmt.Fprintf(w, "data: {not json %s}\n\n", quoted(p.key))
		return
	case "cut":
		event(chunk(p.key, `{"summary":"`+p.key))
		return
	case "model-changes":
		event(chunk(p.key, "{"))
		event(chunk(base64.StdEncoding.EncodeToString([]byte(p.key)), `"summary":"x"}`))
		return
	case "bad-reply":
		reply = `{"summary":"` + p.key + `","verdict":"` + p.key + `","findings":[{"title":"` + p.key + `"}]}`
	}
	half := len(reply) / 2
	event(chunk(p.key, reply[:half]))
	event(chunk(p.key, reply[half:]))
	event(map[string]any{"id": "x", "model": p.key, "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// reply is a valid reply for the role the request is for (the agent's definition is the system
// message), quoting the key in every member that takes words.
func (p *provider) reply(msgs []struct{ Role, Content string }, audit bool) string {
	q := quoted(p.key)
	if audit {
		out, _ := json.Marshal(map[string]any{"schema_version": 1, "intent": p.intent, "summary": "Audited with " + q,
			"verdicts": []any{map[string]any{"criterion": "ac-1", "verdict": "MET_WITH_CONCERNS", "evidence": "the server said " + q, "concerns": "the key " + q}}})
		return string(out)
	}
	verdict, severity := "SHIP", "minor"
	for _, m := range msgs {
		if m.Role == "system" && strings.Contains(m.Content, "NEEDS-INPUT") {
			verdict, severity = "APPROVE", "low"
		}
		if m.Role == "system" && strings.Contains(m.Content, "You check that a connection works") {
			return "ok " + q
		}
	}
	out, _ := json.Marshal(map[string]any{"summary": "Reviewed; the key is " + q, "verdict": verdict,
		"findings": []any{map[string]any{"title": "key " + p.key, "location": "feature.txt:1", "severity": severity, "what": q, "fix": "rotate " + p.key}}})
	return string(out)
}

// repoPrompt is a hostile RepoPrompt MCP server (Streamable HTTP, JSON answers).
type repoPrompt struct {
	*httptest.Server
	key  string
	mu   sync.Mutex
	mode string
}

// RepoPrompt modes: each a way to echo the key.
var rpModes = []string{
	"echo",     // a valid answer quoting the key; the session id, server name and tool description spell it
	"is-error", // the tool result is an error quoting the key
	"rpc-error",
	"revision", // a protocol revision that spells the key
	"failed",   // HTTP 500 with the key in the body and headers
	"argument", // the tool requires an argument named after the key
	"garbage",  // a tools/call answer that is not JSON, quoting the key
}

func newRepoPrompt(t *testing.T, key string) *repoPrompt {
	rp := &repoPrompt{key: key, mode: "echo"}
	rp.Server = httptest.NewServer(http.HandlerFunc(rp.serve))
	t.Cleanup(rp.Close)
	return rp
}

func (rp *repoPrompt) URL() string { return rp.Server.URL + "/mcp" }

func (rp *repoPrompt) set(mode string) {
	rp.mu.Lock()
	rp.mode = mode
	rp.mu.Unlock()
}

func (rp *repoPrompt) serve(w http.ResponseWriter, r *http.Request) {
	rp.mu.Lock()
	mode := rp.mode
	rp.mu.Unlock()
	headers(w, rp.key)
	session := base64.RawURLEncoding.EncodeToString([]byte(rp.key))
	w.Header().Set("Mcp-Session-Id", session)
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusOK)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	_ = json.Unmarshal(body, &m)
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if mode == "failed" {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, quoted(rp.key))
		return
	}
	answer := func(result any) {
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		w.Write(out)
	}
	q := quoted(rp.key)
	switch m.Method {
	case "initialize":
		version := "2025-11-25"
		if mode == "revision" {
			version = rp.key
		}
		answer(map[string]any{"protocolVersion": version, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": rp.key, "version": q}, "instructions": q})
	case "tools/list":
		schema := map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string", "description": q}}, "required": []any{"message"}}
		if mode == "argument" {
			schema["properties"].(map[string]any)[rp.key] = map[string]any{"type": "string"}
			schema["required"] = []any{"message", rp.key}
		}
		answer(map[string]any{"tools": []any{map[string]any{"name": "oracle_send", "description": q, "inputSchema": schema}}})
	case "tools/call":
		msg, _ := m.Params["arguments"].(map[string]any)["message"].(string)
		verdict := "SHIP"
		if strings.Contains(msg, "NEEDS-INPUT") {
			verdict = "APPROVE"
		}
		switch mode {
		case "is-error":
			answer(map[string]any{"content": []any{map[string]any{"type": "text", "text": "failed: " + q}}, "isError": true})
		case "rpc-error":
			w.Header().Set("Content-Type", "application/json")
			out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": q, "data": rp.key}})
			w.Write(out)
		case "garbage":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, "{%s", q)
		default:
			answer(map[string]any{"content": []any{map[string]any{"type": "text", "text": "# Review\n\nThe key: " + q + "\n\n## Verdict\n\n" + verdict + "\n\nNothing else; " + q + "\n"}}})
		}
	default:
		answer(map[string]any{})
	}
}

// hostileRunner writes a stand-in of Claude Code into dir: a script that answers --version and
// --help as the CLI does, and a proving call with a stream that names a key as its model and its
// session, quotes every key in its answer (or, failing, in its error) and on stderr.
func hostileRunner(t *testing.T, dir string, fail bool, flags []string, keys ...string) string {
	var q []string
	for i := len(keys) - 1; i >= 0; i-- { // the CLI's own key last: a detail's bound keeps the others
		q = append(q, quoted(keys[i]))
	}
	words := strings.Join(q, " | ")
	line := func(v any) string {
		data, _ := json.Marshal(v)
		return string(data)
	}
	lines := []string{
		line(map[string]any{"type": "system", "subtype": "init", "cwd": dir, "session_id": keys[0], "tools": []any{"Read"}, "mcp_servers": []any{},
			"model": keys[0], "permissionMode": "dontAsk"}),
		line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_1", "model": keys[0], "role": "assistant", "type": "message",
			"content": []any{map[string]any{"type": "text", "text": "OK " + words}}}, "session_id": keys[0]}),
	}
	result := map[string]any{"type": "result", "subtype": "success", "is_error": false, "num_turns": 1, "session_id": keys[0], "terminal_reason": "completed",
		"api_error_status": nil, "result": "OK " + words, "total_cost_usd": 0, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
		"modelUsage": map[string]any{keys[0]: map[string]any{"inputTokens": 1, "outputTokens": 1}}, "permission_denials": []any{}}
	if fail {
		result["is_error"], result["api_error_status"], result["api_error_type"], result["terminal_reason"] = true, 401, "authentication_error", "api_error"
		result["result"] = "Failed to authenticate. API Error: 401 invalid x-api-key " + words
	}
	lines = append(lines, line(result))
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo '2.1.332 (Claude Code) " + strings.ReplaceAll(words, "'", "") + "'; exit 0;;\n" +
		"--help) cat <<'HELP'\nUsage: claude [options]\n  " + strings.Join(flags, "\n  ") + "\nHELP\nexit 0;;\nesac\ncat >/dev/null\n" +
		"cat <<'STREAM'\n" + strings.Join(lines, "\n") + "\nSTREAM\necho '" + strings.ReplaceAll(words, "'", "") + "' >&2\n"
	if fail {
		script += "exit 1\n"
	}
	p := filepath.Join(dir, fmt.Sprintf("claude-%v", fail))
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
