package runner_test

// The real ACP agents from npm (tools/harness pins them): Gemini CLI --acp, Claude Code through
// @zed-industries/claude-agent-acp and Codex through @zed-industries/codex-acp, each against the
// loopback stand-in of its vendor's API the native runners' harness uses, driven by abcd as their ACP
// client: an implementer's step writes a file and asks for a force push, which abcd's guard rejects;
// a reviewer's step answers in the review_reply schema.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/acp"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// acpPeers are the real ACP agents, each as the native CLI it speaks for: its binary and arguments,
// and the stand-in and scripts of that CLI.
func acpPeers(t *testing.T) []cli {
	natives := map[domain.Kind]cli{}
	for _, c := range clis(t) {
		natives[c.kind] = c
	}
	// Gemini CLI 0.61.0 --acp and codex-acp 0.16.0 are pinned but not run yet: Gemini CLI took five
	// requests of its stand-in and then sent nothing on its ACP stdout (the step ended on silence with
	// no session/update); codex-acp answers session/new "Authentication required" until its client
	// calls ACP's authenticate with one of the methods initialize lists, which abcd does not send
	// (docs/adapters.md, ACP runners).
	c := natives[domain.Claude]
	c.bin, c.enforced = filepath.Join(os.Getenv("ABCD_RUNNER_CLIS"), "claude-agent-acp"), false
	return []cli{c}
}

// newACPHarness is newHarness for an ACP peer: the acp dialect, handed abcd's own catalog.
func newACPHarness(t *testing.T, c cli, script func(work string) []runnertest.Reply) *harnessWorld {
	t.Helper()
	bin := os.Getenv("ABCD_BIN")
	d := acp.Dialect{Self: bin, Schema: func(name string) ([]byte, bool, error) {
		data, err := os.ReadFile(filepath.Join("..", "..", "schemas", "v1", name+".schema.json"))
		if os.IsNotExist(err) {
			return nil, false, nil
		}
		return data, err == nil, err
	}}
	dir := t.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	assert.NilError(t, os.MkdirAll(home, 0o700))
	assert.NilError(t, os.MkdirAll(work, 0o755))
	gitInit(t, work)
	api := c.api(script(work)...)
	t.Cleanup(api.Close)
	env, creds, pass := c.setup(t, home, api.URL)
	env = append(env, "PATH="+os.Getenv("PATH"), "HOME="+home, "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com")
	prompt := filepath.Join(dir, "prompt.md")
	assert.NilError(t, os.WriteFile(prompt, []byte("Write hello.txt holding the word hello, check it, then publish it.\n"), 0o600))
	w := &harnessWorld{c: c, script: script, home: home, api: api, work: work, prompt: prompt, env: env}
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{d}, Guard: []string{bin, "guard", "hook"},
		Environ: func() []string { return w.env }, TempDir: runnersFolder(t)})
	w.r = domain.Runner{Name: string(c.kind) + "-acp", CLI: domain.ACP, Executable: resolve(t, c.bin), Args: c.args, CredentialEnv: creds, PassEnv: pass,
		Concurrency: 1, Limits: domain.Limits{WallClock: 3 * time.Minute, FirstEvent: 90 * time.Second, Silence: 90 * time.Second, Turns: 20}}
	return w
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "init", "-q", "-b", "main", dir).CombinedOutput()
	assert.NilError(t, err, string(out))
}

func acpStep(t *testing.T, w *harnessWorld, policy domain.Policy, schema []byte) domain.Outcome {
	t.Helper()
	var doing []string
	req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: policy, Model: w.c.model, Limits: w.r.Limits, Schema: schema,
		Doing: func(l string) { doing = append(doing, l) }}
	o, err := w.a.Step(context.Background(), req)
	assert.NilError(t, err)
	b, _ := json.Marshal(o)
	assert.Check(t, !strings.Contains(string(b)+strings.Join(doing, "\n"), harnessKey), "the key leaked: %s", b)
	assert.NilError(t, o.Receipt.Check())
	t.Logf("%s: %+v\nwhat it did:\n%s\nthe stand-in took %d requests", w.c.bin, o.Receipt, strings.Join(doing, "\n"), w.api.Count())
	return o
}

func asksOf(o domain.Outcome) string {
	var lines []string
	for _, a := range o.Receipt.Asks {
		lines = append(lines, a.Method+" "+a.CallID+" "+string(a.Answer)+" "+a.What+" ("+a.Why+")")
	}
	return strings.Join(lines, "\n")
}

func TestHarnessTheRealACPAgentsImplement(t *testing.T) {
	for _, c := range acpPeers(t) {
		if c.editModel != "" {
			c.model = c.editModel
		}
		t.Run(filepath.Base(c.bin), func(t *testing.T) {
			t.Parallel()
			w := newACPHarness(t, c, c.implement)
			o := acpStep(t, w, domain.PolicyImplement, nil)
			asks := asksOf(o)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v\n%s", o.Failure, asks)
			data, err := os.ReadFile(filepath.Join(w.work, "hello.txt"))
			assert.Check(t, err == nil && string(data) == "hello\n", "hello.txt: %q %v\n%s", data, err, asks)
			assert.Check(t, is.Contains(asks, "reject_once git push --force origin main"), "the guard rejected the force push")
			_, err = os.Stat(filepath.Join(w.work, guardFile))
			assert.Check(t, os.IsNotExist(err), "the guard file was written")
			assert.Check(t, is.Equal(o.Receipt.CLIVersion, "1.0.0"))
		})
	}
}

func TestHarnessTheRealACPAgentsReview(t *testing.T) {
	schema, err := os.ReadFile("../../schemas/v1/review_reply.schema.json")
	assert.NilError(t, err)
	for _, c := range acpPeers(t) {
		t.Run(filepath.Base(c.bin), func(t *testing.T) {
			t.Parallel()
			w := newACPHarness(t, c, func(string) []runnertest.Reply { return []runnertest.Reply{{Text: reviewAnswer}} })
			o := acpStep(t, w, domain.PolicyRead, schema)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
			var got, want any
			assert.Check(t, json.Unmarshal(o.Structured, &got))
			assert.NilError(t, json.Unmarshal([]byte(reviewAnswer), &want))
			assert.Check(t, is.DeepEqual(got, want))
		})
	}
}
