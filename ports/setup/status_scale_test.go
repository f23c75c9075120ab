package setup_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// countingRecords counts what status asks of the record store.
type countingRecords struct {
	*fake.Records
	lists map[string]int
	reads int
}

func (c *countingRecords) List(ctx context.Context, dir, prefix string, limit int) ([]ports.RecordFile, error) {
	c.lists[dir]++
	return c.Records.List(ctx, dir, prefix, limit)
}

func (c *countingRecords) Read(ctx context.Context, p string) ([]byte, error) {
	c.reads++
	return c.Records.Read(ctx, p)
}

// scaleIntent writes an intent of lifecycle straight into the store: with ready, its press release
// and a criterion are written.
func scaleIntent(t *testing.T, r *fake.Records, i int, lifecycle string, ready bool) record.IntentFrontMatter {
	t.Helper()
	now := apptest.RecNow.Add(time.Duration(i) * time.Second)
	id := record.NewID(record.Intents, now, uint32(i))
	it := record.NewIntent(id, fmt.Sprintf("Intent %04d", i), now)
	it.Front.Lifecycle = lifecycle
	data := record.RenderIntent(it)
	if ready {
		data = apptest.RecFill(t, data, "Press Release", apptest.RecPressRelease)
		data = apptest.RecFill(t, data, "Acceptance Criteria", apptest.RecCriterion)
	}
	folder, _ := record.FolderOf(record.Intents, lifecycle)
	r.Files[folder.Dir+"/"+record.FileName(id, record.Slug(it.Front.Title))] = data
	return it.Front
}

// scaleSpec writes an open spec implementing in; with steps, it has two.
func scaleSpec(t *testing.T, r *fake.Records, i int, in record.IntentFrontMatter, steps bool) string {
	t.Helper()
	now := apptest.RecNow.Add(time.Duration(i) * time.Second)
	id := record.NewID(record.Specs, now, uint32(i))
	data := record.RenderSpec(record.NewSpec(id, fmt.Sprintf("Spec %04d", i), in, now))
	if steps {
		data = apptest.RecFill(t, data, "Steps", apptest.RecTwoSteps)
	}
	r.Files[apptest.RecSpecsOpen+"/"+record.FileName(id, record.Slug(fmt.Sprintf("Spec %04d", i)))] = data
	return id
}

func scaleNext(t *testing.T, a *app.App, prefix string) []string {
	t.Helper()
	st := apptest.RecRun[setup.StatusResult](t, a, "status", map[string]any{})
	var out []string
	for _, n := range st.Next {
		if step := apptest.RecStep(n.Next); strings.HasPrefix(step, prefix) {
			out = append(out, strings.TrimPrefix(step, prefix))
		}
	}
	return out
}

// Over several batches of drafts, status suggests the first five ready ones in the listing's order,
// however the parsing is spread.
func TestStatusSuggestsTheFirstReadyDraftsAcrossBatches(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	readyAt := map[int]bool{7: true, 255: true, 256: true, 400: true, 701: true, 702: true, 900: true}
	var want []string
	for i := range 1000 {
		in := scaleIntent(t, r, i, "drafts", readyAt[i])
		if readyAt[i] && len(want) < 5 {
			want = append(want, in.ID)
		}
	}
	r.Files[apptest.RecDrafts+"/itd-2607011230050000-broken.md"] = []byte("garbage\n")
	assert.DeepEqual(t, scaleNext(t, a, "intent_plan ref="), want)
}

// An open spec is suggested for its build only when its intent passes the whole gate: the intent's
// own checks and an open spec with steps.
func TestStatusSuggestsBuildingOnlyASpecWhoseIntentIsReady(t *testing.T) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	var want []string
	for i := 0; i < 600; i += 3 {
		ready, steps := i%9 == 0, i%2 == 0
		in := scaleIntent(t, r, i, "planned", ready)
		id := scaleSpec(t, r, i+1, in, steps)
		if ready && steps && len(want) < 5 {
			want = append(want, id)
		}
	}
	assert.Assert(t, is.Len(want, 5))
	assert.DeepEqual(t, scaleNext(t, a, "implement_start spec="), want)

	// A stepless spec beside a spec with steps does not stop the intent's build.
	r = fake.NewRecords()
	a = apptest.RecApp(r)
	in := scaleIntent(t, r, 1, "planned", true)
	stepless := scaleSpec(t, r, 2, in, false)
	withSteps := scaleSpec(t, r, 3, in, true)
	assert.DeepEqual(t, scaleNext(t, a, "implement_start spec="), []string{stepless, withSteps})
}

// Status lists each folder it parses once and reads no record file on its own: its cost grows with
// the record, file by file, never file by file per suggestion.
func TestStatusReadsEachRecordThroughOneListing(t *testing.T) {
	r := &countingRecords{Records: fake.NewRecords(), lists: map[string]int{}}
	a := apptest.RecApp(r.Records)
	a.Records = r
	for i := 0; i < 300; i += 3 {
		in := scaleIntent(t, r.Records, i, []string{"drafts", "planned", "shipped"}[i%3], i%2 == 0)
		scaleSpec(t, r.Records, i+1, in, true)
	}
	apptest.RecRun[setup.StatusResult](t, a, "status", map[string]any{})
	assert.Equal(t, r.reads, 0)
	for dir, n := range r.lists {
		assert.Equal(t, n, 1, "%s listed %d times", dir, n)
	}
	assert.Equal(t, r.lists[apptest.RecDrafts], 1)
	assert.Equal(t, r.lists[apptest.RecSpecsOpen], 1)
}
