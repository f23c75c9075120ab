package history

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
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

func HistoryVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "history_capture", Path: []string{"history", "capture"}, Example: "abcd history capture --all\nabcd history capture ~/.claude/projects/my-repo/session.jsonl --harness claude",
			Summary: "Keep a harness session's transcript on this machine, redacted, under the repository's root commit; or every one of this repository's"},
			HistoryCapture),
		verb.Declare(verb.Verb{Name: "history_list", Path: []string{"history", "list"}, Example: "abcd history list --since 2026-12-01 --harness codex\nabcd history list --run <run-id>", Summary: "List the captured sessions of this repository, newest first, by run, session or harness",
			ReadOnly: true, Idempotent: true}, HistoryList),
		verb.Declare(verb.Verb{Name: "history_show", Path: []string{"history", "show"}, Example: "abcd history show <session-id>\nabcd history show <session-id> --raw", Summary: "Show one captured session: its messages, or its kept (redacted) transcript",
			ReadOnly: true, Idempotent: true}, HistoryShow),
		verb.Declare(verb.Verb{Name: "history_search", Path: []string{"history", "search"}, Example: "abcd history search \"flaky test\" --limit 10", Summary: "Search every captured session of this repository, with the matches in context",
			ReadOnly: true, Idempotent: true}, HistorySearch),
	}
}

// historyRepo is the repository's root commit, the key its history is kept under.
func (a *Deps) historyRepo(ctx context.Context) (string, error) {
	if a.History == nil || a.Transcripts == nil {
		return "", fmt.Errorf("history: no history store is wired into this build")
	}
	root, isGit := a.Setup.Root()
	if !isGit {
		return "", refusal.New(refusal.CodeHistoryNoRepository, root, "is not in a git repository, and history is kept per repository", "run abcd in the repository whose sessions to keep")
	}
	repo, err := a.Git.RootCommit(ctx)
	if err != nil {
		return "", err
	}
	if repo == "" {
		return "", refusal.New(refusal.CodeHistoryNoCommit, root, "has no commit yet, and history is kept under the repository's first commit", "commit once, then capture")
	}
	return repo, nil
}

// historyMaxBytes is history.max_mb in bytes.
func (a *Deps) historyMaxBytes(ctx context.Context) (int64, error) {
	stack := config.NewStack(nil, nil, nil)
	if a.Config != nil {
		_, s, err := a.LoadConfig(ctx)
		if err != nil {
			return 0, err
		}
		stack = s
	}
	v, err := config.Get[int](stack, HistoryMaxKey)
	if err != nil {
		return 0, core.ConfigRefusal(err)
	}
	return int64(v.V) << 20, nil
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

func HistoryList(ctx context.Context, a *Deps, in *HistoryListInput) (HistoryListResult, error) {
	repo, err := a.historyRepo(ctx)
	if err != nil {
		return HistoryListResult{}, err
	}
	f := ports.HistoryFilter{Run: string(in.Run), Session: string(in.Session), Harness: string(in.Harness), Limit: in.Limit}
	since, hasSince := in.Since.Since()
	until, hasUntil := in.Until.Until()
	if hasSince && hasUntil && since.After(until) {
		return HistoryListResult{}, refusal.New(refusal.CodeHistoryDateInvalid, "", fmt.Sprintf("since (%s) comes after until (%s), so no session could be listed", in.Since, in.Until),
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
func (a *Deps) findSession(ctx context.Context, repo string, ref history.SessionRef) (history.Record, []history.Record, error) {
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
		return history.Record{}, nil, refusal.New(refusal.CodeHistorySessionUnknown, "", fmt.Sprintf("no captured session is named %q", text.Clip(string(ref))),
			refusal.Run("history_list"), " lists the captured sessions").On("history_show", "session")
	}
	var keys []string
	for _, r := range recs[:min(len(recs), 5)] {
		keys = append(keys, r.Key)
	}
	return history.Record{}, nil, refusal.New(refusal.CodeHistorySessionAmbiguous, "", fmt.Sprintf("%q names %d captured sessions (%s)", text.Clip(string(ref)), len(recs), strings.Join(keys, ", ")),
		"give the session's whole key").On("history_show", "session")
}

func HistoryShow(ctx context.Context, a *Deps, in *HistoryShowInput) (HistoryShowResult, error) {
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
		return HistoryShowResult{}, refusal.New(refusal.CodeHistorySessionUnknown, rec.Key, "was removed while it was being read", refusal.Run("history_list"), " lists the captured sessions")
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

func HistorySearch(ctx context.Context, a *Deps, in *HistorySearchInput) (HistorySearchResult, error) {
	repo, err := a.historyRepo(ctx)
	if err != nil {
		return HistorySearchResult{}, err
	}
	hits, err := a.History.Search(ctx, repo, string(in.Query), in.Limit)
	if errors.Is(err, ports.ErrHistoryQuery) {
		return HistorySearchResult{}, refusal.New(refusal.CodeHistoryQueryInvalid, "", "the query holds no word to search for (letters or digits)", "give the words to look for").On("history_search", "query")
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
