package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/codex"
	"github.com/abcd-dev/abcd/adapters/runner/gemini"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// The streams the real CLIs wrote against their stand-ins (recorded by make test-harness with
// ABCD_RECORD_FIXTURES=1, one folder per CLI version) are replayed through the adapter by the fake
// CLI, which first runs this step's start-up hook as the real CLI does (a recorded stream holds the
// answer to the hook of the step it was recorded for): each reads as it did when the real CLI wrote
// it.
func TestRecordedStreamsReadAsTheyDid(t *testing.T) {
	dialects := map[domain.Kind]runner.Dialect{domain.Claude: claude.Dialect{}, domain.Codex: codex.Dialect{}, domain.Gemini: gemini.Dialect{}}
	files, err := filepath.Glob("*/testdata/*/*.jsonl")
	assert.NilError(t, err)
	seen := map[domain.Kind]int{}
	for _, file := range files {
		kind := domain.Kind(strings.Split(file, string(filepath.Separator))[0])
		version := filepath.Base(filepath.Dir(file))
		scenario := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(string(kind)+"/"+version+"/"+scenario, func(t *testing.T) {
			v, parsed := domain.ParseVersion(version)
			assert.Assert(t, parsed, "a fixture folder is named for the CLI's version")
			assert.Check(t, kind.Known().Holds(v), "%s %s is recorded, and within the range abcd knows", kind, version)
			data, err := os.ReadFile(file)
			assert.NilError(t, err)
			w := newWorld(t)
			w.r.CLI = kind
			w.r.Version = version
			w.r.Limits.Turns = 50
			w.a = runner.New(runner.Options{Dialects: []runner.Dialect{dialects[kind]}, Guard: w.guard(),
				Environ: func() []string { return w.env }, TempDir: w.dir})
			w.script(runnertest.Lines(strings.Split(strings.TrimRight(string(data), "\n"), "\n")...)...)
			policy, schema := domain.PolicyRead, []byte(nil)
			switch scenario {
			case "implement", "loop-implement":
				policy = domain.PolicyImplement
			case "review", "loop-review", "loop-audit":
				schema = []byte(`{"type":"object"}`)
			}
			o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy, r.Schema = policy, schema })
			switch scenario {
			case "implement":
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
				assert.Check(t, is.Equal(o.Final, "Wrote hello.txt."))
				assert.Check(t, o.Receipt.ToolCalls >= 2)
				assert.Check(t, o.Receipt.Turns >= 3)
			case "review":
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
				var got map[string]any
				assert.NilError(t, json.Unmarshal(o.Structured, &got))
				assert.Check(t, is.Equal(got["verdict"], "SHIP"))
			// Streams recorded through abcd implement run (frontdoors/cmd/abcd/runner_harness_test.go): a
			// lane's implementer whose force push the guard blocked, and a reviewer's and the auditor's
			// answers.
			case "loop-implement":
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
				assert.Check(t, strings.HasPrefix(o.Final, "Do part one"), o.Final)
				assert.Check(t, o.Receipt.ToolCalls >= 2)
				assert.Check(t, o.Receipt.PermissionDenials >= 1, "the guard's block is a denial")
			case "loop-review", "loop-audit":
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
				var got map[string]any
				assert.NilError(t, json.Unmarshal(o.Structured, &got))
				if scenario == "loop-review" {
					assert.Check(t, is.Equal(got["verdict"], "SHIP"))
				} else {
					assert.Check(t, got["verdicts"] != nil, "%v", got)
				}
			case "auth":
				assert.Assert(t, o.Failure != nil)
				assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseAuth), o.Failure.Detail)
			default:
				t.Fatalf("a fixture of no known scenario: %s", file)
			}
			assert.Check(t, is.Equal(o.Receipt.UnknownEvents, 0), "every event type the CLI wrote is one abcd knows")
			assert.Check(t, is.Equal(o.Receipt.CLIVersion, version))
		})
		seen[kind]++
	}
	for _, k := range []domain.Kind{domain.Claude, domain.Codex, domain.Gemini} {
		assert.Check(t, seen[k] >= 3, "%s has its recorded streams", k)
	}
}

// Every recorded stream holds its CLI's handshake once (Claude Code's system/init, Codex's
// thread.started, Gemini CLI's init), before any work, and the same stream from after it completes
// nothing, its settings proven all the same: a terminal event before the handshake is no CLI's answer.
// An auth failure keeps its own cause.
func TestARecordedStreamWithoutItsHandshakeCompletesNothing(t *testing.T) {
	files, err := filepath.Glob("*/testdata/*/*.jsonl")
	assert.NilError(t, err)
	assert.Assert(t, len(files) >= 9)
	for _, file := range files {
		kind := domain.Kind(strings.Split(file, string(filepath.Separator))[0])
		scenario := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(string(kind)+"/"+scenario, func(t *testing.T) {
			data, err := os.ReadFile(file)
			assert.NilError(t, err)
			lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			at := -1
			for i, l := range lines {
				ev, err := dialects[kind].NewParser().Event([]byte(l))
				if err == nil && ev.Handshake {
					assert.Check(t, at < 0, "a second handshake: %.80s", l)
					at = i
				}
			}
			assert.Assert(t, at >= 0, "the stream holds no handshake")
			w := worldOf(t, kind)
			w.r.Version = filepath.Base(filepath.Dir(file))
			w.r.Limits.Turns = 50
			w.script(runnertest.Lines(lines[at+1:]...)...)
			policy, schema := domain.PolicyRead, []byte(nil)
			if strings.Contains(scenario, "implement") {
				policy = domain.PolicyImplement
			} else if scenario != "auth" {
				schema = []byte(`{"type":"object"}`)
			}
			o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy, r.Schema = policy, schema })
			assert.Assert(t, o.Failure != nil, "a stream without its handshake completed a step")
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Failed))
			if scenario == "auth" {
				assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseAuth), o.Failure.Detail)
			}
		})
	}
}

// A recorded stream played as it is, by a CLI that runs no start-up hook of this step's settings (the
// hook's answer a recorded stream holds names the nonce of the step it was recorded for), is refused
// before its work counts: a stream cannot prove settings it was not given.
func TestARecordedStreamWithoutThisStepsProofIsRefused(t *testing.T) {
	files, err := filepath.Glob("*/testdata/*/*.jsonl")
	assert.NilError(t, err)
	for _, file := range files {
		kind := domain.Kind(strings.Split(file, string(filepath.Separator))[0])
		scenario := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		if scenario == "auth" {
			continue // a failed end before any work keeps its own cause
		}
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(file)
			assert.NilError(t, err)
			w := worldOf(t, kind)
			w.r.Limits.Turns = 50
			w.bare(runnertest.Lines(strings.Split(strings.TrimRight(string(data), "\n"), "\n")...)...)
			policy := domain.PolicyRead
			if strings.HasSuffix(scenario, "implement") {
				policy = domain.PolicyImplement
			}
			o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = policy })
			assert.Assert(t, o.Failure != nil)
			assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseSettingsIgnored), o.Failure.Detail)
		})
	}
}
