package history_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	historyuc "github.com/abcd-dev/abcd/ports/history"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const (
	histRoot = "/home/ada/proj"
	histRepo = "c0ffee0000000000000000000000000000000000"
	histKey  = "prov-Kx9Lm2Qp7Zr4Wt8Vn3Bj6Hc1Fd5Gs0Ya"
)

// claudeLine is one Claude Code transcript line.
func claudeLine(session, agent, role, text string) string {
	v := map[string]any{"type": role, "sessionId": session, "cwd": histRoot + "/src", "timestamp": "2026-12-01T10:00:00Z",
		"message": map[string]any{"role": role, "content": text}}
	if agent != "" {
		v["agentId"], v["isSidechain"] = agent, true
	}
	data, _ := json.Marshal(v)
	return string(data) + "\n"
}

type histWorld struct {
	a     *app.App
	store *fake.History
	files fake.Transcripts
	runs  *fake.Runs
	// redaction, when set, stands in for the redaction a capture builds.
	redaction func(context.Context) (historyuc.Redaction, error)
}

func newHistWorld(t *testing.T) *histWorld {
	t.Helper()
	git := fake.NewGit(histRepo)
	git.TopDir = histRoot
	files := fake.Transcripts{Files: map[string][]byte{}, Cwds: map[string]string{}, HomeDir: "/home/ada"}
	w := &histWorld{store: fake.NewHistory(), files: files, runs: fake.NewRuns()}
	w.a = &app.App{Setup: fake.NewSetup(histRoot, "/home/ada/.abcd"), Git: git, History: w.store, Transcripts: files,
		Credentials: fake.Credentials{Values: []string{histKey}}, Clock: fake.Clock{T: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)},
		Runs: w.runs, Diag: &fake.Diag{}}
	return w
}

func (w *histWorld) capture(t *testing.T, path string) (historyuc.HistoryCaptureResult, error) {
	t.Helper()
	d := app.DepsOf[*historyuc.Deps](context.Background(), w.a)
	d.RedactionFor = w.redaction
	return historyuc.HistoryCapture(context.Background(), d, &historyuc.HistoryCaptureInput{Transcript: history.TranscriptPath(path), Harness: "claude"})
}

const sessionPath = "/home/ada/.claude/projects/-home-ada-proj/s1.jsonl"

func TestCaptureKeepsARedactedTranscriptOnce(t *testing.T) {
	w := newHistWorld(t)
	w.files.Files[sessionPath] = []byte(claudeLine("s1", "", "user", "use key "+histKey+" and ghp_R8x2Kq7WmZ4tLp9sVb3nYc6Hd1Jf5Ga0Ue2i from /home/ada/.env") +
		claudeLine("s1", "", "assistant", "done"))
	res, err := w.capture(t, sessionPath)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Repository, histRepo))
	assert.Assert(t, is.Len(res.Captured, 1))
	c := res.Captured[0]
	assert.Check(t, is.Equal(c.Outcome, "stored"))
	assert.Check(t, is.Equal(c.Key, "claude:s1"))
	assert.Check(t, is.Equal(c.Source, "~/.claude/projects/-home-ada-proj/s1.jsonl"), "the home path is never kept")
	assert.Check(t, is.DeepEqual(c.Redactions, map[string]int{history.CredentialRule: 1, "github-pat": 1, history.HomeRule: 3}))

	e := w.store.Repos[histRepo]["claude:s1"]
	kept := string(e.Raw)
	for _, secret := range []string{histKey, "ghp_R8x2Kq7WmZ4tLp9sVb3nYc6Hd1Jf5Ga0Ue2i", "/home/ada"} {
		assert.Check(t, !strings.Contains(kept, secret), "%q is kept", secret)
		for _, m := range e.Messages {
			assert.Check(t, !strings.Contains(m.Text, secret))
		}
	}
	assert.Check(t, is.Equal(e.Record.Cwd, "~/proj/src"))
	assert.Check(t, is.Equal(e.Record.Title, "use key [REDACTED:abcd-credential] and [REDACTED:github-pat] from ~/.env"))
	assert.Check(t, is.Equal(e.Record.Redactions.Total(), 5), "what was redacted is counted on the record")

	// The same bytes again: nothing changes.
	res, err = w.capture(t, sessionPath)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Captured[0].Outcome, "unchanged"))
	// A longer transcript of the same session supersedes; a shorter one leaves the longer kept.
	w.files.Files[sessionPath] = append(w.files.Files[sessionPath], []byte(claudeLine("s1", "", "user", "one more thing"))...)
	res, err = w.capture(t, sessionPath)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Captured[0].Outcome, "superseded"))
	assert.Check(t, is.Equal(w.store.Repos[histRepo]["claude:s1"].Record.Messages, 3))
	w.files.Files[sessionPath] = []byte(claudeLine("s1", "", "user", "short"))
	res, err = w.capture(t, sessionPath)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Captured[0].Outcome, "kept-longer"))
	assert.Check(t, is.Equal(w.store.Repos[histRepo]["claude:s1"].Record.Messages, 3))
}

func TestCaptureRefuses(t *testing.T) {
	w := newHistWorld(t)
	outside := "/home/ada/.claude/projects/-elsewhere/s2.jsonl"
	line := strings.ReplaceAll(claudeLine("s2", "", "user", "hi"), histRoot+"/src", "/home/ada/elsewhere")
	w.files.Files[outside] = []byte(line)
	_, err := w.capture(t, outside)
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeHistoryOutsideRepository))
	assert.Check(t, is.Contains(r.Why, "~/elsewhere"), "the refusal quotes no home path either")
	assert.Check(t, !strings.Contains(r.Error(), "/home/ada"))

	w.files.Files["/home/ada/.claude/projects/-home-ada-proj/bad.jsonl"] = []byte("not json\n")
	_, err = w.capture(t, "/home/ada/.claude/projects/-home-ada-proj/bad.jsonl")
	r, _ = refusal.As(err)
	assert.Check(t, r != nil && r.Code == "history_transcript_invalid", "%v", err)

	// A token in the session file's own name is redacted there too.
	leaky := "/home/ada/.claude/projects/-home-ada-proj/ghp_R8x2Kq7WmZ4tLp9sVb3nYc6Hd1Jf5Ga0Ue2i/s3.jsonl"
	w.files.Files[leaky] = []byte(claudeLine("s3", "", "user", "hi"))
	res, err := w.capture(t, leaky)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Captured[0].Source, "~/.claude/projects/-home-ada-proj/[REDACTED:github-pat]/s3.jsonl"))

	// Fail closed: a redaction that missed (a fault the real one is built not to have) leaves what
	// the rescan finds, and nothing of the transcript is kept.
	w.redaction = func(ctx context.Context) (historyuc.Redaction, error) {
		det, err := history.SecretDetector()
		if err != nil {
			return nil, err
		}
		return missing{historyuc.Capturer{Redactor: history.NewRedactor(det, []string{histKey}, "/home/ada"), Home: "/home/ada"}}, nil
	}
	missed := "/home/ada/.claude/projects/-home-ada-proj/s4.jsonl"
	w.files.Files[missed] = []byte(claudeLine("s4", "", "user", "the key is "+histKey))
	_, err = w.capture(t, missed)
	r, _ = refusal.As(err)
	assert.Assert(t, r != nil, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeHistorySecretSurvived))
	assert.Check(t, is.Contains(r.Why, history.CredentialRule))
	assert.Check(t, !strings.Contains(r.Error(), histKey), "the refusal names the kind, never the secret")
	_, kept := w.store.Repos[histRepo]["claude:s4"]
	assert.Check(t, !kept)
	// Each shape redaction learnt in issue 33 is one the rescan names too: a secret-named key's value
	// of low entropy, a headerless private key, a long random value holding a stopword, the held key
	// in hex and cut into strings.
	for i, c := range []struct{ text, rule, secret string }{
		{"TWILIO_AUTH_TOKEN=0a1b0a1b0a1b0a1b0a1b0a1b0a1b0a1b", history.AssignmentRule, "0a1b0a1b0a1b0a1b0a1b0a1b0a1b0a1b"},
		{"key:\nMC4CAQAwBQYDK2VwBCIEIJ8zeR2eJc3xPq7vYtG1mN4sK6aW9dF0hL5uB2oE8iQx", history.DERKeyRule, "MC4CAQAwBQYDK2VwBCIEIJ8zeR2eJc3xPq7vYtG1mN4sK6aW9dF0hL5uB2oE8iQx"},
		{`creds = "Q7xZk2LmArchP9rT4vWn8Bc3Yd6Hf1Js"`, "generic-api-key", "Q7xZk2LmArchP9rT4vWn8Bc3Yd6Hf1Js"},
		{"dump " + hex.EncodeToString([]byte(histKey)), history.CredentialRule, hex.EncodeToString([]byte(histKey))},
		{`k := "prov-Kx9" + "Lm2Qp7Z" + "r4Wt8Vn" + "3Bj6Hc1" + "Fd5Gs0Ya"`, history.CredentialRule, "Lm2Qp7Z"},
	} {
		session := fmt.Sprintf("s5%d", i)
		p := "/home/ada/.claude/projects/-home-ada-proj/" + session + ".jsonl"
		w.files.Files[p] = []byte(claudeLine(session, "", "user", c.text))
		_, err = w.capture(t, p)
		r, _ = refusal.As(err)
		assert.Assert(t, r != nil, "%s: %v", c.rule, err)
		assert.Check(t, is.Equal(r.Code, refusal.CodeHistorySecretSurvived), c.rule)
		assert.Check(t, is.Contains(r.Why, c.rule))
		assert.Check(t, !strings.Contains(r.Error(), c.secret), "the refusal names the kind, never the secret")
		_, kept := w.store.Repos[histRepo]["claude:"+session]
		assert.Check(t, !kept, c.rule)
	}
	w.redaction = nil

	_, err = historyuc.HistoryCapture(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryCaptureInput{})
	r, _ = refusal.As(err)
	assert.Check(t, r != nil && r.Code == "history_capture_what")

	w.a.Git = fake.NewGit("") // no root commit
	w.a.Git.(*fake.Git).Parents = map[string]string{}
	_, err = w.capture(t, sessionPath)
	r, _ = refusal.As(err)
	assert.Check(t, r != nil && r.Code == "history_no_commit", "%v", err)
}

func TestCaptureAllSubAgentsAndLineage(t *testing.T) {
	w := newHistWorld(t)
	run := "run-20261201120000-0001"
	returnPath := ".abcd/.work.local/run/" + run + "/lane-1/implement/receipt.json"
	st := loop.State{Run: run, Lanes: []loop.Lane{{ID: "lane-1", Awaits: []loop.Await{{ID: "aw-7", Kind: loop.AwaitImplement, Return: returnPath,
		Brief: ".abcd/.work.local/run/" + run + "/lane-1/implement/brief.md"}}}}}
	st.SchemaVersion = loop.SchemaVersion
	w.runs.Files[loop.RunDir(run)+"/state.json"] = loop.Encode(st)
	main := "/home/ada/.claude/projects/-home-ada-proj/s1.jsonl"
	sub := "/home/ada/.claude/projects/-home-ada-proj/s1/subagents/agent-a1.jsonl"
	w.files.Files[main] = []byte(claudeLine("s1", "", "user", "start a fresh implementer agent with the brief "+histRoot+"/.abcd/.work.local/run/"+run+"/lane-1/implement/brief.md"))
	w.files.Files[sub] = []byte(claudeLine("s1", "a1", "user", "look around"))
	w.files.Found = []ports.TranscriptFile{{Harness: history.Claude, Path: main}, {Harness: history.Claude, Path: sub}}
	w.a.Transcripts = w.files
	res, err := historyuc.HistoryCapture(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryCaptureInput{All: true})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(res.Captured, 2))
	assert.Check(t, is.DeepEqual(res.Captured[0].Lineage, historyuc.HistoryLineage{Run: run, Lane: "lane-1", Step: "implement", Await: "aw-7",
		Brief: ".abcd/.work.local/run/" + run + "/lane-1/implement/brief.md", Return: returnPath}))
	assert.Check(t, is.Equal(res.Captured[1].Key, "claude:s1:a1"))
	assert.Check(t, is.Equal(res.Captured[1].Parent, "s1"), "a sub-agent links to its parent session")

	list, err := historyuc.HistoryList(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryListInput{Run: loop.RunID(run)})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(list.Sessions, 1))
	shown, err := historyuc.HistoryShow(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryShowInput{Session: "s1"})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(shown.Session.Key, "claude:s1"), "a session id names its main agent")
	assert.Check(t, is.DeepEqual(shown.SubAgents, []string{"claude:s1:a1"}))
	assert.Check(t, is.Len(shown.Messages, 1))
	raw, err := historyuc.HistoryShow(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryShowInput{Session: "claude:s1:a1", Raw: true})
	assert.NilError(t, err)
	assert.Check(t, is.Contains(raw.Raw, `"agentId":"a1"`))
	assert.Check(t, is.Len(raw.Messages, 0))

	found, err := historyuc.HistorySearch(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistorySearchInput{Query: "look around"})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(found.Hits, 1))
	assert.Check(t, is.Equal(found.Hits[0].Key, "claude:s1:a1"))

	_, err = historyuc.HistoryShow(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryShowInput{Session: "zzzz"})
	r, _ := refusal.As(err)
	assert.Check(t, r != nil && r.Code == "history_session_unknown")
}

func TestCaptureKeepsTheStoreWithinItsBound(t *testing.T) {
	w := newHistWorld(t)
	w.a.Config = fake.Config{Files: ports.ConfigFiles{MachineConfig: ports.ConfigFile{Path: "/home/ada/.abcd/config.json", Present: true,
		Data: []byte(`{"schema_version":1,"history":{"max_mb":16}}`)}}}
	big := strings.Repeat("x", 9<<20)
	for i, s := range []string{"s1", "s2"} {
		p := "/home/ada/.claude/projects/-home-ada-proj/" + s + ".jsonl"
		w.files.Files[p] = []byte(claudeLine(s, "", "user", "hello "+big[:len(big)-i]))
		res, err := w.capture(t, p)
		assert.NilError(t, err)
		if i == 1 {
			assert.Check(t, is.DeepEqual(res.Pruned, []string{"claude:s1"}), "the oldest capture goes past history.max_mb")
		}
	}
}

// missing is a redaction that takes nothing out of a transcript's bytes.
type missing struct{ historyuc.Capturer }

func (m missing) JSON(data []byte, _ history.Counts) ([]byte, error) { return data, nil }

// history list by date: a day counts whole; a since after the until is refused, naming both.
func TestHistoryListByDate(t *testing.T) {
	w := newHistWorld(t)
	for session, at := range map[string]string{"d1": "2026-11-30T10:00:00Z", "d2": "2026-12-01T10:00:00Z", "d3": "2026-12-02T10:00:00Z"} {
		p := "/home/ada/.claude/projects/-home-ada-proj/" + session + ".jsonl"
		w.files.Files[p] = []byte(strings.Replace(claudeLine(session, "", "user", "hello"), "2026-12-01T10:00:00Z", at, 1))
		_, err := w.capture(t, p)
		assert.NilError(t, err)
	}
	keys := func(in historyuc.HistoryListInput) []string {
		t.Helper()
		res, err := historyuc.HistoryList(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &in)
		assert.NilError(t, err)
		var out []string
		for _, s := range res.Sessions {
			out = append(out, s.Session)
		}
		sort.Strings(out)
		return out
	}
	assert.Check(t, is.DeepEqual(keys(historyuc.HistoryListInput{Since: "2026-12-01", Until: "2026-12-01"}), []string{"d2"}))
	assert.Check(t, is.DeepEqual(keys(historyuc.HistoryListInput{Since: "2026-12-01"}), []string{"d2", "d3"}))
	assert.Check(t, is.DeepEqual(keys(historyuc.HistoryListInput{Until: "2026-12-01T09:00:00Z"}), []string{"d1"}))
	assert.Check(t, is.DeepEqual(keys(historyuc.HistoryListInput{}), []string{"d1", "d2", "d3"}))

	_, err := historyuc.HistoryList(context.Background(), app.DepsOf[*historyuc.Deps](context.Background(), w.a), &historyuc.HistoryListInput{Since: "2026-12-02", Until: "2026-12-01"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeHistoryDateInvalid))
	assert.Check(t, is.Contains(r.Why, "since (2026-12-02) comes after until (2026-12-01)"))
}
