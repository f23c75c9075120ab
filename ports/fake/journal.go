package fake

import (
	"context"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/ports"
)

// Journal carries a change out on the in-memory stores at once. Left is the change the journal
// holds: one a killed writer left, which the next Finish carries out (its files not made yet unless
// Made says so), or one whose files are made and whose moves wait for Settle. Commits counts the
// changes committed, Settled the changes settled.
type Journal struct {
	Records *Records
	Runs    *Runs
	Left    *ports.Change
	Made    bool
	Commits []ports.Change
	Settled int
	Swept   int
}

// NewJournal is a journal over the two stores.
func NewJournal(recs *Records, runs *Runs) *Journal { return &Journal{Records: recs, Runs: runs} }

func (j *Journal) Commit(ctx context.Context, c ports.Change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.Commits = append(j.Commits, c)
	j.carryOut(c)
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
	if !j.Made {
		j.carryOut(c)
	}
	return c, nil
}

// Settle removes a change whose files are made, as the adapter does; one not made is refused.
func (j *Journal) Settle(context.Context) error {
	if j.Left == nil {
		return nil
	}
	if !j.Made {
		return fmt.Errorf("the journal holds a change whose files are not made yet: it cannot be settled")
	}
	j.Left, j.Made = nil, false
	j.Settled++
	return nil
}

// carryOut makes the change's files, then empties the journal, or keeps a change with moves, marked
// made, for Settle.
func (j *Journal) carryOut(c ports.Change) {
	j.apply(c)
	j.Left, j.Made = nil, false
	if len(c.Moves) > 0 {
		j.Left, j.Made = &c, true
	}
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
