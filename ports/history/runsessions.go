package history

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// MaxRunSessions bounds the sessions a run's record lists: the store's largest listing.
const MaxRunSessions = 500

// RunHistory is what this machine's history holds of a run: the captured harness sessions that
// served its steps (found by the brief or return path each session's own messages name).
type RunHistory struct {
	// Sessions are the captured sessions that served the run, oldest first.
	Sessions []HistorySession `json:"sessions"`
	// Note says why the list may be short: no history kept here, or one that could not be read, or
	// more sessions than a record lists. Empty when the list is whole.
	Note string `json:"note"`
}

// RunHistory reads the sessions behind a run from the history store. A run's record is read without
// them rather than refused: the note says why they are missing, and nothing is written (the store
// is opened for reading only, and a repository with no history has no database to open).
func (a *Deps) RunHistory(ctx context.Context, run string) RunHistory {
	out := RunHistory{Sessions: []HistorySession{}}
	if a.History == nil {
		out.Note = "this build keeps no history, so the sessions behind each step are not known"
		return out
	}
	repo, err := a.Git.RootCommit(ctx)
	if err != nil || repo == "" {
		out.Note = "the repository's first commit, which its history is kept under, could not be read"
		return out
	}
	recs, err := a.History.List(ctx, repo, ports.HistoryFilter{Run: run, Limit: MaxRunSessions})
	if err != nil {
		if r, ok := refusal.As(err); ok {
			out.Note = "the history on this machine could not be read: " + r.Why
		} else {
			out.Note = "the history on this machine could not be read: " + core.ErrText(err)
		}
		a.Warn("implement record: " + out.Note)
		return out
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Started != recs[j].Started {
			return recs[i].Started < recs[j].Started
		}
		return recs[i].Key < recs[j].Key
	})
	for _, r := range recs {
		out.Sessions = append(out.Sessions, sessionOf(r))
	}
	switch {
	case len(recs) >= MaxRunSessions:
		out.Note = fmt.Sprintf("the first %d sessions are listed; the history holds more of this run", MaxRunSessions)
	case len(recs) == 0:
		out.Note = "no session captured on this machine served this run"
	}
	return out
}

// StepSessions are the keys of the sessions that served the step whose return path is ret: those
// whose brief or return path lies in the same step folder of the same lane.
func StepSessions(h RunHistory, lane, ret string) []string {
	keys := []string{}
	dir := stepDir(ret)
	if dir == "" {
		return keys
	}
	for _, s := range h.Sessions {
		if s.Lineage.Lane != lane {
			continue
		}
		for _, p := range []string{s.Lineage.Brief, s.Lineage.Return} {
			if stepDir(p) == dir {
				keys = append(keys, s.Key)
				break
			}
		}
	}
	return keys
}

// stepDir is the step folder a brief or return path lies in, from the runs' folder on
// (.abcd/.work.local/run/<run>/<lane>/<step>), whether the path is absolute or relative to the
// repository; "" for a path that is not under a run.
func stepDir(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	i := strings.Index(p, loop.RunDir(""))
	if p == "" || i < 0 {
		return ""
	}
	return path.Dir(p[i:])
}
