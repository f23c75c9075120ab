package setup

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports/internal/core"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/verb"
)

// AhoyUninstallInput takes nothing.
type AhoyUninstallInput struct{}

// AhoyUninstallResult lists what was removed and what was kept.
type AhoyUninstallResult struct {
	Root    string   `json:"root"`
	Removed []string `json:"removed"`
	Kept    []string `json:"kept"`
	// Notes say why something install added was kept.
	Notes []string `json:"notes"`
}

func AhoyUninstallVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:        "ahoy_uninstall",
		Path:        []string{"ahoy", "uninstall"},
		Example:     "abcd ahoy uninstall",
		Summary:     "Remove what ahoy install added, keeping every record, the config files and both routing files",
		Destructive: true,
		Idempotent:  true,
	}, ahoyUninstall)
}

// removeRecordDir removes a record folder that holds nothing but what install put there: its keep
// file, when it is still empty, then the folder. A folder holding a record keeps its keep file.
func (a *Deps) removeRecordDir(d string) (bool, error) {
	keep := d + "/" + record.KeepFile
	if !slices.Contains(recorduc.KeepFiles(), keep) {
		return a.Setup.RemoveEmptyDir(d)
	}
	dropped, err := a.Setup.RemoveFileIf(keep, nil)
	if err != nil {
		return false, err
	}
	removed, err := a.Setup.RemoveEmptyDir(d)
	if err != nil || removed || !dropped {
		return removed, err
	}
	_, err = a.Setup.CreateFile(keep, nil)
	return false, err
}

func ahoyUninstall(ctx context.Context, a *Deps, _ *AhoyUninstallInput) (AhoyUninstallResult, error) {
	root, git := a.Setup.Root()
	if !git {
		return AhoyUninstallResult{}, core.NotARepository("ahoy_uninstall", root)
	}
	res := AhoyUninstallResult{Root: root, Removed: []string{}, Kept: []string{}, Notes: []string{}}
	// The run folder is the runs' local state, never committed: while it stands, the .gitignore that
	// hides it from git stands too.
	local, err := a.Setup.Exists(layout.Local)
	if err != nil {
		return res, err
	}
	removed := false
	if local {
		res.Kept = append(res.Kept, layout.Local+"/")
		res.Notes = append(res.Notes, fmt.Sprintf("%s stays while %s/ (the runs' local state) does, so git never shows it; "+
			"once no run is needed (abcd implement abandon ends one), delete %s/ and uninstall again", core.GitignoreRel, layout.Local, layout.Local))
	} else if removed, err = a.Setup.RemoveFileIf(core.GitignoreRel, []byte(core.GitignoreContent)); err != nil {
		return res, err
	}
	if removed {
		res.Removed = append(res.Removed, core.GitignoreRel)
	} else if err := keepIfExists(a.Setup.Exists, core.GitignoreRel, core.GitignoreRel, &res); err != nil {
		return res, err // a .gitignore still there was edited since install: it is the person's now
	}
	// Deepest folders first; a folder that holds anything (a record) stays.
	dirs := append(recordDirs(), ".abcd/development/intents", ".abcd/development/specs", ".abcd/development", ".abcd/work/issues", ".abcd/work")
	slices.SortStableFunc(dirs, func(x, y string) int { return strings.Count(y, "/") - strings.Count(x, "/") })
	for _, d := range dirs {
		if d == core.AbcdDir {
			continue
		}
		ok, err := a.removeRecordDir(d)
		if err != nil {
			return res, err
		}
		if ok {
			res.Removed = append(res.Removed, d+"/")
		} else if err := keepIfExists(a.Setup.Exists, d, d+"/", &res); err != nil {
			return res, err
		}
	}
	for _, keep := range []string{core.RepoConfigRel, core.RepoRoutingRel} {
		if err := keepIfExists(a.Setup.Exists, keep, keep, &res); err != nil {
			return res, err
		}
	}
	if err := keepIfExists(a.Setup.MachineExists, core.MachineRouting, a.Setup.MachinePath(core.MachineRouting), &res); err != nil {
		return res, err
	}
	if err := a.removeMergeDriver(ctx, &res); err != nil {
		return res, err
	}
	if err := a.removeHarnessSandbox(&res); err != nil {
		return res, err
	}
	if ok, err := a.Setup.RemoveEmptyDir(path.Clean(core.AbcdDir)); err != nil {
		return res, err
	} else if ok {
		res.Removed = append(res.Removed, core.AbcdDir+"/")
	}
	return res, nil
}

// keepIfExists lists as kept what uninstall left standing; an error reading whether it stands is
// returned, never taken for "absent".
func keepIfExists(exists func(string) (bool, error), rel, shown string, res *AhoyUninstallResult) error {
	ok, err := exists(rel)
	if ok {
		res.Kept = append(res.Kept, shown)
	}
	return err
}
