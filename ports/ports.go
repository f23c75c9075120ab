// Package ports is the hexagon's edge: the interfaces adapters implement. Use cases live in ports/app
// and are composed only of the domain and these interfaces.
package ports

import (
	"context"

	"github.com/abcd-dev/abcd/domain/contract"
)

// FileFact says whether one file abcd reads is present, and where.
type FileFact struct {
	Path    string
	Present bool
}

// RepoFacts is what the repository and machine show without being interpreted.
type RepoFacts struct {
	Root           string // the repository root, or the working directory when not in a repository
	Git            bool
	Initialized    bool // .abcd/ exists at the root
	RepoConfig     FileFact
	RepoRouting    FileFact
	MachineConfig  FileFact
	MachineRouting FileFact
	// Records counts record files per folder, keyed by the folder's Dir (see record.Folders).
	Records map[string]int
}

// Inspector reads the facts the status verb reports. It never writes.
type Inspector interface {
	Inspect(ctx context.Context) (RepoFacts, error)
}

// SchemaCatalog serves the published schemas the binary embeds.
type SchemaCatalog interface {
	Index() (contract.Index, error)
	// Schema returns the bytes of the named schema, or ok false when no schema has that name.
	Schema(name string) (data []byte, ok bool, err error)
}

// ConfigFile is one configuration file as found: absent, or its bytes.
type ConfigFile struct {
	Path    string
	Present bool
	Data    []byte
}

// ConfigFiles are the four files of the two configuration families.
type ConfigFiles struct {
	RepoConfig     ConfigFile
	MachineConfig  ConfigFile
	RepoRouting    ConfigFile
	MachineRouting ConfigFile
}

// ConfigSource reads the configuration files through the guarded reader. A file that is present but
// may not be read (a symlink, too large, a machine file another user owns or may write) is an error
// naming it and the fix; an absent file is an absent layer.
type ConfigSource interface {
	ReadConfig(ctx context.Context) (ConfigFiles, error)
}
