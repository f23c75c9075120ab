package loop

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// Which ends are told, and as what: a hand-back or the host's work left needs the person; an
// interruption is theirs, and is not told.
func TestNotifyKindOfSaysWhatARunsEndIsWorth(t *testing.T) {
	none, back := NotifyLanes{Total: 2, Delivered: 2}, NotifyLanes{Total: 2, Delivered: 1, HandedBack: 1}
	for _, c := range []struct {
		ended  string
		failed bool
		lanes  NotifyLanes
		want   NotifyKind
		ok     bool
	}{
		{"finished", false, none, NotifyFinished, true},
		{"finished", false, back, NotifyNeedsYou, true},
		{"host", false, none, NotifyNeedsYou, true},
		{"budget", false, none, NotifyBudget, true},
		{"", true, none, NotifyFailed, true},
		{"interrupted", false, none, "", false},
	} {
		got, ok := NotifyKindOf(c.ended, c.failed, c.lanes)
		assert.Check(t, is.Equal(got, c.want), "%+v", c)
		assert.Check(t, is.Equal(ok, c.ok), "%+v", c)
	}
	assert.Check(t, is.DeepEqual(LanesOf([]string{"done", "handed-back", "validate"}), NotifyLanes{Total: 3, Delivered: 1, HandedBack: 1}))
}

// The summary says the event in one line; Scrubbed takes a credential out of every text.
func TestANotifyEventIsSummarisedAndScrubbed(t *testing.T) {
	e := NotifyEvent{Event: NotifyFailed, Run: "run-1", Spec: "spc-1", Fault: "fault", Lanes: NotifyLanes{Total: 1}, Spend: Spend{Steps: 2, USD: 0.5}}
	e.Summarise()
	assert.Check(t, is.Equal(e.Summary, "abcd: run run-1 of spc-1 failed (fault); 0 of 1 lanes delivered, 0 handed back; spent 0.50 USD over 2 steps"))
	const key = "sk-secret"
	e = NotifyEvent{Run: key, Spec: key, Repository: key, Ended: key, Fault: key, Summary: key, Next: key, At: key, Budget: BudgetView{Left: key, Stopped: key}}
	s := e.Scrubbed(func(s string) string { return strings.ReplaceAll(s, key, "[key]") })
	assert.Check(t, is.DeepEqual(s, NotifyEvent{Run: "[key]", Spec: "[key]", Repository: "[key]", Ended: "[key]", Fault: "[key]", Summary: "[key]", Next: "[key]", At: "[key]",
		Budget: BudgetView{Left: "[key]", Stopped: "[key]"}}))
}
