//go:build unix

package sessions

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// returnsSoon runs f and fails the test when it has not returned in a few seconds: a read that waits on a
// FIFO for ever fails the test rather than hanging it.
func returnsSoon(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10 s: it waits on a FIFO", what)
	}
}

// A FIFO or a device is refused before it is opened for reading: nothing waits for a writer.
func TestReadRefusesAFIFOAndADevice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s.jsonl")
	assert.NilError(t, syscall.Mkfifo(fifo, 0o600))
	s := Source{HomeDir: dir}
	for _, p := range []string{fifo, "/dev/zero"} {
		if _, err := os.Lstat(p); err != nil {
			continue // no such device here
		}
		returnsSoon(t, "reading "+p, func() {
			_, _, err := s.Read(context.Background(), p)
			r, ok := refusal.As(err)
			assert.Check(t, ok && r.Code == "history_transcript_invalid", "%s: %v", p, err)
			assert.Check(t, is.ErrorContains(err, "not a regular file"), p)
		})
	}
}

// A search of the machine's session folders opens no FIFO: one in the repository's own Claude Code
// folder is listed (its capture is refused by name), one where only its content could say where it
// ran (Codex) is passed over, and the search returns.
func TestFindOpensNoFIFO(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(home, "src", "proj")
	claude := filepath.Join(home, ".claude", "projects", "-"+claudeName(repo))
	codex := filepath.Join(home, ".codex", "sessions", "2026", "12", "01")
	gemini := filepath.Join(home, ".gemini", "tmp", "proj")
	write(t, filepath.Join(claude, "ok.jsonl"), `{"type":"user","cwd":"`+repo+`","sessionId":"ok"}`+"\n")
	write(t, filepath.Join(gemini, ".project_root"), repo+"\n")
	assert.NilError(t, os.MkdirAll(codex, 0o755))
	assert.NilError(t, os.MkdirAll(filepath.Join(gemini, "chats"), 0o755))
	for _, p := range []string{filepath.Join(claude, "fifo.jsonl"), filepath.Join(codex, "rollout-fifo.jsonl"), filepath.Join(gemini, "chats", "session-fifo.jsonl")} {
		assert.NilError(t, syscall.Mkfifo(p, 0o600))
	}
	s := Source{HomeDir: home}
	var found []ports.TranscriptFile
	returnsSoon(t, "Find", func() {
		var err error
		found, err = s.Find(context.Background(), []string{repo})
		assert.NilError(t, err)
	})
	var paths []string
	for _, f := range found {
		paths = append(paths, f.Path)
	}
	assert.Check(t, is.DeepEqual(paths, []string{filepath.Join(claude, "fifo.jsonl"), filepath.Join(claude, "ok.jsonl"), filepath.Join(gemini, "chats", "session-fifo.jsonl")}))
	for _, f := range found {
		if f.Path == filepath.Join(claude, "ok.jsonl") {
			continue
		}
		returnsSoon(t, "reading "+f.Path, func() {
			_, _, err := s.Read(context.Background(), f.Path)
			assert.Check(t, is.ErrorContains(err, "not a regular file"), f.Path)
		})
	}
}
