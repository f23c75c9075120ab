package fake

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/ports"
)

// History is an in-memory history store, by repository then key. It keeps the longer transcript as
// the real store does.
type History struct {
	Repos map[string]map[string]ports.HistoryEntry
	// Order is the order entries were put, oldest first, by repository.
	Order map[string][]string
}

// NewHistory is an empty store.
func NewHistory() *History {
	return &History{Repos: map[string]map[string]ports.HistoryEntry{}, Order: map[string][]string{}}
}

func (h *History) Get(_ context.Context, repo, key string) (history.Record, bool, error) {
	e, ok := h.Repos[repo][key]
	return e.Record, ok, nil
}

func (h *History) Put(_ context.Context, repo string, e ports.HistoryEntry) error {
	if h.Repos[repo] == nil {
		h.Repos[repo] = map[string]ports.HistoryEntry{}
	}
	if old, ok := h.Repos[repo][e.Record.Key]; ok && (old.Record.Digest == e.Record.Digest || old.Record.Bytes >= e.Record.Bytes) {
		return ports.ErrKeptLonger
	}
	if _, ok := h.Repos[repo][e.Record.Key]; !ok {
		h.Order[repo] = append(h.Order[repo], e.Record.Key)
	}
	h.Repos[repo][e.Record.Key] = e
	return nil
}

func (h *History) List(_ context.Context, repo string, f ports.HistoryFilter) ([]history.Record, error) {
	var out []history.Record
	for _, key := range h.Order[repo] {
		r := h.Repos[repo][key].Record
		if f.Run != "" && r.Lineage.Run != f.Run || f.Harness != "" && string(r.Harness) != f.Harness ||
			f.Session != "" && r.Session != f.Session && r.Key != f.Session && !strings.HasPrefix(r.Session, f.Session) ||
			!within(r, f.Since, f.Until) {
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Captured > out[j].Captured })
	return out, nil
}

func (h *History) Show(_ context.Context, repo, key string) (ports.HistoryEntry, bool, error) {
	e, ok := h.Repos[repo][key]
	return e, ok, nil
}

// Search finds messages holding every word of query, without case.
func (h *History) Search(_ context.Context, repo, query string, limit int) ([]ports.HistoryHit, error) {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return nil, ports.ErrHistoryQuery
	}
	var out []ports.HistoryHit
	for _, key := range h.Order[repo] {
		e := h.Repos[repo][key]
		for i, m := range e.Messages {
			all := true
			for _, w := range words {
				if !strings.Contains(strings.ToLower(m.Text), w) {
					all = false
				}
			}
			if all {
				out = append(out, ports.HistoryHit{Key: key, Title: e.Record.Title, Seq: i, Role: m.Role, At: m.At, Snippet: m.Text})
			}
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Prune removes the oldest entries while the store holds more than maxBytes of stored bytes.
func (h *History) Prune(_ context.Context, repo string, maxBytes int64) ([]string, error) {
	var removed []string
	for {
		var total int64
		for _, e := range h.Repos[repo] {
			total += int64(e.Record.Stored)
		}
		if total <= maxBytes || len(h.Order[repo]) == 0 {
			return removed, nil
		}
		key := h.Order[repo][0]
		h.Order[repo] = h.Order[repo][1:]
		delete(h.Repos[repo], key)
		removed = append(removed, key)
	}
}

// Transcripts serves session files from memory, by path.
type Transcripts struct {
	Files   map[string][]byte
	Cwds    map[string]string // a file's folder, where its harness keeps it beside (Gemini CLI)
	Found   []ports.TranscriptFile
	HomeDir string
}

func (t Transcripts) Read(_ context.Context, path string) ([]byte, string, error) {
	data, ok := t.Files[path]
	if !ok {
		return nil, "", &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return data, t.Cwds[path], nil
}

func (t Transcripts) Find(_ context.Context, within []string) ([]ports.TranscriptFile, error) {
	if len(within) == 0 {
		return nil, errors.New("no folder to look in")
	}
	return t.Found, nil
}

func (t Transcripts) Home() string { return t.HomeDir }

// Credentials are fixed secret values.
type Credentials struct{ Values []string }

func (c Credentials) Held(context.Context, []ports.ProviderCall) []string { return c.Values }

// within reports whether a record started (else was captured) between since and until, both
// included, as instants, as the real store compares them.
func within(r history.Record, since, until string) bool {
	at := r.Started
	if at == "" {
		at = r.Captured
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return since == "" && until == ""
	}
	if s, err := time.Parse(time.RFC3339Nano, since); err == nil && t.Before(s) {
		return false
	}
	if u, err := time.Parse(time.RFC3339Nano, until); err == nil && t.After(u) {
		return false
	}
	return true
}
