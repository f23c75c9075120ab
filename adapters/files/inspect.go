// Package files holds the adapters that touch the file system: what status inspects, the
// configuration source, ahoy's setup writes, the record store and the run store. Each reaches the
// repository and $ABCD_HOME only through folders held open as os.Root, reads bounded and through no
// link, writes with one atomic writer and serialises writers with one flock helper.
package files

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// Inspector implements ports.Inspector for the repository containing Dir and the machine folder Home.
type Inspector struct {
	Dir  string // where abcd was started
	Home string // $ABCD_HOME, already defaulted by the composition root
}

// Inspect reads presence only: no file's content, so a malformed file cannot stop status. A file
// counts as present when it is a regular file reached through real folders.
func (in Inspector) Inspect(ctx context.Context) (ports.RepoFacts, error) {
	root, git := RepoRoot(in.Dir)
	f := ports.RepoFacts{Root: root, Git: git, Records: map[string]int{}}
	// A folder that cannot be opened holds nothing, as far as status is concerned.
	repo, _ := openFolder(root)
	if repo != nil {
		defer repo.Close()
		if st, err := repo.lstat(".abcd"); err == nil && st != nil {
			f.Initialized = st.IsDir()
		}
	}
	home, _ := openFolder(in.Home)
	if home != nil {
		defer home.Close()
	}
	f.RepoConfig = ports.FileFact{Path: RepoConfigPath(root), Present: isRegular(repo, ".abcd/config.json")}
	f.RepoRouting = ports.FileFact{Path: RepoRoutingPath(root), Present: isRegular(repo, ".abcd/config/oracle-routing.json")}
	f.MachineConfig = ports.FileFact{Path: MachineConfigPath(in.Home), Present: isRegular(home, "config.json")}
	f.MachineRouting = ports.FileFact{Path: MachineRoutingPath(in.Home), Present: isRegular(home, "oracle-routing.json")}
	for _, folder := range record.Folders() {
		if err := ctx.Err(); err != nil {
			return ports.RepoFacts{}, err
		}
		n, err := countRecords(repo, folder.Dir, folder.Prefix)
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

// isRegular reports whether rel under base is a regular file reached through real folders.
func isRegular(base *folder, rel string) bool {
	if base == nil {
		return false
	}
	dir, name, err := base.parent(rel, 0)
	if err != nil {
		return false
	}
	defer dir.Close()
	st, err := dir.lstat(name)
	return err == nil && st != nil && st.Mode().IsRegular()
}

// countRecords counts regular <prefix>-*.md files; an absent folder, or one reached through a link,
// holds none.
func countRecords(repo *folder, dir, prefix string) (int, error) {
	if repo == nil {
		return 0, nil
	}
	f, _, err := repo.walk(dir, 0)
	if _, refused := refusal.As(err); errors.Is(err, fs.ErrNotExist) || refused {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	entries, err := f.readDir()
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
