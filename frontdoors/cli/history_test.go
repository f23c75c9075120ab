package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/history"
)

// historyCLIApp holds the session files the recorded hook payloads name, in a repository at /work/repo.
func historyCLIApp(t *testing.T) (*app.App, *fake.History) {
	t.Helper()
	a := newApp(factsInitialized)
	line := func(session, agent, text string) string {
		v := map[string]any{"type": "user", "sessionId": session, "cwd": "/work/repo", "message": map[string]any{"role": "user", "content": text}}
		if agent != "" {
			v["agentId"] = agent
		}
		data, _ := json.Marshal(v)
		return string(data) + "\n"
	}
	const s = "d3270867-c4f3-4be1-b218-4d97aa877406"
	files := fake.Transcripts{HomeDir: "/home/ada", Cwds: map[string]string{}, Files: map[string][]byte{
		"/home/ada/.claude/projects/-work-repo/" + s + ".jsonl":                                   []byte(line(s, "", "SPAWN a helper please")),
		"/home/ada/.claude/projects/-work-repo/" + s + "/subagents/agent-a75c5ce5ff216f0db.jsonl": []byte(line(s, "a75c5ce5ff216f0db", "SUBTASK: look around")),
		"/home/ada/.gemini/tmp/proj/chats/session-2026-12-01T15-19-977a645d.jsonl":                []byte(`{"sessionId":"977a645d-cda3-4afd-b2f0-2f1e770230bf"}` + "\n" + `{"id":"1","type":"user","content":[{"text":"say hello again"}]}` + "\n"),
	}}
	files.Cwds["/home/ada/.gemini/tmp/proj/chats/session-2026-12-01T15-19-977a645d.jsonl"] = "/work/repo"
	h := fake.NewHistory()
	a.History, a.Transcripts = h, files
	a.Git.(*fake.Git).TopDir = "/work/repo"
	return a, h
}

// The end-of-session and sub-agent-stop hooks, driven by the payloads the real harnesses sent.
func TestHistoryHookCapturesWhatThePayloadNames(t *testing.T) {
	a, h := historyCLIApp(t)
	res := runStdin(t, a, readFixture(t, "claude-subagent-stop.json"), "history", "hook", "--harness", "claude", "--wait")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Equal(res.stdout, ""))
	res = runStdin(t, a, readFixture(t, "claude-session-end.json"), "history", "hook", "--harness", "claude", "--wait")
	assert.Equal(t, res.code, 0, res.stderr)
	res = runStdin(t, a, readFixture(t, "gemini-session-end.json"), "history", "hook", "--harness", "gemini", "--wait")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Equal(res.stdout, "{}\n"), "Gemini CLI reads JSON on exit 0")
	var keys []string
	for repo := range h.Repos {
		keys = append(keys, h.Order[repo]...)
	}
	assert.Check(t, is.DeepEqual(keys, []string{"claude:d3270867-c4f3-4be1-b218-4d97aa877406:a75c5ce5ff216f0db",
		"claude:d3270867-c4f3-4be1-b218-4d97aa877406", "gemini:977a645d-cda3-4afd-b2f0-2f1e770230bf"}), "the sub-agent's own transcript, then the session's")

	for _, bad := range []string{"", "nope", `{"hook_event_name":"SessionEnd"}`, `{"transcript_path":"relative.jsonl"}`} {
		res = runStdin(t, a, bad, "history", "hook", "--harness", "claude")
		assert.Check(t, is.Equal(res.code, 1), "%q", bad)
		assert.Check(t, is.Contains(res.stderr, "abcd history: not captured"), "%q", bad)
	}
	res = runStdin(t, a, readFixture(t, "claude-session-end.json"), "history", "hook")
	assert.Check(t, is.Equal(res.code, 2), "the harness must be named")
}

func TestHistoryCommands(t *testing.T) {
	a, _ := historyCLIApp(t)
	res := run(t, a, "history", "capture", "--all")
	assert.Equal(t, res.code, 0, res.stderr)
	res = run(t, a, "history", "capture", "/home/ada/.claude/projects/-work-repo/d3270867-c4f3-4be1-b218-4d97aa877406.jsonl")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "stored ~/.claude/projects/-work-repo/d3270867"))
	res = run(t, a, "history", "capture", "/home/ada/.claude/projects/-work-repo/d3270867-c4f3-4be1-b218-4d97aa877406.jsonl")
	assert.Check(t, is.Contains(res.stdout, "unchanged"))
	res = run(t, a, "history", "list")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "SPAWN a helper please"))
	res = run(t, a, "history", "show", "d3270867")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "SPAWN a helper please"))
	res = run(t, a, "history", "search", "helper", "--json")
	assert.Equal(t, res.code, 0, res.stderr)
	var found history.HistorySearchResult
	decodeOne(t, res.stdout, &found)
	assert.Check(t, is.Len(found.Hits, 1))

	for _, c := range []struct {
		args []string
		code string
	}{
		{[]string{"history", "capture"}, "history_capture_what"},
		{[]string{"history", "capture", "relative/path.jsonl"}, "history_transcript_invalid"},
		{[]string{"history", "capture", "/tmp/x.jsonl", "--harness", "cursor"}, "history_harness_unknown"},
		{[]string{"history", "show", "../x"}, "history_session_invalid"},
		{[]string{"history", "search", ""}, "history_query_invalid"},
		{[]string{"history", "list", "--run", "nope"}, "run_invalid"},
	} {
		res := run(t, a, append(c.args, "--json")...)
		assert.Check(t, is.Equal(res.code, 2), "%v: %s", c.args, res.stdout)
		assert.Check(t, strings.Contains(res.stdout, `"code":"`+c.code+`"`), "%v: %s", c.args, res.stdout)
	}
}
