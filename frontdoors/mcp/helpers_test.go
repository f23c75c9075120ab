package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
)

// publishedSchemas reads schemas/v1 from the repository into the fake catalog, so the server under
// test serves exactly what the binary embeds.
func publishedSchemas(t testing.TB) fake.Schemas {
	t.Helper()
	dir := filepath.Join("..", "..", "schemas", "v1")
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	assert.NilError(t, err)
	var idx contract.Index
	assert.NilError(t, json.Unmarshal(data, &idx))
	files := map[string][]byte{}
	for _, e := range idx.Schemas {
		b, err := os.ReadFile(filepath.Join(dir, e.File))
		assert.NilError(t, err)
		files[e.Name] = b
	}
	return fake.Schemas{Idx: idx, Files: files}
}

var testFacts = ports.RepoFacts{
	Root:           "/work/repo",
	Git:            true,
	Initialized:    true,
	RepoConfig:     ports.FileFact{Path: "/work/repo/.abcd/config.json", Present: true},
	RepoRouting:    ports.FileFact{Path: "/work/repo/.abcd/config/oracle-routing.json"},
	MachineConfig:  ports.FileFact{Path: "/home/ada/.abcd/config.json"},
	MachineRouting: ports.FileFact{Path: "/home/ada/.abcd/oracle-routing.json"},
	Records:        map[string]int{".abcd/work/issues/open": 2},
}

// testApp is the core over fakes with the published schemas.
func testApp(t testing.TB) *app.App {
	return &app.App{
		Inspector: fake.Inspector{Facts: testFacts},
		Schemas:   publishedSchemas(t),
		Config: fake.Config{Files: ports.ConfigFiles{
			RepoConfig:     ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1}`)},
			MachineConfig:  ports.ConfigFile{Path: "/home/ada/.abcd/config.json"},
			RepoRouting:    ports.ConfigFile{Path: "/work/repo/.abcd/config/oracle-routing.json"},
			MachineRouting: ports.ConfigFile{Path: "/home/ada/.abcd/oracle-routing.json"},
		}},
		Roster:   fake.Roster{},
		Git:      fake.NewGit("c0"),
		Setup:    fake.NewSetup("/work/repo", "/home/ada/.abcd"),
		Prompter: &fake.Prompter{TTY: true, Answers: []bool{true, true, true, true}},
		Diag:     &fake.Diag{},
		Build:    app.BuildInfo{Version: "1.2.3", Commit: "abc1234", Go: "go1.26.8"},
	}
}

func newServer(t testing.TB, a *app.App) (*Server, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	s, err := New(a, Options{Log: log})
	assert.NilError(t, err)
	return s, log
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// reply is one response as the wire carries it.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	line string
}

// exchange writes lines to a stdio server, closes its input and returns every line it wrote, each
// checked to be one JSON-RPC response.
func exchange(t *testing.T, s *Server, lines ...string) []reply {
	t.Helper()
	var out bytes.Buffer
	in := strings.Join(lines, "\n") + "\n"
	err := s.ServeStdio(context.Background(), strings.NewReader(in), &out)
	assert.NilError(t, err)
	return parseReplies(t, out.String())
}

func parseReplies(t *testing.T, out string) []reply {
	t.Helper()
	var replies []reply
	for _, line := range strings.SplitAfter(out, "\n") {
		if line == "" {
			continue
		}
		assert.Assert(t, strings.HasSuffix(line, "\n"), "a message ends with a newline: %q", line)
		var r reply
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		assert.NilError(t, dec.Decode(&r), "stdout carries only JSON-RPC responses, got %q", line)
		assert.Equal(t, r.JSONRPC, "2.0", line)
		assert.Assert(t, (r.Result == nil) != (r.Error == nil), "exactly one of result and error: %s", line)
		r.line = line
		replies = append(replies, r)
	}
	return replies
}

// byID finds the reply to id, failing when there is not exactly one.
func byID(t *testing.T, replies []reply, id string) reply {
	t.Helper()
	var found []reply
	for _, r := range replies {
		if string(r.ID) == id {
			found = append(found, r)
		}
	}
	assert.Assert(t, len(found) == 1, "want one reply with id %s, got %d in %v", id, len(found), lines(replies))
	return found[0]
}

func lines(replies []reply) []string {
	out := make([]string, len(replies))
	for i, r := range replies {
		out[i] = strings.TrimSpace(r.line)
	}
	return out
}

func request(id any, method string, params any) string {
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func notification(method string, params any) string {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	return string(b)
}

func modernMeta() map[string]any {
	return map[string]any{
		metaProtocolVersion:    Modern,
		metaClientCapabilities: map[string]any{},
		metaClientInfo:         map[string]any{"name": "test", "version": "1"},
	}
}

// modernParams are params for a 2026-07-28 request: extra members plus _meta.
func modernParams(extra map[string]any) map[string]any {
	p := map[string]any{"_meta": modernMeta()}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func initializeLine(id any, version string) string {
	return request(id, "initialize", map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"},
	})
}

// toolResult is a CallToolResult as the wire carries it, structuredContent kept as bytes.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	ResultType        string          `json:"resultType"`
	Meta              json.RawMessage `json:"_meta"`
}

func decodeToolResult(t *testing.T, r reply) toolResult {
	t.Helper()
	assert.Assert(t, r.Error == nil, "want a result, got %s", r.line)
	var tr toolResult
	dec := json.NewDecoder(bytes.NewReader(r.Result))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(&tr), r.line)
	assert.Assert(t, len(tr.Content) == 1 && tr.Content[0].Type == "text", r.line)
	return tr
}

// refusalOf decodes the refusal document an isError result carries.
func refusalOf(t *testing.T, r reply) map[string]any {
	t.Helper()
	tr := decodeToolResult(t, r)
	assert.Assert(t, tr.IsError, "want isError, got %s", r.line)
	assert.Assert(t, tr.StructuredContent == nil, "an error result carries no structuredContent: %s", r.line)
	var doc map[string]any
	assert.NilError(t, json.Unmarshal([]byte(tr.Content[0].Text), &doc))
	for _, k := range []string{"kind", "code", "what", "why", "remedy", "exit_code"} {
		_, ok := doc[k]
		assert.Assert(t, ok, "refusal document lacks %s: %s", k, tr.Content[0].Text)
	}
	return doc
}

// liveSession drives a stdio server interactively.
type liveSession struct {
	t       *testing.T
	in      *io.PipeWriter
	replies chan reply
	done    chan error
}

func startLive(t *testing.T, s *Server) *liveSession {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ls := &liveSession{t: t, in: inW, replies: make(chan reply, 64), done: make(chan error, 1)}
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		ls.done <- err
	}()
	go func() {
		sc := bufio.NewReader(outR)
		for {
			line, err := sc.ReadString('\n')
			if line != "" {
				var r reply
				if json.Unmarshal([]byte(line), &r) == nil {
					r.line = line
					ls.replies <- r
				}
			}
			if err != nil {
				close(ls.replies)
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return ls
}

func (ls *liveSession) send(line string) {
	ls.t.Helper()
	_, err := io.WriteString(ls.in, line+"\n")
	assert.NilError(ls.t, err)
}

// sendWithin is send for a server that may have stopped reading: it fails the test when the line
// is not taken within timeout, rather than blocking it.
func (ls *liveSession) sendWithin(line string, timeout time.Duration) {
	ls.t.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(ls.in, line+"\n")
		written <- err
	}()
	select {
	case err := <-written:
		assert.NilError(ls.t, err)
	case <-time.After(timeout):
		ls.t.Fatalf("the server did not read %.80s within %s", line, timeout)
	}
}

func (ls *liveSession) next(timeout time.Duration) (reply, error) {
	select {
	case r, ok := <-ls.replies:
		if !ok {
			return reply{}, io.EOF
		}
		return r, nil
	case <-time.After(timeout):
		return reply{}, fmt.Errorf("no reply within %s", timeout)
	}
}
