package app

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
)

// A team shares the record through git. A move (a close, a ship, a plan) renames a record's file;
// staged in git's index as a rename, it travels whole with a commit -a, a stash or a branch switch,
// so no switch ever leaves the record in two folders.

// stageMove records a record's move in git's index when git tracks the old path. The move itself is
// made: a failure here is said, with the command that does it by hand, and never undoes the move.
func (a *App) stageMove(ctx context.Context, from, to string) {
	if a.Git == nil {
		return
	}
	if _, err := a.Git.StageMove(ctx, from, to); err != nil && !errors.Is(err, ports.ErrNoGit) && a.Diag != nil {
		a.Diag.Warn(fmt.Sprintf("the record moved, but git's index was not told (%v): run `git add -A -- %s %s`", err, from, to))
	}
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

func recordVerbs() []Verb {
	return []Verb{
		declare(Verb{Name: "record_renumber", Path: []string{"record", "renumber"},
			Summary: "Give a record whose id another record carries a new id, and rewrite the references made to it"}, recordRenumber),
		declare(Verb{Name: "record_finish_move", Path: []string{"record", "finish-move"},
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
func (a *App) copiesOf(ctx context.Context, fam record.Family, id string) ([]string, error) {
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

func recordFinishMove(ctx context.Context, a *App, in *RefInput) (RecordFinishMoveResult, error) {
	return locked(ctx, a, "record_finish_move", func(ctx context.Context, rec *recordLock) (RecordFinishMoveResult, error) {
		id := strings.TrimSpace(string(in.Ref))
		fam, ok := record.FamilyOfID(id)
		if !ok || fam == record.Decisions {
			return RecordFinishMoveResult{}, refusal.New("ref_invalid", "", fmt.Sprintf("%q is not the full id of an intent, spec or issue", text.Clip(id)),
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
		data, err := a.readFull(ctx, later)
		if err != nil {
			return RecordFinishMoveResult{}, err
		}
		for _, p := range earlier {
			other, err := a.readFull(ctx, p)
			if err != nil {
				return RecordFinishMoveResult{}, err
			}
			merged, differ := record.MergeCopies(data, other)
			if len(differ) > 0 {
				return RecordFinishMoveResult{}, refusal.New("copies_differ", later,
					fmt.Sprintf("and %s hold %s differently, and neither copy can be chosen for you", p, strings.Join(differ, ", ")),
					"make the two copies agree there (or git rm the copy whose text you do not keep), then ", refusal.Run("record_finish_move", refusal.With("ref", id)), " again")
			}
			data = merged
		}
		header, _, err := record.ParseHeader(fam, later, data)
		if err != nil {
			return RecordFinishMoveResult{}, recordMalformed(later, problemText(err))
		}
		changes := []ports.FileChange{write(later, data)}
		for _, p := range earlier {
			changes = append(changes, remove(p))
		}
		if err := a.commit(ctx, rec, id, changes...); err != nil {
			return RecordFinishMoveResult{}, err
		}
		for _, p := range earlier {
			a.stageMove(ctx, p, later)
		}
		s := RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(later), Path: later}
		fillSummary(&s, header)
		return RecordFinishMoveResult{Record: s, Removed: earlier}, nil
	})
}

// finishedMove reports a finish-move a killed run of it left and taking the lock finished.
func (a *App) finishedMove(ctx context.Context, fam record.Family, c ports.Change) (RecordFinishMoveResult, error) {
	res := RecordFinishMoveResult{Removed: []string{}}
	for _, f := range c.Files {
		if f.Remove {
			res.Removed = append(res.Removed, f.Path)
			a.stageMove(ctx, f.Path, "")
			continue
		}
		data, err := a.readFull(ctx, f.Path)
		if err != nil {
			return res, err
		}
		header, _, err := record.ParseHeader(fam, f.Path, data)
		if err != nil {
			return res, recordMalformed(f.Path, problemText(err))
		}
		res.Record = RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(f.Path), Path: f.Path}
		fillSummary(&res.Record, header)
	}
	return res, nil
}

// movedCopies finds the copies of one record a move left: the one in the latest lifecycle folder,
// and the others with its file name.
func (a *App) movedCopies(ctx context.Context, fam record.Family, id string) (later string, earlier []string, err error) {
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
	return "", nil, refusal.New("record_not_moved", id, why, refusal.Run("lint"), " names what is to be done")
}

func recordRenumber(ctx context.Context, a *App, in *RecordFileInput) (RecordRenumberResult, error) {
	return locked(ctx, a, "record_renumber", func(ctx context.Context, rec *recordLock) (RecordRenumberResult, error) {
		p := string(in.File)
		old, _ := record.IDOfFileName(p)
		fam, _ := record.FamilyOfID(old)
		if c, ok := rec.finishedFor(old); ok && len(c.Files) > 0 && c.Files[1].Path == p {
			// A run of this command a kill interrupted, finished by taking the lock: report it.
			return a.renumberedBefore(ctx, fam, old, c)
		}
		data, err := a.readFull(ctx, p)
		if err != nil {
			return RecordRenumberResult{}, err
		}
		if _, _, err := record.ParseHeader(fam, p, data); err != nil {
			return RecordRenumberResult{}, recordMalformed(p, problemText(err))
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
		changes = append([]ports.FileChange{write(dst, renamed), remove(p)}, changes...)
		if err := a.commit(ctx, rec, old, changes...); err != nil {
			return RecordRenumberResult{}, err
		}
		a.stageMove(ctx, p, dst)
		header, _, _ := record.ParseHeader(fam, dst, renamed)
		res.Record = RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(dst), Path: dst}
		fillSummary(&res.Record, header)
		return res, nil
	})
}

// renumberedBefore reports a renumber a killed run of it left and taking the lock finished: its
// change writes the record's new path first, removes its old one second, then the references.
func (a *App) renumberedBefore(ctx context.Context, fam record.Family, old string, c ports.Change) (RecordRenumberResult, error) {
	dst, from := c.Files[0].Path, c.Files[1].Path
	a.stageMove(ctx, from, dst)
	res := RecordRenumberResult{From: from, OldID: old, Rewritten: []string{}, Unsure: []string{}}
	for _, f := range c.Files[2:] {
		res.Rewritten = append(res.Rewritten, f.Path)
	}
	data, err := a.readFull(ctx, dst)
	if err != nil {
		return res, err
	}
	header, _, err := record.ParseHeader(fam, dst, data)
	if err != nil {
		return res, recordMalformed(dst, problemText(err))
	}
	res.Record = RecordSummary{Family: string(fam), Lifecycle: lifecycleAt(dst), Path: dst}
	fillSummary(&res.Record, header)
	return res, nil
}

// sharersOf lists the other records that carry id; none, or the same record in another folder, is
// refused.
func (a *App) sharersOf(ctx context.Context, fam record.Family, id, p string) ([]string, error) {
	copies, err := a.copiesOf(ctx, fam, id)
	if err != nil {
		return nil, err
	}
	var others []string
	for _, c := range copies {
		switch {
		case c == p:
		case path.Base(c) == path.Base(p):
			return nil, refusal.New("record_moved_twice", p, "is the same record as "+c+" (one file name in two lifecycle folders): a move to finish, not an id to change",
				refusal.Run("record_finish_move", refusal.With("ref", id)))
		default:
			others = append(others, c)
		}
	}
	if len(others) == 0 {
		return nil, refusal.New("id_unique", p, "is the only record that carries "+id, "nothing to renumber: an id changes only when another record carries it")
	}
	return others, nil
}

// renumbered is a new id for a record of fam: its time digits kept where a free one remains.
func (a *App) renumbered(ctx context.Context, fam record.Family, old string) (string, error) {
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
func (a *App) referencesTo(ctx context.Context, old, newID, p string, others []string, res *RecordRenumberResult) ([]ports.FileChange, error) {
	var changes []ports.FileChange
	for _, folder := range record.Folders() {
		files, err := a.Records.List(ctx, folder.Dir, folder.Prefix, 0)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if f.Err != nil || f.Path == p || slices.Contains(others, f.Path) || !strings.Contains(string(f.Data), old) {
				continue
			}
			data, n := record.ReplaceID(f.Data, old, newID)
			if n == 0 {
				continue
			}
			mine, err := a.writtenBeside(ctx, f.Path, old, p, others)
			if err != nil {
				return nil, err
			}
			if !mine {
				res.Unsure = append(res.Unsure, f.Path)
				continue
			}
			res.Rewritten = append(res.Rewritten, f.Path)
			changes = append(changes, write(f.Path, data))
		}
	}
	return changes, nil
}

// writtenBeside reports whether the commit that wrote old into file held the record p (by its file
// name, in any folder) and none of others: then the reference means p.
func (a *App) writtenBeside(ctx context.Context, file, old, p string, others []string) (bool, error) {
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
	tree, err := a.Git.PathsAt(ctx, commit, abcdDir)
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

// RecordFinishMergeResult says how the record's paths git left unmerged were settled.
type RecordFinishMergeResult struct {
	// Settled lists the paths marked resolved as the working tree holds them: added, or removed
	// where no file stands (both sides removed it).
	Settled []string `json:"settled"`
	// Carried lists the changes git had paired with the wrong record, carried into their own.
	Carried []CarriedChange `json:"carried"`
	// Left lists what is a person's to settle: conflict markers to resolve, or a change whose record
	// has no file here to carry it into.
	Left []string `json:"left"`
}

// CarriedChange is one side's change to a record that git had put at another record's path.
type CarriedChange struct {
	ID   string `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
}

func recordFinishMergeVerb() Verb {
	return declare(Verb{Name: "record_finish_merge", Path: []string{"record", "finish-merge"},
		Summary: "Settle what a merge git stopped left of the record: records whole at their paths marked resolved, changes git paired with the wrong record carried into their own"}, recordFinishMerge)
}

func recordFinishMerge(ctx context.Context, a *App, _ *EmptyInput) (RecordFinishMergeResult, error) {
	return locked(ctx, a, "record_finish_merge", func(ctx context.Context, rec *recordLock) (RecordFinishMergeResult, error) {
		res := RecordFinishMergeResult{Settled: []string{}, Carried: []CarriedChange{}, Left: []string{}}
		unmerged, err := a.Git.Unmerged(ctx, abcdDir)
		if errors.Is(err, ports.ErrNoGit) {
			return res, refusal.New("git_unavailable", "", "git cannot run here ("+err.Error()+")", "run it where git runs")
		}
		if err != nil {
			return res, err
		}
		changed := map[string][]byte{} // record files the carried changes rewrite, as they then stand
		var order []string
		for _, p := range unmerged {
			if err := a.carryMispaired(ctx, p, changed, &order, &res); err != nil {
				return res, err
			}
		}
		if len(order) > 0 {
			files := make([]ports.FileChange, 0, len(order))
			for _, p := range order {
				files = append(files, write(p, changed[p]))
			}
			if err := a.commit(ctx, rec, "merge", files...); err != nil {
				return res, err
			}
		}
		for _, p := range unmerged {
			data, err := a.readFull(ctx, p)
			if r, ok := refusal.As(err); err != nil && (!ok || r.Code != "record_missing") {
				return res, err
			}
			if _, marked := record.ConflictMarkers(data); err == nil && marked {
				res.Left = append(res.Left, p+": conflict markers to resolve")
				continue
			}
			if err := a.Git.Settle(ctx, p); err != nil {
				return res, err
			}
			res.Settled = append(res.Settled, p)
		}
		return res, nil
	})
}

// carryMispaired carries each side's version at p that is another record's (git paired that record
// with p's as one renamed) into that record's own file: a three-way merge with the common
// ancestor's version when it is that record's too.
func (a *App) carryMispaired(ctx context.Context, p string, changed map[string][]byte, order *[]string, res *RecordFinishMergeResult) error {
	stages, err := a.Git.Stages(ctx, p, maxMergeInput)
	if err != nil {
		return err
	}
	owner, _ := record.IDOfFileName(p)
	for _, side := range []int{2, 3} {
		id := record.IDIn(stages[side])
		if id == "" || id == owner {
			continue
		}
		to, err := a.fileOf(ctx, id)
		if err != nil {
			return err
		}
		if to == "" {
			// Git moved the record's file away as the other side's rename: it comes back where its
			// front matter says it stands.
			if to = homeOf(id, stages[side]); to == "" {
				res.Left = append(res.Left, fmt.Sprintf("%s: a change to %s, which has no file here to carry it into", p, id))
				continue
			}
			changed[to] = stages[side]
			*order = append(*order, to)
			res.Carried = append(res.Carried, CarriedChange{ID: id, From: p, To: to})
			continue
		}
		current, ok := changed[to]
		if !ok {
			if current, err = a.readFull(ctx, to); err != nil {
				return err
			}
			*order = append(*order, to)
		}
		var base []byte
		if record.IDIn(stages[1]) == id {
			base = stages[1]
		}
		m := record.Merge(base, current, stages[side], 7, to)
		changed[to] = m.Data
		res.Carried = append(res.Carried, CarriedChange{ID: id, From: p, To: to})
		if len(m.Conflicts) > 0 {
			res.Left = append(res.Left, to+": conflict markers to resolve")
		}
	}
	return nil
}

// homeOf is where a record's version belongs by its front matter: its lifecycle's folder and a
// name of its id and title; "" when it does not read as a record.
func homeOf(id string, data []byte) string {
	fam, _ := record.FamilyOfID(id)
	header, _, err := record.ParseHeader(fam, "", data)
	if err != nil {
		return ""
	}
	var s RecordSummary
	fillSummary(&s, header)
	lifecycle := ""
	switch h := header.(type) {
	case record.IntentFrontMatter:
		lifecycle = h.Lifecycle
	case record.SpecFrontMatter:
		lifecycle = h.Lifecycle
	case record.IssueFrontMatter:
		lifecycle = h.Lifecycle
	}
	folder, ok := record.FolderOf(fam, lifecycle)
	if !ok || s.ID != id {
		return ""
	}
	return folder.Dir + "/" + record.FileName(id, record.Slug(s.Title))
}

// fileOf is the file carrying id, in its latest lifecycle folder where a move left two; "" for none.
func (a *App) fileOf(ctx context.Context, id string) (string, error) {
	fam, ok := record.FamilyOfID(id)
	if !ok {
		return "", nil
	}
	copies, err := a.copiesOf(ctx, fam, id)
	if err != nil || len(copies) == 0 {
		return "", err
	}
	slices.SortFunc(copies, func(x, y string) int {
		return slices.Index(record.Lifecycles(fam), lifecycleAt(y)) - slices.Index(record.Lifecycles(fam), lifecycleAt(x))
	})
	return copies[0], nil
}
