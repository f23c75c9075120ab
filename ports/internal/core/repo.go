// Where the record stands: the repository, its root, and whether abcd is installed in it.

package core

import (
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
)

// Initialized refuses a verb that needs the record before ahoy install.
func (a *Core) Initialized(verb string) error {
	if err := a.RecordPresent(verb); err != nil {
		return err
	}
	missing, err := a.InstallMissing()
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return refusal.New(refusal.CodeInstallIncomplete, missing[0], "abcd ahoy install was interrupted before it wrote "+strings.Join(missing, " and ")+
			"; until it finishes, abcd writes nothing here (a temporary file could land where git sees it)",
			refusal.Run("ahoy_install"), " again: it makes what is missing and leaves the rest").On(verb, "")
	}
	return nil
}

// RecordPresent refuses a repository with no .abcd/ at all.
func (a *Core) RecordPresent(verb string) error {
	if !a.Records.Initialized() {
		if root, git := a.RepoRoot(); !git {
			return NotARepository(verb, root)
		}
		return refusal.New(refusal.CodeNotInitialized, "", "this repository has no .abcd/ record yet",
			refusal.Run("ahoy_install"), " first").On(verb, "")
	}
	return nil
}

// InstallMissing lists the files an install writes first and last that are missing:
// .abcd/.gitignore, which keeps abcd's temporary and local files out of git, and .abcd/config.json,
// which ahoy install writes once everything else stands. A record without them is an install a kill
// interrupted.
func (a *Core) InstallMissing() ([]string, error) {
	if !a.Records.Initialized() {
		return nil, nil
	}
	return a.Records.InstallMissing()
}

// RepoRoot is the repository root and whether abcd stands in a git repository at all.
func (a *Core) RepoRoot() (string, bool) {
	if a.Setup == nil {
		return "", true
	}
	return a.Setup.Root()
}

// Root is the repository root with forward slashes, under which paths a run hands out are absolute.
func (a *Core) Root() string {
	root, _ := a.RepoRoot()
	return filepath.ToSlash(root)
}

// Abs is a repository-relative path as an absolute one, for a line an agent in any folder can follow
// literally.
func (a *Core) Abs(rel string) string { return loop.Abs(a.Root(), rel) }

// NotARepository is every verb's one answer outside a git repository.
func NotARepository(verb, root string) error {
	return refusal.New(refusal.CodeNotARepository, "", root+" is not inside a git repository",
		"run `git init` there first, or run abcd from inside a repository").On(verb, "")
}

// RecordMalformed refuses a record abcd cannot parse, pointing at lint.
func RecordMalformed(file, why string) error {
	return refusal.New(refusal.CodeRecordMalformed, file, why, "fix the file (", refusal.Run("lint"), " lists every problem)")
}

const (
	AbcdDir          = layout.Root
	RepoConfigRel    = ".abcd/config.json"
	GitignoreRel     = ".abcd/.gitignore"
	RepoRoutingDir   = ".abcd/config"
	RepoRoutingRel   = ".abcd/config/oracle-routing.json"
	MachineRouting   = "oracle-routing.json"
	GitignoreContent = "# abcd's local run state: never committed\n" + layout.Ignore + "\n"
)
