package app

// Changes that touch several files are one mechanism: the journal (ports.Journal). Under the record
// lock the whole change is written first, then carried out, then the journal is removed; a writer
// killed part way leaves a change that the next writer to take the record lock finishes before it
// reads anything (roll forward). A run's step gathers the record edits it makes (a spec's Progress
// line, an intent's Audit Notes) and commits them with the run's state in one change, so the note
// and the state that says it was written stand or fall together. A write of one file is atomic on
// its own and goes straight to its store.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// journalFile is where the journal keeps a change in flight, as lint names it.
const journalFile = ".abcd/.work.local/journal.json"

// finishedKey carries, in a locked verb's context, the change a killed writer left that taking the
// lock finished: the same command run again finds its own change done.
type finishedKey struct{}

// finishKilled carries out a change a killed writer left (the record lock is held) and says so.
func (a *App) finishKilled(ctx context.Context) (ports.Change, error) {
	c, err := a.Journal.Finish(ctx)
	if err != nil || c.Verb == "" {
		return ports.Change{}, err
	}
	if a.Diag != nil {
		a.Diag.Warn(fmt.Sprintf("finished the change an interrupted `abcd %s` left on %s", verbWords(c.Verb), c.Record))
	}
	return c, nil
}

// finishedFor is the change a killed run of verb on the record id left, when taking the lock for
// this call finished it.
func finishedFor(ctx context.Context, verb, id string) (ports.Change, bool) {
	c, ok := ctx.Value(finishedKey{}).(ports.Change)
	return c, ok && c.Verb == verb && c.Record == id
}

// heldKey marks a context whose call holds the record lock: the lock is an flock, which a second
// take by the same process would wait on, so what runs under it takes it no more.
type heldKey struct{}

func holdsRecord(ctx context.Context) bool { return ctx.Value(heldKey{}) != nil }

// lockRecord takes the record lock and finishes a killed writer's change. A call that holds it
// already gets it again for nothing.
func (a *App) lockRecord(ctx context.Context) (context.Context, func(), error) {
	if holdsRecord(ctx) {
		return ctx, func() {}, nil
	}
	wait, err := a.lockWait(ctx)
	if err != nil {
		return ctx, nil, err
	}
	unlock, err := a.Records.Lock(ctx, wait)
	if err != nil {
		return ctx, nil, err
	}
	c, err := a.finishKilled(ctx)
	if err != nil {
		unlock()
		return ctx, nil, err
	}
	ctx = context.WithValue(ctx, heldKey{}, true)
	if c.Verb != "" {
		ctx = context.WithValue(ctx, finishedKey{}, c)
	}
	return ctx, unlock, nil
}

// commit makes a change to several files under the record lock, which the caller holds.
func (a *App) commit(ctx context.Context, verb, id string, files ...ports.FileChange) error {
	return a.Journal.Commit(ctx, ports.Change{Verb: verb, Record: id, Files: files})
}

func write(p string, data []byte) ports.FileChange { return ports.FileChange{Path: p, Data: data} }
func remove(p string) ports.FileChange             { return ports.FileChange{Path: p, Remove: true} }

// stepEdits is what a run's step changes beside its state, committed with it as one change: the
// run files it places (a route's answer) and its edits of the record (a Progress line, the Audit
// Notes). A record edit is kept as a function and applied at the commit, under the record lock, to
// the record as it then stands: the lock is held for the commit alone, never across the step's git
// work, and no edit is made to a copy another writer changed meanwhile.
type stepEdits struct {
	files   []ports.FileChange
	records []recordEdit
}

// recordEdit is one queued edit of a record file.
type recordEdit struct {
	fam  record.Family
	ref  string
	edit func(path string, data []byte) ([]byte, error)
}

type stepEditsKey struct{}

// withStepEdits gives a run's step a place to gather what it changes beside its state.
func withStepEdits(ctx context.Context) (context.Context, *stepEdits) {
	e := &stepEdits{}
	return context.WithValue(ctx, stepEditsKey{}, e), e
}

func (e *stepEdits) empty() bool { return len(e.files) == 0 && len(e.records) == 0 }

// stepEditsOf is the run step's edits.
func stepEditsOf(ctx context.Context) (*stepEdits, error) {
	edits, ok := ctx.Value(stepEditsKey{}).(*stepEdits)
	if !ok {
		return nil, fmt.Errorf("an edit outside a run's step")
	}
	return edits, nil
}

// editRecord queues an edit of the record ref names, applied at the step's commit.
func editRecord(ctx context.Context, fam record.Family, ref string, edit func(path string, data []byte) ([]byte, error)) error {
	edits, err := stepEditsOf(ctx)
	if err != nil {
		return err
	}
	edits.records = append(edits.records, recordEdit{fam: fam, ref: ref, edit: edit})
	return nil
}

// recordChanges applies the step's record edits, in order, to the record as it stands; the caller
// holds the record lock.
func (a *App) recordChanges(ctx context.Context, e *stepEdits) ([]ports.FileChange, error) {
	var out []ports.FileChange
	for _, re := range e.records {
		l, err := a.resolve(ctx, re.fam, verbOf(ctx), "", record.Ref(re.ref))
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(out, func(f ports.FileChange) bool { return f.Path == l.file.Path })
		var data []byte
		if i >= 0 {
			data = out[i].Data
		} else if data, err = a.readFull(ctx, l.file.Path); err != nil {
			return nil, err
		}
		if data, err = re.edit(l.file.Path, data); err != nil {
			return nil, err
		}
		if i >= 0 {
			out[i].Data = data
		} else {
			out = append(out, write(l.file.Path, data))
		}
	}
	return out, nil
}

// readReturn reads a return at ret as the step sees it: an answer the step placed there itself, else
// the file an agent wrote.
func (a *App) readReturn(ctx context.Context, ret string, max int) ([]byte, error) {
	if edits, ok := ctx.Value(stepEditsKey{}).(*stepEdits); ok {
		if data, ok := edits.staged(ret); ok {
			if len(data) > max {
				return nil, refusal.New("return_too_large", ret, fmt.Sprintf("is larger than %d bytes", max), "shorten it")
			}
			return data, nil
		}
	}
	return a.Runs.Read(ctx, ret, max)
}

func (e *stepEdits) staged(p string) ([]byte, bool) {
	for _, f := range e.files {
		if f.Path == p {
			return f.Data, true
		}
	}
	return nil, false
}

// unstage drops a file the step staged.
func (e *stepEdits) unstage(p string) {
	e.files = slices.DeleteFunc(e.files, func(f ports.FileChange) bool { return f.Path == p })
}

// stage keeps a file's new content for the step's commit.
func (e *stepEdits) stage(p string, data []byte) {
	for i := range e.files {
		if e.files[i].Path == p {
			e.files[i].Data = data
			return
		}
	}
	e.files = append(e.files, write(p, data))
}

// verbWords is a verb as a person types it (issue close), or its name when no verb has it.
func verbWords(name string) string {
	if v, ok := Lookup(name); ok && len(v.Path) > 0 {
		return strings.Join(v.Path, " ")
	}
	return name
}
