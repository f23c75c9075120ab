package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
)

// A loopback fake of an OpenAI-compatible provider, so ahoy_connect's verification call answers and
// the parity and fail-closed matrices reach its result. It lives as long as the test binary.
func init() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"model":"qwen2.5:7b","choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	explicitSamples["ahoy_connect"] = []string{
		fmt.Sprintf(`{"name":"local","base_url":%q,"model":"qwen2.5:7b","tiers":["local=qwen2.5:7b"]}`, srv.URL+"/v1"),
	}
}
