//go:build unix

package soak

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestARouteWorkingBlocksNoOtherCallOnTheServer: one `abcd mcp serve` takes a review that
// RepoPrompt (a stand-in that answers after 3 s) works on, and a capture sent meanwhile is answered
// at once: calls that write queue on the record's and the runs' locks, which the route's call does
// not hold, never on the server.
func TestARouteWorkingBlocksNoOtherCallOnTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("a RepoPrompt stand-in held working: without -short")
	}
	url := rpStandInMode(t, "slow")
	r := newRepo(t)
	r.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"oracle":{"review":"rp"}}`)
	home := filepath.Join(filepath.Dir(r.root), "home", "config.json")
	r.write(home, `{"schema_version":1,"oracle":{"rp":{"url":"`+url+`"}}}`)
	assert.NilError(t, os.Chmod(home, 0o600))
	r.git(r.root, "add", "-A")
	r.git(r.root, "commit", "-q", "-m", "abcd")
	r.git(r.root, "checkout", "-q", "-b", "feature")
	r.write("feature.txt", "a feature\n")
	r.git(r.root, "add", "feature.txt")
	r.git(r.root, "commit", "-q", "-m", "feature")

	cmd := exec.Command(binary, "mcp", "serve")
	cmd.Dir, cmd.Env = r.root, r.env
	in, err := cmd.StdinPipe()
	assert.NilError(t, err)
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	send := func(msg string) {
		_, err := fmt.Fprintln(in, msg)
		assert.NilError(t, err)
	}
	answered := map[float64]time.Duration{}
	replies := bufio.NewScanner(out)
	replies.Buffer(make([]byte, 1<<20), 16<<20)
	start := time.Now()
	read := func() map[string]any {
		assert.Assert(t, replies.Scan(), "the server answers")
		var m map[string]any
		assert.NilError(t, json.Unmarshal(replies.Bytes(), &m))
		if id, ok := m["id"].(float64); ok {
			answered[id] = time.Since(start)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	start = time.Now()
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"review","arguments":{"base":"main"}}}`)
	time.Sleep(300 * time.Millisecond) // the review is with the route by now
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"capture","arguments":{"text":"Noticed while a review was out"}}}`)
	for len(answered) < 3 {
		m := read()
		if res, ok := m["result"].(map[string]any); ok {
			assert.Assert(t, res["isError"] != true, "%v", m)
		}
	}
	assert.Assert(t, answered[3] < answered[2], "the capture (%s) was answered before the review (%s)", answered[3], answered[2])
	assert.Assert(t, answered[2] >= 3*time.Second, "the review waited on the route: %s", answered[2])
	t.Logf("a capture sent while RepoPrompt worked on a review was answered after %s; the review after %s", answered[3], answered[2])
}

// TestAnMCPCaptureCancelledWhileItWaitsWritesNothing: `abcd mcp serve` takes a capture while
// another process holds the record's lock; the client cancels it with notifications/cancelled. It is
// never answered and never written, the server goes on answering, and once the lock is free the
// next capture is written and answered.
func TestAnMCPCaptureCancelledWhileItWaitsWritesNothing(t *testing.T) {
	r := newRepo(t)
	r.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"lock":{"wait_ms":60000}}`)
	lock, err := os.Open(r.path(".abcd"))
	assert.NilError(t, err)
	defer lock.Close()
	assert.NilError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))

	cmd := exec.Command(binary, "mcp", "serve")
	cmd.Dir, cmd.Env = r.root, r.env
	in, err := cmd.StdinPipe()
	assert.NilError(t, err)
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	send := func(msg string) {
		_, err := fmt.Fprintln(in, msg)
		assert.NilError(t, err)
	}
	replies := bufio.NewScanner(out)
	replies.Buffer(make([]byte, 1<<20), 16<<20)
	read := func() map[string]any {
		assert.Assert(t, replies.Scan(), "the server answers")
		var m map[string]any
		assert.NilError(t, json.Unmarshal(replies.Bytes(), &m))
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"capture","arguments":{"text":"Cancelled while it waited"}}}`)
	time.Sleep(300 * time.Millisecond) // the capture waits on the lock by now
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the person pressed Esc"}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	m := read()
	assert.Check(t, is.Equal(m["id"], float64(3)), "the ping is answered, the cancelled capture is not: %v", m)
	assert.NilError(t, lock.Close()) // the other process lets go
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"capture","arguments":{"text":"Written once the lock was free"}}}`)
	m = read()
	assert.Check(t, is.Equal(m["id"], float64(4)), "%v", m)
	assert.Check(t, m["result"].(map[string]any)["isError"] != true, "%v", m)
	assert.NilError(t, in.Close())
	for replies.Scan() {
		t.Errorf("nothing may follow: %s", replies.Text())
	}
	issues := r.issues()
	assert.Check(t, is.Len(issues, 1), "only the capture not cancelled is written: %v", issues)
	for name := range issues {
		assert.Check(t, strings.Contains(r.read(".abcd/work/issues/open/"+name), "Written once the lock was free"))
	}
	r.noStrays()
}
