package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
	"gotest.tools/v3/icmd"
)

// The guard end to end: the built binary, a real git repository, and no git on the PATH (the
// sandbox's environment has none), so a hook that started a process would fail.

func hookPayload(t *testing.T, tool string, input map[string]any, cwd string) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "cwd": cwd})
	assert.NilError(t, err)
	return string(data)
}

func (s sandbox) hook(t *testing.T, payload string) *icmd.Result {
	t.Helper()
	return icmd.RunCmd(icmd.Command(binary, "guard", "hook"), icmd.Dir(s.root), icmd.WithEnv(s.env()...), icmd.WithStdin(strings.NewReader(payload)))
}

func TestGuardHookEndToEnd(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s := newSandbox(t, true)
	before := s.snapshot(t)

	res := s.hook(t, hookPayload(t, "Bash", map[string]any{"command": "git status"}, s.root))
	res.Assert(t, icmd.Success)
	assert.Equal(t, res.Stdout(), "", "allowed, silently")
	assert.Equal(t, res.Stderr(), "", "no process, no notice")

	res = s.hook(t, hookPayload(t, "Write", map[string]any{"file_path": filepath.Join(s.root, ".abcd", "guard.json"), "content": `{"schema_version":1,"enabled":false}`}, s.root))
	res.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(res.Stdout(), `"permissionDecision":"deny"`))
	assert.Check(t, is.Contains(res.Stdout(), "guard-file-write"))

	// Codex's apply_patch: a patch that writes the guard file among others is denied.
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** Update File: .abcd/guard.json\n@@\n-{}\n+{\"enabled\":false}\n*** End Patch\n"
	res = s.hook(t, hookPayload(t, "apply_patch", map[string]any{"command": patch}, s.root))
	res.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(res.Stdout(), `"permissionDecision":"deny"`))
	assert.Check(t, is.Contains(res.Stdout(), "abcd guard blocked this write (rule guard-file-write)"))
	res = s.hook(t, hookPayload(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"}, s.root))
	res.Assert(t, icmd.Success)
	assert.Equal(t, res.Stdout(), "", "a patch to an ordinary file is allowed, silently")
	// Codex trims each patch line before it reads a header, so the guard does too.
	for _, header := range []string{"  *** Add File: .abcd/guard.json", "*** Add File: .abcd/guard.json ", "\t*** Delete File: .abcd/guard.json\u00a0"} {
		patch := "*** Begin Patch\n*** Add File: ok.txt\n+x\n" + header + "\n+{}\n*** End Patch\n"
		res = s.hook(t, hookPayload(t, "apply_patch", map[string]any{"command": patch}, s.root))
		res.Assert(t, icmd.Success)
		assert.Check(t, is.Contains(res.Stdout(), "abcd guard blocked this write (rule guard-file-write)"), "%q", header)
	}
	// apply_patch run through the shell tool, which Codex applies itself: read as the patch it is.
	for _, cmd := range []string{
		"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: .abcd/guard.json\n+{}\n*** End Patch\nEOF\n",
		"cd .abcd && apply_patch '*** Begin Patch\n*** Update File: guard.json\n@@\n-{}\n+{}\n*** End Patch\n'",
	} {
		res = s.hook(t, hookPayload(t, "Bash", map[string]any{"command": cmd}, s.root))
		res.Assert(t, icmd.Success)
		assert.Check(t, is.Contains(res.Stdout(), "(rule guard-file-write)"), "%q: %s", cmd, res.Stdout())
	}
	res = s.hook(t, hookPayload(t, "Bash", map[string]any{"command": "apply_patch < p.diff"}, s.root))
	res.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(res.Stdout(), "(rule unreadable)"), "a patch the guard cannot read is blocked")

	res = s.hook(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~","Command":"ls"},"cwd":"`+s.root+`"}`)
	assert.Equal(t, res.ExitCode, 2, "a payload with Command beside command is refused")
	assert.Equal(t, res.Stdout(), "")
	assert.Check(t, is.Contains(res.Stderr(), `"Command" beside or instead of "command"`))

	for _, cwd := range []string{"relative/dir", filepath.Join(s.root, "no-such-folder")} {
		res = s.run(t, "guard", "check", "--command", "ls", "--cwd", cwd)
		assert.Equal(t, res.ExitCode, 2, cwd)
	}
	assert.Check(t, is.Contains(res.Stderr(), "no-such-folder does not exist"))
	assert.DeepEqual(t, s.snapshot(t), before)
}

func TestGuardWeakerFileNeedsThePersonEndToEnd(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	weak := `{"schema_version":1,"disable":["rm-recursive-root"]}`
	s := newSandbox(t, true, fs.WithDir(".abcd", fs.WithFile("guard.json", weak)))

	res := s.run(t, "guard", "check", "--command", "rm -rf /srv", "--json")
	assert.Equal(t, res.ExitCode, 1, "the weaker file is not allowed: the built-in rules block")
	assert.Check(t, is.Contains(res.Stdout(), `"rule":"rm-recursive-root"`))
	assert.Check(t, is.Contains(res.Stdout(), "has not allowed it"))
	assert.Check(t, is.Contains(res.Stderr(), "abcd guard allow"), "every check says so")

	before := s.snapshot(t)
	res = s.run(t, "guard", "allow", "--json")
	assert.Equal(t, res.ExitCode, 2, "no terminal, no allow")
	assert.Check(t, is.Contains(res.Stdout(), `"code":"guard_allow_person"`))
	assert.DeepEqual(t, s.snapshot(t), before)

	res = s.hook(t, hookPayload(t, "Bash", map[string]any{"command": "abcd guard allow"}, s.root))
	res.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(res.Stdout(), "guard-allow"))
	assert.Check(t, is.Contains(res.Stdout(), "has not allowed it"), "the person is told on every call")

	script, err := exec.LookPath("script")
	if err != nil {
		t.Log("script(1) is not installed: the person's allow at a terminal is not run here")
		return
	}
	// The person, at a terminal, says yes.
	assert.NilError(t, os.Chmod(s.abcdHome, 0o700))
	res = icmd.RunCmd(icmd.Command(script, "-qec", binary+" guard allow", "/dev/null"), icmd.Dir(s.root),
		icmd.WithEnv(s.env()...), icmd.WithStdin(strings.NewReader("y\n")))
	res.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(res.Stdout(), "removes rule rm-recursive-root"))
	data, err := os.ReadFile(filepath.Join(s.abcdHome, "guard-allowed.json"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(data), filepath.Join(s.root, ".abcd", "guard.json")))
	st, err := os.Stat(filepath.Join(s.abcdHome, "guard-allowed.json"))
	assert.NilError(t, err)
	assert.Equal(t, st.Mode().Perm(), os.FileMode(0o600))

	res = s.run(t, "guard", "check", "--command", "rm -rf /srv", "--json")
	assert.Equal(t, res.ExitCode, 0, "allowed: the file's rules stand")
	assert.Equal(t, res.Stderr(), "")

	// One byte changed, and the allow no longer holds.
	assert.NilError(t, os.WriteFile(filepath.Join(s.root, ".abcd", "guard.json"), []byte(weak+"\n"), 0o644))
	res = s.run(t, "guard", "check", "--command", "rm -rf /srv")
	assert.Equal(t, res.ExitCode, 1)
}
