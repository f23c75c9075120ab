// Package files holds the adapters that touch the file system: what status inspects, and later the
// configuration sources, the record store and the run store.
package files

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports"
)

// Inspector implements ports.Inspector for the repository containing Dir and the machine folder Home.
type Inspector struct {
	Dir  string // where abcd was started
	Home string // $ABCD_HOME, already defaulted by the composition root
}

// Inspect reads presence only: no file's content, so a malformed file cannot stop status.
func (in Inspector) Inspect(ctx context.Context) (ports.RepoFacts, error) {
	root, git := RepoRoot(in.Dir)
	f := ports.RepoFacts{Root: root, Git: git, Records: map[string]int{}}
	f.Initialized = isDir(filepath.Join(root, ".abcd"))
	f.RepoConfig = fact(RepoConfigPath(root))
	f.RepoRouting = fact(RepoRoutingPath(root))
	f.MachineConfig = fact(MachineConfigPath(in.Home))
	f.MachineRouting = fact(MachineRoutingPath(in.Home))
	for _, folder := range record.Folders() {
		if err := ctx.Err(); err != nil {
			return ports.RepoFacts{}, err
		}
		n, err := countRecords(filepath.Join(root, filepath.FromSlash(folder.Dir)), folder.Prefix)
		if err != nil {
			return ports.RepoFacts{}, err
		}
		f.Records[folder.Dir] = n
	}
	return f, nil
}

// RepoRoot walks up from dir to the folder holding .git (a folder, or a file for a worktree). Outside
// a repository the root is dir itself.
func RepoRoot(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, false
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, false
		}
		d = parent
	}
}

func isDir(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.IsDir()
}

func fact(p string) ports.FileFact {
	st, err := os.Lstat(p)
	return ports.FileFact{Path: p, Present: err == nil && st.Mode().IsRegular()}
}

// countRecords counts regular <prefix>-*.md files; an absent folder holds none.
func countRecords(dir, prefix string) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), prefix+"-") && strings.HasSuffix(e.Name(), ".md") {
			n++
		}
	}
	return n, nil
}
