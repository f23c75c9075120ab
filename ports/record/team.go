package record

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// A team shares the record through git. A move (a close, a ship, a plan) renames a record's file;
// staged in git's index as a rename, it travels whole with a commit -a, a stash or a branch switch,
// so no switch ever leaves the record in two folders.

// stageMove records a record's move in git's index when git tracks the old path. The move itself is
// made: a failure here is said, with the command that does it by hand, and never undoes the move.
// One a call's end interrupted is left to settle, which leaves the change for the next writer.
func (a *Deps) stageMove(ctx context.Context, from, to string) {
	if a.Git == nil {
		return
	}
	_, err := a.Git.StageMove(ctx, from, to)
	if err == nil || errors.Is(err, ports.ErrNoGit) || ctx.Err() != nil || a.Diag == nil {
		return
	}
	a.Diag.Warn(fmt.Sprintf("the record moved, but git's index was not told (%v): run `git add -A -- %s`", err, strings.TrimSpace(from+" "+to)))
}

// RecordFileInput names one record file by its path, as lint prints it.
type RecordFileInput struct {
	File record.FilePath `json:"file"`
}

// RecordRenumberResult is a record given a new id because another record carried its id.
type RecordRenumberResult struct {
	// Record is the record under its new id, at its new path.
	Record RecordSummary `json:"record"`
	From   string        `json:"from"`
	OldID  string        `json:"old_id"`
	// Rewritten lists the records whose references to it now name the new id: those git shows were
	// written where this record stood and the other did not.
	Rewritten []string `json:"rewritten"`
	// Unsure lists the records naming the old id where git cannot tell which of the two they mean
	// (written after both stood, or not committed): check each by hand.
	Unsure []string `json:"unsure"`
}

// RecordFinishMoveResult is a record a move had left in two lifecycle folders, now in the later one.
type RecordFinishMoveResult struct {
	Record  RecordSummary `json:"record"`
	Removed []string      `json:"removed"`
}

func RecordVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "record_renumber", Path: []string{"record", "renumber"}, Example: "abcd record renumber .abcd/issues/open/iss-2607011230051234-typo.md",
			Summary: "Give a record whose id another record carries a new id, and rewrite the references made to it"}, recordRenumber),
		verb.Declare(verb.Verb{Name: "record_finish_move", Path: []string{"record", "finish-move"}, Example: "abcd record finish-move spc-2607011230051234",
			Summary: "Finish a move that left one record in two lifecycle folders: keep it in the later folder with what both copies hold"}, recordFinishMove),
		recordFinishMergeVerb(),
	}
}

// lifecycleAt is the lifecycle of the record folder p stands in ("" for decisions).
func lifecycleAt(p string) string {
	for _, f := range record.Folders() {
		if f.Dir == path.Dir(p) {
			return f.Lifecycle
		}
	}
	return ""
}

// copiesOf lists the files of a family whose names carry id.
func (a *Deps) copiesOf(ctx context.Context, fam record.Family, id string) ([]string, error) {
	var out []string
	for _, folder := range record.Folders() {
		if folder.Family != fam {
			continue
		}
		names, err := a.Records.Names(ctx, folder.Dir, folder.Prefix)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if got, ok := record.IDOfFileName(n); ok && got == id {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

func recordFinishMove(ctx context.Context, a *Deps, in *RefInput) (RecordFinishMoveResult, error) {
	return Locked(ctx, a, "record_finish_move", func(ctx context.Context, rec *RecordLock) (RecordFinishMoveResult, error) {
		id := strings.TrimSpace(string(in.Ref))
		fam, ok := record.FamilyOfID(id)
		if !ok || fam == record.Decisions {
			return RecordFinishMoveResult{}, refusal.New(refusal.CodeRefInvalid, "", fmt.Sprintf("%q is not the full id of an intent, spec or issue", text.Clip(id)),
				"give the id lint names with the duplicate_id finding, such as itd-2611300000000001").On("record_finish_move", "ref")
		}
		if c, ok := rec.finishedFor(id); ok {
			// A run of this command a kill interrupted, finished by taking the lock: report it.
			return a.finishedMove(ctx, fam, c)
		}
		later, earlier, err := a.movedCopies(ctx, fam, id)
		if err != nil {
			return RecordFinishMoveResult{}, err
		}
		data, err := a.ReadFull(ctx, later)
		if err != nil {
			return RecordFinishMoveResult{}, err
		}
		for _, p := range earlier {
			other, err := a.ReadFull(ctx, p)
			if err != nil {
				return RecordFinishMoveResult{}, err
			}
			merged, differ := record.MergeCopies(data, other)
			if len(differ) > 0 {
				return RecordFinishMoveResult{}, refusal.New(refusal.CodeCopiesDiffer, later,
					fmt.Sprintf("and %s hold %s differently, and neither copy can be chosen for you", p, strings.Join(differ, ", ")),
					"make the two copies agree there (or git rm the copy whose text you do not keep), then ", refusal.Run("record_finish_move", refusal.With("ref", id)), " again")
			}
			data = merged
		}
		header, _, err := record.ParseHeader(fam, later, data)
		if err != nil {
			return RecordFinishMoveResult{}, core.RecordMalformed(later, core.ProblemText(err))
		}
		changes := []ports.FileChange{Write(later, data)}
		var moves []ports.Move
		for _, p := range earlier {
			changes = append(changes, remove(p))
			moves = append(moves, ports.Move{From: p, To: later})
		}
		if err := a.CommitMoves(ctx, rec, id, moves, changes...); err != nil {
			return RecordFinishMoveResult{}, err
		}
		s := RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(later), Path: later}
		fillSummary(&s, header)
		return RecordFinishMoveResult{Record: s, Removed: earlier}, nil
	})
}

// finishedMove reports a finish-move a killed run of it left and taking the lock finished (its
// removals staged with it).
func (a *Deps) finishedMove(ctx context.Context, fam record.Family, c ports.Change) (RecordFinishMoveResult, error) {
	res := RecordFinishMoveResult{Removed: []string{}}
	for _, f := range c.Files {
		if f.Remove {
			res.Removed = append(res.Removed, f.Path)
			continue
		}
		data, err := a.ReadFull(ctx, f.Path)
		if err != nil {
			return res, err
		}
		header, _, err := record.ParseHeader(fam, f.Path, data)
		if err != nil {
			return res, core.RecordMalformed(f.Path, core.ProblemText(err))
		}
		res.Record = RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(f.Path), Path: f.Path}
		fillSummary(&res.Record, header)
	}
	return res, nil
}

// movedCopies finds the copies of one record a move left: the one in the latest lifecycle folder,
// and the others with its file name.
func (a *Deps) movedCopies(ctx context.Context, fam record.Family, id string) (later string, earlier []string, err error) {
	copies, err := a.copiesOf(ctx, fam, id)
	if err != nil {
		return "", nil, err
	}
	rank := func(p string) int { return slices.Index(record.Lifecycles(fam), lifecycleAt(p)) }
	for _, p := range copies {
		if later == "" || rank(p) > rank(later) {
			later = p
		}
	}
	for _, p := range copies {
		if p != later && path.Base(p) == path.Base(later) {
			earlier = append(earlier, p)
		}
	}
	if len(earlier) > 0 {
		return later, earlier, nil
	}
	why := "no record file carries it"
	if later != "" {
		why = "it stands in one folder only (" + later + "): there is no move to finish"
	}
	return "", nil, refusal.New(refusal.CodeRecordNotMoved, id, why, refusal.Run("lint"), " names what is to be done")
}
