// history capture: a harness's transcript read, redacted and stored, with its lineage.

package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// HarnessOf reads which harness wrote a session file from where it lies.
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

func HistoryCapture(ctx context.Context, a *Deps, in *HistoryCaptureInput) (HistoryCaptureResult, error) {
	if (in.Transcript == "") == !in.All {
		return HistoryCaptureResult{}, refusal.New(refusal.CodeHistoryCaptureWhat, "", "needs one session file, or all of this repository's",
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
				return HistoryCaptureResult{}, refusal.New(refusal.CodeHistoryHarnessUnknown, string(in.Transcript), "lies where no harness abcd reads keeps its sessions",
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
func (a *Deps) repoDirs(ctx context.Context) ([]string, error) {
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

// Redaction is what a capture redacts and rescans with: history.Redactor, with the home path it
// writes as ~ (an interface so a test can hand in one that misses, to prove the rescan refuses).
type Redaction interface {
	Text(s string, counts history.Counts) string
	JSON(data []byte, counts history.Counts) ([]byte, error)
	Survivors(s string) []string
	SurvivorsJSON(data []byte) ([]string, error)
	Path(p string) string
}

// Capturer is the real redaction.
type Capturer struct {
	*history.Redactor
	Home string
}

// Path is a path as kept: the home folder as ~.
func (c Capturer) Path(p string) string {
	if c.Home != "" && (p == c.Home || strings.HasPrefix(p, c.Home+"/")) {
		return history.HomeMark + p[len(c.Home):]
	}
	return p
}

// redactor is built for this capture: gitleaks' rules and abcd's, every credential abcd holds or the
// harnesses use on this machine, and the home folder.
func (a *Deps) redactor(ctx context.Context) (Redaction, error) {
	if a.RedactionFor != nil {
		return a.RedactionFor(ctx)
	}
	det, err := history.SecretDetector()
	if err != nil {
		return nil, fmt.Errorf("the secret rules: %w", err)
	}
	var calls []ports.ProviderCall
	if a.Config != nil {
		if m, err := a.LoadMachine(ctx); err == nil {
			for _, name := range m.Names() {
				if p, ok := m.Provider(name); ok {
					calls = append(calls, ports.ProviderCall{Name: p.Name, KeyEnv: p.KeyEnv, KeyFile: p.KeyFile})
				}
			}
		} else if _, ok := refusal.As(err); !ok {
			return nil, err
		} else {
			// A configuration that does not read leaves its keys unknown: nothing is kept blind.
			return nil, refusal.New(refusal.CodeHistoryConfigUnreadable, "the configuration", "cannot be read ("+core.ErrText(err)+"), so the keys abcd holds are not known and no transcript can be checked for them",
				refusal.Run("config_show"), " says what is wrong")
		}
	}
	var held []string
	if a.Credentials != nil {
		held = a.Credentials.Held(ctx, calls)
	}
	home := a.Transcripts.Home()
	return Capturer{Redactor: history.NewRedactor(det, held, home), Home: home}, nil
}

// captureOne reads, checks, redacts, rescans and keeps one session file.
func (a *Deps) captureOne(ctx context.Context, repo string, dirs []string, red Redaction, path string, h history.Harness) (HistoryCaptured, error) {
	// The path as shown and kept: the home folder as ~, and anything in it redaction takes out.
	shown := red.Text(red.Path(path), history.Counts{})
	data, cwdHint, err := a.Transcripts.Read(ctx, path)
	if err != nil {
		return HistoryCaptured{}, err
	}
	meta, err := history.Parse(h, data)
	if err != nil {
		return HistoryCaptured{}, refusal.New(refusal.CodeHistoryTranscriptInvalid, shown, fmt.Sprintf("is not a %s session file: %s", h, text.Clip(err.Error())),
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
		return HistoryCaptured{}, refusal.New(refusal.CodeHistoryOutsideRepository, shown, why, "capture it from the repository it ran in")
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
		return HistoryCaptured{}, refusal.New(refusal.CodeHistoryTranscriptInvalid, shown, "is not JSON throughout: "+text.Clip(err.Error()), "give a session file the harness wrote")
	}
	t, err := history.Parse(h, redacted)
	if err != nil {
		return HistoryCaptured{}, fmt.Errorf("reading %s after redaction: %w", shown, err)
	}
	if t.Cwd == "" && cwd != "" {
		t.Cwd = red.Text(cwd, counts)
	}
	rec := history.Record{Key: meta.Key(), Harness: h, Session: t.Session, Agent: t.Agent, AgentType: t.AgentType, Parent: t.Parent, Cwd: t.Cwd,
		Title: red.Text(t.Title(), counts), Model: t.Model, Started: t.Started, Ended: t.Ended, Captured: a.Now(),
		Source: shown, Bytes: len(data), Stored: len(redacted), Digest: digest, Messages: len(t.Messages), Redactions: counts}
	if err := nothingSurvived(red, redacted, rec, t); err != nil {
		return HistoryCaptured{}, err
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
func (a *Deps) resolveLineage(ctx context.Context, l history.Lineage) history.Lineage {
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

// nothingSurvived fails closed: anything any view still finds after redaction, in the bytes, the
// messages or the record, refuses the capture, and nothing is kept.
func nothingSurvived(red Redaction, redacted []byte, rec history.Record, t history.Transcript) error {
	survivors, err := red.SurvivorsJSON(redacted)
	if err != nil {
		return err
	}
	for _, s := range append([]string{rec.Cwd, rec.Title, rec.Source, rec.Model}, messageTexts(t)...) {
		survivors = append(survivors, red.Survivors(s)...)
	}
	if len(survivors) > 0 {
		return refusal.New(refusal.CodeHistorySecretSurvived, rec.Source,
			fmt.Sprintf("still holds what redaction must take out (%s) after redaction, so nothing of it is kept", strings.Join(uniq(survivors), ", ")),
			"nothing to do for this transcript; report the kind named if it is not a secret")
	}
	return nil
}
