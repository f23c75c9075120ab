package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports"
)

// The record's merge driver is git plumbing, not a verb: git runs it as
// `abcd merge-record %O %A %B %L %P` for each record file both sides of a merge changed, handing it
// three temporary files it made for this one merge and taking the result back from %A. It is
// reached from the CLI alone; docs/architecture.md says why it has no MCP tool.

// MergeDriverName is the driver's name in .gitattributes (merge=abcd) and git's config (merge.abcd.*).
const MergeDriverName = "abcd"

// MergeDriverVerb is the hidden command git runs, after the program.
const MergeDriverVerb = "merge-record"

// maxMergeInput bounds what the driver reads of each side: far above a record's own bound, so a
// record too large to read is still merged rather than handed to git unmerged.
const maxMergeInput = 16 << 20

// MergeDriverInput is what git hands the driver: the ancestor's, ours' and theirs' files, the
// conflict marker size, and the path being merged (for messages).
type MergeDriverInput struct {
	Base, Ours, Theirs string
	MarkerSize         int
	Path               string
}

// MergeDriverResult says how a record file merged: Conflicts names each place both sides changed
// differently (none: a clean merge, exit 0).
type MergeDriverResult struct {
	Path        string
	Conflicts   []string
	ClosedTwice bool
	Mispaired   bool
}

// MergeRecord merges one record file three ways and writes the result in place of ours.
func (a *App) MergeRecord(_ context.Context, in MergeDriverInput) (MergeDriverResult, error) {
	if a.MergeFiles == nil {
		return MergeDriverResult{}, fmt.Errorf("no merge files are wired in this build")
	}
	var sides [3][]byte
	for i, p := range []string{in.Base, in.Ours, in.Theirs} {
		data, err := a.MergeFiles.Read(p, maxMergeInput)
		if err != nil {
			return MergeDriverResult{}, err
		}
		sides[i] = data
	}
	m := record.Merge(sides[0], sides[1], sides[2], in.MarkerSize, in.Path)
	if err := a.MergeFiles.Replace(in.Ours, m.Data); err != nil {
		return MergeDriverResult{}, err
	}
	return MergeDriverResult{Path: in.Path, Conflicts: m.Conflicts, ClosedTwice: m.ClosedTwice, Mispaired: m.Mispaired}, nil
}

// Say is what the driver tells the person running the merge, on stderr beside git's own lines.
func (r MergeDriverResult) Say() string {
	switch {
	case r.Mispaired:
		return fmt.Sprintf("abcd: %s: %s; the record that belongs at this path is kept whole: after the merge stops, run abcd record finish-merge (it carries the other record's change into its own file)\n",
			r.Path, strings.Join(r.Conflicts, "; "))
	case len(r.Conflicts) > 0:
		return fmt.Sprintf("abcd: %s: a conflict in %s: resolve it between the markers, then git add the file (abcd lint names what is left)\n",
			r.Path, strings.Join(r.Conflicts, "; "))
	case r.ClosedTwice:
		return fmt.Sprintf("abcd: %s: closed on both sides with different reasons; both are kept under a marker (abcd lint names it)\n", r.Path)
	}
	return ""
}

// mergeDriverCommand is git's merge.abcd.driver value that runs this abcd: its program, then the
// driver's arguments in git's placeholders.
func mergeDriverCommand(program string) string {
	return program + " " + MergeDriverVerb + " %O %A %B %L %P"
}

// The driver's set-up: lines in the repository's .gitattributes (committed, so every clone merges
// the record's files with the driver named abcd) and the driver itself in each clone's git config,
// which git never shares, so each collaborator's ahoy install adds it.
const (
	gitattributesRel  = ".gitattributes"
	mergeAttrsComment = "# abcd: the record's files merge with abcd's merge driver (abcd ahoy install sets it up in each clone)"
	mergeDriverTitle  = "abcd's record merge"
)

// mergeAttributes are the .gitattributes lines: every record file, in the record's two trees.
var mergeAttributes = []string{
	"/.abcd/development/**/*.md merge=" + MergeDriverName,
	"/.abcd/work/**/*.md merge=" + MergeDriverName,
}

// missingAttributes are the driver's .gitattributes lines data lacks.
func missingAttributes(data []byte) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.Join(strings.Fields(l), " ")] = true
	}
	var out []string
	for _, l := range mergeAttributes {
		if !have[l] {
			out = append(out, l)
		}
	}
	return out
}

// mergeDriverMissing reports whether this clone lacks the driver's lines or its git config (where
// git cannot run, the lines alone say).
func (a *App) mergeDriverMissing(ctx context.Context) (bool, error) {
	data, _, err := a.Setup.ReadFile(gitattributesRel)
	if err != nil || len(missingAttributes(data)) > 0 {
		return true, err
	}
	_, set, err := a.Git.ConfigValue(ctx, "merge."+MergeDriverName+".driver")
	if errors.Is(err, ports.ErrNoGit) {
		return false, nil
	}
	return !set, err
}

// writeMergeDriver adds what is missing of the driver's set-up; a driver already configured (by an
// earlier install, or by hand) is left as it is.
func (st *installation) writeMergeDriver(ctx context.Context, step *AhoyStep) error {
	a := st.a
	data, present, err := a.Setup.ReadFile(gitattributesRel)
	if err != nil {
		return err
	}
	if missing := missingAttributes(data); len(missing) > 0 {
		out := string(data)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if len(missing) == len(mergeAttributes) {
			out += mergeAttrsComment + "\n"
		}
		out += strings.Join(missing, "\n") + "\n"
		if !present {
			if _, err := a.Setup.CreateFile(gitattributesRel, []byte(out)); err != nil {
				return err
			}
		} else if err := a.Setup.ReplaceFile(gitattributesRel, []byte(out)); err != nil {
			return err
		}
		st.wrote(step, gitattributesRel)
	} else if _, err := a.Setup.CreateFile(gitattributesRel, nil); err != nil {
		// Creating over a file that stands writes nothing, and sweeps the temporary file an install
		// killed after placing it left beside it.
		return err
	}
	key := "merge." + MergeDriverName + ".driver"
	_, set, err := a.Git.ConfigValue(ctx, key)
	if errors.Is(err, ports.ErrNoGit) {
		if a.Diag != nil {
			a.Diag.Warn("git cannot run here, so this clone's git config has no merge driver for the record yet: run `abcd ahoy install` again where git runs")
		}
		return nil
	}
	if err != nil || set {
		return err
	}
	if err := a.Git.SetConfig(ctx, "merge."+MergeDriverName+".name", mergeDriverTitle); err != nil {
		return err
	}
	program := "abcd"
	if a.Self != nil {
		program = a.Self()
	}
	if err := a.Git.SetConfig(ctx, key, mergeDriverCommand(program)); err != nil {
		return err
	}
	st.wrote(step, "git config "+key)
	return nil
}

// removeMergeDriver takes out what install added: the driver's lines in .gitattributes (the file
// too, when nothing else is in it) and this clone's git config for it.
func (a *App) removeMergeDriver(ctx context.Context, res *AhoyUninstallResult) error {
	data, present, err := a.Setup.ReadFile(gitattributesRel)
	if err != nil {
		return err
	}
	if present && len(missingAttributes(data)) < len(mergeAttributes) {
		var kept []string
		for _, l := range strings.SplitAfter(string(data), "\n") {
			t := strings.Join(strings.Fields(l), " ")
			if t != mergeAttrsComment && !slices.Contains(mergeAttributes, t) && l != "" {
				kept = append(kept, l)
			}
		}
		rest := strings.Join(kept, "")
		if strings.TrimSpace(rest) == "" {
			if _, err := a.Setup.RemoveFileIf(gitattributesRel, data); err != nil {
				return err
			}
			res.Removed = append(res.Removed, gitattributesRel)
		} else {
			if err := a.Setup.ReplaceFile(gitattributesRel, []byte(rest)); err != nil {
				return err
			}
			res.Removed = append(res.Removed, gitattributesRel+" (abcd's lines)")
		}
	}
	if _, set, err := a.Git.ConfigValue(ctx, "merge."+MergeDriverName+".driver"); err != nil || !set {
		return err
	}
	for _, k := range []string{"driver", "name"} {
		if err := a.Git.UnsetConfig(ctx, "merge."+MergeDriverName+"."+k); err != nil {
			return err
		}
	}
	res.Removed = append(res.Removed, "git config merge."+MergeDriverName)
	return nil
}
