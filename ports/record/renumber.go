package record

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

func recordRenumber(ctx context.Context, a *Deps, in *RecordFileInput) (RecordRenumberResult, error) {
	return Locked(ctx, a, "record_renumber", func(ctx context.Context, rec *RecordLock) (RecordRenumberResult, error) {
		p := string(in.File)
		old, _ := record.IDOfFileName(p)
		fam, _ := record.FamilyOfID(old)
		if c, ok := rec.finishedFor(old); ok && len(c.Files) > 1 && c.Files[1].Path == p {
			// A run of this command a kill interrupted, finished by taking the lock: report it.
			return a.renumberedBefore(ctx, fam, old, c)
		}
		data, err := a.ReadFull(ctx, p)
		if err != nil {
			return RecordRenumberResult{}, err
		}
		if _, _, err := record.ParseHeader(fam, p, data); err != nil {
			return RecordRenumberResult{}, core.RecordMalformed(p, core.ProblemText(err))
		}
		others, err := a.sharersOf(ctx, fam, old, p)
		if err != nil {
			return RecordRenumberResult{}, err
		}
		newID, err := a.renumbered(ctx, fam, old)
		if err != nil {
			return RecordRenumberResult{}, err
		}
		res := RecordRenumberResult{From: p, OldID: old, Rewritten: []string{}, Unsure: []string{}}
		changes, err := a.referencesTo(ctx, old, newID, p, others, &res)
		if err != nil {
			return RecordRenumberResult{}, err
		}
		renamed, _ := record.ReplaceID(data, old, newID)
		dst := path.Dir(p) + "/" + record.FileName(newID, slugOf(p))
		changes = append([]ports.FileChange{Write(dst, renamed), remove(p)}, changes...)
		if err := a.CommitMoves(ctx, rec, old, []ports.Move{{From: p, To: dst}}, changes...); err != nil {
			return RecordRenumberResult{}, err
		}
		header, _, _ := record.ParseHeader(fam, dst, renamed)
		res.Record = RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(dst), Path: dst}
		fillSummary(&res.Record, header)
		return res, nil
	})
}

// renumberedBefore reports a renumber a killed run of it left and taking the lock finished (its move
// staged with it): its change writes the record's new path first, removes its old one second, then
// the references. The unsure records are found again as the first run found them: every record but
// the renumbered one and those carrying the old id that still names it, which the change did not
// rewrite because git could not tell which record it meant.
func (a *Deps) renumberedBefore(ctx context.Context, fam record.Family, old string, c ports.Change) (RecordRenumberResult, error) {
	dst, from := c.Files[0].Path, c.Files[1].Path
	res := RecordRenumberResult{From: from, OldID: old, Rewritten: []string{}, Unsure: []string{}}
	for _, f := range c.Files[2:] {
		res.Rewritten = append(res.Rewritten, f.Path)
	}
	data, err := a.ReadFull(ctx, dst)
	if err != nil {
		return res, err
	}
	header, _, err := record.ParseHeader(fam, dst, data)
	if err != nil {
		return res, core.RecordMalformed(dst, core.ProblemText(err))
	}
	newID, _ := record.IDOfFileName(dst)
	others, err := a.copiesOf(ctx, fam, old)
	if err != nil {
		return res, err
	}
	naming, err := a.naming(ctx, old, newID, append([]string{dst}, others...))
	if err != nil {
		return res, err
	}
	for _, f := range naming {
		if !slices.Contains(res.Rewritten, f.Path) {
			res.Unsure = append(res.Unsure, f.Path)
		}
	}
	res.Record = RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(dst), Path: dst}
	fillSummary(&res.Record, header)
	return res, nil
}

// sharersOf lists the other records that carry id; none, or the same record in another folder, is
// refused.
func (a *Deps) sharersOf(ctx context.Context, fam record.Family, id, p string) ([]string, error) {
	copies, err := a.copiesOf(ctx, fam, id)
	if err != nil {
		return nil, err
	}
	var others []string
	for _, c := range copies {
		switch {
		case c == p:
		case path.Base(c) == path.Base(p):
			return nil, refusal.New(refusal.CodeRecordMovedTwice, p, "is the same record as "+c+" (one file name in two lifecycle folders): a move to finish, not an id to change",
				refusal.Run("record_finish_move", refusal.With("ref", id)))
		default:
			others = append(others, c)
		}
	}
	if len(others) == 0 {
		return nil, refusal.New(refusal.CodeIDUnique, p, "is the only record that carries "+id, "nothing to renumber: an id changes only when another record carries it")
	}
	return others, nil
}

// renumbered is a new id for a record of fam: its time digits kept where a free one remains.
func (a *Deps) renumbered(ctx context.Context, fam record.Family, old string) (string, error) {
	taken := map[string]bool{}
	for _, folder := range record.Folders() {
		if folder.Family != fam {
			continue
		}
		names, err := a.Records.Names(ctx, folder.Dir, folder.Prefix)
		if err != nil {
			return "", err
		}
		for _, n := range names {
			if id, ok := record.IDOfFileName(n); ok {
				taken[id] = true
			}
		}
	}
	if id, ok := record.RenumberedID(old, a.Random.Uint32, func(id string) bool { return taken[id] }); ok {
		return id, nil
	}
	for range 16 {
		if id := record.NewID(fam, a.Clock.Now(), a.Random.Uint32()); !taken[id] {
			return id, nil
		}
	}
	return "", idContention(fam)
}

// referencesTo rewrites the references to the renumbered record p: each record naming old whose
// reference git shows was written where p stood and none of others did. The rest naming old are
// unsure, for a person to check.
func (a *Deps) referencesTo(ctx context.Context, old, newID, p string, others []string, res *RecordRenumberResult) ([]ports.FileChange, error) {
	naming, err := a.naming(ctx, old, newID, append([]string{p}, others...))
	if err != nil {
		return nil, err
	}
	var changes []ports.FileChange
	for _, f := range naming {
		mine, err := a.writtenBeside(ctx, f.Path, old, p, others)
		if err != nil {
			return nil, err
		}
		if !mine {
			res.Unsure = append(res.Unsure, f.Path)
			continue
		}
		res.Rewritten = append(res.Rewritten, f.Path)
		changes = append(changes, f)
	}
	return changes, nil
}

// naming lists the records but those in skip that name old as an id, each as it reads with newID in
// its place, in the record's folder order.
func (a *Deps) naming(ctx context.Context, old, newID string, skip []string) ([]ports.FileChange, error) {
	var out []ports.FileChange
	for _, folder := range record.Folders() {
		files, err := a.Records.List(ctx, folder.Dir, folder.Prefix, 0)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if f.Err != nil || slices.Contains(skip, f.Path) || !strings.Contains(string(f.Data), old) {
				continue
			}
			if data, n := record.ReplaceID(f.Data, old, newID); n > 0 {
				out = append(out, Write(f.Path, data))
			}
		}
	}
	return out, nil
}

// writtenBeside reports whether the commit that wrote old into file held the record p (by its file
// name, in any folder) and none of others: then the reference means p.
func (a *Deps) writtenBeside(ctx context.Context, file, old, p string, others []string) (bool, error) {
	if a.Git == nil {
		return false, nil
	}
	commit, found, err := a.Git.Introduced(ctx, file, old)
	if errors.Is(err, ports.ErrNoGit) {
		return false, nil // no history to tell by: unsure
	}
	if err != nil || !found {
		return false, err
	}
	tree, err := a.Git.PathsAt(ctx, commit, core.AbcdDir)
	if err != nil {
		return false, err
	}
	has := func(name string) bool {
		return slices.ContainsFunc(tree, func(t string) bool { return path.Base(t) == path.Base(name) })
	}
	if !has(p) {
		return false, nil
	}
	return !slices.ContainsFunc(others, has), nil
}
