package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A call its caller ended before it wrote (Ctrl-C, SIGTERM, an MCP client's cancellation, a
// deadline) is refused as interrupted, kind contention, with run it again as the remedy, through
// both ways a door runs a verb; nothing is written, a move's journal included.
func TestACallEndedBeforeItsWriteIsInterruptedAndWritesNothing(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	id := apptest.RecRun[record.RecordCreated](t, a, "capture", map[string]any{"text": "The status line flickers"}).Record.ID
	before := apptest.RecClone(r.Files)
	commits := len(a.Journal.(*fake.Journal).Commits)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, stop := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer stop()
	for _, c := range []struct {
		name string
		ctx  context.Context
		call func(ctx context.Context) (any, error)
	}{
		{"capture cancelled", cancelled, func(ctx context.Context) (any, error) {
			return a.Call(ctx, "capture", map[string]any{"text": "Noticed as the person pressed Ctrl-C"})
		}},
		{"issue_close cancelled", cancelled, func(ctx context.Context) (any, error) {
			return a.Call(ctx, "issue_close", map[string]any{"ref": id, "why": "Fixed."})
		}},
		{"capture past its deadline, as the MCP door runs it", expired, func(ctx context.Context) (any, error) {
			return a.Run(ctx, "capture", &record.CaptureInput{Text: "Noticed past the deadline"})
		}},
	} {
		_, err := c.call(c.ctx)
		re := apptest.RecRefused(t, err, refusal.Contention, "interrupted")
		assert.Check(t, is.Contains(re.Why, "ended by its caller"), c.name)
		assert.Check(t, is.Contains(re.Remedy.String(), "run it again"), c.name)
	}
	assert.Check(t, apptest.SameFiles(r.Files, before), "nothing is written")
	assert.Check(t, is.Len(a.Journal.(*fake.Journal).Commits, commits), "no change is committed")
}
