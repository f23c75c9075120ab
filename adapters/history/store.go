// Package history keeps captured sessions in SQLite with its FTS5 full-text index, through
// modernc.org/sqlite (pure Go, no cgo): one database per repository at
// $ABCD_HOME/history/<root-commit>/history.db, 0600 in 0700 folders. It is linked into the helper
// binary abcd-history only (cmd/abcd-history), never into abcd itself: abcd reaches it through Client,
// which runs the helper, so the driver's start-up cost stays off abcd's hook paths.
package history

import (
	"bytes"
	"compress/flate"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"modernc.org/sqlite" // the database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/ports"
)

// Store is the history store under Home ($ABCD_HOME).
type Store struct {
	Home string
}

// DefaultLimit is how many records or hits a listing or a search returns when not told.
const DefaultLimit = 50

// MaxLimit bounds what one listing or search returns.
const MaxLimit = 500

// schema is made in one write transaction, after PRAGMA auto_vacuum (which applies only to a
// database with no table yet) on its own.
const schema = `
CREATE TABLE IF NOT EXISTS sessions (
	key      TEXT PRIMARY KEY,
	record   TEXT NOT NULL,
	raw      BLOB NOT NULL,
	harness  TEXT NOT NULL,
	session  TEXT NOT NULL,
	run      TEXT NOT NULL,
	captured TEXT NOT NULL,
	started  TEXT NOT NULL,
	title    TEXT NOT NULL,
	bytes    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_captured ON sessions(captured);
CREATE INDEX IF NOT EXISTS sessions_run ON sessions(run);
CREATE INDEX IF NOT EXISTS sessions_session ON sessions(session);
CREATE TABLE IF NOT EXISTS msgs (
	id   INTEGER PRIMARY KEY,
	key  TEXT NOT NULL,
	seq  INTEGER NOT NULL,
	role TEXT NOT NULL,
	at   TEXT NOT NULL,
	text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS msgs_key ON msgs(key, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS msgs_fts USING fts5(text, content='msgs', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS msgs_ai AFTER INSERT ON msgs BEGIN
	INSERT INTO msgs_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS msgs_ad AFTER DELETE ON msgs BEGIN
	INSERT INTO msgs_fts(msgs_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
`

// validRepo is a root commit's id: the only name a store's folder takes.
func validRepo(repo string) bool {
	if len(repo) < 40 || len(repo) > 64 {
		return false
	}
	for _, c := range repo {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Path is where a repository's history is kept.
func (s Store) Path(repo string) string {
	return filepath.Join(s.Home, "history", repo, "history.db")
}

// open opens (making it, 0600 in 0700 folders, when create) a repository's database. Its folders and
// file must be real (no symbolic link) and the person's own.
func (s Store) open(ctx context.Context, repo string, create bool) (*sql.DB, error) {
	if !validRepo(repo) {
		return nil, fmt.Errorf("history: %q is not a root commit id", repo)
	}
	if s.Home == "" || !filepath.IsAbs(s.Home) {
		return nil, fmt.Errorf("history: the machine folder %q is not an absolute path", s.Home)
	}
	dir := filepath.Dir(s.Path(repo))
	for _, d := range []string{s.Home, filepath.Join(s.Home, "history"), dir} {
		st, err := os.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist) && create:
			if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, err
			}
			continue
		case errors.Is(err, fs.ErrNotExist):
			return nil, fs.ErrNotExist
		case err != nil:
			return nil, err
		case st.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("%s is a symbolic link; abcd keeps history in real folders only", d)
		case !st.IsDir():
			return nil, fmt.Errorf("%s is not a folder", d)
		}
	}
	path := s.Path(repo)
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", path)
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, fs.ErrNotExist
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if f != nil {
			_ = f.Close()
		}
	} else {
		return nil, err
	}
	// A rollback journal, not WAL: a read leaves no file behind, so the read verbs write nothing.
	// Every transaction is BEGIN IMMEDIATE (_txlock): a writer takes the write lock before it reads,
	// so two captures never both hold a read lock each wants to turn into the write lock, the one
	// case where SQLite answers SQLITE_BUSY at once instead of waiting out busy_timeout.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout("+strconv.Itoa(busyTimeoutMS)+")&_pragma=journal_mode(DELETE)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if !create {
		// A file another capture has only just made holds no schema yet: nothing is captured.
		made, err := schemaMade(ctx, db)
		if err == nil && !made {
			err = fs.ErrNotExist
		}
		if err != nil {
			_ = db.Close()
			return nil, err
		}
		return db, nil
	}
	if err := prepare(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("history: preparing %s: %w", path, err)
	}
	return db, nil
}

// busyTimeoutMS is how long one statement waits for a lock another process holds.
const busyTimeoutMS = 10_000

// maxAttempts bounds how often a write is tried when the lock stayed taken past busyTimeoutMS: the
// whole wait stays well within the helper's bound (helper.Timeout).
const maxAttempts = 5

// busy reports whether err is SQLite's answer that another connection holds the lock.
func busy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary code, without its extension
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// write runs fn in one immediate transaction and commits it, trying again, up to maxAttempts times
// in all, while the lock stays taken. fn's own errors end it at once, rolled back.
func write(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	var err error
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if err = writeOnce(ctx, db, fn); !busy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt*50+rand.IntN(50)) * time.Millisecond):
		}
	}
	return fmt.Errorf("history: the store stayed locked by another capture through %d tries of %d s each: %w", maxAttempts, busyTimeoutMS/1000, err)
}

func writeOnce(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// schemaMade reports whether the database holds its schema: the schema's transaction makes its last
// trigger with the rest, so that one standing says all do.
func schemaMade(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'msgs_ad'`).Scan(&n)
	return n == 1, err
}

// prepare makes the schema where it is not yet: auto_vacuum first (it applies only before the first
// table), then every table, index and trigger in one transaction.
func prepare(ctx context.Context, db *sql.DB) error {
	if made, err := schemaMade(ctx, db); err != nil || made {
		return err
	}
	if _, err := db.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return err
	}
	return write(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, schema)
		return err
	})
}

// openExisting opens the repository's database for reading; ok is false, with no error, when
// nothing has been captured for it yet.
func (s Store) openExisting(ctx context.Context, repo string) (*sql.DB, bool, error) {
	db, err := s.open(ctx, repo, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return db, true, nil
}

// Get returns the record kept under key.
func (s Store) Get(ctx context.Context, repo, key string) (history.Record, bool, error) {
	db, ok, err := s.openExisting(ctx, repo)
	if err != nil || !ok {
		return history.Record{}, false, err
	}
	defer db.Close()
	return getRecord(ctx, db, key)
}

func getRecord(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, key string) (history.Record, bool, error) {
	var rec string
	err := q.QueryRowContext(ctx, `SELECT record FROM sessions WHERE key = ?`, key).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return history.Record{}, false, nil
	}
	if err != nil {
		return history.Record{}, false, err
	}
	var r history.Record
	if err := json.Unmarshal([]byte(rec), &r); err != nil {
		return history.Record{}, false, fmt.Errorf("history: the record of %s is unreadable: %w", key, err)
	}
	return r, true, nil
}

// Put keeps an entry, replacing what is kept under its key, in one transaction; a transcript
// shorter than the one kept (or as long) never replaces it (ports.ErrKeptLonger), so two captures racing
// leave the longer.
func (s Store) Put(ctx context.Context, repo string, e ports.HistoryEntry) error {
	db, err := s.open(ctx, repo, true)
	if err != nil {
		return err
	}
	defer db.Close()
	rec, err := json.Marshal(e.Record)
	if err != nil {
		return err
	}
	raw, err := deflate(e.Raw)
	if err != nil {
		return err
	}
	return write(ctx, db, func(tx *sql.Tx) error {
		old, ok, err := getRecord(ctx, tx, e.Record.Key)
		if err != nil {
			return err
		}
		if ok && (old.Digest == e.Record.Digest || old.Bytes >= e.Record.Bytes) {
			return ports.ErrKeptLonger
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM msgs WHERE key = ?`, e.Record.Key); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO sessions(key, record, raw, harness, session, run, captured, started, title, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Record.Key, string(rec), raw, string(e.Record.Harness), e.Record.Session, e.Record.Lineage.Run, e.Record.Captured, e.Record.Started, e.Record.Title, len(raw)+len(rec)); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO msgs(key, seq, role, at, text) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for i, m := range e.Messages {
			if _, err := ins.ExecContext(ctx, e.Record.Key, i, m.Role, m.At, m.Text); err != nil {
				return err
			}
		}
		return nil
	})
}

// List returns the records kept, newest capture first, narrowed by f.
func (s Store) List(ctx context.Context, repo string, f ports.HistoryFilter) ([]history.Record, error) {
	db, ok, err := s.openExisting(ctx, repo)
	if err != nil || !ok {
		return nil, err
	}
	defer db.Close()
	q := `SELECT record FROM sessions WHERE 1=1`
	var args []any
	if f.Run != "" {
		q += ` AND run = ?`
		args = append(args, f.Run)
	}
	if f.Session != "" {
		q += ` AND (session = ? OR key = ? OR session LIKE ? ESCAPE '\')`
		args = append(args, f.Session, f.Session, likePrefix(f.Session))
	}
	if f.Harness != "" {
		q += ` AND harness = ?`
		args = append(args, f.Harness)
	}
	// The harnesses write their times in RFC 3339 with or without fractions and offsets: compared
	// as instants (julianday), never as strings.
	for _, b := range []struct{ at, op string }{{f.Since, ">="}, {f.Until, "<="}} {
		if b.at != "" {
			q += ` AND julianday(CASE WHEN started <> '' THEN started ELSE captured END) ` + b.op + ` julianday(?)`
			args = append(args, b.at)
		}
	}
	q += ` ORDER BY captured DESC, key LIMIT ?`
	args = append(args, limitOf(f.Limit))
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []history.Record
	for rows.Next() {
		var rec string
		if err := rows.Scan(&rec); err != nil {
			return nil, err
		}
		var r history.Record
		if err := json.Unmarshal([]byte(rec), &r); err != nil {
			return nil, fmt.Errorf("history: a record is unreadable: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Show returns one entry whole: its record, its bytes and its messages.
func (s Store) Show(ctx context.Context, repo, key string) (ports.HistoryEntry, bool, error) {
	db, ok, err := s.openExisting(ctx, repo)
	if err != nil || !ok {
		return ports.HistoryEntry{}, false, err
	}
	defer db.Close()
	rec, ok, err := getRecord(ctx, db, key)
	if err != nil || !ok {
		return ports.HistoryEntry{}, ok, err
	}
	var raw []byte
	if err := db.QueryRowContext(ctx, `SELECT raw FROM sessions WHERE key = ?`, key).Scan(&raw); err != nil {
		return ports.HistoryEntry{}, false, err
	}
	plain, err := inflate(raw)
	if err != nil {
		return ports.HistoryEntry{}, false, fmt.Errorf("history: the bytes of %s are unreadable: %w", key, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT role, at, text FROM msgs WHERE key = ? ORDER BY seq`, key)
	if err != nil {
		return ports.HistoryEntry{}, false, err
	}
	defer rows.Close()
	e := ports.HistoryEntry{Record: rec, Raw: plain}
	for rows.Next() {
		var m history.Message
		if err := rows.Scan(&m.Role, &m.At, &m.Text); err != nil {
			return ports.HistoryEntry{}, false, err
		}
		e.Messages = append(e.Messages, m)
	}
	return e, true, rows.Err()
}

// Search finds messages holding every word of query (a "quoted phrase" as a phrase, a word ending
// in * as a prefix), newest capture first, each with the words around its match.
func (s Store) Search(ctx context.Context, repo, query string, limit int) ([]ports.HistoryHit, error) {
	match, err := ftsQuery(query)
	if err != nil {
		return nil, err
	}
	db, ok, err := s.openExisting(ctx, repo)
	if err != nil || !ok {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT m.key, s.title, m.seq, m.role, m.at, snippet(msgs_fts, 0, '[', ']', '…', 24)
		FROM msgs_fts JOIN msgs m ON m.id = msgs_fts.rowid JOIN sessions s ON s.key = m.key
		WHERE msgs_fts MATCH ? ORDER BY msgs_fts.rowid DESC LIMIT ?`, match, limitOf(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ports.HistoryHit
	for rows.Next() {
		var h ports.HistoryHit
		if err := rows.Scan(&h.Key, &h.Title, &h.Seq, &h.Role, &h.At, &h.Snippet); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Prune removes the oldest captures until the database is within maxBytes, then gives the room back.
func (s Store) Prune(ctx context.Context, repo string, maxBytes int64) ([]string, error) {
	db, ok, err := s.openExisting(ctx, repo)
	if err != nil || !ok {
		return nil, err
	}
	defer db.Close()
	var removed []string
	for {
		size, err := dbSize(ctx, db)
		if err != nil {
			return removed, err
		}
		if size <= maxBytes {
			return removed, nil
		}
		// The oldest is chosen inside the transaction that removes it: two prunes at once remove two
		// sessions, never one twice.
		var key string
		err = write(ctx, db, func(tx *sql.Tx) error {
			key = ""
			err := tx.QueryRowContext(ctx, `SELECT key FROM sessions ORDER BY captured, key LIMIT 1`).Scan(&key)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM msgs WHERE key = ?`, key); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE key = ?`, key)
			return err
		})
		if err != nil || key == "" {
			return removed, err
		}
		removed = append(removed, key)
		if err := write(ctx, db, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO msgs_fts(msgs_fts) VALUES('optimize')`)
			return err
		}); err != nil {
			return removed, err
		}
		if _, err := db.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil && !busy(err) {
			// Another capture holding the lock now leaves the room to be given back by the next prune.
			return removed, err
		}
	}
}

// dbSize is the database's size in use: its pages less its free ones.
func dbSize(ctx context.Context, db *sql.DB) (int64, error) {
	var pages, free, size int64
	if err := db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return 0, err
	}
	if err := db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return 0, err
	}
	if err := db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		return 0, err
	}
	return (pages - free) * size, nil
}

func limitOf(n int) int {
	switch {
	case n <= 0:
		return DefaultLimit
	case n > MaxLimit:
		return MaxLimit
	}
	return n
}

func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s) + "%"
}

// ftsQuery turns what a person typed into an FTS5 query that cannot be read as FTS5's own syntax:
// every word quoted, "phrases" kept, a trailing * kept as a prefix, all of them required.
func ftsQuery(q string) (string, error) {
	var parts []string
	for len(q) > 0 {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			phrase := q[1:]
			if end >= 0 {
				phrase, q = q[1:1+end], q[2+end:]
			} else {
				q = ""
			}
			if w := words(phrase); len(w) > 0 {
				parts = append(parts, `"`+strings.Join(w, " ")+`"`)
			}
			continue
		}
		end := strings.IndexFunc(q, unicode.IsSpace)
		word := q
		if end >= 0 {
			word, q = q[:end], q[end:]
		} else {
			q = ""
		}
		// A word the index splits (sub-agent, foo.go) is looked for as the phrase of its parts.
		if w := words(word); len(w) > 0 {
			p := `"` + strings.Join(w, " ") + `"`
			if strings.HasSuffix(word, "*") {
				p += "*"
			}
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "", ports.ErrHistoryQuery
	}
	return strings.Join(parts, " "), nil
}

// words are the letters-and-digits runs of s, the way the index splits text.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func deflate(b []byte) ([]byte, error) {
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func inflate(b []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(b))
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, history.MaxTranscriptBytes*2))
}
