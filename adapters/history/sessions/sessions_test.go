package sessions

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/refusal"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	assert.NilError(t, os.WriteFile(path, []byte(data), 0o644))
}

func TestFindTheRepositorysSessions(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(home, "src", "proj")
	codexHome := filepath.Join(t.TempDir(), "codex")
	claude := filepath.Join(home, ".claude", "projects")
	write(t, filepath.Join(claude, "-"+claudeName(repo), "s1.jsonl"), `{"type":"user","cwd":"`+repo+`","sessionId":"s1"}`+"\n")
	write(t, filepath.Join(claude, "-"+claudeName(repo), "s1", "subagents", "agent-a1.jsonl"), `{"type":"user","cwd":"`+repo+`","sessionId":"s1","agentId":"a1"}`+"\n")
	write(t, filepath.Join(claude, "-"+claudeName(repo)+"-sub", "s2.jsonl"), `{"type":"user","cwd":"`+repo+`/sub","sessionId":"s2"}`+"\n")
	write(t, filepath.Join(claude, "-"+claudeName(repo)+"x", "s3.jsonl"), `{"type":"user","cwd":"`+repo+`x","sessionId":"s3"}`+"\n")
	write(t, filepath.Join(codexHome, "sessions", "2026", "12", "01", "rollout-1.jsonl"), `{"type":"session_meta","payload":{"id":"c1","cwd":"`+repo+`"}}`+"\n")
	write(t, filepath.Join(codexHome, "sessions", "2026", "12", "01", "rollout-2.jsonl"), `{"type":"session_meta","payload":{"id":"c2","cwd":"/elsewhere"}}`+"\n")
	write(t, filepath.Join(home, ".gemini", "tmp", "proj", ".project_root"), repo+"\n")
	write(t, filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-1.jsonl"), `{"sessionId":"g1"}`+"\n")
	write(t, filepath.Join(home, ".gemini", "tmp", "other", ".project_root"), "/elsewhere\n")
	write(t, filepath.Join(home, ".gemini", "tmp", "other", "chats", "session-2.jsonl"), `{"sessionId":"g2"}`+"\n")

	s := Source{HomeDir: home, Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	}}
	found, err := s.Find(context.Background(), []string{repo})
	assert.NilError(t, err)
	got := map[string]history.Harness{}
	for _, f := range found {
		rel, _ := filepath.Rel(home, f.Path)
		if !filepath.IsLocal(rel) {
			rel = filepath.Base(f.Path)
		}
		got[rel] = f.Harness
	}
	assert.Check(t, is.DeepEqual(got, map[string]history.Harness{
		filepath.Join(".claude", "projects", "-"+claudeName(repo), "s1.jsonl"):                          history.Claude,
		filepath.Join(".claude", "projects", "-"+claudeName(repo), "s1", "subagents", "agent-a1.jsonl"): history.Claude,
		filepath.Join(".claude", "projects", "-"+claudeName(repo)+"-sub", "s2.jsonl"):                   history.Claude,
		"rollout-1.jsonl": history.Codex,
		filepath.Join(".gemini", "tmp", "proj", "chats", "session-1.jsonl"): history.Gemini,
	}))

	data, cwd, err := s.Read(context.Background(), filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-1.jsonl"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(cwd, repo), "a Gemini chat's folder says where it ran")
	assert.Check(t, len(data) > 0)
}

// claudeName is the folder name without its leading hyphen (the path's leading slash).
func claudeName(dir string) string { return claudeFolder(dir)[1:] }

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	s := Source{HomeDir: dir}
	write(t, filepath.Join(dir, "real.jsonl"), "{}\n")
	assert.NilError(t, os.Symlink(filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "link.jsonl")))
	big := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(big)
	assert.NilError(t, err)
	assert.NilError(t, f.Truncate(history.MaxTranscriptBytes+1))
	assert.NilError(t, f.Close())
	for path, code := range map[string]string{
		filepath.Join(dir, "link.jsonl"): "history_transcript_invalid",
		filepath.Join(dir, "none.jsonl"): "history_transcript_missing",
		"relative.jsonl":                 "history_transcript_invalid",
		dir:                              "history_transcript_invalid",
		big:                              "history_transcript_too_large",
	} {
		_, _, err := s.Read(context.Background(), path)
		r, ok := refusal.As(err)
		assert.Check(t, ok && string(r.Code) == code, "%s: %v", path, err)
	}
}
