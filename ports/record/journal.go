package record

import (
	"context"
	"errors"
	"fmt"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/ports"
)

// journalFile is where the journal keeps a change in flight, as lint names it.
const journalFile = layout.Journal

// RecordLock is the record lock, held. Only lockRecord makes one, so what takes it as an argument
// runs under the lock: the lock is an flock, which a second take by the same process would wait on,
// so what runs under it is handed the hold rather than taking the lock again.
type RecordLock struct {
	// verb is the verb the lock was taken for: the changes committed under it name it.
	Verb string
	// finished is the change a killed writer left that taking the lock carried out (zero for none),
	// so the same command run again finds its own change done.
	Finished ports.Change
}

// LockRecord takes the record lock for verb, waiting what lock.wait_ms says, and finishes a change
// a killed writer left.
func (a *Deps) LockRecord(ctx context.Context, verb string) (*RecordLock, func(), error) {
	wait, err := a.LockWait(ctx)
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
	return &RecordLock{Verb: verb, Finished: c}, unlock, nil
}

// Locked runs f under the record lock, after checking the record exists and finishing any change a
// killed writer left.
func Locked[R any](ctx context.Context, a *Deps, verb string, f func(ctx context.Context, rec *RecordLock) (R, error)) (R, error) {
	var zero R
	if err := a.Initialized(verb); err != nil {
		return zero, err
	}
	rec, unlock, err := a.LockRecord(ctx, verb)
	if err != nil {
		return zero, err
	}
	defer unlock()
	return f(ctx, rec)
}

// finishedFor is the change a killed run of the lock's own verb on the record (or run) id left, when
// taking the lock finished it.
func (rec *RecordLock) finishedFor(id string) (ports.Change, bool) {
	c := rec.Finished
	return c, c.Verb != "" && c.Verb == rec.Verb && c.Record == id
}

// finishKilled carries out a change a killed writer left (the record lock is held), stages its
// moves, and says so.
func (a *Deps) finishKilled(ctx context.Context) (ports.Change, error) {
	c, err := a.Journal.Finish(ctx)
	if err != nil || c.Verb == "" {
		return ports.Change{}, err
	}
	if len(c.Moves) > 0 {
		// The killed abcd may have been staging them: its git, killed with it, leaves the index
		// locked, and git refuses every add until the lock is gone.
		a.clearStaleIndexLock(ctx)
		if err := a.settle(ctx, c); err != nil {
			return ports.Change{}, err
		}
	}
	if a.Diag != nil {
		a.Diag.Warn(fmt.Sprintf("finished the change an interrupted `abcd %s` left on %s", a.VerbWords(c.Verb), c.Record))
	}
	return c, nil
}

// clearStaleIndexLock removes the index.lock a git killed with abcd left, saying so; a failure to is
// said too, and the staging that follows says what git then refuses.
func (a *Deps) clearStaleIndexLock(ctx context.Context) {
	if a.Git == nil {
		return
	}
	removed, err := a.Git.ClearStaleIndexLock(ctx)
	switch {
	case errors.Is(err, ports.ErrNoGit) || a.Diag == nil:
	case err != nil:
		a.Diag.Warn(fmt.Sprintf("git's index.lock could not be checked (%v)", err))
	case removed:
		a.Diag.Warn("removed git's index.lock, which a git killed with an interrupted abcd left")
	}
}

// FinishPending finishes a change a killed writer left, for a writer that holds no record lock (a
// run's step): it takes the record lock only when a change waits, and returns that change. The
// temporary files dead writers left are swept either way.
func (a *Deps) FinishPending(ctx context.Context, verb string) (ports.Change, error) {
	if err := a.Journal.Sweep(ctx); err != nil {
		return ports.Change{}, err
	}
	if pending, err := a.Journal.Pending(ctx); err != nil || !pending {
		return ports.Change{}, err
	}
	rec, unlock, err := a.LockRecord(ctx, verb)
	if err != nil {
		return ports.Change{}, err
	}
	unlock()
	return rec.Finished, nil
}

// Commit makes a change to several files under the record lock rec, naming its verb and the record
// (or run) id it changes.
func (a *Deps) Commit(ctx context.Context, rec *RecordLock, id string, files ...ports.FileChange) error {
	return a.Journal.Commit(ctx, ports.Change{Verb: rec.Verb, Record: id, Files: files})
}

// CommitMoves is Commit for a change that moves records: the change is whole once its moves are
// staged in git's index too, so a kill at any point leaves them for the next writer to stage.
func (a *Deps) CommitMoves(ctx context.Context, rec *RecordLock, id string, moves []ports.Move, files ...ports.FileChange) error {
	c := ports.Change{Verb: rec.Verb, Record: id, Files: files, Moves: moves}
	if err := a.Journal.Commit(ctx, c); err != nil {
		return err
	}
	return a.settle(ctx, c)
}

// settle stages the moves of a change whose files are made, then tells the journal it is whole. A
// call ended part way (Ctrl-C) leaves it in the journal, as a kill does, for the next writer.
func (a *Deps) settle(ctx context.Context, c ports.Change) error {
	for _, m := range c.Moves {
		a.stageMove(ctx, m.From, m.To)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return a.Journal.Settle(ctx)
}

func Write(p string, data []byte) ports.FileChange { return ports.FileChange{Path: p, Data: data} }
func remove(p string) ports.FileChange             { return ports.FileChange{Path: p, Remove: true} }
