package history

import (
	"testing"

	"github.com/abcd-dev/abcd/domain/history"
	"gotest.tools/v3/assert"
)

func TestHarnessFromWhereTheFileLies(t *testing.T) {
	for path, want := range map[string]history.Harness{
		"/home/ada/.claude/projects/-x/s.jsonl":                    history.Claude,
		"/home/ada/.codex/sessions/2026/12/01/rollout-1.jsonl":     history.Codex,
		"/home/ada/.gemini/tmp/proj/chats/session-1.jsonl":         history.Gemini,
		"/elsewhere/codexhome/sessions/2026/01/01/rollout-2.jsonl": history.Codex,
	} {
		got, ok := harnessOf(path)
		assert.Check(t, ok && got == want, path)
	}
	_, ok := harnessOf("/tmp/notes.txt")
	assert.Check(t, !ok)
}
