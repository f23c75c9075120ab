package runner_test

// The real CLIs from npm (tools/harness pins them; make test-harness installs them and runs these
// tests), each pointed at a loopback stand-in of its vendor's API with a dummy key, driven through the
// adapter: an implementer's step edits a file, runs a command the guard allows and one it blocks,
// has its write of the guard's rules file with a file tool blocked, and finishes; a
// reviewer's step answers in the review_reply schema; a refused key ends the step with the cause
// auth. With ABCD_RECORD_FIXTURES=1 each stream is recorded (the same command run directly) as
// a fixture for the CLI's version, which the unit tests replay and the fuzz targets start from.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/codex"
	"github.com/abcd-dev/abcd/adapters/runner/gemini"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/ports"
)

// harnessKey is the dummy key the real CLIs are given: the stand-ins take any key, and nothing abcd
// returns may hold it.
const harnessKey = "sk-harness-canary-7c1d9e2f4a6b8c0d"

// cli is one real CLI under test: where it is, what its runner block names, and its scripts.
type cli struct {
	kind    domain.Kind
	dialect runner.Dialect
	bin     string
	args    []string // an ACP agent's arguments (acp_harness_test.go)
	// acpArgs, when set, are an ACP agent's arguments for a stand-in at url.
	acpArgs func(url string) []string
	model   string
	api     func(...runnertest.Reply) *runnertest.API
	// setup prepares the CLI's home for a stand-in at url and returns the environment and the runner's
	// variables.
	setup     func(t *testing.T, home, url string) (env, credentials, pass []string)
	implement func(work string) []runnertest.Reply
	review    func(answer string) []runnertest.Reply
	// enforced: the CLI holds a reviewer's answer to the schema itself.
	enforced bool
	// editModel, when set, is the model the implementer's step asks for (what the CLI offers depends
	// on it).
	editModel string
}

// guardFile is the repository's guard rules file, which the guard blocks an agent's write of.
const guardFile = ".abcd/guard.json"

const reviewAnswer = `{"summary":"The change is small and right.","verdict":"SHIP","findings":[]}`

func clis(t *testing.T) []cli {
	dir := os.Getenv("ABCD_RUNNER_CLIS")
	if dir == "" {
		t.Skip("make test-harness runs the real coding-agent CLIs (ABCD_RUNNER_CLIS names their folder)")
	}
	if os.Getenv("ABCD_BIN") == "" {
		t.Skip("the implementer's guard hook needs the built abcd (ABCD_BIN)")
	}
	blocked := "git push --force origin main"
	return []cli{
		{kind: domain.Claude, dialect: claude.Dialect{}, bin: filepath.Join(dir, "claude"), model: "claude-sonnet-4-5", api: runnertest.Anthropic, enforced: true,
			setup: func(t *testing.T, home, url string) ([]string, []string, []string) {
				return []string{"ANTHROPIC_API_KEY=" + harnessKey, "ANTHROPIC_BASE_URL=" + url}, []string{"ANTHROPIC_API_KEY"}, []string{"ANTHROPIC_BASE_URL"}
			},
			implement: func(work string) []runnertest.Reply {
				return []runnertest.Reply{
					{Text: "Writing the file.", Tools: []runnertest.ToolCall{{ID: "toolu_01", Name: "Write", Input: map[string]any{"file_path": filepath.Join(work, "hello.txt"), "content": "hello\n"}}}},
					{Tools: []runnertest.ToolCall{{ID: "toolu_02", Name: "Bash", Input: map[string]any{"command": "cat hello.txt", "description": "Show it"}}}},
					{Tools: []runnertest.ToolCall{{ID: "toolu_03", Name: "Bash", Input: map[string]any{"command": blocked, "description": "Publish"}}}},
					{Tools: []runnertest.ToolCall{{ID: "toolu_04", Name: "Write", Input: map[string]any{"file_path": filepath.Join(work, guardFile), "content": "{}"}}}},
					{Text: "Wrote hello.txt."},
				}
			},
			review: func(answer string) []runnertest.Reply {
				var v any
				_ = json.Unmarshal([]byte(answer), &v)
				return []runnertest.Reply{{Tools: []runnertest.ToolCall{{ID: "toolu_09", Name: "StructuredOutput", Input: v}}}, {Text: "Answered."}}
			}},
		{kind: domain.Codex, dialect: codex.Dialect{}, bin: filepath.Join(dir, "codex"), model: "gpt-5-codex", api: runnertest.OpenAI, enforced: true,
			// A model of Codex's own catalog, for which it offers the model its apply_patch tool.
			editModel: "gpt-5.6-sol",
			// The base URL passed makes abcd name a model provider of its own in the home it gives Codex.
			setup: func(t *testing.T, home, url string) ([]string, []string, []string) {
				return []string{"OPENAI_API_KEY=" + harnessKey, "OPENAI_BASE_URL=" + url + "/v1"}, []string{"OPENAI_API_KEY"}, []string{"OPENAI_BASE_URL"}
			},
			implement: func(string) []runnertest.Reply {
				return []runnertest.Reply{
					{Tools: []runnertest.ToolCall{{ID: "call_01", Name: "exec_command", Input: map[string]any{"cmd": "printf 'hello\\n' > hello.txt"}}}},
					{Tools: []runnertest.ToolCall{{ID: "call_02", Name: "exec_command", Input: map[string]any{"cmd": "cat hello.txt"}}}},
					{Tools: []runnertest.ToolCall{{ID: "call_03", Name: "exec_command", Input: map[string]any{"cmd": blocked}}}},
					{Tools: []runnertest.ToolCall{{ID: "call_04", Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: " + guardFile + "\n+{}\n*** End Patch\n"}}},
					{Text: "Wrote hello.txt."},
				}
			},
			review: func(answer string) []runnertest.Reply { return []runnertest.Reply{{Text: answer}} }},
		{kind: domain.Gemini, dialect: gemini.Dialect{}, bin: filepath.Join(dir, "gemini"), model: "gemini-2.5-pro", api: runnertest.Gemini,
			setup: func(t *testing.T, home, url string) ([]string, []string, []string) {
				return []string{"GEMINI_API_KEY=" + harnessKey, "GOOGLE_GEMINI_BASE_URL=" + url}, []string{"GEMINI_API_KEY"}, []string{"GOOGLE_GEMINI_BASE_URL"}
			},
			implement: func(string) []runnertest.Reply {
				return []runnertest.Reply{
					{Tools: []runnertest.ToolCall{{ID: "c01", Name: "write_file", Input: map[string]any{"file_path": "hello.txt", "content": "hello\n"}}}},
					{Tools: []runnertest.ToolCall{{ID: "c02", Name: "run_shell_command", Input: map[string]any{"command": "cat hello.txt"}}}},
					{Tools: []runnertest.ToolCall{{ID: "c03", Name: "run_shell_command", Input: map[string]any{"command": blocked}}}},
					{Tools: []runnertest.ToolCall{{ID: "c04", Name: "write_file", Input: map[string]any{"file_path": guardFile, "content": "{}"}}}},
					{Text: "Wrote hello.txt."},
				}
			},
			review: func(answer string) []runnertest.Reply {
				return []runnertest.Reply{{Text: "```json\n" + answer + "\n```"}}
			}},
	}
}

// runnersFolder is the runners' folder a harness test gives the adapter: below a folder every user may
// write (sticky), as a test's or a person's $ABCD_HOME may be. Each CLI's settings home lies below it,
// and each must load abcd's settings from there all the same (Gemini CLI skipped abcd's settings from
// such a place when they went in as its system settings). Not under /tmp: where the machine has
// bubblewrap, Codex's own sandbox (an unfenced implementer's) mounts a new /tmp over the helper it
// keeps in its home, and every command it runs fails (docs/adapters.md).
func runnersFolder(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	assert.NilError(t, err)
	shared := filepath.Join(cache, "abcd-harness-shared")
	assert.NilError(t, os.MkdirAll(shared, 0o700))
	assert.NilError(t, os.Chmod(shared, 0o1777)) // the world-writable folder the test is about
	dir, err := os.MkdirTemp(shared, "runners-") //nolint:usetesting // outside /tmp on purpose (above)
	assert.NilError(t, err)
	t.Cleanup(func() { assert.Check(t, os.RemoveAll(dir)) })
	if !worldWritableAbove(dir) {
		t.Fatalf("%s has no world-writable folder above it: the harness means to run the CLIs under one", dir)
	}
	return filepath.Join(dir, "runner")
}

// worldWritableAbove reports whether a folder above path may be written by every user.
func worldWritableAbove(path string) bool {
	for p := filepath.Dir(path); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o002 != 0 {
			return true
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

type harnessWorld struct {
	c      cli
	script func(work string) []runnertest.Reply
	home   string
	api    *runnertest.API
	a      *runner.Adapter
	r      domain.Runner
	work   string
	prompt string
	env    []string
	last   ports.RunnerStep
}

func newHarness(t *testing.T, c cli, script func(work string) []runnertest.Reply) *harnessWorld {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	assert.NilError(t, os.MkdirAll(home, 0o700))
	assert.NilError(t, os.MkdirAll(work, 0o755))
	git := exec.Command("git", "init", "-q", "-b", "main", work)
	out, err := git.CombinedOutput()
	assert.NilError(t, err, string(out))
	api := c.api(script(work)...)
	t.Cleanup(api.Close)
	env, creds, pass := c.setup(t, home, api.URL)
	env = append(env, "PATH="+os.Getenv("PATH"), "HOME="+home, "CLAUDECODE=1", "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com")
	prompt := filepath.Join(dir, "prompt.md")
	assert.NilError(t, os.WriteFile(prompt, []byte("Write hello.txt holding the word hello, check it, then publish it.\n"), 0o600))
	w := &harnessWorld{c: c, script: script, home: home, api: api, work: work, prompt: prompt, env: env}
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{c.dialect}, Guard: []string{os.Getenv("ABCD_BIN"), "guard", "hook"},
		Environ: func() []string { return w.env }, TempDir: runnersFolder(t)})
	w.r = domain.Runner{Name: string(c.kind) + "-harness", CLI: c.kind, Executable: resolve(t, c.bin), CredentialEnv: creds, PassEnv: pass, Concurrency: 1,
		Limits: domain.Limits{WallClock: 3 * time.Minute, FirstEvent: 90 * time.Second, Silence: 90 * time.Second, Turns: 20, APIRetries: 0}}
	// The preflight the loop runs before a run: the version is one abcd knows and --help offers every
	// flag the dialect passes.
	rep, err := w.a.Check(context.Background(), ports.RunnerCheck{Runner: w.r})
	assert.NilError(t, err)
	assert.Assert(t, rep.Failure == nil, "%+v", rep.Failure)
	w.r.Version = rep.Version
	return w
}

// resolve follows the npm shim to the file it names, as abcd ahoy connect records an absolute path.
func resolve(t *testing.T, bin string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(bin)
	assert.NilError(t, err, "the harness CLIs are installed by make harness-deps")
	return p
}

func (w *harnessWorld) step(t *testing.T, policy domain.Policy, schema []byte) domain.Outcome {
	t.Helper()
	req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: policy, Model: w.c.model, Limits: w.r.Limits, Schema: schema}
	o, err := w.a.Step(context.Background(), req)
	assert.NilError(t, err)
	b, _ := json.Marshal(o)
	assert.Check(t, !strings.Contains(string(b), harnessKey), "the key leaked: %s", b)
	assert.NilError(t, o.Receipt.Check())
	w.last = req
	return o
}

func TestHarnessTheRealCLIsImplement(t *testing.T) {
	for _, c := range clis(t) {
		if c.editModel != "" {
			c.model = c.editModel
		}
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			w := newHarness(t, c, c.implement)
			o := w.step(t, domain.PolicyImplement, nil)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
			assert.Check(t, is.Equal(o.Final, "Wrote hello.txt."))
			data, err := os.ReadFile(filepath.Join(w.work, "hello.txt"))
			assert.NilError(t, err)
			assert.Check(t, is.Equal(string(data), "hello\n"))
			assert.Check(t, is.Contains(requestText(w.api, 3), "abcd guard blocked this command (rule git-push-force)"), "the guard's hook blocked the force push")
			// The file tools pass the guard too (Codex's apply_patch): the guard's own rules file is not
			// the agent's to write.
			assert.Check(t, is.Equal(w.api.Count(), 5))
			assert.Check(t, is.Contains(requestText(w.api, 4), "abcd guard blocked this write (rule guard-file-write)"), "the guard's hook blocked the write")
			_, err = os.Stat(filepath.Join(w.work, guardFile))
			assert.Check(t, os.IsNotExist(err), "the guard file was written")
			assert.Check(t, o.Receipt.ToolCalls >= 2)
			assert.Check(t, o.Receipt.SessionID != "")
			assert.Check(t, o.Receipt.CLIVersion != "")
			assert.Check(t, o.Receipt.Turns >= 3, "a turn for each of the model's replies")
			assert.Check(t, is.Contains(w.api.Keys, harnessKey), "the credential reached the CLI")
			t.Logf("%s: %+v", c.kind, o.Receipt)
			record(t, w, w.last, "implement")
		})
	}
}

func TestHarnessTheRealCLIsReview(t *testing.T) {
	schema, err := os.ReadFile("../../schemas/v1/review_reply.schema.json")
	assert.NilError(t, err)
	for _, c := range clis(t) {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			w := newHarness(t, c, func(string) []runnertest.Reply { return c.review(reviewAnswer) })
			o := w.step(t, domain.PolicyRead, schema)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
			var got, want any
			assert.NilError(t, json.Unmarshal(o.Structured, &got))
			assert.NilError(t, json.Unmarshal([]byte(reviewAnswer), &want))
			assert.Check(t, is.DeepEqual(got, want))
			assert.Check(t, is.Equal(o.Receipt.SchemaEnforced, c.enforced))
			_, err := os.Stat(filepath.Join(w.work, "hello.txt"))
			assert.Check(t, os.IsNotExist(err))
			if c.kind == domain.Codex {
				assert.Check(t, is.Contains(requestText(w.api, 0), `"type":"json_schema"`), "Codex sent the schema as a strict response format")
			}
			t.Logf("%s: %+v", c.kind, o.Receipt)
			record(t, w, w.last, "review")
		})
	}
}

func TestHarnessARefusedKeyIsTheCauseAuth(t *testing.T) {
	for _, c := range clis(t) {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			w := newHarness(t, c, func(string) []runnertest.Reply {
				return []runnertest.Reply{{Status: 401, ErrorType: "authentication_error"}}
			})
			o := w.step(t, domain.PolicyRead, nil)
			assert.Assert(t, o.Failure != nil)
			assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseAuth), o.Failure.Detail)
			t.Logf("%s: %+v", c.kind, o.Receipt)
			record(t, w, w.last, "auth")
		})
	}
}

// requestText is the i-th model request the stand-in took, as JSON.
func requestText(api *runnertest.API, i int) string {
	if i >= api.Count() {
		return ""
	}
	b, _ := json.Marshal(api.Requests[i].Body)
	return string(b)
}

var port = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// record runs the step's command directly against a fresh stand-in with the same script, and keeps
// its stream as a fixture for the CLI's version (ABCD_RECORD_FIXTURES=1).
func record(t *testing.T, w *harnessWorld, req ports.RunnerStep, scenario string) {
	if os.Getenv("ABCD_RECORD_FIXTURES") == "" {
		return
	}
	t.Helper()
	api := w.c.api(w.script(w.work)...)
	defer api.Close()
	env, _, _ := w.c.setup(t, w.home, api.URL)
	recEnv := append([]string(nil), w.env...)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		recEnv = setEnv(recEnv, k, kv)
	}
	a := runner.New(runner.Options{Dialects: []runner.Dialect{w.c.dialect}, Guard: []string{os.Getenv("ABCD_BIN"), "guard", "hook"},
		Environ: func() []string { return recEnv }, TempDir: runnersFolder(t)})
	assert.NilError(t, os.RemoveAll(filepath.Join(w.work, "hello.txt")))
	p, f, err := a.Prepare(req)
	assert.NilError(t, err)
	assert.Assert(t, f == nil, "%+v", f)
	defer func() { assert.Check(t, p.Close()) }()
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Dir, cmd.Env, cmd.Stdin = p.Dir, p.Env, p.Prompt
	var out bytes.Buffer
	cmd.Stdout = &out
	_ = cmd.Run() // the exit code is the stream's business; the stream is what is kept
	scrubbed := port.ReplaceAllString(secret.NewScrubber(harnessKey).Scrub(out.String()), "127.0.0.1:9")
	scrubbed = strings.ReplaceAll(scrubbed, w.work, "/work")
	dir := filepath.Join(string(w.c.kind), "testdata", req.Runner.Version)
	assert.NilError(t, os.MkdirAll(dir, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, scenario+".jsonl"), []byte(scrubbed), 0o644))
}

func setEnv(env []string, k, kv string) []string {
	for i, e := range env {
		if strings.HasPrefix(e, k+"=") {
			env[i] = kv
			return env
		}
	}
	return append(env, kv)
}

// The built binary connects the real Claude Code as a runner, found on PATH, against its stand-in:
// the preflight and the proving call pass, the block is written 0600, config show reads it back with
// its layer, a second connect is refused, and disconnect removes it.
func TestHarnessAhoyConnectARunner(t *testing.T) {
	dir := os.Getenv("ABCD_RUNNER_CLIS")
	bin := os.Getenv("ABCD_BIN")
	if dir == "" || bin == "" {
		t.Skip("make test-harness runs the real coding-agent CLIs and the built abcd")
	}
	api := runnertest.Anthropic()
	defer api.Close()
	home := t.TempDir()
	abcdHome := filepath.Join(t.TempDir(), "abcd-home")
	repo := t.TempDir()
	out, err := exec.Command("git", "init", "-q", repo).CombinedOutput()
	assert.NilError(t, err, string(out))
	env := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "ABCD_HOME=" + abcdHome,
		"ANTHROPIC_API_KEY=" + harnessKey, "ANTHROPIC_BASE_URL=" + api.URL}
	abcd := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = repo, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			assert.NilError(t, err)
		}
		all := stdout.String() + stderr.String()
		assert.Check(t, !strings.Contains(all, harnessKey), "the key leaked: %s", all)
		return stdout.String(), code
	}
	res, code := abcd("ahoy", "connect", "--runner", "cc", "--cli", "claude", "--credential-env", "ANTHROPIC_API_KEY",
		"--pass-env", "ANTHROPIC_BASE_URL", "--tier", "frontier=claude-opus-4-5", "--model", "claude-haiku-4-5", "--json")
	assert.Assert(t, is.Equal(code, 0), res)
	var got map[string]any
	assert.NilError(t, json.Unmarshal([]byte(res), &got))
	r := got["runner"].(map[string]any)
	assert.Check(t, is.Equal(r["cli"], "claude"))
	assert.Check(t, is.Equal(got["model_reported"], "claude-haiku-4-5"))
	assert.Check(t, strings.HasPrefix(r["executable"].(string), dir), "the claude on PATH")
	assert.Check(t, is.Equal(api.Count(), 1), "one proving call")
	fi, err := os.Stat(filepath.Join(abcdHome, "config.json"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(fi.Mode().Perm(), os.FileMode(0o600)))

	show, code := abcd("config", "show", "oracle.runner.cc.credential_env", "--json")
	assert.Assert(t, is.Equal(code, 0), show)
	assert.Check(t, is.Contains(show, `"layer":"machine"`))
	assert.Check(t, is.Contains(show, `ANTHROPIC_API_KEY`))

	again, code := abcd("ahoy", "connect", "--runner", "cc", "--cli", "claude", "--json")
	assert.Check(t, is.Equal(code, 2))
	assert.Check(t, is.Contains(again, `"code":"runner_exists"`))
	assert.Check(t, is.Equal(api.Count(), 1), "a refused connect calls nothing")

	gone, code := abcd("ahoy", "disconnect", "cc", "--json")
	assert.Assert(t, is.Equal(code, 0), gone)
	assert.Check(t, is.Contains(gone, `"removed":true`))
	data, err := os.ReadFile(filepath.Join(abcdHome, "config.json"))
	assert.NilError(t, err)
	assert.Check(t, !strings.Contains(string(data), "runner"))
}

// A step hands the CLI abcd's own MCP server with one tool allowed: each CLI starts it from abcd's
// configuration alone and offers the model that tool (Codex and Gemini CLI no other of the server's;
// Claude Code lists them all and denies a call to any other), and completes.
func TestHarnessAStepWithAnMCPCatalog(t *testing.T) {
	for _, c := range clis(t) {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			script := func(string) []runnertest.Reply { return []runnertest.Reply{{Text: "OK"}} }
			if c.kind == domain.Claude {
				script = func(string) []runnertest.Reply {
					return []runnertest.Reply{
						{Tools: []runnertest.ToolCall{{ID: "toolu_m1", Name: "mcp__abcd__intent_new", Input: map[string]any{"title": "Not in the catalog"}}}},
						{Tools: []runnertest.ToolCall{{ID: "toolu_m2", Name: "mcp__abcd__status", Input: map[string]any{}}}},
						{Text: "OK"},
					}
				}
			}
			w := newHarness(t, c, script)
			mcp := []domain.MCPServer{{Name: "abcd", Command: os.Getenv("ABCD_BIN"), Args: []string{"mcp", "serve"},
				Tools: []domain.MCPTool{{Name: "status", Description: "abcd's status", InputSchema: map[string]any{"type": "object"}}}}}
			req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyImplement, Model: c.model, Limits: w.r.Limits, MCP: mcp}
			o, err := w.a.Step(context.Background(), req)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
			names := toolNames(w.api)
			switch c.kind {
			case domain.Claude:
				assert.Check(t, is.Contains(names, "mcp__abcd__status"))
				denied, answered := lastMessage(w.api, 1), lastMessage(w.api, 2)
				assert.Check(t, is.Contains(denied, `"is_error":true`), "the call outside the catalog was denied: %s", denied)
				assert.Check(t, is.Contains(answered, "toolu_m2"), answered)
				assert.Check(t, !strings.Contains(answered, `"is_error":true`), "the catalog's tool answered: %s", answered)
				_, err := os.Stat(filepath.Join(w.work, ".abcd"))
				assert.Check(t, os.IsNotExist(err), "intent_new never ran")
				assert.Check(t, o.Receipt.PermissionDenials >= 1)
			case domain.Codex:
				assert.Check(t, is.Contains(names, "mcp__abcd"))
				assert.Check(t, is.Contains(requestText(w.api, 0), `"name":"mcp__abcd","tools":[{"description":"Show the repository's record`), "the namespace holds status")
				assert.Check(t, !strings.Contains(requestText(w.api, 0), `"name":"intent_new"`), "and no other of the server's tools")
			case domain.Gemini:
				assert.Check(t, is.Contains(names, "mcp_abcd_status"))
				for _, n := range names {
					assert.Check(t, !strings.HasPrefix(n, "mcp_abcd_") || n == "mcp_abcd_status", "only the catalog's tool: %s", n)
				}
			}
			t.Logf("%s: tools offered: %s", c.kind, names)
		})
	}
}

// lastMessage is the last message of the i-th request (Anthropic's messages): what the CLI sent
// back after the model's previous reply.
func lastMessage(api *runnertest.API, i int) string {
	if i >= api.Count() {
		return ""
	}
	msgs, _ := api.Requests[i].Body["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	b, _ := json.Marshal(msgs[len(msgs)-1])
	return string(b)
}

// toolNames lists the tools the first request offered the model, as each API names them.
func toolNames(api *runnertest.API) []string {
	var names []string
	if api.Count() == 0 {
		return nil
	}
	tools, _ := api.Requests[0].Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if n, ok := m["name"].(string); ok {
			names = append(names, n)
		}
		if decls, ok := m["functionDeclarations"].([]any); ok {
			for _, d := range decls {
				if dm, ok := d.(map[string]any); ok {
					names = append(names, fmt.Sprint(dm["name"]))
				}
			}
		}
	}
	return names
}
