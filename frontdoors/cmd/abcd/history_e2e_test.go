package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/ports/history"
	"github.com/abcd-dev/abcd/ports/loop"
)

type canary struct {
	Kind   string `json:"kind"`
	Secret string `json:"secret"`
	Text   string `json:"text"`
}

func loadCanaries(t *testing.T) []canary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "domain", "history", "testdata", "canaries.json"))
	assert.NilError(t, err)
	var f struct{ Canaries []canary }
	assert.NilError(t, json.Unmarshal(data, &f))
	for i := range f.Canaries {
		if f.Canaries[i].Text == "" {
			f.Canaries[i].Text = f.Canaries[i].Secret
		}
	}
	return f.Canaries
}

// histSandbox is a repository with a commit, a home whose harness folders hold its sessions, and a
// provider whose key abcd holds.
func histSandbox(t *testing.T) (sandbox, []string) {
	t.Helper()
	s := newSandbox(t, true)
	res := icmd.RunCmd(icmd.Command("git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "first"),
		icmd.Dir(s.root), icmd.WithEnv("HOME="+s.home, "GIT_CONFIG_NOSYSTEM=1", "PATH="+os.Getenv("PATH")))
	res.Assert(t, icmd.Success)
	key := filepath.Join(s.abcdHome, "provider.key")
	assert.NilError(t, os.WriteFile(key, []byte("prov-Kx9Lm2Qp7Zr4Wt8Vn3Bj6Hc1Fd5Gs0Ya\n"), 0o600))
	cfg := `{"schema_version":1,"oracle":{"api":{"local":{"base_url":"http://127.0.0.1:9/v1","key_file":"` + key + `","models":["m"]}}}}`
	assert.NilError(t, os.WriteFile(filepath.Join(s.abcdHome, "config.json"), []byte(cfg), 0o600))
	return s, nil
}

func (s sandbox) claudeSession(t *testing.T, session string, texts ...string) string {
	t.Helper()
	dir := filepath.Join(s.home, ".claude", "projects", strings.ReplaceAll(s.root, "/", "-"))
	assert.NilError(t, os.MkdirAll(dir, 0o700))
	var b bytes.Buffer
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		line, _ := json.Marshal(map[string]any{"type": role, "sessionId": session, "cwd": s.root, "timestamp": "2026-12-01T10:00:00Z",
			"message": map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": text}}}})
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, session+".jsonl")
	assert.NilError(t, os.WriteFile(p, b.Bytes(), 0o600))
	return p
}

// The canary corpus through the built binary and its helper: every secret in a real session file,
// captured; none stands anywhere in what abcd keeps (the database file itself, show --raw, the
// messages, a search for it), nor in what it prints.
func TestHistoryKeepsNoCanary(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s, _ := histSandbox(t)
	canaries := loadCanaries(t)
	var texts []string
	for _, c := range canaries {
		inner, _ := json.Marshal(map[string]string{"output": c.Text})
		texts = append(texts, "here: "+c.Text, "tool said "+string(inner), "b64 "+base64.StdEncoding.EncodeToString([]byte("token="+c.Text)))
	}
	texts = append(texts, "I work in "+s.home+"/src")
	path := s.claudeSession(t, "canary-1", texts...)
	res := s.runGit(t, "history", "capture", path, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var got history.HistoryCaptureResult
	decodeOne(t, res.Stdout(), &got)
	assert.Assert(t, is.Len(got.Captured, 1))
	assert.Check(t, is.Equal(got.Captured[0].Outcome, "stored"), res.Stdout())
	assert.Check(t, got.Captured[0].Redactions["abcd-credential"] > 0, "the key abcd holds is found: %v", got.Captured[0].Redactions)

	show := s.runGit(t, "history", "show", "canary-1", "--json")
	show.Assert(t, icmd.Expected{ExitCode: 0})
	raw := s.runGit(t, "history", "show", "canary-1", "--raw")
	raw.Assert(t, icmd.Expected{ExitCode: 0})
	var db []byte
	_ = filepath.Walk(filepath.Join(s.abcdHome, "history"), func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			assert.NilError(t, err)
			db = append(db, data...)
		}
		return nil
	})
	assert.Assert(t, len(db) > 0)
	kept := string(db) + show.Stdout() + raw.Stdout() + res.Stdout() + res.Stderr()
	for _, c := range canaries {
		j, _ := json.Marshal(c.Secret)
		for _, form := range []string{c.Secret, string(j[1 : len(j)-1]), base64.StdEncoding.EncodeToString([]byte(c.Secret))} {
			assert.Check(t, !strings.Contains(kept, form), "%s stands in what abcd keeps or prints", c.Kind)
		}
		probe := c.Secret
		if i := strings.IndexAny(probe, "\n "); i > 0 {
			probe = probe[:i]
		}
		if len(probe) >= 8 && !strings.ContainsAny(probe, `"*`) {
			found := s.runGit(t, "history", "search", probe, "--json")
			if found.ExitCode == 0 {
				assert.Check(t, !strings.Contains(found.Stdout(), c.Secret), "%s found by search", c.Kind)
			}
		}
	}
	assert.Check(t, !strings.Contains(kept, s.home), "the home path stands in what abcd keeps")
}

// The hook hands the capture off and returns at once; the capture lands a moment later.
func TestHistoryHookHandsOff(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s, _ := histSandbox(t)
	path := s.claudeSession(t, "handoff-1", "hello from the hand-off")
	payload, _ := json.Marshal(map[string]any{"session_id": "handoff-1", "transcript_path": path, "cwd": s.root, "hook_event_name": "SessionEnd", "reason": "other"})
	start := time.Now()
	res := icmd.RunCmd(icmd.Command(binary, "history", "hook", "--harness", "claude"), icmd.Dir(s.home), icmd.WithEnv(append(s.env(), "PATH="+os.Getenv("PATH"))...),
		icmd.WithStdin(bytes.NewReader(payload)))
	res.Assert(t, icmd.Expected{ExitCode: 0})
	t.Logf("the hook returned in %s", time.Since(start))
	deadline := time.Now().Add(60 * time.Second)
	for {
		list := s.runGit(t, "history", "list", "--json")
		log, _ := os.ReadFile(filepath.Join(s.abcdHome, "history", "hook.log"))
		if strings.Contains(list.Stdout(), "hello from the hand-off") && strings.Contains(string(log), "stored") {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.abcdHome, "history", "hook.log"))
			t.Fatalf("the handed-off capture did not land within a minute; hook.log:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, err := os.ReadFile(filepath.Join(s.abcdHome, "history", "hook.log"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(log), "stored"))
	st, err := os.Stat(filepath.Join(s.abcdHome, "history", "hook.log"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(st.Mode().Perm(), os.FileMode(0o600)))
}

// runGit is run with git on the PATH: history keys a repository by its first commit.
func (s sandbox) runGit(t *testing.T, args ...string) *icmd.Result {
	t.Helper()
	return icmd.RunCmd(icmd.Command(binary, args...), icmd.Dir(s.root), icmd.WithEnv(append(s.env(), "PATH="+os.Getenv("PATH"))...))
}

// Lineage through the built binary and its helper: a reviewer's session that was handed a review
// run's brief is captured, and the run's record names it beside the verdict it gave.
func TestImplementRecordNamesTheReviewersSession(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s, _ := histSandbox(t)
	s.runGit(t, "ahoy", "install", "--yes").Assert(t, icmd.Success)
	assert.NilError(t, os.WriteFile(filepath.Join(s.root, "hello.txt"), []byte("hello\n"), 0o644))
	icmd.RunCmd(icmd.Command("git", "add", "-A"), icmd.Dir(s.root), icmd.WithEnv("HOME="+s.home, "PATH="+os.Getenv("PATH"))).Assert(t, icmd.Success)
	icmd.RunCmd(icmd.Command("git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "hello"),
		icmd.Dir(s.root), icmd.WithEnv("HOME="+s.home, "GIT_CONFIG_NOSYSTEM=1", "PATH="+os.Getenv("PATH"))).Assert(t, icmd.Success)
	res := s.runGit(t, "review", "--role", "ruthless-reviewer", "--base", "HEAD~1", "--json")
	res.Assert(t, icmd.Success)
	var started struct {
		Run struct {
			Run    string                           `json:"run"`
			Awaits []struct{ Brief, Return string } `json:"awaits"`
		} `json:"run"`
	}
	assert.NilError(t, json.Unmarshal([]byte(res.Stdout()), &started))
	assert.Assert(t, is.Len(started.Run.Awaits, 1))
	aw := started.Run.Awaits[0]
	s.claudeSession(t, "rev-0001", "Review the change. Your brief: "+aw.Brief, "Read it; the change is fine.")
	s.claudeSession(t, "other-0001", "Tidy the README.", "Done.")
	assert.NilError(t, os.WriteFile(aw.Return, []byte("## Verdict\n\nSHIP\n\nNothing to fix.\n"), 0o644))
	s.runGit(t, "implement", "receipt", aw.Return, "--json").Assert(t, icmd.Success)
	s.runGit(t, "history", "capture", "--all", "--json").Assert(t, icmd.Success)

	res = s.runGit(t, "implement", "record", "--run", started.Run.Run, "--json")
	res.Assert(t, icmd.Success)
	var rec loop.ImplementRecordResult
	assert.NilError(t, json.Unmarshal([]byte(res.Stdout()), &rec))
	assert.Assert(t, is.Len(rec.Verdicts, 1))
	assert.Check(t, is.DeepEqual(rec.Verdicts[0].Sessions, []string{"claude:rev-0001"}))
	assert.Assert(t, is.Len(rec.History.Sessions, 1), "only the session that served the run: %+v", rec.History)
	assert.Check(t, is.Equal(rec.History.Sessions[0].Lineage.Step, "validate/round-1/ruthless-reviewer"))
	assert.Check(t, rec.History.Sessions[0].Lineage.Await != "", "the await it served, from the run's state")
	assert.Check(t, is.Equal(rec.History.Note, ""))

	text := s.runGit(t, "implement", "record", "--run", started.Run.Run)
	text.Assert(t, icmd.Success)
	assert.Check(t, is.Contains(text.Stdout(), "sessions (abcd history show KEY): claude:rev-0001"))
}

// Sub-agents that end together each start a capture: 8 abcd processes at once capturing 40 sessions
// (5 each, one after another) keep all 40, and none fails.
func TestConcurrentCapturesKeepEverySession(t *testing.T) {
	if testing.Short() {
		t.Skip("40 captures through the built binary")
	}
	t.Parallel() // its own sandbox: a repository and a home of its own
	s, _ := histSandbox(t)
	const procs, each = 8, 5
	paths := make([]string, procs*each)
	for i := range paths {
		paths[i] = s.claudeSession(t, fmt.Sprintf("together-%02d", i), fmt.Sprintf("sub-agent %d reporting", i))
	}
	var wg sync.WaitGroup
	failures := make([]string, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, path := range paths[p*each : (p+1)*each] {
				res := icmd.RunCmd(icmd.Command(binary, "history", "capture", path, "--json"), icmd.Dir(s.root), icmd.WithEnv(append(s.env(), "PATH="+os.Getenv("PATH"))...))
				if res.ExitCode != 0 {
					failures[p] += fmt.Sprintf("%s: exit %d: %s%s\n", filepath.Base(path), res.ExitCode, res.Stdout(), res.Stderr())
				}
			}
		}()
	}
	wg.Wait()
	assert.Check(t, is.Equal(strings.Join(failures, ""), ""), "every capture succeeds")
	list := s.runGit(t, "history", "list", "--limit", "500", "--json")
	list.Assert(t, icmd.Success)
	var got history.HistoryListResult
	decodeOne(t, list.Stdout(), &got)
	assert.Check(t, is.Len(got.Sessions, procs*each), "every session captured is kept")
}
