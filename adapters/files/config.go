package files

import (
	"context"
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
	// A repository file is read only through real folders: a committed .abcd or .abcd/config that is
	// a link could point the repository layer anywhere on the machine.
	for _, rel := range []string{".abcd/config.json", ".abcd/config/oracle-routing.json"} {
		if _, err := (Setup{Dir: c.Dir}).resolve(rel); err != nil {
			return ports.ConfigFiles{}, err
		}
	}
	var out ports.ConfigFiles
	for _, f := range []struct {
		dst     *ports.ConfigFile
		path    string
		machine bool
	}{
		{&out.RepoConfig, RepoConfigPath(root), false},
		{&out.MachineConfig, MachineConfigPath(c.Home), true},
		{&out.RepoRouting, RepoRoutingPath(root), false},
		{&out.MachineRouting, MachineRoutingPath(c.Home), true},
	} {
		if err := ctx.Err(); err != nil {
			return ports.ConfigFiles{}, err
		}
		data, present, err := ReadGuarded(f.path, f.machine)
		if err != nil {
			return ports.ConfigFiles{}, err
		}
		*f.dst = ports.ConfigFile{Path: f.path, Present: present, Data: data}
	}
	return out, nil
}
