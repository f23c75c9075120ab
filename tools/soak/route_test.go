//go:build unix

package soak

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	"github.com/abcd-dev/abcd/domain/layout"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// routeDelay is how long each stand-in route works on a review before it answers.
const routeDelay = 400 * time.Millisecond

// slowProvider is an OpenAI-compatible stand-in that streams a passing review reply after a delay.
func slowProvider(t *testing.T, delay time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		verdict, severity := "SHIP", "minor"
		for _, m := range req.Messages {
			if m.Role == "system" && strings.Contains(m.Content, "NEEDS-INPUT") {
				verdict, severity = "APPROVE", "low"
			}
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		reply, _ := json.Marshal(map[string]any{"summary": "Read the change.", "verdict": verdict,
			"findings": []any{map[string]any{"title": "A nit", "location": "feature.txt:1", "severity": severity, "what": "a nit", "fix": ""}}})
		w.Header().Set("Content-Type", "text/event-stream")
		chunk, _ := json.Marshal(map[string]any{"model": "m-1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": string(reply)}, "finish_reason": "stop"}}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestKillNineDuringARouteCall kills `abcd review` with SIGKILL at random moments while its routes
// work: the ruthless reviewer's review goes to an OpenAI-compatible provider, the security reviewer's
// to RepoPrompt (the stand-in on the official MCP SDK), each answering after a delay. The await a
// route was working on names the process calling it; the same review run again finds that process
// gone, records the interrupted fallback, as Ctrl-C does, and hands the review to the host: no await
// is left saying a route is taking it, every fallback is a receipt with its reason, and nothing is
// left for git or lint.
func TestKillNineDuringARouteCall(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	rp := rpStandInMode(t, "slow", fmt.Sprintf("STANDIN_DELAY_MS=%d", routeDelay.Milliseconds()))
	prov := slowProvider(t, routeDelay)
	tpl := newRepo(t)
	tpl.write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"oracle":{"review":"rp"}}`)
	home := filepath.Join(filepath.Dir(tpl.root), "home", "config.json")
	tpl.write(home, `{"schema_version":1,"oracle":{"rp":{"url":"`+rp+`"},"api":{"slow":{"base_url":"`+prov+`","models":["m-1"],"tiers":{"economy":"m-1"}}}}}`)
	assert.NilError(t, os.Chmod(home, 0o600))
	tpl.git(tpl.root, "add", "-A")
	tpl.git(tpl.root, "commit", "-q", "-m", "abcd")
	tpl.git(tpl.root, "checkout", "-q", "-b", "feature")
	tpl.write("feature.txt", "a feature\n")
	tpl.git(tpl.root, "add", "feature.txt")
	tpl.git(tpl.root, "commit", "-q", "-m", "feature")
	args := []string{"review", "--base", "main", "--route", "ruthless-reviewer=economy@slow"}
	killRouteCalls(t, tpl, args, fmt.Sprintf("abcd review with both routes working %s each", routeDelay))
}

// killRouteCalls kills args (a review whose routes work) at random moments and requires the same
// review run again to leave no await a route is still taking, a reason on every fallback, every
// review answered or open for the host, and nothing for git or lint.
func killRouteCalls(t *testing.T, tpl *repo, args []string, what string) {
	took := tpl.timeWhole(t, args)
	var landed, working, handedOn, answered, none int
	for i := range kills() {
		r := tpl.clone(t)
		if r.killAtRandom(t, args, took) {
			landed++
		}
		runs := r.files(layout.Runs)
		if len(runs) == 0 || !r.exists(layout.RunDir(runs[0])+"/state.json") {
			none++
		} else if routeWorking(t, r.read(layout.RunDir(runs[0])+"/state.json")) {
			working++ // a route was working on an await for the process the kill ended
		}
		again := r.run(args...)
		assert.Check(t, again.code == 0, "kill %d: run again: exit %d: %s", i, again.code, again.raw)
		for _, run := range r.files(layout.Runs) {
			status := r.ok("implement", "status", "--run", run)
			for _, rv := range decode[[]map[string]any](t, status["runs"]) {
				for _, a := range decode[[]map[string]any](t, rv["awaits"]) {
					next, _ := a["next"].(map[string]any)["text"].(string)
					assert.Check(t, !strings.Contains(next, "is taking this"), "kill %d: an await still says a route is taking it: %s", i, next)
				}
			}
			story := r.ok("implement", "record", "--run", run)
			for _, f := range decode[[]map[string]any](t, story["fallbacks"]) {
				assert.Check(t, f["reason"] != "", "kill %d: a fallback without a reason: %v", i, f)
				if f["reason"] == "interrupted" {
					handedOn++
				}
			}
			for _, v := range decode[[]map[string]any](t, story["verdicts"]) {
				if v["ran"] != "host" {
					answered++
				}
			}
			assert.Check(t, is.Len(decode[[]map[string]any](t, story["verdicts"]), 2-len(r.ok("implement", "status", "--run", run)["runs"].([]any)[0].(map[string]any)["awaits"].([]any))),
				"kill %d: every review is answered or open for the host", i)
		}
		r.whole(t)
		if t.Failed() {
			kept, _ := os.MkdirTemp("", "abcd-crash-") //nolint:usetesting // kept past the test, for a look
			_ = exec.Command("cp", "-a", filepath.Dir(r.root)+"/.", kept).Run()
			t.Fatalf("kill %d of abcd %s (after up to %s) left this; kept at %s", i, strings.Join(args, " "), took, kept)
		}
		assert.Check(t, os.RemoveAll(filepath.Dir(r.root)))
	}
	t.Logf("%s: %d kills at random over the %s it takes: %d landed while it ran, %d while a route worked on an await for the killed process; run again, %d reviews were handed to the host as interrupted and %d were answered by a route; %d kills came before the run existed",
		what, kills(), took.Round(time.Millisecond), landed, working, handedOn, answered, none)
}

// TestKillNineDuringARunnerReview is the same campaign with both reviews on a runner: Claude Code
// (the fake CLI, this test binary started again by abcd) answers each after a delay, in the
// reviewers' schemas.
func TestKillNineDuringARunnerReview(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 campaign runs in make test and make soak, not under -short")
	}
	tpl := newRepo(t)
	dir := filepath.Dir(tpl.root)
	exe, err := os.Executable()
	assert.NilError(t, err)
	machine, err := json.Marshal(map[string]any{"schema_version": 1, "oracle": map[string]any{
		"runner": map[string]any{"cc": map[string]any{"cli": "claude", "executable": exe, "version": "2.1.332",
			"credential_env": []string{"ANTHROPIC_API_KEY"}, "pass_env": []string{runnertest.ScriptVar, "FAKE_CLI_HELP"}, "concurrency": 2,
			"limits": map[string]any{"wall_clock_s": 60, "first_event_s": 30, "silence_s": 30}}},
		"roles": map[string]any{"ruthless-reviewer": map[string]any{"runner": "cc"}, "security-reviewer": map[string]any{"runner": "cc"}}}})
	assert.NilError(t, err)
	tpl.write(filepath.Join(dir, "home", "config.json"), string(machine))
	assert.NilError(t, os.Chmod(filepath.Join(dir, "home", "config.json"), 0o600))
	result := func(structured any) string {
		b, err := json.Marshal(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "", "num_turns": 1,
			"total_cost_usd": 0.01, "usage": map[string]any{"input_tokens": 100, "output_tokens": 20}, "permission_denials": []any{},
			"terminal_reason": "completed", "api_error_status": nil, "session_id": "sess-1", "structured_output": structured})
		assert.NilError(t, err)
		return string(b)
	}
	answer := "You run headless: how you answer"
	var script strings.Builder
	for _, d := range []runnertest.Directive{
		{SessionStart: "claude"},
		{Out: `{"type":"system","subtype":"init","cwd":"/w","session_id":"sess-1","tools":["Read"],"model":"claude-x","permissionMode":"dontAsk","claude_code_version":"2.1.332"}`},
		{SleepMS: int(routeDelay.Milliseconds())},
		{When: []string{answer, "# ruthless-reviewer:"}, Out: result(map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}})},
		{When: []string{answer, "# security-reviewer:"}, Out: result(map[string]any{"summary": "Nothing to fear.", "verdict": "APPROVE",
			"findings": []any{map[string]any{"title": "A note", "location": "feature.txt:1", "severity": "low", "what": "a note", "fix": ""}}})},
	} {
		line, err := json.Marshal(d)
		assert.NilError(t, err)
		script.Write(line)
		script.WriteByte('\n')
	}
	tpl.write(filepath.Join(dir, "script.jsonl"), script.String())
	help := "Usage: claude [options]\n  " + strings.Join(claude.Dialect{}.Flags(), " <x>\n  ")
	tpl.env = append(tpl.env, runnertest.ScriptVar+"="+filepath.Join(dir, "script.jsonl"), "FAKE_CLI_HELP="+help, "ANTHROPIC_API_KEY=sk-ant-soak-0123456789")
	tpl.git(tpl.root, "add", "-A")
	tpl.git(tpl.root, "commit", "-q", "-m", "abcd")
	tpl.git(tpl.root, "checkout", "-q", "-b", "feature")
	tpl.write("feature.txt", "a feature\n")
	tpl.git(tpl.root, "add", "feature.txt")
	tpl.git(tpl.root, "commit", "-q", "-m", "feature")
	args := []string{"review", "--base", "main"}
	// Uninterrupted, the runner answers both reviews.
	c := tpl.clone(t)
	run := c.ok(args...)["run"].(map[string]any)["run"].(string)
	for _, v := range decode[[]map[string]any](t, c.ok("implement", "record", "--run", run)["verdicts"]) {
		assert.Check(t, is.Equal(v["ran"], "cc"), "%v", v)
	}
	assert.Check(t, os.RemoveAll(filepath.Dir(c.root)))
	killRouteCalls(t, tpl, args, fmt.Sprintf("abcd review with both reviews on a runner working %s each", routeDelay))
}

// routeWorking reports whether a run's state has an await a route is working on: asked of a route
// beside the host, not fallen back, not answered.
func routeWorking(t *testing.T, state string) bool {
	var s struct {
		Lanes []struct {
			Awaits []struct {
				Routing struct {
					Route    string `json:"route"`
					FellBack string `json:"fell_back"`
					Worker   struct {
						Lock string `json:"lock"`
					} `json:"worker"`
				} `json:"routing"`
				Answered struct {
					Route string `json:"route"`
				} `json:"answered"`
			} `json:"awaits"`
		} `json:"lanes"`
	}
	assert.NilError(t, json.Unmarshal([]byte(state), &s))
	for _, l := range s.Lanes {
		for _, a := range l.Awaits {
			if a.Routing.Route != "" && a.Routing.Route != "host" && a.Routing.FellBack == "" && a.Answered.Route == "" {
				assert.Check(t, a.Routing.Worker.Lock != "", "an await a route works on names its process")
				return true
			}
		}
	}
	return false
}
