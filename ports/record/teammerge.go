package record

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

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

func recordFinishMergeVerb() verb.Verb {
	return verb.Declare(verb.Verb{Name: "record_finish_merge", Path: []string{"record", "finish-merge"}, Example: "abcd record finish-merge",
		Summary: "Settle what a merge git stopped left of the record: records whole at their paths marked resolved, changes git paired with the wrong record carried into their own"}, recordFinishMerge)
}

func recordFinishMerge(ctx context.Context, a *Deps, _ *EmptyInput) (RecordFinishMergeResult, error) {
	return Locked(ctx, a, "record_finish_merge", func(ctx context.Context, rec *RecordLock) (RecordFinishMergeResult, error) {
		res := RecordFinishMergeResult{Settled: []string{}, Carried: []CarriedChange{}, Left: []string{}}
		unmerged, err := a.Git.Unmerged(ctx, core.AbcdDir)
		if errors.Is(err, ports.ErrNoGit) {
			return res, refusal.New(refusal.CodeGitUnavailable, "", "git cannot run here ("+err.Error()+")", "run it where git runs")
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
				files = append(files, Write(p, changed[p]))
			}
			if err := a.Commit(ctx, rec, "merge", files...); err != nil {
				return res, err
			}
		}
		for _, p := range unmerged {
			data, err := a.ReadFull(ctx, p)
			if r, ok := refusal.As(err); err != nil && (!ok || r.Code != refusal.CodeRecordMissing) {
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
func (a *Deps) carryMispaired(ctx context.Context, p string, changed map[string][]byte, order *[]string, res *RecordFinishMergeResult) error {
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
			if current, err = a.ReadFull(ctx, to); err != nil {
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
func (a *Deps) fileOf(ctx context.Context, id string) (string, error) {
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
