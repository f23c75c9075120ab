package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
)

// The Journal contract, run against the real journal and the fake the use-case tests rely on: a
// change with moves is carried out and waits, marked made, until Settle; a writer finishing it after
// a kill gets it back, moves and all, without writing its files again.
func TestJournalContract(t *testing.T) {
	for name, newJournal := range map[string]func(t *testing.T) (ports.Journal, ports.RecordStore){
		"files": func(t *testing.T) (ports.Journal, ports.RecordStore) {
			dir, _ := journalRepo(t)
			return Journal{Dir: dir}, Records{Dir: dir}
		},
		"fake": func(*testing.T) (ports.Journal, ports.RecordStore) {
			r := fake.NewRecords()
			r.Files[jOpen] = []byte("lifecycle: open\n")
			return fake.NewJournal(r, fake.NewRuns()), r
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			j, recs := newJournal(t)
			read := func(p string) string {
				t.Helper()
				data, err := recs.Read(ctx, p)
				if r, ok := refusal.As(err); ok && r.Code == refusal.CodeRecordMissing {
					return "(missing)"
				}
				assert.NilError(t, err)
				return string(data)
			}
			pending := func() bool {
				t.Helper()
				p, err := j.Pending(ctx)
				assert.NilError(t, err)
				return p
			}
			closing := ports.Change{Verb: "issue_close", Record: "iss-2611300000000001",
				Files: []ports.FileChange{{Path: jClosed, Data: []byte("lifecycle: closed\n")}, {Path: jOpen, Remove: true}},
				Moves: []ports.Move{{From: jOpen, To: jClosed}}}

			assert.NilError(t, j.Commit(ctx, closing))
			assert.Check(t, is.Equal(read(jClosed), "lifecycle: closed\n"))
			assert.Check(t, is.Equal(read(jOpen), "(missing)"))
			assert.Check(t, pending(), "the change waits until its moves are staged")

			// Killed before its moves were staged; meanwhile the person edits the moved record.
			assert.NilError(t, recs.Replace(ctx, jClosed, []byte("lifecycle: closed\nedited by hand\n")))
			got, err := j.Finish(ctx)
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(got, closing), "the next writer gets the change back, its moves with it")
			assert.Check(t, is.Equal(read(jClosed), "lifecycle: closed\nedited by hand\n"), "files marked made are not written again")
			assert.Check(t, pending(), "it waits until settled")
			got, err = j.Finish(ctx)
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(got, closing), "a writer killed before settling leaves it for the next")

			assert.NilError(t, j.Settle(ctx))
			assert.Check(t, !pending())
			got, err = j.Finish(ctx)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(got.Verb, ""), "nothing is left to finish")
			assert.NilError(t, j.Settle(ctx), "settling with nothing waiting is not an error")

			spec := ports.Change{Verb: "spec_new", Record: "spc-2611300000000002", Files: []ports.FileChange{{Path: jSpec, Data: []byte("a spec\n")}, {Path: jClosed, Data: []byte("again\n")}}}
			assert.NilError(t, j.Commit(ctx, spec))
			assert.Check(t, !pending(), "a change without moves is whole once its files are made")
			assert.Check(t, is.Equal(read(jSpec), "a spec\n"))
		})
	}
}

// TestAChangeWithMovesKilledAtAnyPointIsFinishedByTheNextWriter stops a change with a move after
// the journal, after each number of its files, and after its files are marked made (each what a kill
// -9 there leaves): the next writer's Finish leaves the tree an uninterrupted change leaves and
// returns the change with its moves, and the journal stands until Settle, which leaves the tree as
// an uninterrupted, settled change does.
func TestAChangeWithMovesKilledAtAnyPointIsFinishedByTheNextWriter(t *testing.T) {
	ctx := context.Background()
	whole, c := journalRepo(t)
	c.Moves = []ports.Move{{From: jOpen, To: jClosed}}
	assert.NilError(t, Journal{Dir: whole}.Commit(ctx, c))
	assert.NilError(t, Journal{Dir: whole}.Settle(ctx))
	want := tree(t, whole)
	for done := 0; done <= len(c.Files)+1; done++ {
		dir, _ := journalRepo(t)
		j := Journal{Dir: dir}
		data, err := encodeJournal(journalEntry{change: c, version: journalVersion})
		assert.NilError(t, err)
		jf, err := j.folder(true)
		assert.NilError(t, err)
		_, err = stagedWrite(dir, journalRel, jf, "journal.json", data, 0o600, true)
		assert.NilError(t, err)
		for _, f := range c.Files[:min(done, len(c.Files))] {
			assert.NilError(t, j.apply(f))
		}
		if done > len(c.Files) {
			made, err := encodeJournal(journalEntry{change: c, made: true, version: journalVersion})
			assert.NilError(t, err)
			_, err = stagedWrite(dir, journalRel, jf, "journal.json", made, 0o600, true)
			assert.NilError(t, err)
		}
		jf.Close()
		finished, err := j.Finish(ctx)
		assert.NilError(t, err)
		assert.DeepEqual(t, finished, c)
		pending, err := j.Pending(ctx)
		assert.NilError(t, err)
		assert.Assert(t, pending, "after %d files the moves still wait", done)
		assert.NilError(t, j.Settle(ctx))
		assert.DeepEqual(t, tree(t, dir), want)
	}
}

// TestAVersion1JournalIsStillFinished: a journal an older abcd left (version 1, no moves) is carried
// out and removed by the next writer.
func TestAVersion1JournalIsStillFinished(t *testing.T) {
	ctx := context.Background()
	whole, c := journalRepo(t)
	assert.NilError(t, Journal{Dir: whole}.Commit(ctx, c))
	want := tree(t, whole)

	dir, _ := journalRepo(t)
	// As an abcd of version 1's journal wrote it, byte for byte.
	old := `{"version":1,"verb":"issue_close","record":"iss-2611300000000001","files":[` +
		`{"path":"` + jClosed + `","data":"bGlmZWN5Y2xlOiBjbG9zZWQK"},{"path":"` + jOpen + `","remove":true},` +
		`{"path":"` + jSpec + `","data":"YSBzcGVjCg=="},{"path":"` + jState + `","data":"eyJzdGF0ZSI6MX0K"}]}` + "\n"
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".abcd", ".work.local"), 0o700))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, journalRel), []byte(old), 0o600))
	j := Journal{Dir: dir}
	finished, err := j.Finish(ctx)
	assert.NilError(t, err)
	assert.DeepEqual(t, finished, c)
	assert.DeepEqual(t, tree(t, dir), want)
	pending, err := j.Pending(ctx)
	assert.NilError(t, err)
	assert.Assert(t, !pending, "a change without moves needs no Settle")
}

// TestSettleRefusesAChangeNotMade: settling a journal whose files are not marked made would lose the
// change; it is refused and the journal kept.
func TestSettleRefusesAChangeNotMade(t *testing.T) {
	ctx := context.Background()
	dir, c := journalRepo(t)
	c.Moves = []ports.Move{{From: jOpen, To: jClosed}}
	data, err := encodeJournal(journalEntry{change: c, version: journalVersion})
	assert.NilError(t, err)
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".abcd", ".work.local"), 0o700))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, journalRel), data, 0o600))
	before := tree(t, dir)
	assert.ErrorContains(t, Journal{Dir: dir}.Settle(ctx), "not made yet")
	assert.DeepEqual(t, tree(t, dir), before)
}

// TestAMoveAbcdWouldNeverStageIsRefusedBeforeAnythingIsWritten: a change whose moves do not match
// its files (a move from a file it does not remove, to one it does not write, of a run's file, or of
// one file twice) is refused whole, the tree untouched.
func TestAMoveAbcdWouldNeverStageIsRefusedBeforeAnythingIsWritten(t *testing.T) {
	for name, moves := range map[string][]ports.Move{
		"from a file kept":     {{From: jSpec, To: jClosed}},
		"to a file not made":   {{From: jOpen, To: ".abcd/work/issues/closed/iss-2611300000000009-b.md"}},
		"to a run's file":      {{From: jOpen, To: jState}},
		"from outside .abcd":   {{From: "src/main.go", To: jClosed}},
		"one file moved twice": {{From: jOpen, To: jClosed}, {From: jOpen, To: ""}},
	} {
		t.Run(name, func(t *testing.T) {
			dir, c := journalRepo(t)
			c.Moves = moves
			before := tree(t, dir)
			err := Journal{Dir: dir}.Commit(context.Background(), c)
			assert.ErrorContains(t, err, "a change to several files was refused")
			assert.DeepEqual(t, tree(t, dir), before)
		})
	}
}
