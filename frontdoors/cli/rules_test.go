package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/rules"
)

const testRepoRules = `{"schema_version":1,"domains":[{"name":"database","recall":["migration","migrations"],"aliases":["db"],
	"rules":[{"id":"reversible","text":"Every migration has a down step that undoes it."},{"id":"no-lock","text":"Never lock a large table in a migration: add columns nullable first."}]}]}`

func rulesCLIApp(repo string) *app.App {
	a := newApp(factsInitialized)
	a.Rules = fake.Rules{Files: ports.RuleFiles{
		Machine:    ports.ConfigFile{Path: "/home/ada/.abcd/rules.json"},
		Repository: ports.ConfigFile{Path: "/work/repo/.abcd/rules.json", Present: repo != "", Data: []byte(repo)},
	}}
	return a
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/hooks/" + name)
	assert.NilError(t, err)
	return string(data)
}

// hookAnswer is what both harnesses read from a prompt hook's stdout.
type hookAnswer struct {
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func decodeHook(t *testing.T, out string) hookAnswer {
	t.Helper()
	var h hookAnswer
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(&h), out)
	assert.Check(t, !dec.More(), "one JSON object: %s", out)
	return h
}

// The hook handed Claude Code's own UserPromptSubmit payload injects what rules match shows for the
// same prompt, as additionalContext under the event's name.
func TestRulesHookInjectsForClaudeCode(t *testing.T) {
	a := rulesCLIApp(testRepoRules)
	payload := readFixture(t, "claude-user-prompt-submit.json")
	res := runStdin(t, a, payload, "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	h := decodeHook(t, res.stdout)
	assert.Check(t, is.Equal(h.HookSpecificOutput.HookEventName, "UserPromptSubmit"))
	assert.Check(t, is.Equal(h.SystemMessage, ""))

	var p struct{ Prompt string }
	assert.NilError(t, json.Unmarshal([]byte(payload), &p))
	match := run(t, a, "rules", "match", "--prompt", p.Prompt, "--json")
	assert.Equal(t, match.code, 0, match.stderr)
	var m rules.RulesMatchResult
	decodeOne(t, match.stdout, &m)
	assert.Check(t, is.Equal(h.HookSpecificOutput.AdditionalContext, m.Context))

	ctx := h.HookSpecificOutput.AdditionalContext
	assert.Check(t, is.Contains(ctx, "[database] recalled by \"migration\"\n- Every migration has a down step that undoes it.\n"))
	assert.Check(t, is.Contains(ctx, "[committing] recalled by \"commit\", \"push\""))
	assert.Check(t, is.Contains(ctx, "rule git-push-force"), "the shell lesson for the command the prompt names")
	assert.Check(t, len(ctx) <= m.Budget.Bytes)
	assert.Check(t, is.Contains(ctx, "Left out over the budget"), "what was left out is said")
}

func TestRulesHookInjectsForGeminiCLI(t *testing.T) {
	a := rulesCLIApp(testRepoRules)
	res := runStdin(t, a, readFixture(t, "gemini-before-agent.json"), "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	h := decodeHook(t, res.stdout)
	assert.Check(t, is.Equal(h.HookSpecificOutput.HookEventName, "BeforeAgent"))
	assert.Check(t, is.Contains(h.HookSpecificOutput.AdditionalContext, "Every migration has a down step"))

	// Nothing matched: Gemini CLI reads an empty decision; Claude Code reads nothing.
	quiet := strings.Replace(readFixture(t, "gemini-before-agent.json"), "Write the migration for the orders table, then commit it and git push --force", "hello there", 1)
	res = runStdin(t, a, quiet, "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Equal(res.stdout, "{}\n"))
	quiet = strings.Replace(readFixture(t, "claude-user-prompt-submit.json"), "Write the migration for the orders table, then commit it and git push --force", "hello there", 1)
	res = runStdin(t, a, quiet, "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Equal(res.stdout, ""))
}

func TestRulesHookForcesDormantDomains(t *testing.T) {
	a := rulesCLIApp(`{"schema_version":1,"domains":[{"name":"release","dormant":true,"recall":["release"],"rules":[{"id":"notes","text":"Write the release notes first."}]}]}`)
	payload := func(prompt string) string {
		data, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/work/repo", "permission_mode": "default",
			"hook_event_name": "UserPromptSubmit", "prompt": prompt})
		return string(data)
	}
	res := runStdin(t, a, payload("cut the release"), "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Equal(res.stdout, ""), "a dormant domain's words bring nothing")
	res = runStdin(t, a, payload("cut it *release"), "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	h := decodeHook(t, res.stdout)
	assert.Check(t, is.Contains(h.HookSpecificOutput.AdditionalContext, "[release] forced by *release\n- Write the release notes first.\n"))

	// A hidden character or a carriage return in a harness's prompt does not stop the rules.
	res = runStdin(t, a, payload("cut it\r\n\u200b*release \x1b[0m"), "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(decodeHook(t, res.stdout).HookSpecificOutput.AdditionalContext, "forced by *release"))
}

func TestRulesHookSaysWhatIsWrongWithoutBlocking(t *testing.T) {
	// A rules file that fails to parse: that layer is refused, named to the person once
	// (systemMessage, not again on stderr), and the other layers, the bundled guardrails first, still
	// come with the prompt, which goes on (exit 0).
	a := rulesCLIApp(`{"schema_version":1,"domains":[{"name":"../x"}]}`)
	res := runStdin(t, a, readFixture(t, "claude-user-prompt-submit.json"), "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	h := decodeHook(t, res.stdout)
	assert.Check(t, is.Contains(h.SystemMessage, "/work/repo/.abcd/rules.json is refused ("))
	assert.Check(t, is.Contains(h.SystemMessage, "cannot become a file name"))
	assert.Check(t, is.Equal(strings.Count(h.SystemMessage, "/work/repo/.abcd/rules.json"), 1), "%s", h.SystemMessage)
	assert.Check(t, is.Contains(h.HookSpecificOutput.AdditionalContext, "[committing]"), "the bundled guardrails stay")
	assert.Check(t, is.Equal(res.stderr, ""))

	// An override that drops a bundled guardrail is named to the person on every prompt.
	a = rulesCLIApp(`{"schema_version":1,"domains":[{"name":"committing","drop":["never-skip-hooks"]}]}`)
	res = runStdin(t, a, readFixture(t, "claude-user-prompt-submit.json"), "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	h = decodeHook(t, res.stdout)
	assert.Check(t, is.Contains(h.SystemMessage, "drops the bundled guardrail rule committing/never-skip-hooks"))
	assert.Check(t, !strings.Contains(h.HookSpecificOutput.AdditionalContext, "Never skip the repository's hooks"))

	// Injection off: nothing is handed over, and the switch is named.
	a = rulesCLIApp(`{"schema_version":1,"inject":false}`)
	res = runStdin(t, a, readFixture(t, "claude-user-prompt-submit.json"), "rules", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	h = decodeHook(t, res.stdout)
	assert.Check(t, is.Equal(h.HookSpecificOutput.AdditionalContext, ""))
	assert.Check(t, is.Contains(h.SystemMessage, "/work/repo/.abcd/rules.json sets inject false"))

	// A payload the hook cannot read: a non-blocking hook error in both harnesses (exit 1).
	for _, bad := range []string{"", "not json", `{"hook_event_name":"UserPromptSubmit"}`, `{"hook_event_name":"PreToolUse","prompt":"x"}`,
		`{"hook_event_name":"UserPromptSubmit","prompt":"x","cwd":"relative/dir"}`, `{"prompt":"x"} {}`} {
		res = runStdin(t, a, bad, "rules", "hook")
		assert.Check(t, is.Equal(res.code, 1), "%q", bad)
		assert.Check(t, is.Equal(res.stdout, ""), "%q", bad)
		assert.Check(t, is.Contains(res.stderr, "abcd rules: no rules injected"), "%q", bad)
	}
	res = runStdin(t, a, `{"prompt":"`+strings.Repeat("a", MaxRulesHookInput)+`"}`, "rules", "hook")
	assert.Check(t, is.Equal(res.code, 1))
	assert.Check(t, is.Contains(res.stderr, "larger than"))
}

func TestRulesCommands(t *testing.T) {
	a := rulesCLIApp(testRepoRules)
	res := run(t, a, "rules")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "database"))
	assert.Check(t, is.Contains(res.stdout, "guardrail"))
	res = run(t, a, "rules", "db")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "database  2"))
	res = run(t, a, "rules", "show", "database", "--prompt", "a migration")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(res.stdout, `with this prompt: comes: recalled by "migration"`))
	assert.Check(t, is.Contains(res.stdout, "reversible * [repository]: Every migration"))
	res = runStdin(t, a, "a migration\n", "rules", "match")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "the hook injects"))

	res = run(t, a, "rules", "nope", "--json")
	assert.Equal(t, res.code, 2)
	assert.Check(t, is.Contains(res.stdout, `"code":"rules_domain_unknown"`))
	res = run(t, a, "rules", "../etc", "--json")
	assert.Equal(t, res.code, 2)
	assert.Check(t, is.Contains(res.stdout, `"code":"rules_domain_invalid"`))
	res = run(t, a, "rules", "match", "--prompt", "a\x1b[2J", "--json")
	assert.Equal(t, res.code, 2)
	assert.Check(t, is.Contains(res.stdout, `"code":"rules_prompt_invalid"`))
}
