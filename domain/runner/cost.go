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

// Billing is how a runner's steps are paid for (config.Billing, which a provider's block shares).
type Billing = config.Billing

// Settle fixes the receipt's cost and where it came from, once the step's figures are in (CostOf):
// the model priced is the one model the CLI named, or the model asked for when it named none;
// several models share no price, since their tokens cannot be told apart.
func (r *Receipt) Settle(b Billing) {
	model, one := r.ModelAsked, true
	switch len(r.ModelsReported) {
	case 0:
	case 1:
		model = r.ModelsReported[0]
	default:
		one = false
	}
	r.CostUSD, r.CostSource = CostOf(b, r.CostUSD, r.CostReported, model, one, r.Usage)
	r.CostReported = r.CostSource == CostReported
}

// CostOf is what a step cost and where the figure came from, for a runner's step and a provider's
// alike: a subscription's step is unmetered whatever the route estimates; a cost the route reported
// (reported) stands; else the tokens it reported are priced when the model that answered (priced
// false: none can be named) has a price in the table; else the cost is unknown and 0. Never a guess.
func CostOf(b Billing, usd float64, reported bool, model string, priced bool, u Usage) (float64, CostSource) {
	switch {
	case b.Subscription:
		return 0, CostUnmetered
	case reported:
		return usd, CostReported
	}
	if p, ok := b.PriceOf(model); ok && priced && u.Reported {
		return u.At(p), CostPriced
	}
	return 0, CostUnknown
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

// ProviderCost is what a provider's call cost (CostOf): the tokens it reported, the cached part of
// the prompt apart at the cache-read price, for the model that answered (or the model asked for,
// when the server named none). A provider reports no cost of its own; a count below zero is no count.
func ProviderCost(b Billing, modelAsked, modelReported string, prompt, completion, cached int) (float64, CostSource) {
	model := modelReported
	if model == "" {
		model = modelAsked
	}
	prompt, completion, cached = max(prompt, 0), max(completion, 0), min(max(cached, 0), max(prompt, 0))
	u := Usage{Input: int64(prompt - cached), Output: int64(completion), CachedInput: int64(cached), Reported: prompt+completion > 0}
	return CostOf(b, 0, false, model, true, u)
}
