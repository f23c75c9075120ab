package loop

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/runner"
)

func receiptOf(usd float64, source runner.CostSource, in, out int64, ms int64) *runner.Receipt {
	return &runner.Receipt{CostUSD: usd, CostReported: source == runner.CostReported, CostSource: source,
		Usage: runner.Usage{Input: in, Output: out, CachedInput: 10, CacheWrite: 5, Reported: true}, DurationMS: ms}
}

// Seven runner calls at 0.25 USD and 1,000 input tokens sum to 1.75 USD and 7,000 tokens, per lane,
// role and route too; the host's, rp's and a provider's steps count as steps of unknown cost; a
// subscription's as unmetered; a fallback that never reached its route counts nothing.
func TestSpendOfSumsEveryStepPerLaneRoleAndRoute(t *testing.T) {
	paid := func() *runner.Receipt { return receiptOf(0.25, runner.CostReported, 1000, 0, 1500) }
	lane := func(id string) Lane {
		return Lane{ID: id,
			Implementations: []Implementation{{Answered: &Answer{Route: "cc", Runner: paid()}}},
			Rounds: []Round{{N: 1, Verdicts: []Verdict{
				{Role: "ruthless-reviewer", Answered: Answer{Route: "rv", Runner: paid()}},
				{Role: "security-reviewer", Answered: Answer{Route: "rv", Runner: paid()}}}}}}
	}
	integration := Lane{ID: "integration", Rounds: []Round{{N: 1, Verdicts: []Verdict{{Role: "intent-auditor", Answered: Answer{Route: "rv", Runner: paid()}}}}}}
	s := State{Lanes: []Lane{lane("lane-1"), lane("lane-2"), integration}}
	sp := SpendOf(s)
	assert.Check(t, is.DeepEqual(sp.Run, Spend{Steps: 7, USD: 1.75, Input: 7000, CacheRead: 70, CacheWrite: 35, WallMS: 10500}))
	assert.Check(t, is.Equal(sp.Run.Tokens(), int64(7000)))
	names := func(ns []NamedSpend) (out []string) {
		for _, n := range ns {
			out = append(out, n.Name)
		}
		return out
	}
	assert.Check(t, is.DeepEqual(names(sp.Lanes), []string{"integration", "lane-1", "lane-2"}))
	assert.Check(t, is.DeepEqual(names(sp.Roles), []string{"implementer", "intent-auditor", "ruthless-reviewer", "security-reviewer"}))
	assert.Check(t, is.DeepEqual(sp.Routes, []NamedSpend{
		{Name: "cc", Spend: Spend{Steps: 2, USD: 0.5, Input: 2000, CacheRead: 20, CacheWrite: 10, WallMS: 3000}},
		{Name: "rv", Spend: Spend{Steps: 5, USD: 1.25, Input: 5000, CacheRead: 50, CacheWrite: 25, WallMS: 7500}}}))

	// The host, a provider, a subscription, fallbacks.
	s.Lanes[0].Implementations = append(s.Lanes[0].Implementations, Implementation{Round: 1})
	s.Lanes[0].Rounds = append(s.Lanes[0].Rounds, Round{N: 2, Verdicts: []Verdict{
		{Role: "ruthless-reviewer", Answered: Answer{Route: "openai", TokensIn: 300, TokensOut: 40}},
		{Role: "security-reviewer", Answered: Answer{Route: "cs", Runner: receiptOf(0, runner.CostUnmetered, 100, 1, 200)}}}})
	s.Fallbacks = []Fallback{
		{Lane: "lane-2", Role: "implementer", Asked: "cc", Reason: "invalid", Runner: receiptOf(0.1, runner.CostReported, 10, 1, 100)},
		{Lane: "lane-2", Role: "ruthless-reviewer", Asked: "rp", Reason: "timeout"},
		{Lane: "lane-2", Role: "ruthless-reviewer", Asked: "openai", Reason: "absent"},
		{Lane: "lane-2", Role: "implementer", Asked: "cc", Reason: "interrupted"},
		{Lane: "lane-2", Role: "implementer", Asked: "cc", Reason: "interrupted", Runner: receiptOf(0, runner.CostUnknown, 0, 0, 50)},
	}
	sp = SpendOf(s)
	assert.Check(t, is.DeepEqual(sp.Run, Spend{Steps: 13, USD: 1.85, Unmetered: 1, Unknown: 4, Input: 7000 + 300 + 100 + 10, Output: 40 + 1 + 1,
		CacheRead: 100, CacheWrite: 50, WallMS: 10500 + 200 + 100 + 50}))
	assert.Check(t, is.DeepEqual(names(sp.Routes), []string{"cc", "cs", "host", "openai", "rp", "rv"}))

	// A receipt written before abcd recorded a source reads as the CLI's figure.
	old := State{Lanes: []Lane{{ID: "lane-1", Implementations: []Implementation{{Answered: &Answer{Route: "cc", Runner: &runner.Receipt{CostUSD: 0.3, CostReported: true}}}}}}}
	assert.Check(t, is.Equal(SpendOf(old).Run.USD, 0.3))
	assert.Check(t, is.DeepEqual(SpendOf(State{}), Spending{Lanes: []NamedSpend{}, Roles: []NamedSpend{}, Routes: []NamedSpend{}}))
}
