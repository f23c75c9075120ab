// Command rpbench measures one RepoPrompt review session's overhead: initialize,
// notifications/initialized, tools/list, tools/call and the closing DELETE against a local
// Streamable HTTP server that answers everything at once, so what is timed is the client. abcd's
// client (adapters/repoprompt) runs beside the official MCP TypeScript SDK client (Client with
// StreamableHTTPClientTransport, tools/mcp/rpbench/sdkclient.mjs) running the same session against
// the same server, in alternating rounds so both see the same machine. It prints p50 and p99 per
// session for each and the ratio; the target is abcd at most a third of the SDK's.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/adapters/repoprompt"
	"github.com/abcd-dev/abcd/ports"
)

func main() {
	serve := flag.Bool("serve", false, "serve the instant MCP server on a loopback port and print its URL")
	n := flag.Int("n", 300, "sessions per client per round")
	rounds := flag.Int("rounds", 3, "alternating rounds")
	flag.Parse()
	var err error
	if *serve {
		err = serveInstant()
	} else {
		err = run(*n, *rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rpbench:", err)
		os.Exit(1)
	}
}

// request stands in for request.md: 16 KiB of text.
var request = strings.Repeat("# Review request\n\nThe agent, the brief, the record and the lane's diff.\n", 230)

func run(n, rounds int) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	sdkClient := filepath.Join(root, "tools", "mcp", "rpbench", "sdkclient.mjs")
	if _, err := os.Stat(filepath.Join(root, "tools", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		return errors.New("tools/node_modules has no @modelcontextprotocol/sdk: run make tools-deps")
	}
	// The server runs apart, so neither client shares a process with it.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	srv := exec.Command(self, "-serve")
	srv.Stderr = os.Stderr
	out, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("the server did not start: %w", err)
	}
	url := strings.TrimSpace(line)

	v := repoprompt.Dialer{}.RP(url, "")
	goSession := func() (time.Duration, error) {
		start := time.Now()
		res, err := v.Review(context.Background(), ports.ReviewRequest{Role: "ruthless-reviewer", Request: []byte(request)})
		d := time.Since(start)
		if err != nil || res.FallbackReason != "" {
			return 0, fmt.Errorf("abcd's client: %w %s %s", err, res.FallbackReason, res.FallbackDetail)
		}
		return d, nil
	}
	sdkSessions := func(count int) ([]time.Duration, error) {
		cmd := exec.Command("node", sdkClient, url, fmt.Sprint(count))
		cmd.Dir = filepath.Join(root, "tools")
		cmd.Stderr = os.Stderr
		cmd.Stdin = strings.NewReader(request)
		b, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("the SDK client: %w", err)
		}
		var ms []float64
		if err := json.Unmarshal(b, &ms); err != nil {
			return nil, fmt.Errorf("the SDK client's timings: %w", err)
		}
		d := make([]time.Duration, len(ms))
		for i, m := range ms {
			d[i] = time.Duration(m * float64(time.Millisecond))
		}
		return d, nil
	}

	// Warm-up, not measured: the server, the loopback, Node's module cache.
	for range 50 {
		if _, err := goSession(); err != nil {
			return err
		}
	}
	if _, err := sdkSessions(50); err != nil {
		return err
	}
	var ours, sdk []time.Duration
	for range rounds {
		for range n {
			d, err := goSession()
			if err != nil {
				return err
			}
			ours = append(ours, d)
		}
		// The SDK's first sessions in a fresh process pay for loading it: each round drops its first
		// tenth, which is warm-up.
		d, err := sdkSessions(n + n/10)
		if err != nil {
			return err
		}
		sdk = append(sdk, d[n/10:]...)
	}
	p := func(d []time.Duration, q int) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[min(len(s)-1, len(s)*q/100)].Microseconds()) / 1000
	}
	fmt.Printf("RepoPrompt review session (initialize, initialized, tools/list, tools/call, DELETE) against an instant local server, %d sessions each:\n", len(ours))
	fmt.Printf("  %-36s %8s %8s\n", "", "p50 ms", "p99 ms")
	fmt.Printf("  %-36s %8.3f %8.3f\n", "abcd (adapters/repoprompt)", p(ours, 50), p(ours, 99))
	fmt.Printf("  %-36s %8.3f %8.3f\n", "@modelcontextprotocol/sdk 1.x client", p(sdk, 50), p(sdk, 99))
	fmt.Printf("  %-36s %8.2f %8.2f  (target: at most 0.33)\n", "ratio abcd / SDK", p(ours, 50)/p(sdk, 50), p(ours, 99)/p(sdk, 99))
	return nil
}

// serveInstant is a Streamable HTTP MCP server that answers every request at once with JSON: a
// session id, the newest handshake revision, one oracle_send tool, a fixed verdict, 405 to GET and
// 204 to DELETE.
func serveInstant() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	tool := `{"name":"oracle_send","description":"Send a message","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"new_chat":{"type":"boolean"}},"required":["message"]}}`
	answer, _ := json.Marshal("## Verdict\n\nSHIP\n\nNothing to fix.\n")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodPost:
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch m.Method {
		case "initialize":
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			w.Header().Set("Mcp-Session-Id", hex.EncodeToString(b))
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"instant","version":"1"}}`
		case "tools/list":
			result = `{"tools":[` + tool + `]}`
		case "tools/call":
			result = `{"content":[{"type":"text","text":` + string(answer) + `}]}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	})
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	return http.Serve(ln, h)
}
