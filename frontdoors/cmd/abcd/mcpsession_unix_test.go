//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// mcpSession is `abcd mcp serve` over stdio, started in dir with env, for a test to speak JSON-RPC to
// one line at a time; the process is ended when the test ends.
type mcpSession struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  *bufio.Scanner
	stderr *strings.Builder
}

func startMCP(t *testing.T, dir string, env []string) *mcpSession {
	t.Helper()
	s := &mcpSession{cmd: exec.Command(binary, "mcp", "serve"), stderr: &strings.Builder{}}
	s.cmd.Dir, s.cmd.Env, s.cmd.Stderr = dir, env, s.stderr
	var err error
	s.in, err = s.cmd.StdinPipe()
	assert.NilError(t, err)
	out, err := s.cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, s.cmd.Start())
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })
	s.lines = bufio.NewScanner(out)
	s.lines.Buffer(make([]byte, 1<<20), 16<<20)
	return s
}

// send writes one message.
func (s *mcpSession) send(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	_, err = s.in.Write(append(b, '\n'))
	assert.NilError(t, err)
}

// next reads the server's next line into v: stdout carries nothing but protocol.
func (s *mcpSession) next(t *testing.T, v any) {
	t.Helper()
	assert.Assert(t, s.lines.Scan(), "the server closed stdout: %v; stderr: %s", s.lines.Err(), s.stderr.String())
	assert.NilError(t, json.Unmarshal(s.lines.Bytes(), v), "stdout carries only protocol: %q", s.lines.Text())
}

// initialize opens the session as a client does: initialize, its answer, then initialized.
func (s *mcpSession) initialize(t *testing.T) {
	t.Helper()
	s.send(t, map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-11-25",
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}}})
	var r struct{ Error any }
	s.next(t, &r)
	assert.Check(t, r.Error == nil, "initialize: %s", s.lines.Text())
	s.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

// close ends stdin and waits for the server to exit cleanly.
func (s *mcpSession) close(t *testing.T) {
	t.Helper()
	assert.NilError(t, s.in.Close())
	assert.NilError(t, s.cmd.Wait(), "stderr: %s", s.stderr.String())
}
