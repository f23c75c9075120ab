package apptest

import (
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
)

func StatePathOf(run string) string { return loop.RunDir(run) + "/state.json" }

func SpecOf(t *testing.T, w LoopWorld) string {
	t.Helper()
	l := RecRun[record.RecordListResult](t, w.A, "spec_list", map[string]any{})
	assert.Assert(t, len(l.Records) > 0)
	return l.Records[0].ID
}
