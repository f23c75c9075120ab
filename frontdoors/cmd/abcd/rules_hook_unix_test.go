//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"
)

// The prompt hook runs on every prompt and starts no process: with git on the PATH and the history
// helper beside abcd both replaced by traps that leave a mark, a hook that injects rules from a
// repository with a guard file leaves no mark.
func TestTheRulesHookStartsNoProcess(t *testing.T) {
	// Not in parallel: it writes programs and runs them, and a program written while another test
	// starts a process can be held open in that child and refuse to start (ETXTBSY).
	s := newSandbox(t, true)
	assert.NilError(t, os.MkdirAll(filepath.Join(s.root, ".abcd"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(s.root, ".abcd", "rules.json"), []byte(docsRulesFile(t)), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(s.root, ".abcd", "guard.json"), []byte(`{"schema_version":1}`), 0o644))

	traps := t.TempDir()
	marks := filepath.Join(traps, "marks")
	trap := "#!/bin/sh\necho \"$0 $*\" >> " + marks + "\nexit 1\n"
	bin := filepath.Join(traps, "bin")
	assert.NilError(t, os.Mkdir(bin, 0o755))
	for _, name := range []string{"git", "abcd-history"} {
		assert.NilError(t, os.WriteFile(filepath.Join(bin, name), []byte(trap), 0o755))
	}
	// abcd runs its helper from beside itself, so abcd is copied beside the trap.
	data, err := os.ReadFile(binary)
	assert.NilError(t, err)
	abcd := filepath.Join(bin, "abcd")
	assert.NilError(t, os.WriteFile(abcd, data, 0o755))
	// The trap works: a verb that needs git runs it.
	icmd.RunCmd(icmd.Command(abcd, "history", "list"), icmd.Dir(s.root), icmd.WithEnv(append(s.env(), "PATH="+bin)...))
	first, err := os.ReadFile(marks)
	assert.NilError(t, err, "the trap leaves a mark when run")
	assert.Check(t, is.Contains(string(first), "git"))
	assert.NilError(t, os.Remove(marks))

	payload, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": filepath.Join(s.home, "t.jsonl"), "cwd": s.root,
		"permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": "commit the migration, then git push"})
	for i := 0; i < 2; i++ { // the first composes and keeps the rules, the second reads them back
		res := icmd.RunCmd(icmd.Command(abcd, "rules", "hook"), icmd.Dir(s.root), icmd.WithEnv(append(s.env(), "PATH="+bin)...),
			icmd.WithStdin(strings.NewReader(string(payload))))
		res.Assert(t, icmd.Expected{ExitCode: 0})
		assert.Check(t, is.Contains(res.Stdout(), `[database] recalled by \"migration\"`))
		_, err = os.Stat(marks)
		assert.Check(t, os.IsNotExist(err), "the hook started a process")
	}
}
