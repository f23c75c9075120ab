package fake

import (
	"context"
	"strings"

	"github.com/abcd-dev/abcd/ports"
)

// Journal carries a change out on the in-memory stores at once. Left is a change a killed writer
// left, which the next Finish carries out; Commits counts the changes committed.
type Journal struct {
	Records *Records
	Runs    *Runs
	Left    *ports.Change
	Commits []ports.Change
	Swept   int
}

// NewJournal is a journal over the two stores.
func NewJournal(recs *Records, runs *Runs) *Journal { return &Journal{Records: recs, Runs: runs} }

func (j *Journal) Commit(ctx context.Context, c ports.Change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.Commits = append(j.Commits, c)
	j.apply(c)
	return nil
}

func (j *Journal) Pending(context.Context) (bool, error) { return j.Left != nil, nil }

// Sweep counts its calls: the fake stores leave no temporary files.
func (j *Journal) Sweep(context.Context) error {
	j.Swept++
	return nil
}

func (j *Journal) Finish(context.Context) (ports.Change, error) {
	if j.Left == nil {
		return ports.Change{}, nil
	}
	c := *j.Left
	j.Left = nil
	j.apply(c)
	return c, nil
}

func (j *Journal) apply(c ports.Change) {
	for _, f := range c.Files {
		files := j.Records.Files
		if run, ok := strings.CutPrefix(f.Path, runRoot); ok && j.Runs != nil {
			files = j.Runs.Files
			if id, _, found := strings.Cut(run, "/"); found && !f.Remove {
				j.Runs.Dirs[id] = true
			}
		}
		if f.Remove {
			delete(files, f.Path)
			continue
		}
		files[f.Path] = append([]byte(nil), f.Data...)
	}
}
