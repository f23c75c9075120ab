package runner

import (
	"math"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
)

// CostSource says where a step's cost in US dollars came from: never a guess.
type CostSource string

const (
	// CostReported: the route reported it (Claude Code's total_cost_usd).
	CostReported CostSource = "reported"
	// CostPriced: computed from the tokens the route reported and the price its runner's block
	// declares for the one model that answered.
	CostPriced CostSource = "priced"
	// CostUnmetered: the runner is billed by subscription; a step costs no money of its own.
	CostUnmetered CostSource = "unmetered"
	// CostUnknown: nothing reported it and no price covers it (the person's harness, RepoPrompt, a
	// CLI that reports no cost and a model the table does not price).
	CostUnknown CostSource = "unknown"
)

// CostSources lists every source.
func CostSources() []CostSource {
	return []CostSource{CostReported, CostPriced, CostUnmetered, CostUnknown}
}

func (CostSource) SchemaEnum() contract.Rule { return contract.Enum(CostSources()...) }

// Valid reports whether s is one of the sources.
func (s CostSource) Valid() bool {
	for _, c := range CostSources() {
		if s == c {
			return true
		}
	}
	return false
}

// Billing is how a runner's steps are paid for: a subscription, or by use at the route's figure or
// the runner's prices.
type Billing struct {
	Subscription bool
	Prices       []config.Price
}

// Settle fixes the receipt's cost and where it came from, once the step's figures are in: a
// subscription's step is unmetered whatever the CLI estimates; a cost the CLI reported stands; else
// the tokens it reported are priced when the one model that answered (or, when it names none, the
// model asked for) has a price; else the cost is unknown and 0.
func (r *Receipt) Settle(b Billing) {
	switch {
	case b.Subscription:
		r.CostUSD, r.CostReported, r.CostSource = 0, false, CostUnmetered
	case r.CostReported:
		r.CostSource = CostReported
	default:
		r.CostUSD, r.CostSource = 0, CostUnknown
		if p, ok := r.priceOf(b.Prices); ok && r.Usage.Reported {
			r.CostUSD, r.CostSource = r.Usage.At(p), CostPriced
		}
	}
}

// priceOf is the price of the model that answered: the one model the CLI named, or the model asked
// for when it named none. Several models share no price: their tokens cannot be told apart.
func (r *Receipt) priceOf(prices []config.Price) (config.Price, bool) {
	model := r.ModelAsked
	switch len(r.ModelsReported) {
	case 0:
	case 1:
		model = r.ModelsReported[0]
	default:
		return config.Price{}, false
	}
	for _, p := range prices {
		if model != "" && p.Model == model {
			return p, true
		}
	}
	return config.Price{}, false
}

// At is what the tokens cost at p, in US dollars, rounded to a millionth of a dollar.
func (u Usage) At(p config.Price) float64 {
	usd := (float64(u.Input)*p.Input + float64(u.Output)*p.Output + float64(u.CachedInput)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
	return math.Round(usd*1e6) / 1e6
}

// SourceOf is a receipt's cost source, for a receipt written before abcd recorded one: the CLI's
// figure when it reported one, else unknown.
func (r Receipt) SourceOf() CostSource {
	if r.CostSource.Valid() {
		return r.CostSource
	}
	if r.CostReported {
		return CostReported
	}
	return CostUnknown
}
