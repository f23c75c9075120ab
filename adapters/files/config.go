package files

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/abcd-dev/abcd/ports"
)

// ConfigSource reads the two configuration families of the repository containing Dir and of the
// machine folder Home.
type ConfigSource struct {
	Dir  string
	Home string
}

// Paths of the four files, for a repository root and a machine folder.
func RepoConfigPath(root string) string { return filepath.Join(root, ".abcd", "config.json") }
func RepoRoutingPath(root string) string {
	return filepath.Join(root, ".abcd", "config", "oracle-routing.json")
}
func MachineConfigPath(home string) string  { return filepath.Join(home, "config.json") }
func MachineRoutingPath(home string) string { return filepath.Join(home, "oracle-routing.json") }

// ReadConfig reads all four files; the first file that may not be read refuses the lot.
func (c ConfigSource) ReadConfig(ctx context.Context) (ports.ConfigFiles, error) {
	root, _ := RepoRoot(c.Dir)
	var out ports.ConfigFiles
	for _, f := range []struct {
		dst  *ports.ConfigFile
		path string
		// rel is the file under the repository, where a committed folder that is a link could point
		// the repository layer anywhere on the machine, so every element of it must be real. A
		// machine file is read in $ABCD_HOME as the person set it.
		rel string
	}{
		{&out.RepoConfig, RepoConfigPath(root), ".abcd/config.json"},
		{&out.MachineConfig, MachineConfigPath(c.Home), ""},
		{&out.RepoRouting, RepoRoutingPath(root), ".abcd/config/oracle-routing.json"},
		{&out.MachineRouting, MachineRoutingPath(c.Home), ""},
	} {
		if err := ctx.Err(); err != nil {
			return ports.ConfigFiles{}, err
		}
		var (
			data    []byte
			present bool
			err     error
		)
		if f.rel == "" {
			data, present, err = ReadGuarded(f.path, true)
		} else {
			data, present, err = readRepoConfig(root, f.rel, f.path)
		}
		if err != nil {
			return ports.ConfigFiles{}, err
		}
		*f.dst = ports.ConfigFile{Path: f.path, Present: present, Data: data}
	}
	return out, nil
}

// readRepoConfig reads the repository file rel through real folders, a link anywhere refused.
func readRepoConfig(root, rel, shown string) ([]byte, bool, error) {
	repo, err := openFolder(root)
	if err != nil {
		return nil, false, refuseFile(shown, "cannot be read: "+errText(err), "check the folder's permissions")
	}
	defer repo.Close()
	dir, name, err := repo.parent(rel, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer dir.Close()
	if _, err := dir.noLink(name); err != nil {
		return nil, false, err
	}
	return dir.readGuarded(name, shown, false)
}

// RepoRulesPath and MachineRulesPath are the rules' files.
func RepoRulesPath(root string) string    { return filepath.Join(root, ".abcd", "rules.json") }
func MachineRulesPath(home string) string { return filepath.Join(home, "rules.json") }

// ReadRules reads the repository's and the machine's rules files, each through the guarded reader
// (the machine's must be the person's own and writable by nobody else, as every machine file).
func (c ConfigSource) ReadRules(ctx context.Context) (ports.RuleFiles, error) {
	if err := ctx.Err(); err != nil {
		return ports.RuleFiles{}, err
	}
	root, _ := RepoRoot(c.Dir)
	var out ports.RuleFiles
	repo := RepoRulesPath(root)
	data, present, err := readRepoConfig(root, ".abcd/rules.json", repo)
	if err != nil {
		return ports.RuleFiles{}, err
	}
	out.Repository = ports.ConfigFile{Path: repo, Present: present, Data: data}
	machine := MachineRulesPath(c.Home)
	data, present, err = ReadGuarded(machine, true)
	if err != nil {
		return ports.RuleFiles{}, err
	}
	out.Machine = ports.ConfigFile{Path: machine, Present: present, Data: data}
	return out, nil
}
