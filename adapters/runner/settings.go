package runner

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// Each step's CLI is given a settings home of abcd's own, never the person's: a folder inside the
// step's private folder (under the runners' folder, 0700; folders 0700, files 0600), which HOME and
// the CLI's own configuration variable point at (runner.Kind.HomeEnv), holding the settings abcd
// writes and the state the CLI writes (runner.Kind.StateFolders), removed with the step. abcd then
// proves the CLI loaded those settings before the step counts: its start-up hook (StartHook) says
// the step's nonce when the CLI starts, and the CLI's work may begin only once the stream shows it
// (Event.Loaded) or the hook's marker holds it (Command.Marker). A CLI that ignored them (Gemini CLI
// skips its system settings file wherever it is not root's alone) never runs abcd's guard hook either,
// so its step is refused with the cause settings_ignored.

// homeName is the settings home's name inside the private folder.
const homeName = "home"

// maxMarker bounds what abcd reads of a hook's marker.
const maxMarker = 256

// newNonce is a step's proof token: unguessable, and recognisable in a stream.
func newNonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("drawing the step's nonce: %w", err)
	}
	return "abcd-settings-" + hex.EncodeToString(b), nil
}

// ownerOnly makes dir, a folder abcd chose for the runners' files, its owner's alone (0700): a folder
// others may write could have what a CLI reads swapped under it. A symbolic link is refused.
func ownerOnly(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the runners' folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("the runners' folder %s is not a folder (a symbolic link is refused)", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("making the runners' folder its owner's alone: %w", err)
		}
	}
	return nil
}

// writeHome makes the settings home in private: the dialect's files (each path inside the home,
// folders 0700, files 0600) and the CLI's state folders, which a fenced step writes.
func writeHome(private string, k runner.Kind, files map[string][]byte) (string, error) {
	home := filepath.Join(private, homeName)
	if err := os.Mkdir(home, 0o700); err != nil {
		return "", fmt.Errorf("making the CLI's settings home: %w", err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !filepath.IsLocal(name) {
			return "", fmt.Errorf("the dialect names a settings file outside the home: %q", name)
		}
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return "", fmt.Errorf("making the CLI's settings folder: %w", err)
		}
		if err := os.WriteFile(p, files[name], 0o600); err != nil {
			return "", fmt.Errorf("writing the CLI's %s: %w", name, err)
		}
	}
	for _, s := range k.StateFolders(home) {
		if err := os.MkdirAll(s, 0o700); err != nil {
			return "", fmt.Errorf("making the CLI's state folder: %w", err)
		}
	}
	return home, nil
}

// proof is what a step holds to tell that its CLI loaded abcd's settings.
type proof struct {
	kind   runner.Kind
	nonce  string
	marker string
	// servers are the MCP servers the step handed the CLI, by name.
	servers []string
	loaded  bool
}

// check takes one event before the step acts on it: the servers the CLI reports must be the ones abcd
// handed it, started; the start-up hook's answer proves the settings; and the CLI's work (a model
// turn, a tool call, a successful end) may begin only once they are proven. A failed end is left to
// its own cause.
func (p *proof) check(ev Event) *runner.Failure {
	if ev.Servers != nil {
		for _, name := range p.servers {
			if st := ev.Servers[name]; st != "connected" {
				if st == "" {
					st = "not listed"
				}
				return runner.Failf(runner.CauseSettingsIgnored, "%s did not start the MCP server %s abcd handed it (%s)", p.kind.Name(), text.Clip(name), text.Clip(st))
			}
		}
	}
	if p.loaded {
		return nil
	}
	if ev.Loaded != "" && p.nonce != "" && strings.Contains(ev.Loaded, p.nonce) {
		p.loaded = true
		return nil
	}
	work := ev.Turn || len(ev.Opened) > 0 || len(ev.Closed) > 0 || len(ev.Whole) > 0 || ev.Terminal != nil && ev.Terminal.Failure == nil
	if !work {
		return nil
	}
	if p.marker != "" && p.nonce != "" && readMarker(p.marker) == p.nonce {
		p.loaded = true
		return nil
	}
	return runner.Failf(runner.CauseSettingsIgnored, "%s began its work (%s) before abcd's start-up hook answered: it did not load the settings abcd gave it, and with them its guard hook",
		p.kind.Name(), text.Clip(ev.Type))
}

// readMarker is what the start-up hook wrote to its marker ("" when there is none, or it is not a
// regular file): read without following a link, bounded.
func readMarker(path string) string {
	f, err := openNoFollow(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(f, maxMarker))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// stderrWatch finds, in the CLI's stderr as it comes, the first of the words that say it did not load
// part of abcd's settings (a word cut between two reads is found too).
type stderrWatch struct {
	words []string
	tail  string
	said  string
}

func (w *stderrWatch) Write(b []byte) {
	if w.said != "" || len(w.words) == 0 || len(b) == 0 {
		return
	}
	s := w.tail + string(b)
	for _, word := range w.words {
		if strings.Contains(s, word) {
			w.said = word
			return
		}
	}
	keep := 0
	for _, word := range w.words {
		keep = max(keep, len(word)-1)
	}
	w.tail = s[max(0, len(s)-keep):]
}
