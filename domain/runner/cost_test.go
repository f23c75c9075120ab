package runner

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/config"
)

func TestSettleNamesWhereTheCostCameFrom(t *testing.T) {
	prices := []config.Price{{Model: "m", Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	used := Usage{Input: 1000, Output: 100, CachedInput: 10000, CacheWrite: 2000, Reported: true}
	cases := []struct {
		name   string
		r      Receipt
		b      Billing
		source CostSource
		usd    float64
	}{
		{"reported stands over a price", Receipt{CostUSD: 0.25, CostReported: true, ModelAsked: "m", Usage: used}, Billing{Prices: prices}, CostReported, 0.25},
		{"priced by the model that answered", Receipt{ModelAsked: "x", ModelsReported: []string{"m"}, Usage: used}, Billing{Prices: prices}, CostPriced, 0.015},
		{"priced by the model asked when none is named", Receipt{ModelAsked: "m", Usage: used}, Billing{Prices: prices}, CostPriced, 0.015},
		{"two models share no price", Receipt{ModelAsked: "m", ModelsReported: []string{"m", "n"}, Usage: used}, Billing{Prices: prices}, CostUnknown, 0},
		{"no price for the model", Receipt{ModelAsked: "n", Usage: used}, Billing{Prices: prices}, CostUnknown, 0},
		{"no model at all", Receipt{Usage: used}, Billing{Prices: prices}, CostUnknown, 0},
		{"no tokens reported", Receipt{ModelAsked: "m"}, Billing{Prices: prices}, CostUnknown, 0},
		{"a subscription drops the CLI's estimate", Receipt{CostUSD: 0.25, CostReported: true, Usage: used}, Billing{Subscription: true, Prices: prices}, CostUnmetered, 0},
	}
	for _, c := range cases {
		r := c.r
		r.Settle(c.b)
		assert.Check(t, is.Equal(r.CostSource, c.source), c.name)
		assert.Check(t, is.Equal(r.CostUSD, c.usd), c.name)
		assert.Check(t, is.Equal(r.CostReported, c.source == CostReported), c.name)
	}
}

func TestAReceiptsCostAndItsSourceAgree(t *testing.T) {
	base := Receipt{Runner: "cc", CLI: Claude, Outcome: Completed, TerminalEvent: "result", Commits: []string{}}
	for _, bad := range []Receipt{
		func() Receipt { r := base; r.CostSource = "guessed"; return r }(),
		func() Receipt { r := base; r.CostSource, r.CostUSD = CostUnknown, 1; return r }(),
		func() Receipt { r := base; r.CostSource, r.CostUSD = CostUnmetered, 1; return r }(),
		func() Receipt { r := base; r.Usage.CacheWrite = -1; return r }(),
	} {
		assert.Check(t, bad.Check() != nil, "%+v", bad)
	}
	ok := base
	ok.CostSource, ok.CostUSD = CostPriced, 1
	assert.NilError(t, ok.Check())
	assert.Check(t, is.Equal(Receipt{CostReported: true}.SourceOf(), CostReported))
	assert.Check(t, is.Equal(Receipt{}.SourceOf(), CostUnknown))
}
