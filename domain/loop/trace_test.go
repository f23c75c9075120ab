package loop

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/runner"
)

func TestAStepsEndTellsItsRouteModelsTokensAndCost(t *testing.T) {
	s := StepSpan{Run: "r", Lane: "L1", Role: RoleImplementer, Route: "cc"}
	got := s.EndOf(RouteAnswer{Receipt: &runner.Receipt{CLI: runner.Gemini, ModelAsked: "pro", ModelsReported: []string{"flash", "pro-2"},
		Usage: runner.Usage{Input: 5, Output: 2, Reported: true}, CostUSD: 0.5, CostSource: runner.CostPriced}})
	assert.Check(t, is.DeepEqual(got, StepEnd{RouteKind: RouteRunner, CLI: "gemini", Ran: "cc", ModelAsked: "pro", ModelReported: "pro-2",
		UsageKnown: true, InputTokens: 5, OutputTokens: 2, CostUSD: 0.5, CostSource: runner.CostPriced}))
	assert.Check(t, is.Equal(got.Operation(), "invoke_agent"))
	assert.Check(t, is.Equal(got.Provider(), "gcp.gemini"))

	unmetered := s.EndOf(RouteAnswer{Receipt: &runner.Receipt{CLI: runner.ACP, CostSource: runner.CostUnmetered}, FallbackReason: "failed"})
	assert.Check(t, is.Equal(unmetered.Ran, "host"))
	assert.Check(t, !unmetered.UsageKnown)
	assert.Check(t, is.Equal(unmetered.Provider(), "acp"), "a CLI that is no vendor's own is named as itself")

	rp := StepSpan{Route: RouteRP}.EndOf(RouteAnswer{})
	assert.Check(t, is.DeepEqual(rp, StepEnd{RouteKind: RouteRP, Ran: RouteRP, CostSource: runner.CostUnknown}))
	assert.Check(t, is.Equal(rp.Provider(), "repoprompt"))

	chat := StepSpan{Route: "local"}.EndOf(RouteAnswer{ModelAsked: "m", TokensIn: 3})
	assert.Check(t, is.Equal(chat.Operation(), "chat"))
	assert.Check(t, is.Equal(chat.Provider(), "openai"))
	assert.Check(t, chat.UsageKnown)
	assert.Check(t, is.Equal(StepSpan{Route: "local"}.EndOf(RouteAnswer{}).UsageKnown, false), "no tokens reported: none exported")
}

func TestEveryTextOfATraceIsScrubbed(t *testing.T) {
	const key = "sk-canary"
	mark := func(v string) string { return strings.ReplaceAll(v, key, "[key]") }
	s := StepSpan{Run: key, Lane: key, Role: key, Kind: key, Route: key}.Scrubbed(mark)
	assert.Check(t, is.DeepEqual(s, StepSpan{Run: "[key]", Lane: "[key]", Role: "[key]", Kind: "[key]", Route: "[key]"}))
	e := StepEnd{RouteKind: key, CLI: key, Ran: key, ModelAsked: key, ModelReported: key, CostSource: key, FallbackReason: key, Cause: key}.Scrubbed(mark)
	assert.Check(t, is.DeepEqual(e, StepEnd{RouteKind: "[key]", CLI: "[key]", Ran: "[key]", ModelAsked: "[key]", ModelReported: "[key]",
		CostSource: "[key]", FallbackReason: "[key]", Cause: "[key]"}))
	assert.Check(t, is.DeepEqual(RunSpan{Run: key, Spec: key}.Scrubbed(mark), RunSpan{Run: "[key]", Spec: "[key]"}))
	assert.Check(t, is.DeepEqual(RunEnd{Ended: key, Fault: key}.Scrubbed(mark), RunEnd{Ended: "[key]", Fault: "[key]"}))
}
