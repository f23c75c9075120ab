package files

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
)

// The RecordStore contract, run against the real store and the fake the use-case tests rely on, so
// the two cannot drift apart (a fake kinder than the adapter hides bugs).
func TestRecordStoreContract(t *testing.T) {
	for name, newStore := range map[string]func(t *testing.T) ports.RecordStore{
		"files": func(t *testing.T) ports.RecordStore {
			return Records{Dir: recordRepo(t).Path()}
		},
		"fake": func(*testing.T) ports.RecordStore { return fake.NewRecords() },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := newStore(t)
			const dir = ".abcd/work/issues/open"
			a, b := dir+"/iss-2611300000000001-a.md", dir+"/iss-2611300000000002-b.md"
			closed := ".abcd/work/issues/closed/iss-2611300000000001-a.md"

			code := func(err error) string {
				t.Helper()
				r, ok := refusal.As(err)
				assert.Assert(t, ok, "want a refusal, got %v", err)
				return string(r.Code)
			}

			_, err := s.Read(ctx, a)
			assert.Equal(t, code(err), "record_missing")
			assert.Equal(t, code(s.Replace(ctx, a, []byte("x"))), "record_missing")
			_, err = s.Read(ctx, a)
			assert.Equal(t, code(err), "record_missing", "Replace never creates")

			for _, p := range []string{b, a} {
				created, err := s.Create(ctx, p, []byte("body of "+p))
				assert.NilError(t, err)
				assert.Assert(t, created)
			}
			created, err := s.Create(ctx, a, []byte("again"))
			assert.NilError(t, err)
			assert.Assert(t, !created, "Create never replaces")

			files, err := s.List(ctx, dir, "iss", 4)
			assert.NilError(t, err)
			assert.Equal(t, len(files), 2)
			assert.Equal(t, files[0].Path, a, "sorted by name")
			assert.Equal(t, string(files[0].Data), "body", "read to the limit")
			none, err := s.List(ctx, dir, "itd", 0)
			assert.NilError(t, err)
			assert.Equal(t, len(none), 0, "only the prefix's files")

			assert.NilError(t, s.Replace(ctx, a, []byte("replaced")))
			data, err := s.Read(ctx, a)
			assert.NilError(t, err)
			assert.Equal(t, string(data), "replaced")
			_, err = s.Read(ctx, closed)
			assert.Equal(t, code(err), "record_missing")

			unlock, err := s.Lock(ctx, 0)
			assert.NilError(t, err)
			_, err = s.Lock(ctx, 50*time.Millisecond)
			r, ok := refusal.As(err)
			assert.Assert(t, ok && r.Kind == refusal.Contention, "a held lock is contention: %v", err)
			unlock()
			unlock, err = s.Lock(ctx, 0)
			assert.NilError(t, err, "released on unlock")
			unlock()
		})
	}
}
