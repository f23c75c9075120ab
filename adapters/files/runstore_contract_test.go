package files

import (
	"context"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
)

// The RunStore contract, against the real store and the fake.
func TestRunStoreContract(t *testing.T) {
	for name, newStore := range map[string]func(t *testing.T) ports.RunStore{
		"files": func(t *testing.T) ports.RunStore { return Runs{Dir: recordRepo(t).Path()} },
		"fake":  func(*testing.T) ports.RunStore { return fake.NewRuns() },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := newStore(t)
			code := func(err error) string {
				t.Helper()
				r, ok := refusal.As(err)
				assert.Assert(t, ok, "want a refusal, got %v", err)
				return string(r.Code)
			}
			const run = "run-2611300000000001"
			root := ".abcd/.work.local/run/" + run

			_, err := s.Lock(ctx, run, 0)
			assert.Equal(t, code(err), "run_unknown", "an unknown run is refused before anything is made")
			assert.Equal(t, err.Error(), loop.UnknownRun(run).Error(), "in the loop's one wording")
			created, err := s.Create(ctx, run)
			assert.NilError(t, err)
			assert.Assert(t, created)
			created, err = s.Create(ctx, run)
			assert.NilError(t, err)
			assert.Assert(t, !created)

			runs, err := s.Runs(ctx)
			assert.NilError(t, err)
			assert.Equal(t, len(runs), 0, "a run is listed once it has a state")
			assert.NilError(t, s.Write(ctx, root+"/state.json", []byte("{}")))
			runs, _ = s.Runs(ctx)
			assert.DeepEqual(t, runs, []string{run})

			_, err = s.Read(ctx, root+"/lane-1/return.md", 10)
			assert.Equal(t, code(err), "return_missing")
			assert.NilError(t, s.Write(ctx, root+"/lane-1/return.md", []byte(strings.Repeat("x", 11))))
			_, err = s.Read(ctx, root+"/lane-1/return.md", 10)
			assert.Equal(t, code(err), "return_too_large")
			data, err := s.Read(ctx, root+"/lane-1/return.md", 11)
			assert.NilError(t, err)
			assert.Equal(t, len(data), 11)
			assert.Assert(t, s.Write(ctx, ".abcd/elsewhere.md", []byte("x")) != nil, "writes stay under the run folder")

			assert.Equal(t, s.CheckFile(ctx, root+"/lane-1", root+"/lane-1/return.md"), "")
			assert.Assert(t, s.CheckFile(ctx, root+"/lane-1", root+"/lane-1/absent.md") != "")
			assert.Assert(t, s.CheckFile(ctx, root+"/lane-1", root+"/state.json") != "", "outside the lane folder")

			assert.NilError(t, s.Remove(ctx, root+"/lane-1/return.md"))
			assert.NilError(t, s.Remove(ctx, root+"/lane-1/return.md"), "removing an absent file is fine")
			_, err = s.Read(ctx, root+"/lane-1/return.md", 10)
			assert.Equal(t, code(err), "return_missing")

			unlock, err := s.Lock(ctx, run, 0)
			assert.NilError(t, err)
			_, err = s.Lock(ctx, run, 0)
			r, ok := refusal.As(err)
			assert.Assert(t, ok && r.Kind == refusal.Contention, "a held lock is contention: %v", err)
			unlock()
			unlock, err = s.Lock(ctx, run, 0)
			assert.NilError(t, err)
			unlock()

			_, _, _, err = s.HoldWorker(ctx, "run-2611300000000009")
			assert.Equal(t, code(err), "run_unknown", "a worker lock is taken only in a run that exists")
			pid, name, release, err := s.HoldWorker(ctx, run)
			assert.NilError(t, err)
			assert.Assert(t, pid > 0 && name != "")
			held, err := s.WorkerHeld(ctx, run, name)
			assert.NilError(t, err)
			assert.Assert(t, held, "held until released")
			_, other, releaseOther, err := s.HoldWorker(ctx, run)
			assert.NilError(t, err)
			assert.Assert(t, other != name, "each worker lock has its own name")
			release()
			held, _ = s.WorkerHeld(ctx, run, name)
			assert.Assert(t, !held, "free once released")
			held, _ = s.WorkerHeld(ctx, run, other)
			assert.Assert(t, held, "another worker's lock is its own")
			releaseOther()
			held, _ = s.WorkerHeld(ctx, run, "")
			assert.Assert(t, !held, "no name is no worker")
		})
	}
}
