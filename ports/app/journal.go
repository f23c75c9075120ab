package app

// The record lock, and the journal that makes a change to several files one change (ports.Journal).
// Under the record lock the whole change is written first, then carried out, then the journal is
// removed; a writer killed part way leaves a change that the next writer to take the record lock
// finishes before it reads anything (roll forward). A write of one file is atomic on its own and
// goes straight to its store.

import (
	"context"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/ports"
)

// journalFile is where the journal keeps a change in flight, as lint names it.
const journalFile = layout.Journal

// recordLock is the record lock, held. Only lockRecord makes one, so what takes it as an argument
// runs under the lock: the lock is an flock, which a second take by the same process would wait on,
// so what runs under it is handed the hold rather than taking the lock again.
type recordLock struct {
	// verb is the verb the lock was taken for: the changes committed under it name it.
	verb string
	// finished is the change a killed writer left that taking the lock carried out (zero for none),
	// so the same command run again finds its own change done.
	finished ports.Change
}

// lockRecord takes the record lock for verb, waiting what lock.wait_ms says, and finishes a change
// a killed writer left.
func (a *App) lockRecord(ctx context.Context, verb string) (*recordLock, func(), error) {
	wait, err := a.lockWait(ctx)
	if err != nil {
		return nil, nil, err
	}
	unlock, err := a.Records.Lock(ctx, wait)
	if err != nil {
		return nil, nil, err
	}
	c, err := a.finishKilled(ctx)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return &recordLock{verb: verb, finished: c}, unlock, nil
}

// locked runs f under the record lock, after checking the record exists and finishing any change a
// killed writer left.
func locked[R any](ctx context.Context, a *App, verb string, f func(ctx context.Context, rec *recordLock) (R, error)) (R, error) {
	var zero R
	if err := a.initialized(verb); err != nil {
		return zero, err
	}
	rec, unlock, err := a.lockRecord(ctx, verb)
	if err != nil {
		return zero, err
	}
	defer unlock()
	return f(ctx, rec)
}

// finishedFor is the change a killed run of the lock's own verb on the record (or run) id left, when
// taking the lock finished it.
func (rec *recordLock) finishedFor(id string) (ports.Change, bool) {
	c := rec.finished
	return c, c.Verb != "" && c.Verb == rec.verb && c.Record == id
}

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

// finishPending finishes a change a killed writer left, for a writer that holds no record lock (a
// run's step): it takes the record lock only when a change waits, and returns that change. The
// temporary files dead writers left are swept either way.
func (a *App) finishPending(ctx context.Context, verb string) (ports.Change, error) {
	if err := a.Journal.Sweep(ctx); err != nil {
		return ports.Change{}, err
	}
	if pending, err := a.Journal.Pending(ctx); err != nil || !pending {
		return ports.Change{}, err
	}
	rec, unlock, err := a.lockRecord(ctx, verb)
	if err != nil {
		return ports.Change{}, err
	}
	unlock()
	return rec.finished, nil
}

// commit makes a change to several files under the record lock rec, naming its verb and the record
// (or run) id it changes.
func (a *App) commit(ctx context.Context, rec *recordLock, id string, files ...ports.FileChange) error {
	return a.Journal.Commit(ctx, ports.Change{Verb: rec.verb, Record: id, Files: files})
}

func write(p string, data []byte) ports.FileChange { return ports.FileChange{Path: p, Data: data} }
func remove(p string) ports.FileChange             { return ports.FileChange{Path: p, Remove: true} }

// verbWords is a verb as a person types it (issue close), or its name when no verb has it.
func verbWords(name string) string {
	if v, ok := Lookup(name); ok && len(v.Path) > 0 {
		return strings.Join(v.Path, " ")
	}
	return name
}
