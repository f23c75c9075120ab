package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// HistoryMaxKey bounds the store on the machine: the oldest captures go once it is larger.
const HistoryMaxKey = "history.max_mb"

// HistoryCaptureInput is a session file to capture, or all the ones on this machine of this
// repository's sessions.
type HistoryCaptureInput struct {
	// Transcript is a session file's absolute path.
	Transcript history.TranscriptPath `json:"transcript,omitempty"`
	// Harness says which harness wrote it; read from the path when absent.
	Harness history.HarnessName `json:"harness,omitempty"`
	// All captures every session file on this machine whose session ran in this repository.
	All bool `json:"all,omitempty"`
}

// HistoryLineage is the build-loop step a session served.
type HistoryLineage struct {
	Run    string `json:"run"`
	Lane   string `json:"lane"`
	Step   string `json:"step"`
	Await  string `json:"await"`
	Brief  string `json:"brief"`
	Return string `json:"return"`
}

// HistoryCaptured is what capturing one session file did.
type HistoryCaptured struct {
	Source  string `json:"source"`
	Harness string `json:"harness"`
	Key     string `json:"key"`
	Outcome string `json:"outcome"`
	// Why says why a transcript was refused or not replaced; empty when stored.
	Why string `json:"why"`
	// Parent is the session a sub-agent served.
	Parent     string         `json:"parent"`
	Messages   int            `json:"messages"`
	Bytes      int            `json:"bytes"`
	Redactions map[string]int `json:"redactions"`
	Lineage    HistoryLineage `json:"lineage"`
}

// HistoryCaptureResult is every session file captured, and the captures the store's bound removed.
type HistoryCaptureResult struct {
	// Repository is the root commit the history is kept under.
	Repository string            `json:"repository"`
	Captured   []HistoryCaptured `json:"captured"`
	Pruned     []string          `json:"pruned"`
}

// HistoryListInput narrows the listing.
type HistoryListInput struct {
	Run     loop.RunID          `json:"run,omitempty"`
	Session history.SessionRef  `json:"session,omitempty"`
	Harness history.HarnessName `json:"harness,omitempty"`
	// Since and Until keep the sessions that started in between, both included: a day counts whole.
	Since history.DateBound `json:"since,omitempty"`
	Until history.DateBound `json:"until,omitempty"`
	Limit int               `json:"limit,omitempty"`
}

// HistorySession is one captured session, as a listing shows it.
type HistorySession struct {
	Key        string         `json:"key"`
	Harness    string         `json:"harness"`
	Session    string         `json:"session"`
	Agent      string         `json:"agent"`
	AgentType  string         `json:"agent_type"`
	Parent     string         `json:"parent"`
	Title      string         `json:"title"`
	Cwd        string         `json:"cwd"`
	Model      string         `json:"model"`
	Started    string         `json:"started"`
	Ended      string         `json:"ended"`
	Captured   string         `json:"captured"`
	Messages   int            `json:"messages"`
	Bytes      int            `json:"bytes"`
	Redactions map[string]int `json:"redactions"`
	Lineage    HistoryLineage `json:"lineage"`
}

// HistoryListResult is the captured sessions, newest capture first.
type HistoryListResult struct {
	Repository string           `json:"repository"`
	Sessions   []HistorySession `json:"sessions"`
}

// HistoryShowInput names the session to show, and whether to give its kept bytes as they are.
type HistoryShowInput struct {
	Session history.SessionRef `json:"session"`
	Raw     bool               `json:"raw,omitempty"`
}

// HistoryMessage is one message of a shown session.
type HistoryMessage struct {
	Role string `json:"role"`
	At   string `json:"at"`
	Text string `json:"text"`
}

// HistoryShowResult is one session: its record and its messages, or its kept (redacted) bytes.
type HistoryShowResult struct {
	Session  HistorySession   `json:"session"`
	Messages []HistoryMessage `json:"messages"`
	// Raw is the transcript as kept (redacted), when asked for; its messages are then left out.
	Raw string `json:"raw"`
	// SubAgents are the keys of the sub-agents' sessions this session started.
	SubAgents []string `json:"sub_agents"`
}

// HistorySearchInput is what to look for.
type HistorySearchInput struct {
	Query history.SearchQuery `json:"query"`
	Limit int                 `json:"limit,omitempty"`
}

// HistoryHit is one message holding the words, with the words around them ([marked]).
type HistoryHit struct {
	Key     string `json:"key"`
	Title   string `json:"title"`
	Seq     int    `json:"seq"`
	Role    string `json:"role"`
	At      string `json:"at"`
	Snippet string `json:"snippet"`
}

// HistorySearchResult is the messages found, newest capture first.
type HistorySearchResult struct {
	Repository string       `json:"repository"`
	Hits       []HistoryHit `json:"hits"`
}

func historyVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "history_capture", Path: []string{"history", "capture"},
			Summary: "Keep a harness session's transcript on this machine, redacted, under the repository's root commit; or every one of this repository's"},
			historyCapture),
		declare(Verb{Name: "history_list", Path: []string{"history", "list"}, Summary: "List the captured sessions of this repository, newest first, by run, session or harness",
			ReadOnly: true, Idempotent: true}, historyList),
		declare(Verb{Name: "history_show", Path: []string{"history", "show"}, Summary: "Show one captured session: its messages, or its kept (redacted) transcript",
			ReadOnly: true, Idempotent: true}, historyShow),
		declare(Verb{Name: "history_search", Path: []string{"history", "search"}, Summary: "Search every captured session of this repository, with the matches in context",
			ReadOnly: true, Idempotent: true}, historySearch),
	}
}

// historyRepo is the repository's root commit, the key its history is kept under.
func (a *App) historyRepo(ctx context.Context) (string, error) {
	if a.History == nil || a.Transcripts == nil {
		return "", fmt.Errorf("history: no history store is wired into this build")
	}
	root, isGit := a.Setup.Root()
	if !isGit {
		return "", refusal.New("history_no_repository", root, "is not in a git repository, and history is kept per repository", "run abcd in the repository whose sessions to keep")
	}
	repo, err := a.Git.RootCommit(ctx)
	if err != nil {
		return "", err
	}
	if repo == "" {
		return "", refusal.New("history_no_commit", root, "has no commit yet, and history is kept under the repository's first commit", "commit once, then capture")
	}
	return repo, nil
}

// historyMaxBytes is history.max_mb in bytes.
func (a *App) historyMaxBytes(ctx context.Context) (int64, error) {
	stack := config.NewStack(nil, nil, nil)
	if a.Config != nil {
		_, s, err := a.loadConfig(ctx)
		if err != nil {
			return 0, err
		}
		stack = s
	}
	v, err := config.Get[int](stack, HistoryMaxKey)
	if err != nil {
		return 0, configRefusal(err)
	}
	return int64(v.V) << 20, nil
}

// harnessOf reads which harness wrote a session file from where it lies.
func harnessOf(path string) (history.Harness, bool) {
	p := filepath.ToSlash(path)
	switch {
	case strings.Contains(p, "/.gemini/") || strings.Contains(p, "/chats/session-"):
		return history.Gemini, true
	case strings.Contains(p, "/rollout-") || strings.Contains(p, "/.codex/"):
		return history.Codex, true
	case strings.Contains(p, "/.claude/") || strings.Contains(p, "/projects/"):
		return history.Claude, true
	}
	return "", false
}

func historyCapture(ctx context.Context, a *App, in *HistoryCaptureInput) (HistoryCaptureResult, error) {
	if (in.Transcript == "") == !in.All {
		return HistoryCaptureResult{}, refusal.New("history_capture_what", "", "needs one session file, or all of this repository's",
			"give ", refusal.Field("history_capture", "transcript"), " or ", refusal.Field("history_capture", "all")).On("history_capture", "")
	}
	repo, err := a.historyRepo(ctx)
	if err != nil {
		return HistoryCaptureResult{}, err
	}
	dirs, err := a.repoDirs(ctx)
	if err != nil {
		return HistoryCaptureResult{}, err
	}
	red, err := a.redactor(ctx)
	if err != nil {
		return HistoryCaptureResult{}, err
	}
	res := HistoryCaptureResult{Repository: repo, Captured: []HistoryCaptured{}, Pruned: []string{}}
	if in.All {
		files, err := a.Transcripts.Find(ctx, dirs)
		if err != nil {
			return HistoryCaptureResult{}, err
		}
		for _, f := range files {
			c, err := a.captureOne(ctx, repo, dirs, red, f.Path, f.Harness)
			if r, ok := refusal.As(err); ok {
				c = HistoryCaptured{Source: red.Text(red.Path(f.Path), history.Counts{}), Harness: string(f.Harness), Outcome: string(history.Refused), Why: r.Why, Redactions: map[string]int{}}
			} else if err != nil {
				return HistoryCaptureResult{}, err
			}
			res.Captured = append(res.Captured, c)
		}
	} else {
		h, ok := history.Harness(in.Harness), in.Harness != ""
		if !ok {
			if h, ok = harnessOf(string(in.Transcript)); !ok {
				return HistoryCaptureResult{}, refusal.New("history_harness_unknown", string(in.Transcript), "lies where no harness abcd reads keeps its sessions",
					"say which harness wrote it with ", refusal.Field("history_capture", "harness"))
			}
		}
		c, err := a.captureOne(ctx, repo, dirs, red, string(in.Transcript), h)
		if err != nil {
			return HistoryCaptureResult{}, err
		}
		res.Captured = append(res.Captured, c)
	}
	max, err := a.historyMaxBytes(ctx)
	if err != nil {
		return HistoryCaptureResult{}, err
	}
	pruned, err := a.History.Prune(ctx, repo, max)
	if err != nil {
		return HistoryCaptureResult{}, err
	}
	res.Pruned = append(res.Pruned, pruned...)
	return res, nil
}

// repoDirs are the repository's worktrees: a session of this repository ran in one of them.
func (a *App) repoDirs(ctx context.Context) ([]string, error) {
	root, _ := a.Setup.Root()
	dirs, err := a.Git.WorktreeDirs(ctx)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		dirs = []string{root}
	}
	return dirs, nil
}

// redaction is what a capture redacts and rescans with: history.Redactor, with the home path it
// writes as ~ (an interface so a test can hand in one that misses, to prove the rescan refuses).
type redaction interface {
	Text(s string, counts history.Counts) string
	JSON(data []byte, counts history.Counts) ([]byte, error)
	Survivors(s string) []string
	SurvivorsJSON(data []byte) ([]string, error)
	Path(p string) string
}

// capturer is the real redaction.
type capturer struct {
	*history.Redactor
	home string
}

// Path is a path as kept: the home folder as ~.
func (c capturer) Path(p string) string {
	if c.home != "" && (p == c.home || strings.HasPrefix(p, c.home+"/")) {
		return history.HomeMark + p[len(c.home):]
	}
	return p
}

// redactor is built for this capture: gitleaks' rules and abcd's, every credential abcd holds or the
// harnesses use on this machine, and the home folder.
func (a *App) redactor(ctx context.Context) (redaction, error) {
	if a.redactionFor != nil {
		return a.redactionFor(ctx)
	}
	det, err := history.SecretDetector()
	if err != nil {
		return nil, fmt.Errorf("the secret rules: %w", err)
	}
	var calls []ports.ProviderCall
	if a.Config != nil {
		if m, err := a.loadMachine(ctx); err == nil {
			for _, name := range m.Names() {
				if p, ok := m.Provider(name); ok {
					calls = append(calls, ports.ProviderCall{Name: p.Name, KeyEnv: p.KeyEnv, KeyFile: p.KeyFile})
				}
			}
		} else if _, ok := refusal.As(err); !ok {
			return nil, err
		} else {
			// A configuration that does not read leaves its keys unknown: nothing is kept blind.
			return nil, refusal.New("history_config_unreadable", "the configuration", "cannot be read ("+errText(err)+"), so the keys abcd holds are not known and no transcript can be checked for them",
				refusal.Run("config_show"), " says what is wrong")
		}
	}
	var held []string
	if a.Credentials != nil {
		held = a.Credentials.Held(ctx, calls)
	}
	home := a.Transcripts.Home()
	return capturer{Redactor: history.NewRedactor(det, held, home), home: home}, nil
}

// captureOne reads, checks, redacts, rescans and keeps one session file.
func (a *App) captureOne(ctx context.Context, repo string, dirs []string, red redaction, path string, h history.Harness) (HistoryCaptured, error) {
	// The path as shown and kept: the home folder as ~, and anything in it redaction takes out.
	shown := red.Text(red.Path(path), history.Counts{})
	data, cwdHint, err := a.Transcripts.Read(ctx, path)
	if err != nil {
		return HistoryCaptured{}, err
	}
	meta, err := history.Parse(h, data)
	if err != nil {
		return HistoryCaptured{}, refusal.New("history_transcript_invalid", shown, fmt.Sprintf("is not a %s session file: %s", h, text.Clip(err.Error())),
			"give a session file the harness wrote, and name its harness")
	}
	cwd := meta.Cwd
	if cwd == "" {
		cwd = cwdHint
	}
	if !inDirs(cwd, dirs) {
		why := "records no folder it ran in"
		if cwd != "" {
			why = "ran in " + red.Path(cwd) + ", outside this repository and its worktrees"
		}
		return HistoryCaptured{}, refusal.New("history_outside_repository", shown, why, "capture it from the repository it ran in")
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	c := HistoryCaptured{Source: shown, Harness: string(h), Key: meta.Key(), Parent: meta.Parent, Bytes: len(data), Redactions: map[string]int{}}
	old, kept, err := a.History.Get(ctx, repo, meta.Key())
	if err != nil {
		return HistoryCaptured{}, err
	}
	switch outcome := history.Decide(old, kept, digest, len(data)); outcome {
	case history.Unchanged:
		c.Outcome, c.Why, c.Messages, c.Redactions, c.Lineage = string(outcome), "the same transcript is kept already", old.Messages, nonNilCounts(old.Redactions), lineageOf(old.Lineage)
		return c, nil
	case history.KeptLonger:
		c.Outcome, c.Why = string(outcome), fmt.Sprintf("a longer transcript of this session is kept (%d bytes against %d)", old.Bytes, len(data))
		return c, nil
	}
	counts := history.Counts{}
	redacted, err := red.JSON(data, counts)
	if err != nil {
		return HistoryCaptured{}, refusal.New("history_transcript_invalid", shown, "is not JSON throughout: "+text.Clip(err.Error()), "give a session file the harness wrote")
	}
	t, err := history.Parse(h, redacted)
	if err != nil {
		return HistoryCaptured{}, fmt.Errorf("reading %s after redaction: %w", shown, err)
	}
	if t.Cwd == "" && cwd != "" {
		t.Cwd = red.Text(cwd, counts)
	}
	rec := history.Record{Key: meta.Key(), Harness: h, Session: t.Session, Agent: t.Agent, AgentType: t.AgentType, Parent: t.Parent, Cwd: t.Cwd,
		Title: red.Text(t.Title(), counts), Model: t.Model, Started: t.Started, Ended: t.Ended, Captured: a.now(),
		Source: shown, Bytes: len(data), Stored: len(redacted), Digest: digest, Messages: len(t.Messages), Redactions: counts}
	// Fail closed: anything any view still finds, in the bytes, the messages or the record, and
	// nothing is kept.
	survivors, err := red.SurvivorsJSON(redacted)
	if err != nil {
		return HistoryCaptured{}, err
	}
	for _, s := range append([]string{rec.Cwd, rec.Title, rec.Source, rec.Model}, messageTexts(t)...) {
		survivors = append(survivors, red.Survivors(s)...)
	}
	if len(survivors) > 0 {
		return HistoryCaptured{}, refusal.New("history_secret_survived", shown,
			fmt.Sprintf("still holds what redaction must take out (%s) after redaction, so nothing of it is kept", strings.Join(uniq(survivors), ", ")),
			"nothing to do for this transcript; report the kind named if it is not a secret")
	}
	rec.Lineage = a.resolveLineage(ctx, history.FindLineage(t))
	entry := ports.HistoryEntry{Record: rec, Raw: redacted, Messages: t.Messages}
	switch err := a.History.Put(ctx, repo, entry); {
	case errors.Is(err, ports.ErrKeptLonger):
		c.Outcome, c.Why = string(history.KeptLonger), "a transcript of this session at least as long was kept meanwhile"
		return c, nil
	case err != nil:
		return HistoryCaptured{}, err
	}
	c.Outcome = string(history.Stored)
	if kept {
		c.Outcome = string(history.Superseded)
	}
	c.Messages, c.Redactions, c.Lineage = rec.Messages, nonNilCounts(counts), lineageOf(rec.Lineage)
	return c, nil
}

func messageTexts(t history.Transcript) []string {
	out := make([]string, len(t.Messages))
	for i, m := range t.Messages {
		out[i] = m.Text
	}
	return out
}

func uniq(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func inDirs(dir string, dirs []string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	for _, d := range dirs {
		d = filepath.Clean(d)
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return true
		}
	}
	return false
}

// resolveLineage finds the await whose brief or return path the session named, in the run's state.
func (a *App) resolveLineage(ctx context.Context, l history.Lineage) history.Lineage {
	if l.Empty() || a.Runs == nil || !loop.ValidRunID(l.Run) {
		return l
	}
	data, err := a.Runs.Read(ctx, loop.RunDir(l.Run)+"/state.json", loop.MaxStateBytes)
	if err != nil {
		return l // the run is gone or unreadable: the lineage keeps what the session itself named
	}
	st, err := loop.Decode("state.json", data)
	if err != nil {
		return l
	}
	// The await is open while its step runs; once its return is recorded, the implementation or
	// verdict it became keeps its id.
	dir := stepDir(l.Brief)
	if dir == "" {
		return l
	}
	for _, lane := range st.Lanes {
		if lane.ID != l.Lane {
			continue
		}
		for _, aw := range lane.Awaits {
			if stepDir(aw.Brief) == dir {
				l.Await = aw.ID
				return l
			}
		}
		for _, im := range lane.Implementations {
			if im.Await != "" && stepDir(im.Receipt) == dir {
				l.Await = im.Await
				return l
			}
		}
		for _, r := range lane.Rounds {
			for _, v := range r.Verdicts {
				if v.Await != "" && stepDir(v.Return) == dir {
					l.Await = v.Await
					return l
				}
			}
		}
	}
	return l
}

func lineageOf(l history.Lineage) HistoryLineage {
	return HistoryLineage{Run: l.Run, Lane: l.Lane, Step: l.Step, Await: l.Await, Brief: l.Brief, Return: l.Return}
}

func nonNilCounts(c history.Counts) map[string]int {
	out := map[string]int{}
	for k, v := range c {
		out[k] = v
	}
	return out
}

func sessionOf(r history.Record) HistorySession {
	return HistorySession{Key: r.Key, Harness: string(r.Harness), Session: r.Session, Agent: r.Agent, AgentType: r.AgentType, Parent: r.Parent,
		Title: r.Title, Cwd: r.Cwd, Model: r.Model, Started: r.Started, Ended: r.Ended, Captured: r.Captured, Messages: r.Messages, Bytes: r.Bytes,
		Redactions: nonNilCounts(r.Redactions), Lineage: lineageOf(r.Lineage)}
}

func historyList(ctx context.Context, a *App, in *HistoryListInput) (HistoryListResult, error) {
	repo, err := a.historyRepo(ctx)
	if err != nil {
		return HistoryListResult{}, err
	}
	f := ports.HistoryFilter{Run: string(in.Run), Session: string(in.Session), Harness: string(in.Harness), Limit: in.Limit}
	since, hasSince := in.Since.Since()
	until, hasUntil := in.Until.Until()
	if hasSince && hasUntil && since.After(until) {
		return HistoryListResult{}, refusal.New("history_date_invalid", "", fmt.Sprintf("since (%s) comes after until (%s), so no session could be listed", in.Since, in.Until),
			"give a since no later than the until").On("history_list", "since")
	}
	if hasSince {
		f.Since = since.Format(time.RFC3339Nano)
	}
	if hasUntil {
		f.Until = until.Format(time.RFC3339Nano)
	}
	recs, err := a.History.List(ctx, repo, f)
	if err != nil {
		return HistoryListResult{}, err
	}
	res := HistoryListResult{Repository: repo, Sessions: []HistorySession{}}
	for _, r := range recs {
		res.Sessions = append(res.Sessions, sessionOf(r))
	}
	return res, nil
}

// findSession resolves a session reference to one kept session: a key, a session id (its main
// agent's, when it has sub-agents), or a unique prefix.
func (a *App) findSession(ctx context.Context, repo string, ref history.SessionRef) (history.Record, []history.Record, error) {
	recs, err := a.History.List(ctx, repo, ports.HistoryFilter{Session: string(ref), Limit: 500})
	if err != nil {
		return history.Record{}, nil, err
	}
	var exact, main []history.Record
	sessions := map[string]bool{}
	for _, r := range recs {
		if r.Key == string(ref) {
			exact = append(exact, r)
		}
		if r.Agent == "" {
			main = append(main, r)
		}
		sessions[r.Session] = true
	}
	switch {
	case len(exact) == 1:
		return exact[0], recs, nil
	case len(sessions) == 1 && len(main) == 1:
		return main[0], recs, nil
	case len(recs) == 1:
		return recs[0], recs, nil
	case len(recs) == 0:
		return history.Record{}, nil, refusal.New("history_session_unknown", "", fmt.Sprintf("no captured session is named %q", text.Clip(string(ref))),
			refusal.Run("history_list"), " lists the captured sessions").On("history_show", "session")
	}
	var keys []string
	for _, r := range recs[:min(len(recs), 5)] {
		keys = append(keys, r.Key)
	}
	return history.Record{}, nil, refusal.New("history_session_ambiguous", "", fmt.Sprintf("%q names %d captured sessions (%s)", text.Clip(string(ref)), len(recs), strings.Join(keys, ", ")),
		"give the session's whole key").On("history_show", "session")
}

func historyShow(ctx context.Context, a *App, in *HistoryShowInput) (HistoryShowResult, error) {
	repo, err := a.historyRepo(ctx)
	if err != nil {
		return HistoryShowResult{}, err
	}
	rec, related, err := a.findSession(ctx, repo, in.Session)
	if err != nil {
		return HistoryShowResult{}, err
	}
	e, ok, err := a.History.Show(ctx, repo, rec.Key)
	if err != nil {
		return HistoryShowResult{}, err
	}
	if !ok {
		return HistoryShowResult{}, refusal.New("history_session_unknown", rec.Key, "was removed while it was being read", refusal.Run("history_list"), " lists the captured sessions")
	}
	res := HistoryShowResult{Session: sessionOf(e.Record), Messages: []HistoryMessage{}, SubAgents: []string{}}
	if in.Raw {
		res.Raw = string(e.Raw)
	} else {
		for _, m := range e.Messages {
			res.Messages = append(res.Messages, HistoryMessage{Role: m.Role, At: m.At, Text: m.Text})
		}
	}
	for _, r := range related {
		if r.Agent != "" && r.Parent == rec.Session && rec.Agent == "" {
			res.SubAgents = append(res.SubAgents, r.Key)
		}
	}
	sort.Strings(res.SubAgents)
	return res, nil
}

func historySearch(ctx context.Context, a *App, in *HistorySearchInput) (HistorySearchResult, error) {
	repo, err := a.historyRepo(ctx)
	if err != nil {
		return HistorySearchResult{}, err
	}
	hits, err := a.History.Search(ctx, repo, string(in.Query), in.Limit)
	if errors.Is(err, ports.ErrHistoryQuery) {
		return HistorySearchResult{}, refusal.New("history_query_invalid", "", "the query holds no word to search for (letters or digits)", "give the words to look for").On("history_search", "query")
	}
	if err != nil {
		return HistorySearchResult{}, err
	}
	res := HistorySearchResult{Repository: repo, Hits: []HistoryHit{}}
	for _, h := range hits {
		res.Hits = append(res.Hits, HistoryHit{Key: h.Key, Title: h.Title, Seq: h.Seq, Role: h.Role, At: h.At, Snippet: h.Snippet})
	}
	return res, nil
}
