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
	"regexp"
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
	c := natives[domain.Claude]
	c.bin, c.enforced = filepath.Join(os.Getenv("ABCD_RUNNER_CLIS"), "claude-agent-acp"), false
	x := natives[domain.Codex]
	x.bin, x.enforced = filepath.Join(os.Getenv("ABCD_RUNNER_CLIS"), "codex-acp"), false
	// codex-acp reads no base URL from its environment (nor does Codex): the person names the
	// stand-in in its configuration, here with its -c overrides, as a provider of its own whose key
	// is the runner's credential (OpenAI's own provider tries a WebSocket first, which the stand-in
	// does not serve, and its agent says so in its answer: TestHarnessCodexACPAuthenticates). With
	// approval_policy "untrusted" Codex asks abcd before every command not on its own known-safe
	// list (left to its default it runs them in its own sandbox and asks nothing); with sandbox_mode
	// "workspace-write" a command abcd allows may write the worktree.
	x.acpArgs = func(url string) []string {
		return []string{"-c", `model_provider="standin"`, "-c", `model_providers.standin.name="stand-in"`,
			"-c", `model_providers.standin.base_url="` + url + `/v1"`, "-c", `model_providers.standin.wire_api="responses"`,
			"-c", `model_providers.standin.env_key="OPENAI_API_KEY"`, "-c", `approval_policy="untrusted"`, "-c", `sandbox_mode="workspace-write"`}
	}
	g := natives[domain.Gemini]
	// Gemini CLI is started with the model the native runner names: left to choose, it asks the API
	// to route each turn first (a classifier's call), which takes the stand-in's scripted replies and
	// retries until the step falls silent. abcd passes no model over ACP.
	g.args = []string{"--acp", "--model", g.model}
	return []cli{c, x, g}
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
	args := c.args
	if c.acpArgs != nil {
		args = c.acpArgs(api.URL)
	}
	w.r = domain.Runner{Name: string(c.kind) + "-acp", CLI: domain.ACP, Executable: resolve(t, c.bin), Args: args, CredentialEnv: creds, PassEnv: pass,
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
			if c.kind == domain.Gemini {
				// Gemini CLI 0.61.0 reads a file before it writes it and cannot tell ACP's "not
				// found" from any other error (its client rejects with the error object, whose
				// words its check never sees): it creates no file through a client that reads
				// files, so its file is there to be rewritten.
				assert.NilError(t, os.WriteFile(filepath.Join(w.work, "hello.txt"), []byte("hi\n"), 0o644))
			}
			o := acpStep(t, w, domain.PolicyImplement, nil)
			asks := asksOf(o)
			if c.kind == domain.Codex {
				// codex-acp's one way to reject is "abort" ("No, provide feedback"), which ends its
				// turn: the step in which abcd's guard rejects the force push ends cancelled, and
				// falls back with that cause, the file written and the guard file not reached.
				assert.Check(t, is.Equal(o.Receipt.Cause, domain.CauseCancelled), "%+v\n%s", o.Failure, asks)
				assert.Check(t, is.Equal(w.api.Count(), 3), "no model request after the rejection")
			} else {
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v\n%s", o.Failure, asks)
			}
			data, err := os.ReadFile(filepath.Join(w.work, "hello.txt"))
			assert.Check(t, err == nil && string(data) == "hello\n", "hello.txt: %q %v\n%s", data, err, asks)
			assert.Check(t, regexp.MustCompile(`(?m)^session/request_permission \S+ reject_once .*git push --force origin main.* \(abcd guard blocked this command \(rule git-push-force\)`).MatchString(asks),
				"the guard rejected the force push:\n%s", asks)
			assert.Check(t, is.Contains(w.api.Keys, harnessKey), "the credential reached the agent")
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

// codex-acp with OpenAI's own provider asks to be authenticated before session/new: abcd
// authenticates with its openai-api-key method, whose variable is the runner's credential, and the key
// reaches the stand-in; a runner that passes no key has the step fall back with the cause auth, naming
// the methods codex-acp offered.
func TestHarnessCodexACPAuthenticates(t *testing.T) {
	var x cli
	for _, c := range acpPeers(t) {
		if c.kind == domain.Codex {
			x = c
		}
	}
	x.acpArgs = func(url string) []string { return []string{"-c", `openai_base_url="` + url + `/v1"`} }
	for _, keyed := range []bool{true, false} {
		t.Run(map[bool]string{true: "the runner's key", false: "no key"}[keyed], func(t *testing.T) {
			t.Parallel()
			w := newACPHarness(t, x, func(string) []runnertest.Reply { return []runnertest.Reply{{Text: "OK"}} })
			if !keyed {
				w.r.CredentialEnv = nil
			}
			var doing []string
			o, err := w.a.Step(context.Background(), ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead,
				Limits: w.r.Limits, Doing: func(l string) { doing = append(doing, l) }})
			assert.NilError(t, err)
			assert.NilError(t, o.Receipt.Check())
			b, _ := json.Marshal(o)
			assert.Check(t, !strings.Contains(string(b)+strings.Join(doing, "\n"), harnessKey), "the key leaked")
			if keyed {
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
				assert.Check(t, is.Contains(strings.Join(doing, "\n"), "authenticated with the agent's method openai-api-key"))
				assert.Check(t, is.Contains(w.api.Keys, harnessKey), "the key reached the stand-in")
				assert.Check(t, strings.HasSuffix(o.Final, "OK"), o.Final)
				return
			}
			assert.Assert(t, o.Failure != nil)
			assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseAuth), o.Failure.Detail)
			assert.Check(t, is.Contains(o.Failure.Detail, "chatgpt (the agent's own login)"))
			assert.Check(t, is.Contains(o.Failure.Detail, "openai-api-key (needs OPENAI_API_KEY, which the runner does not pass)"))
			assert.Check(t, is.Equal(w.api.Count(), 0))
		})
	}
}

// A key the vendor's API refuses (the stand-in answers 401): each real ACP agent's step falls back
// with a typed cause and never completes on the agent's words about it. Gemini CLI answers the prompt
// with the 401, and codex-acp with "Internal error" and the 401 in the error's data: the cause auth.
// claude-agent-acp's Claude Code retries the refused key with back-off and says nothing meanwhile:
// the step ends on the silence bound (shortened here).
func TestHarnessTheRealACPAgentsRefusedKey(t *testing.T) {
	for _, c := range acpPeers(t) {
		t.Run(filepath.Base(c.bin), func(t *testing.T) {
			t.Parallel()
			w := newACPHarness(t, c, func(string) []runnertest.Reply {
				return []runnertest.Reply{{Status: 401, ErrorType: "authentication_error"}}
			})
			want := domain.CauseAuth
			if c.kind == domain.Claude {
				w.r.Limits.Silence, want = 40*time.Second, domain.CauseSilence
			}
			o := acpStep(t, w, domain.PolicyRead, nil)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Failed), "%+v", o.Receipt)
			assert.Check(t, o.Failure != nil && o.Failure.Cause == want, "%+v", o.Failure)
		})
	}
}
