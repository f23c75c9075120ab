// Package ports is the hexagon's edge: the interfaces adapters implement. Use cases live in ports/app
// and are composed only of the domain and these interfaces.
package ports

import (
	"context"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/roster"
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

// RosterSource serves the agent roster abcd ships (agents/*.md), parsed strictly.
type RosterSource interface {
	Roster() (roster.Roster, error)
}

// Diagnostics carries what a person should see but no result holds: a skipped routing row, a
// fallback announced before a step. The CLI writes it to stderr.
type Diagnostics interface {
	Warn(msg string)
}

// Prompter asks the person a yes/no question. Interactive is false when nobody can answer (stdin
// is not a terminal, or the front door has no person), and then Confirm is never called.
type Prompter interface {
	Interactive() bool
	// Show writes text the person reads before a question (a table), never to stdout.
	Show(text string)
	Confirm(ctx context.Context, question string) (bool, error)
}

// Setup writes what abcd ahoy install adds, relative to the repository root, and the machine files
// under $ABCD_HOME. Every write is atomic and create-only: what exists is never replaced.
type Setup interface {
	// Root is the repository root; git is false outside a git repository.
	Root() (root string, git bool)
	MkdirAll(rel string) (created bool, err error)
	CreateFile(rel string, data []byte) (created bool, err error)
	Exists(rel string) (bool, error)
	// RemoveEmptyDir removes rel only when it is an empty folder.
	RemoveEmptyDir(rel string) (removed bool, err error)
	// RemoveFileIf removes rel only when its content is exactly data (what install wrote).
	RemoveFileIf(rel string, data []byte) (removed bool, err error)
	// MachinePath is the path of a machine file; CreateMachineFile writes it 0600 in a 0700 folder.
	MachinePath(name string) string
	MachineExists(name string) (bool, error)
	CreateMachineFile(name string, data []byte) (created bool, err error)
}
