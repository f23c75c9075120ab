package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/history/helper"
	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/ports"
)

const repo = "0123456789abcdef0123456789abcdef01234567"

func entry(key, title string, size int, captured string, msgs ...string) ports.HistoryEntry {
	e := ports.HistoryEntry{Record: history.Record{Key: key, Harness: history.Claude, Session: strings.Split(key, ":")[1], Title: title,
		Bytes: size, Digest: fmt.Sprintf("d%d", size), Captured: captured}, Raw: []byte(`{"x":"` + title + `"}` + "\n")}
	for _, m := range msgs {
		e.Messages = append(e.Messages, history.Message{Role: "user", Text: m})
	}
	e.Record.Messages = len(msgs)
	return e
}

func TestTheStoreKeepsAndFinds(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s := Store{Home: home}
	_, ok, err := s.Get(ctx, repo, "claude:a")
	assert.NilError(t, err)
	assert.Check(t, !ok, "nothing kept, and nothing made by reading")
	_, err = os.Stat(filepath.Join(home, "history"))
	assert.Check(t, os.IsNotExist(err))

	assert.NilError(t, s.Put(ctx, repo, entry("claude:a", "first", 100, "2026-12-01T10:00:00Z", "write the migration for orders", "the sub-agent found nothing")))
	assert.NilError(t, s.Put(ctx, repo, entry("claude:b", "second", 50, "2026-12-01T11:00:00Z", "fix the flaky test in foo.go")))
	// Kept 0600 in 0700 folders.
	for p, want := range map[string]os.FileMode{filepath.Join(home, "history"): 0o700, filepath.Dir(s.Path(repo)): 0o700, s.Path(repo): 0o600} {
		st, err := os.Stat(p)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(st.Mode().Perm(), want), p)
	}
	// Made with incremental vacuum, which applies only before the first table: Prune gives room back.
	db, err := s.open(ctx, repo, false)
	assert.NilError(t, err)
	var vacuum int
	assert.NilError(t, db.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&vacuum))
	assert.NilError(t, db.Close())
	assert.Check(t, is.Equal(vacuum, 2), "auto_vacuum is INCREMENTAL")
	assert.Check(t, errors.Is(s.Put(ctx, repo, entry("claude:a", "shorter", 90, "x", "m")), ports.ErrKeptLonger))
	assert.Check(t, errors.Is(s.Put(ctx, repo, entry("claude:a", "same", 100, "x", "m")), ports.ErrKeptLonger))

	list, err := s.List(ctx, repo, ports.HistoryFilter{})
	assert.NilError(t, err)
	assert.Check(t, is.Len(list, 2))
	assert.Check(t, is.Equal(list[0].Key, "claude:b"), "newest capture first")
	one, err := s.List(ctx, repo, ports.HistoryFilter{Session: "a"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(one, 1))

	for q, want := range map[string][]string{
		"migration":         {"claude:a"},
		"MIGRATION orders":  {"claude:a"},
		`"found nothing"`:   {"claude:a"},
		"sub-agent":         {"claude:a"},
		"migrat*":           {"claude:a"},
		"foo.go":            {"claude:b"},
		"NEAR OR AND":       nil,
		`orders" OR "fix`:   nil,
		"absent":            nil,
		"test OR migration": nil,
	} {
		hits, err := s.Search(ctx, repo, q, 10)
		assert.NilError(t, err, q)
		var keys []string
		for _, h := range hits {
			keys = append(keys, h.Key)
			assert.Check(t, strings.Contains(h.Snippet, "["), "%q: the match is marked in its context: %q", q, h.Snippet)
		}
		assert.Check(t, is.DeepEqual(keys, want), q)
	}
	_, err = s.Search(ctx, repo, "  ** ", 10)
	assert.Check(t, errors.Is(err, ports.ErrHistoryQuery))

	// A longer transcript supersedes: its messages replace the old ones in the index.
	assert.NilError(t, s.Put(ctx, repo, entry("claude:a", "longer", 200, "2026-12-01T12:00:00Z", "all new words")))
	hits, err := s.Search(ctx, repo, "migration", 10)
	assert.NilError(t, err)
	assert.Check(t, is.Len(hits, 0))
	e, ok, err := s.Show(ctx, repo, "claude:a")
	assert.NilError(t, err)
	assert.Check(t, ok)
	assert.Check(t, is.Equal(string(e.Raw), `{"x":"longer"}`+"\n"))
	assert.Check(t, is.Len(e.Messages, 1))

	removed, err := s.Prune(ctx, repo, 1)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(removed, []string{"claude:b", "claude:a"}), "oldest capture first")
}

func TestTheStoreRefusesLinksAndBadRepos(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	other := t.TempDir()
	assert.NilError(t, os.Symlink(other, filepath.Join(home, "history")))
	err := Store{Home: home}.Put(ctx, repo, entry("claude:a", "t", 1, "x"))
	assert.Check(t, is.ErrorContains(err, "symbolic link"))
	_, _, err = Store{Home: t.TempDir()}.Get(ctx, "../../etc", "k")
	assert.Check(t, is.ErrorContains(err, "not a root commit id"))
}

// The helper protocol, through the helper built from this module: the client runs it per call.
func TestTheClientRunsTheHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the helper")
	}
	bin := filepath.Join(t.TempDir(), helper.HelperName)
	build := exec.Command("go", "build", "-o", bin, "github.com/abcd-dev/abcd/frontdoors/cmd/abcd-history")
	build.Dir = "../../frontdoors"
	out, err := build.CombinedOutput()
	assert.NilError(t, err, string(out))
	c := helper.Client{Home: t.TempDir(), Helper: bin}
	ctx := context.Background()
	assert.NilError(t, c.Put(ctx, repo, entry("claude:a", "first", 100, "2026-12-01T10:00:00Z", "hello world")))
	assert.Check(t, errors.Is(c.Put(ctx, repo, entry("claude:a", "first", 100, "x", "hello")), ports.ErrKeptLonger))
	rec, ok, err := c.Get(ctx, repo, "claude:a")
	assert.NilError(t, err)
	assert.Check(t, ok && rec.Title == "first")
	hits, err := c.Search(ctx, repo, "world", 5)
	assert.NilError(t, err)
	assert.Check(t, is.Len(hits, 1))
	_, err = c.Search(ctx, repo, "**", 5)
	assert.Check(t, errors.Is(err, ports.ErrHistoryQuery))
	_, _, err = c.Get(ctx, "not-a-commit", "k")
	assert.Check(t, is.ErrorContains(err, "not a root commit id"))

	// Anything but a request is answered with an error, never a crash.
	var res helper.Response
	var buf bytes.Buffer
	assert.NilError(t, Serve(ctx, strings.NewReader("{"), &buf))
	assert.NilError(t, json.Unmarshal(buf.Bytes(), &res))
	assert.Check(t, is.Contains(res.Error, "not JSON"))
}

// A listing by date compares instants, whatever fraction or offset a harness wrote them with; a
// session with no times is dated by its capture.
func TestTheStoreListsByDate(t *testing.T) {
	ctx := context.Background()
	s := Store{Home: t.TempDir()}
	for _, e := range []struct{ key, started, captured string }{
		{"claude:early", "2026-11-30T23:59:59.999Z", "2026-12-02T00:00:00Z"},
		{"claude:offset", "2026-12-01T01:30:00+02:00", "2026-12-02T00:00:01Z"}, // 23:30 on the 30th, in UTC
		{"claude:midday", "2026-12-01T12:00:00Z", "2026-12-02T00:00:02Z"},
		{"claude:late", "2026-12-01T23:59:59.5Z", "2026-12-02T00:00:03Z"},
		{"claude:untimed", "", "2026-12-02T08:00:00Z"},
	} {
		en := entry(e.key, e.key, 10, e.captured, "m")
		en.Record.Started = e.started
		assert.NilError(t, s.Put(ctx, repo, en))
	}
	for _, c := range []struct {
		since, until string
		want         []string
	}{
		{"2026-12-01T00:00:00Z", "2026-12-01T23:59:59.999999999Z", []string{"claude:late", "claude:midday"}},
		{"", "2026-11-30T23:59:59.999999999Z", []string{"claude:offset", "claude:early"}},
		{"2026-12-01T12:00:00Z", "2026-12-01T12:00:00Z", []string{"claude:midday"}},
		{"2026-12-02T00:00:00Z", "", []string{"claude:untimed"}},
		{"", "", []string{"claude:untimed", "claude:late", "claude:midday", "claude:offset", "claude:early"}},
	} {
		list, err := s.List(ctx, repo, ports.HistoryFilter{Since: c.since, Until: c.until})
		assert.NilError(t, err)
		var keys []string
		for _, r := range list {
			keys = append(keys, r.Key)
		}
		assert.Check(t, is.DeepEqual(keys, c.want), "since %q until %q", c.since, c.until)
	}
}
