package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	guarduc "github.com/abcd-dev/abcd/ports/guard"
)

// guardCLIApp reads every line as one command of words split on spaces: enough for the front door's
// tests (the shell reader has its own).
func guardCLIApp() *app.App {
	a := newApp(factsInitialized)
	a.Commands = fake.Commands{Read: func(line string) (guard.Line, error) {
		f := strings.Fields(line)
		c := guard.Command{Name: guard.Lit(f[0]), Text: line}
		for _, w := range f[1:] {
			c.Args = append(c.Args, guard.Lit(w))
		}
		return guard.Line{Commands: []guard.Command{c}}, nil
	}}
	return a
}

func runStdin(t *testing.T, a *app.App, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &IO{In: strings.NewReader(stdin), Out: &out, Err: &errOut}
	code := Execute(context.Background(), NewRoot(a, s), s, args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func TestGuardCheckExitCodes(t *testing.T) {
	a := guardCLIApp()
	res := run(t, a, "guard", "check", "--command", "git push --force", "--cwd", "/work/repo")
	assert.Equal(t, res.code, 1, res.stderr)
	assert.Check(t, is.Contains(res.stdout, "block: git push --force"))
	assert.Check(t, is.Contains(res.stdout, "git-push-force"))

	res = run(t, a, "guard", "check", "--command", "git stash drop", "--json")
	assert.Equal(t, res.code, 0, "warn runs: exit 0")
	var v guarduc.GuardVerdict
	decodeOne(t, res.stdout, &v)
	assert.Equal(t, v.Decision, "warn")

	res = runStdin(t, a, "git status\n", "guard", "check", "--json")
	assert.Equal(t, res.code, 0)
	decodeOne(t, res.stdout, &v)
	assert.Equal(t, v.Decision, "allow")

	res = run(t, a, "guard", "check", "--command", "", "--json")
	assert.Equal(t, res.code, 2, "an empty line is refused: nothing was checked")
}

func testHookPayload(event, tool string, input any) string {
	data, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/work/repo",
		"permission_mode": "default", "hook_event_name": event, "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1"})
	return string(data)
}

func TestGuardHookSpeaksClaudeCode(t *testing.T) {
	a := guardCLIApp()
	res := runStdin(t, a, testHookPayload("PreToolUse", "Bash", map[string]any{"command": "git push -f origin main", "description": "push"}), "guard", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	type answer struct {
		SystemMessage      string            `json:"systemMessage"`
		HookSpecificOutput map[string]string `json:"hookSpecificOutput"`
	}
	var out answer
	decodeOne(t, res.stdout, &out)
	assert.Equal(t, out.HookSpecificOutput["hookEventName"], "PreToolUse")
	assert.Equal(t, out.HookSpecificOutput["permissionDecision"], "deny")
	assert.Check(t, is.Contains(out.HookSpecificOutput["permissionDecisionReason"], "git-push-force"))

	res = runStdin(t, a, testHookPayload("PreToolUse", "Bash", map[string]any{"command": "git stash drop"}), "guard", "hook")
	assert.Equal(t, res.code, 0)
	out = answer{}
	decodeOne(t, res.stdout, &out)
	assert.Equal(t, out.HookSpecificOutput["permissionDecision"], "", "a warning leaves the decision to the harness")
	assert.Check(t, is.Contains(out.SystemMessage, "warns"))
	assert.Check(t, is.Contains(out.HookSpecificOutput["additionalContext"], "git-stash-drop"))

	res = runStdin(t, a, testHookPayload("PreToolUse", "Bash", map[string]any{"command": "ls -la"}), "guard", "hook")
	assert.Equal(t, res.code, 0)
	assert.Equal(t, res.stdout, "", "allow is silent")

	res = runStdin(t, a, testHookPayload("PreToolUse", "Read", map[string]any{"file_path": "/x"}), "guard", "hook")
	assert.Equal(t, res.code, 0)
	assert.Equal(t, res.stdout, "")
	assert.Check(t, is.Contains(res.stderr, "not checked"), "a tool it does not check is said so on stderr")
}

// TestGuardHookChecksFileWrites: a tool that writes a file is checked as a redirection to it.
func TestGuardHookChecksFileWrites(t *testing.T) {
	var seen []string
	a := guardCLIApp()
	a.Commands = fake.Commands{Read: func(line string) (guard.Line, error) {
		seen = append(seen, line)
		return guard.Line{Commands: []guard.Command{{Name: guard.Lit(":"), Text: line}}}, nil
	}}
	for tool, key := range map[string]string{"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"} {
		res := runStdin(t, a, testHookPayload("PreToolUse", tool, map[string]any{key: "/work/repo/it's.json", "content": "x"}), "guard", "hook")
		assert.Equal(t, res.code, 0, res.stderr)
	}
	res := runStdin(t, a, testHookPayload("BeforeTool", "write_file", map[string]any{"file_path": "/work/repo/a.json"}), "guard", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.DeepEqual(t, seen[len(seen)-1], ": > '/work/repo/a.json'")
	assert.Check(t, is.Contains(seen, `: > '/work/repo/it'\''s.json'`), "%q", seen)

	res = runStdin(t, a, testHookPayload("PreToolUse", "Write", map[string]any{"content": "x"}), "guard", "hook")
	assert.Equal(t, res.code, 2, "a write without its file is not checked, so it is blocked")

	// Codex's apply_patch: every file the patch touches, from the patch's own headers.
	patch := "*** Begin Patch\n*** Add File: notes/new.txt\n+hello\n*** Update File: src/a.go\n*** Move to: src/b.go\n@@\n-x\n+y\n" +
		"*** Delete File: old.txt\r\n*** End Patch\n"
	res = runStdin(t, a, testHookPayload("PreToolUse", "apply_patch", map[string]any{"command": patch}), "guard", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Equal(t, seen[len(seen)-1], ": > 'notes/new.txt'; : > 'src/a.go'; : > 'src/b.go'; rm -- 'old.txt'; rm -- 'old.txt\r'")
	// Codex trims each line: an indented header, or one with trailing white space, still names its file.
	res = runStdin(t, a, testHookPayload("PreToolUse", "apply_patch", map[string]any{"command": "*** Begin Patch\n  *** Add File: .claude/settings.json\n+{}\n*** Add File: .gemini/settings.json \n+{}\n*** End Patch\n"}), "guard", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Equal(t, seen[len(seen)-1], ": > '.claude/settings.json'; : > '.gemini/settings.json'; : > '.gemini/settings.json '")
	res = runStdin(t, a, testHookPayload("PreToolUse", "apply_patch", map[string]any{"command": "*** Begin Patch\n***  Add File: .abcd/guard.json\n+{}\n*** End Patch\n"}), "guard", "hook")
	assert.Equal(t, res.code, 2, "a line that looks like a header the guard cannot parse blocks the patch")
	// Codex's write_stdin: what it types into a running command is checked as a command line.
	res = runStdin(t, a, testHookPayload("PreToolUse", "write_stdin", map[string]any{"session_id": 7, "chars": "rm -rf ~\n"}), "guard", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Equal(t, seen[len(seen)-1], "rm -rf ~\n")
	res = runStdin(t, a, testHookPayload("PreToolUse", "write_stdin", map[string]any{"session_id": 7}), "guard", "hook")
	assert.Equal(t, res.code, 2, "typing with no chars is not checked, so it is blocked")
	res = runStdin(t, a, testHookPayload("PreToolUse", "apply_patch", map[string]any{"command": "*** Begin Patch\n*** End Patch\n"}), "guard", "hook")
	assert.Equal(t, res.code, 2, "a patch that names no file is not checked, so it is blocked")
}

// TestGuardHookReadsExactKeys: the payload is read by the keys the harness reads, never another
// spelling of them.
func TestGuardHookReadsExactKeys(t *testing.T) {
	a := guardCLIApp()
	for name, payload := range map[string]string{
		"Command beside command":     `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~","Command":"ls"}}`,
		"Command alone":              `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"Command":"rm -rf ~"}}`,
		"Tool_Name beside tool_name": `{"hook_event_name":"PreToolUse","tool_name":"Bash","Tool_Name":"Read","tool_input":{"command":"ls"}}`,
		"CWD":                        `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"CWD":"/"}`,
		"command twice":              `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf ~"}}`,
		"tool_input not an object":   `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf ~"}`,
		"tool_name not a string":     `{"hook_event_name":"PreToolUse","tool_name":["Bash"],"tool_input":{"command":"ls"}}`,
		"deep":                       `{"tool_name":"Bash","tool_input":{"command":"ls"},"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			res := runStdin(t, a, payload, "guard", "hook")
			assert.Equal(t, res.code, 2, "stdout %s stderr %s", res.stdout, res.stderr)
			assert.Equal(t, res.stdout, "")
			assert.Check(t, is.Contains(res.stderr, "abcd guard: blocked"))
		})
	}
	// Keys the hook does not read are left alone, whatever their spelling.
	res := runStdin(t, a, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","Description":"x"},"Session_ID":"s"}`, "guard", "hook")
	assert.Equal(t, res.code, 0, res.stderr)
}

func TestGuardCheckRefusesARelativeOrMissingCwd(t *testing.T) {
	a := guardCLIApp()
	res := run(t, a, "guard", "check", "--command", "ls", "--cwd", "relative/dir", "--json")
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Check(t, is.Contains(res.stdout, "guard_cwd_invalid"))
	res = run(t, a, "guard", "check", "--command", "ls", "--cwd", "/work/repo/not-here", "--json")
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Check(t, is.Contains(res.stdout, "guard_cwd_missing"))
	assert.Check(t, is.Contains(res.stdout, "/work/repo/not-here does not exist"))
}

func TestGuardHookFailsClosed(t *testing.T) {
	a := guardCLIApp()
	for name, payload := range map[string]string{
		"not json":        "nope",
		"two documents":   testHookPayload("PreToolUse", "Bash", map[string]any{"command": "ls"}) + "{}",
		"no command":      testHookPayload("PreToolUse", "Bash", map[string]any{"description": "x"}),
		"command number":  testHookPayload("PreToolUse", "Bash", map[string]any{"command": 42}),
		"too large":       `{"tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("a", MaxGuardInput) + `"}}`,
		"relative cwd":    `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"rel"}`,
		"control in line": testHookPayload("PreToolUse", "Bash", map[string]any{"command": "ls \x1b[2J"}),
	} {
		t.Run(name, func(t *testing.T) {
			res := runStdin(t, a, payload, "guard", "hook")
			assert.Equal(t, res.code, 2, "Claude Code blocks on exit 2: %s", res.stderr)
			assert.Equal(t, res.stdout, "")
			assert.Check(t, is.Contains(res.stderr, "abcd guard: blocked"))
		})
	}
}

func TestGuardHookSpeaksGeminiCLI(t *testing.T) {
	a := guardCLIApp()
	res := runStdin(t, a, testHookPayload("BeforeTool", "run_shell_command", map[string]any{"command": "git reset --hard"}), "guard", "hook")
	assert.Equal(t, res.code, 0)
	var out map[string]string
	decodeOne(t, res.stdout, &out)
	assert.Equal(t, out["decision"], "deny")
	assert.Check(t, is.Contains(out["reason"], "git-reset-hard"))

	res = runStdin(t, a, testHookPayload("BeforeTool", "read_file", map[string]any{"path": "x"}), "guard", "hook")
	assert.Equal(t, res.code, 0)
	assert.Equal(t, res.stdout, "{}\n", "Gemini CLI reads JSON on exit 0")
}
