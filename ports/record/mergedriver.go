package record

import (
	"context"
	"errors"
	"fmt"
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
func (a *Deps) MergeRecord(_ context.Context, in MergeDriverInput) (MergeDriverResult, error) {
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

// MergeDriverCommand is git's merge.abcd.driver value that runs this abcd: its program, then the
// driver's arguments in git's placeholders.
func MergeDriverCommand(program string) string {
	return program + " " + MergeDriverVerb + " %O %A %B %L %P"
}

// The driver's set-up: lines in the repository's .gitattributes (committed, so every clone merges
// the record's files with the driver named abcd) and the driver itself in each clone's git config,
// which git never shares, so each collaborator's ahoy install adds it.
const (
	GitattributesRel  = ".gitattributes"
	MergeAttrsComment = "# abcd: the record's files merge with abcd's merge driver (abcd ahoy install sets it up in each clone)"
	MergeDriverTitle  = "abcd's record merge"
)

// MergeAttributes are the .gitattributes lines: every record file, in the record's two trees.
var MergeAttributes = []string{
	"/.abcd/development/**/*.md merge=" + MergeDriverName,
	"/.abcd/work/**/*.md merge=" + MergeDriverName,
}

// MissingAttributes are the driver's .gitattributes lines data lacks.
func MissingAttributes(data []byte) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.Join(strings.Fields(l), " ")] = true
	}
	var out []string
	for _, l := range MergeAttributes {
		if !have[l] {
			out = append(out, l)
		}
	}
	return out
}

// MergeDriverMissing reports whether this clone lacks the driver's lines or its git config (where
// git cannot run, the lines alone say).
func (a *Deps) MergeDriverMissing(ctx context.Context) (bool, error) {
	data, _, err := a.Setup.ReadFile(GitattributesRel)
	if err != nil || len(MissingAttributes(data)) > 0 {
		return true, err
	}
	_, set, err := a.Git.ConfigValue(ctx, "merge."+MergeDriverName+".driver")
	if errors.Is(err, ports.ErrNoGit) {
		return false, nil
	}
	return !set, err
}
