package runner_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
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
	"github.com/abcd-dev/abcd/ports"
)

// A short successful stream of each CLI, as its parser reads it.
var shortStreams = map[domain.Kind][]string{
	domain.Claude: {initLine, textLine, success},
	domain.Codex: {`{"type":"thread.started","thread_id":"t-1"}`, `{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"OK"}}`, `{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`},
	domain.Gemini: {`{"type":"init","session_id":"s-1","model":"gemini-x"}`, `{"type":"message","role":"assistant","content":"OK","delta":true}`,
		`{"type":"result","status":"success","stats":{"input_tokens":1,"output_tokens":1}}`},
}

var dialects = map[domain.Kind]runner.Dialect{domain.Claude: claude.Dialect{}, domain.Codex: codex.Dialect{}, domain.Gemini: gemini.Dialect{}}

// worldOf is a world whose runner is the CLI k.
func worldOf(t *testing.T, k domain.Kind) *world {
	w := newWorld(t)
	w.r.CLI = k
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{dialects[k]}, Guard: w.guard(), Environ: func() []string { return w.env }, TempDir: w.dir,
		Drain: 100 * time.Millisecond, Grace: 200 * time.Millisecond})
	return w
}

// A CLI that loads abcd's settings runs abcd's start-up hook, and its step completes; one that
// ignores them (no hook ran: the fake plays the stream alone) is refused before its work counts, with
// settings_ignored; so is one whose hook could not start abcd's guard, and one whose stream shows a
// hook's answer that is not this step's.
func TestACLIThatIgnoredAbcdsSettingsIsRefused(t *testing.T) {
	for _, k := range []domain.Kind{domain.Claude, domain.Codex, domain.Gemini} {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			for _, policy := range []domain.Policy{domain.PolicyRead, domain.PolicyImplement} {
				w := worldOf(t, k)
				w.script(lines(shortStreams[k]...)...)
				o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = policy })
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%s: %+v", policy, o.Failure)

				w.bare(lines(shortStreams[k]...)...)
				o = w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = policy })
				assert.Assert(t, o.Failure != nil, policy)
				assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseSettingsIgnored), o.Failure.Detail)
				assert.Check(t, is.Equal(string(o.Receipt.Reason), "failed"))
				assert.Check(t, is.Contains(o.Failure.Detail, "before abcd's start-up hook answered"))
				assert.Check(t, is.Equal(o.Final, ""), "a refused step answers nothing")
			}

			w := worldOf(t, k)
			w.setEnv(runnertest.GuardFailVar, "1")
			w.r.PassEnv = append(w.r.PassEnv, runnertest.GuardFailVar)
			w.script(lines(shortStreams[k]...)...)
			o := w.step(context.Background())
			assert.Assert(t, o.Failure != nil)
			assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseSettingsIgnored), "a guard that cannot answer proves nothing: %s", o.Failure.Detail)
		})
	}
	// A hook's answer in the stream that names another nonce (a stream recorded for another step,
	// another hook of the machine's) proves nothing.
	w := worldOf(t, domain.Claude)
	b, err := json.Marshal(map[string]any{"type": "system", "subtype": "hook_response", "hook_event": "SessionStart",
		"stdout": runner.StartContext("abcd-settings-0123"), "exit_code": 0, "outcome": "success"})
	assert.NilError(t, err)
	stale := string(b)
	w.bare(lines(append([]string{stale}, shortStreams[domain.Claude]...)...)...)
	o := w.step(context.Background())
	assert.Assert(t, o.Failure != nil)
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseSettingsIgnored))
}

// The proof must come before the CLI's work: a hook's answer after the model's first turn is late,
// and a tool call before it is refused before the step acts on it. A failure the CLI reports before
// any work keeps its own cause.
func TestTheProofComesBeforeTheWork(t *testing.T) {
	w := newWorld(t)
	w.bare(lines(initLine, toolLine, resultLine, success)...)
	o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = domain.PolicyImplement })
	assert.Assert(t, o.Failure != nil)
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseSettingsIgnored))
	assert.Check(t, is.Contains(o.Failure.Detail, "(assistant)"))
	assert.Check(t, is.Equal(o.Receipt.ToolCalls, 0), "the tool call was never taken")

	w.bare(lines(initLine, result("success", true, 401, "api_error"))...)
	o = w.step(context.Background())
	assert.Assert(t, o.Failure != nil)
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseAuth), "a failed end before any work keeps its cause")
}

// Claude Code lists the MCP servers it started in its init: a server abcd handed it that did not
// connect refuses the step, before any work.
func TestAnMCPServerThatDidNotStartIsRefused(t *testing.T) {
	mcp := []domain.MCPServer{{Name: "abcd", Command: "/usr/local/bin/abcd", Tools: []domain.MCPTool{{Name: "status", InputSchema: map[string]any{}}}}}
	initWith := func(servers string) string {
		return strings.Replace(initLine, `"tools":["Read"]`, `"tools":["Read"],"mcp_servers":`+servers, 1)
	}
	for servers, cause := range map[string]domain.Cause{
		`[{"name":"abcd","status":"connected"}]`: "",
		`[{"name":"abcd","status":"failed"}]`:    domain.CauseSettingsIgnored,
		`[]`:                                     domain.CauseSettingsIgnored,
	} {
		w := newWorld(t)
		w.script(lines(initWith(servers), textLine, success)...)
		o := w.step(context.Background(), func(r *ports.RunnerStep) { r.MCP = mcp })
		if cause == "" {
			assert.Check(t, o.Failure == nil, "%s: %+v", servers, o.Failure)
			continue
		}
		assert.Assert(t, o.Failure != nil, servers)
		assert.Check(t, is.Equal(o.Failure.Cause, cause))
		assert.Check(t, is.Contains(o.Failure.Detail, "MCP server abcd"))
	}

	// Gemini CLI says so on stderr alone: read in full once the CLI is gone, before the step counts.
	w := worldOf(t, domain.Gemini)
	w.script(append(lines(shortStreams[domain.Gemini]...), runnertest.Directive{Run: []string{"/bin/sh", "-c", "echo 'MCP issues detected. Run /mcp list for status.' >&2"}})...)
	o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = domain.PolicyImplement; r.MCP = mcp })
	assert.Assert(t, o.Failure != nil)
	assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseSettingsIgnored))
	assert.Check(t, is.Contains(o.Failure.Detail, gemini.MCPIssues))
	o = w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = domain.PolicyImplement })
	assert.Check(t, o.Failure == nil, "without a catalog the words name no server of abcd's: %+v", o.Failure)
}

// Each CLI runs with a settings home of abcd's own: HOME and its own variable point inside the step's
// private folder, never at the person's home; the folders are the owner's alone and the files too;
// the home goes with the step. Its --version and --help get a home of their own as well.
func TestEachCLIRunsInASettingsHomeOfAbcds(t *testing.T) {
	for _, k := range []domain.Kind{domain.Claude, domain.Codex, domain.Gemini} {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			w := worldOf(t, k)
			w.setEnv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
			w.r.PassEnv = append(w.r.PassEnv, "OPENAI_BASE_URL")
			dump := filepath.Join(w.dir, "dump.json")
			perms := filepath.Join(w.dir, "perms.txt")
			w.script(append([]runnertest.Directive{{Dump: dump},
				{Run: []string{"/bin/sh", "-c", `find "$HOME" -exec stat -c '%a %F %n' {} + > ` + perms}}}, lines(shortStreams[k]...)...)...)
			o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Policy = domain.PolicyImplement })
			assert.Check(t, o.Failure == nil, "%+v", o.Failure)
			var d runnertest.Dump
			data, err := os.ReadFile(dump)
			assert.NilError(t, err)
			assert.NilError(t, json.Unmarshal(data, &d))
			env := map[string]string{}
			for _, kv := range d.Env {
				key, v, _ := strings.Cut(kv, "=")
				env[key] = v
			}
			home := env["HOME"]
			assert.Check(t, home != w.dir, "the person's home")
			assert.Check(t, strings.HasPrefix(home, filepath.Join(w.dir, "abcd-runner-")) && filepath.Base(home) == "home", home)
			for name, v := range k.HomeEnv(home) {
				assert.Check(t, is.Equal(env[name], v), name)
			}
			data, err = os.ReadFile(perms)
			assert.NilError(t, err)
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				mode, kind, _ := strings.Cut(l, " ")
				want := "600"
				if strings.HasPrefix(kind, "directory") {
					want = "700"
				}
				assert.Check(t, is.Equal(mode, want), l)
			}
			if k == domain.Codex {
				assert.Check(t, is.Contains(string(data), filepath.Join(home, ".codex", "config.toml")), "the provider of the base URL passed")
			}
			_, err = os.Stat(home)
			assert.Check(t, os.IsNotExist(err), "the settings home outlived its step")
		})
	}
}

// The preflight's --version and --help run with a home of their own, not the person's.
func TestThePreflightRunsInAHomeOfItsOwn(t *testing.T) {
	w := newWorld(t)
	dump := filepath.Join(w.dir, "help-env.txt")
	w.setEnv("FAKE_CLI_HELP", "Usage: claude [options]\n"+strings.Join(claude.Dialect{}.Flags(), " <x>\n  "))
	w.setEnv(runnertest.HelpDumpVar, dump)
	w.r.PassEnv = append(w.r.PassEnv, runnertest.HelpDumpVar)
	w.script(lines(initLine, success)...)
	rep, err := w.a.Check(context.Background(), ports.RunnerCheck{Runner: w.r})
	assert.NilError(t, err)
	assert.Check(t, rep.Failure == nil, "%+v", rep.Failure)
	data, err := os.ReadFile(dump)
	assert.NilError(t, err)
	var home string
	for _, kv := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	assert.Check(t, strings.HasPrefix(home, filepath.Join(w.dir, "abcd-check-")), "HOME=%s", home)
	assert.Check(t, is.Contains(string(data), "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude")))
	_, err = os.Stat(home)
	assert.Check(t, os.IsNotExist(err), "a check's home outlived it")
}

// The runners' folder is made its owner's alone, whatever it was.
func TestTheRunnersFolderIsTheOwnersAlone(t *testing.T) {
	w := newWorld(t)
	folder := filepath.Join(w.dir, "runner")
	assert.NilError(t, os.Mkdir(folder, 0o777))
	assert.NilError(t, os.Chmod(folder, 0o777))
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}}, Guard: w.guard(), Environ: func() []string { return w.env }, TempDir: folder})
	w.script(lines(initLine, success)...)
	o := w.step(context.Background())
	assert.Check(t, o.Failure == nil, "%+v", o.Failure)
	fi, err := os.Stat(folder)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(fi.Mode().Perm(), fs.FileMode(0o700)))

	link := filepath.Join(w.dir, "link")
	assert.NilError(t, os.Symlink(folder, link))
	w.a = runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}}, Guard: w.guard(), Environ: func() []string { return w.env }, TempDir: link})
	_, err = w.a.Step(context.Background(), ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyRead, Limits: w.r.Limits})
	assert.Check(t, err != nil, "a runners' folder that is a link is refused")
}
