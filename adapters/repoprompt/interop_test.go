package repoprompt

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

// standIn starts tools/mcp/rp/standin.mjs, a RepoPrompt stand-in on the official MCP TypeScript SDK
// (McpServer with the Streamable HTTP transport), in one of its modes, and returns its address.
func standIn(t *testing.T, mode string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("interop with the MCP TypeScript SDK runs without -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the interop stand-in needs it (make test installs tools/node_modules and runs this)")
	}
	tools, err := filepath.Abs(filepath.Join("..", "..", "tools"))
	assert.NilError(t, err)
	if _, err := os.Stat(filepath.Join(tools, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("tools/node_modules has no @modelcontextprotocol/sdk: run make tools-deps (make test does)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join(tools, "mcp", "rp", "standin.mjs"), mode)
	cmd.Dir = tools
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		if s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	select {
	case line := <-lines:
		var ready struct{ URL string }
		assert.NilError(t, json.Unmarshal([]byte(line), &ready), line)
		return ready.URL
	case <-time.After(20 * time.Second):
		t.Fatal("the stand-in did not start")
	}
	return ""
}

// A review through the SDK's server, end to end: the request arrives whole as message, with
// new_chat, and the answer is a return the loop's own verifier records.
func TestInteropTypeScriptSDK(t *testing.T) {
	req := []byte(strings.Repeat("# request.md: the agent, the brief, the record and the diff ✓\n", 4000))
	sum := sha256.Sum256(req)
	for _, mode := range []string{"sse", "json"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			url := standIn(t, mode)
			v := Dialer{Base: Config{Version: "test"}}.RP(url, "")
			out, err := v.Review(context.Background(), ports.ReviewRequest{Role: "ruthless-reviewer", Request: req})
			assert.NilError(t, err)
			assert.Assert(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
			assert.Check(t, is.Contains(string(out.Return), fmt.Sprintf("received %d bytes sha256 %s new_chat true", len(req), hex.EncodeToString(sum[:]))))
			verdict, err := review.ParseReviewerReturn(review.Ruthless, out.Return)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(verdict.Word, "SHIP"))
		})
	}
}

// The stand-in's fault modes, each its reason.
func TestInteropTypeScriptSDKFaults(t *testing.T) {
	for _, c := range []struct {
		mode   string
		cfg    Config
		reason review.FallbackReason
		detail string
	}{
		{"missing", Config{}, review.Refused, "offers no tool oracle_send"},
		{"nomessage", Config{}, review.Refused, "takes no message"},
		{"iserror", Config{}, review.Refused, "No workspace is open"},
		{"drop", Config{}, review.Unreachable, "closed the connection"},
		{"oversize", Config{}, review.Invalid, "larger than a return may be"},
		{"slow", Config{CallTimeout: time.Second}, review.Timeout, "longer than 1s answering"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			url := standIn(t, c.mode)
			out, err := Dialer{Base: c.cfg}.RP(url, "").Review(context.Background(), ports.ReviewRequest{Request: []byte(request)})
			assert.NilError(t, err)
			assert.Check(t, is.Equal(out.FallbackReason, string(c.reason)), out.FallbackDetail)
			assert.Check(t, is.Contains(out.FallbackDetail, c.detail))
			assert.Check(t, !contains(out.FallbackDetail, "127.0.0.1", "://"), out.FallbackDetail)
			t.Logf("%s: %s: %s", c.mode, out.FallbackReason, out.FallbackDetail)
		})
	}
}
