// Package sessions reads the harnesses' own session files where each harness keeps them: Claude
// Code's project transcripts ($CLAUDE_CONFIG_DIR or ~/.claude: projects/<folder>/<session>.jsonl and
// <session>/subagents/agent-<id>.jsonl), Codex's session rollouts ($CODEX_HOME or ~/.codex:
// sessions/YYYY/MM/DD/rollout-*.jsonl) and Gemini CLI's chats (~/.gemini: tmp/<project>/chats/, the
// project's folder named in tmp/<project>/.project_root).
package sessions

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// Source reads session files under the person's home, with the harnesses' own overrides.
type Source struct {
	HomeDir string
	Getenv  func(string) string
}

// MaxFiles bounds how many session files a search of the machine looks at.
const MaxFiles = 100_000

func (s Source) env(k string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(k)
}

// Home is the person's home folder.
func (s Source) Home() string { return s.HomeDir }

func (s Source) claudeDir() string {
	if d := s.env("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(s.HomeDir, ".claude")
}

func (s Source) codexDir() string {
	if d := s.env("CODEX_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(s.HomeDir, ".codex")
}

func (s Source) geminiDir() string { return filepath.Join(s.HomeDir, ".gemini") }

// Read reads one session file: an absolute path to a regular file (no symbolic link), at most
// history.MaxTranscriptBytes. cwd is Gemini CLI's project folder when the file is one of its chats.
// Anything but a regular file is refused before it is opened for reading: a FIFO's open waits for a
// writer that may never come, and a device's read may never end.
func (s Source) Read(ctx context.Context, path string) ([]byte, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if !filepath.IsAbs(path) {
		return nil, "", refusal.New(refusal.CodeHistoryTranscriptInvalid, path, "is not an absolute path", "give the session file's absolute path")
	}
	f, st, err := openRegular(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", refusal.New(refusal.CodeHistoryTranscriptMissing, path, "does not exist", "give the path of a session file the harness wrote")
	case errors.Is(err, syscall.ELOOP):
		return nil, "", refusal.New(refusal.CodeHistoryTranscriptInvalid, path, "is a symbolic link, which abcd does not follow", "give the session file itself")
	case errors.Is(err, errNotRegular):
		return nil, "", refusal.New(refusal.CodeHistoryTranscriptInvalid, path, "is not a regular file (a folder, a FIFO or a device), so abcd does not read it", "give a session file")
	case err != nil:
		return nil, "", refusal.New(refusal.CodeHistoryTranscriptInvalid, path, "cannot be read: "+unwrap(err), "check the file's permissions")
	}
	defer f.Close()
	if st.Size() > history.MaxTranscriptBytes {
		return nil, "", refusal.New(refusal.CodeHistoryTranscriptTooLarge, path, fmt.Sprintf("is %d bytes, over the %d abcd keeps of one transcript", st.Size(), history.MaxTranscriptBytes),
			"nothing is kept of it; a harness's session this long is best split by starting a new session")
	}
	data, err := io.ReadAll(io.LimitReader(f, history.MaxTranscriptBytes+1))
	if err != nil {
		return nil, "", err
	}
	if len(data) > history.MaxTranscriptBytes {
		return nil, "", refusal.New(refusal.CodeHistoryTranscriptTooLarge, path, fmt.Sprintf("grew past %d bytes while it was read", history.MaxTranscriptBytes), "run the capture again when the session has ended")
	}
	return data, s.geminiRoot(path), nil
}

// errNotRegular: the name is a folder, a FIFO, a socket or a device.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading when it is a regular file, and only then. The name is looked
// at first, so a FIFO or a device is never opened; the open itself neither follows a link nor waits
// (a FIFO swapped in after the look opens at once), and what it opened is looked at again.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, nil, err
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	case !st.Mode().IsRegular():
		return nil, nil, errNotRegular
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close() // opened for reading and never read: the error returned is what counts
		if err == nil {
			err = errNotRegular
		}
		return nil, nil, err
	}
	return f, st, nil
}

// regular reports whether path is a regular file (no link followed).
func regular(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode().IsRegular()
}

// geminiRoot is the project folder a Gemini CLI chat belongs to: tmp/<project>/.project_root.
func (s Source) geminiRoot(path string) string {
	chats := filepath.Dir(path)
	if filepath.Base(chats) != "chats" {
		return ""
	}
	data, err := readSmall(filepath.Join(filepath.Dir(chats), ".project_root"))
	if err != nil {
		return ""
	}
	root := strings.TrimSpace(string(data))
	if !filepath.IsAbs(root) {
		return ""
	}
	return filepath.Clean(root)
}

func readSmall(path string) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

func unwrap(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// within reports whether dir is one of roots or below one.
func within(dir string, roots []string) bool {
	if dir == "" {
		return false
	}
	dir = filepath.Clean(dir)
	for _, r := range roots {
		r = filepath.Clean(r)
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// claudeFolder is the folder name Claude Code keeps a working folder's sessions in: its path with
// every character but letters and digits as a hyphen.
func claudeFolder(dir string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, filepath.Clean(dir))
}

// Find lists the session files of sessions that ran in one of the folders within or below it: Claude
// Code's by their project folder's name (then their recorded cwd), Codex's by the cwd their first
// line records, Gemini CLI's by their project's root. Sorted by path.
func (s Source) Find(ctx context.Context, roots []string) ([]ports.TranscriptFile, error) {
	f := &found{roots: roots}
	for _, find := range []func(context.Context, *found) error{s.findClaude, s.findCodex, s.findGemini} {
		if err := find(ctx, f); err != nil {
			return nil, err
		}
	}
	sort.Slice(f.out, func(i, j int) bool { return f.out[i].Path < f.out[j].Path })
	return f.out, nil
}

// found gathers the session files Find lists, at most MaxFiles.
type found struct {
	roots []string
	out   []ports.TranscriptFile
}

// add keeps the file when the folder its session ran in (cwd) is within one of the roots.
func (f *found) add(h history.Harness, path, cwd string) error {
	if !within(cwd, f.roots) {
		return nil
	}
	return f.list(h, path, cwd)
}

// list keeps the file.
func (f *found) list(h history.Harness, path, cwd string) error {
	if len(f.out) >= MaxFiles {
		return fmt.Errorf("more than %d session files", MaxFiles)
	}
	f.out = append(f.out, ports.TranscriptFile{Harness: h, Path: path, Size: size(path), Cwd: cwd})
	return nil
}

// findClaude: Claude Code keeps a folder per working folder; a repository's sessions may have run in
// any folder below it, whose names all start with the repository's.
func (s Source) findClaude(ctx context.Context, f *found) error {
	projects := filepath.Join(s.claudeDir(), "projects")
	entries, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no Claude Code sessions on this machine
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		match, own := false, false
		for _, r := range f.roots {
			prefix := claudeFolder(r)
			if e.Name() == prefix || strings.HasPrefix(e.Name(), prefix+"-") {
				match = true
			}
			own = own || e.Name() == prefix
		}
		if !match {
			continue
		}
		dir := filepath.Join(projects, e.Name())
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))                        // a fixed pattern: no error
		subs, _ := filepath.Glob(filepath.Join(dir, "*", "subagents", "agent-*.jsonl")) // likewise
		for _, p := range append(files, subs...) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !regular(p) {
				// Not a file abcd opens (a FIFO, a device, a folder), so no cwd can be read from it: in
				// the folder named for a root itself it is listed, for the capture to refuse by name.
				if own {
					if err := f.list(history.Claude, p, ""); err != nil {
						return err
					}
				}
				continue
			}
			if err := f.add(history.Claude, p, firstString(p, "cwd")); err != nil {
				return err
			}
		}
	}
	return nil
}

// findCodex: Codex keeps rollouts by date; the first line's session_meta says where.
func (s Source) findCodex(ctx context.Context, f *found) error {
	sessions := filepath.Join(s.codexDir(), "sessions")
	return filepath.WalkDir(sessions, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == sessions {
				return filepath.SkipAll
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.Type()&fs.ModeSymlink != 0 || d.IsDir() || !strings.HasPrefix(d.Name(), "rollout-") || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		return f.add(history.Codex, p, codexCwd(p))
	})
}

// findGemini: Gemini CLI keeps tmp/<project>/chats, the project's folder in .project_root.
func (s Source) findGemini(_ context.Context, f *found) error {
	entries, err := os.ReadDir(filepath.Join(s.geminiDir(), "tmp"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no Gemini CLI sessions on this machine
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		chats := filepath.Join(s.geminiDir(), "tmp", e.Name(), "chats")
		files, _ := filepath.Glob(filepath.Join(chats, "session-*.json*")) // a fixed pattern: no error
		for _, p := range files {
			if err := f.add(history.Gemini, p, s.geminiRoot(p)); err != nil {
				return err
			}
		}
	}
	return nil
}

func size(p string) int64 {
	st, err := os.Lstat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// firstString is the first value of key in the first lines of a JSON lines file that carry it.
func firstString(path, key string) string {
	f, _, err := openRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, 4<<20), 64<<10)
	for i := 0; i < 200; i++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var v map[string]any
			if json.Unmarshal(line, &v) == nil {
				if s, ok := v[key].(string); ok && s != "" {
					return s
				}
			}
		}
		if err != nil {
			return ""
		}
	}
	return ""
}

// codexCwd is the cwd a rollout's session_meta records.
func codexCwd(path string) string {
	f, _, err := openRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, 4<<20), 64<<10)
	line, _ := r.ReadBytes('\n')
	var v struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &v) != nil || v.Type != "session_meta" {
		return ""
	}
	return v.Payload.Cwd
}
