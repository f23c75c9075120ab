//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/history"
)

// captureBound is past any capture's time on a loaded machine: a capture still running then waits
// on something it should have refused.
const captureBound = 60 * time.Second

// boundedRun runs abcd in the sandbox's repository, killed past captureBound. (icmd's WithTimeout
// is not honoured by RunCmd, which reads the timeout before the options apply: it is set here on the
// command itself.)
func (s sandbox) boundedRun(args ...string) *icmd.Result {
	cmd := icmd.Command(binary, args...)
	cmd.Timeout = captureBound
	return icmd.RunCmd(cmd, icmd.Dir(s.root), icmd.WithEnv(append(s.env(), "PATH="+os.Getenv("PATH"))...))
}

// mkfifo makes a FIFO at path; the test's end opens it for writing once, which lets go any reader
// still waiting on it (an abcd that failed this test), so no process outlives the test.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	assert.NilError(t, syscall.Mkfifo(path, 0o600))
	t.Cleanup(func() {
		if fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = syscall.Close(fd)
		}
	})
}

// A FIFO named as a session file is refused before it is opened (exit 2, nothing written), where the
// capture used to wait for a writer for ever; capture --all lists it refused and keeps the rest.
func TestHistoryCaptureRefusesAFIFO(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s, _ := histSandbox(t)
	kept := s.claudeSession(t, "fifo-neighbour", "a session beside the FIFO")
	fifo := filepath.Join(filepath.Dir(kept), "fifo-1.jsonl")
	mkfifo(t, fifo)

	before := s.snapshot(t)
	res := s.boundedRun("history", "capture", fifo, "--json")
	assert.Assert(t, !res.Timeout, "the capture of a FIFO still ran after %s", captureBound)
	res.Assert(t, icmd.Expected{ExitCode: 2})
	var doc refusal.Document
	decodeOne(t, res.Stdout(), &doc)
	assert.Check(t, is.Equal(doc.Code, refusal.CodeHistoryTranscriptInvalid))
	assert.Check(t, is.Contains(doc.Why, "not a regular file"))
	assert.Check(t, is.DeepEqual(s.snapshot(t), before), "a refused capture writes nothing")

	all := s.boundedRun("history", "capture", "--all", "--json")
	assert.Assert(t, !all.Timeout, "capture --all still ran after %s", captureBound)
	all.Assert(t, icmd.Expected{ExitCode: 0})
	var got history.HistoryCaptureResult
	decodeOne(t, all.Stdout(), &got)
	outcomes := map[string]string{}
	for _, c := range got.Captured {
		outcomes[filepath.Base(c.Source)] = c.Outcome
	}
	assert.Check(t, is.DeepEqual(outcomes, map[string]string{"fifo-1.jsonl": "refused", "fifo-neighbour.jsonl": "stored"}))
}

// The session-end hook hands a FIFO to its capture, which refuses it and ends: no capture is left
// waiting behind the harness.
func TestHistoryHookLeavesNoCaptureWaitingOnAFIFO(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s, _ := histSandbox(t)
	dir := filepath.Dir(s.claudeSession(t, "fifo-hook-neighbour", "hello"))
	fifo := filepath.Join(dir, "fifo-hook.jsonl")
	mkfifo(t, fifo)
	payload, _ := json.Marshal(map[string]any{"session_id": "fifo-hook", "transcript_path": fifo, "cwd": s.root, "hook_event_name": "SessionEnd", "reason": "other"})
	res := icmd.RunCmd(icmd.Command(binary, "history", "hook", "--harness", "claude"), icmd.Dir(s.home),
		icmd.WithEnv(append(s.env(), "PATH="+os.Getenv("PATH"))...), icmd.WithStdin(bytes.NewReader(payload)))
	res.Assert(t, icmd.Expected{ExitCode: 0})
	log := filepath.Join(s.abcdHome, "history", "hook.log")
	for deadline := time.Now().Add(captureBound); ; time.Sleep(50 * time.Millisecond) {
		data, _ := os.ReadFile(log)
		if strings.Contains(string(data), "not a regular file") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the handed-off capture did not refuse the FIFO within %s; hook.log:\n%s", captureBound, data)
		}
	}
}

// A verb waiting for its input on stdin, which its writer never closes, ends on SIGTERM and on
// SIGINT: the signal is not caught and then ignored.
func TestAVerbWaitingOnStdinEndsOnASignal(t *testing.T) {
	t.Parallel() // its own sandbox
	s, _ := histSandbox(t)
	for _, c := range []struct {
		name string
		args []string
		sig  syscall.Signal
		exit int
	}{
		{"history hook, SIGTERM", []string{"history", "hook", "--harness", "claude", "--wait"}, syscall.SIGTERM, 1},
		{"guard check, SIGINT", []string{"guard", "check"}, syscall.SIGINT, 3},
		{"rules match, SIGTERM", []string{"rules", "match"}, syscall.SIGTERM, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binary, c.args...)
			cmd.Dir, cmd.Env = s.root, append(s.env(), "PATH="+os.Getenv("PATH"))
			in, err := cmd.StdinPipe() // held open: the input never ends
			assert.NilError(t, err)
			defer in.Close()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			assert.NilError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			time.Sleep(500 * time.Millisecond) // the verb is reading stdin by now
			assert.NilError(t, cmd.Process.Signal(c.sig))
			select {
			case err := <-done:
				var exit *exec.ExitError
				assert.Assert(t, err != nil && errors.As(err, &exit), "%v", err)
				assert.Check(t, is.Equal(exit.ExitCode(), c.exit), stderr.String())
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill() // a failed kill shows as the wait below never ending: the test's timeout
				t.Fatalf("abcd %s still ran 20 s after %s (then killed: %v); stderr:\n%s", strings.Join(c.args, " "), c.sig, <-done, stderr.String())
			}
		})
	}
}
