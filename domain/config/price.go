package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxPrices bounds the models one runner's price table names.
const MaxPrices = 32

// Price is what one model costs, in US dollars per million tokens: input, output, and, where the
// vendor bills them apart, cache reads and cache writes (0 when the table leaves them out).
type Price struct {
	Model                                string
	Input, Output, CacheRead, CacheWrite float64
}

const priceForm = `takes "MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]": a model id and its US dollars per million tokens (0 to 1000 each), such as "gpt-5 1.25 10 0.125 0"`

// ParsePrice reads one entry of a price table: a model id and two or four prices.
func ParsePrice(s string) (Price, error) {
	f := strings.Fields(s)
	if len(f) != 3 && len(f) != 5 || !ValidModelID(f[0]) {
		return Price{}, fmt.Errorf("%s", priceForm)
	}
	p := Price{Model: f[0]}
	for i, dst := range []*float64{&p.Input, &p.Output, &p.CacheRead, &p.CacheWrite}[:len(f)-1] {
		v, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 1000 {
			return Price{}, fmt.Errorf("%s", priceForm)
		}
		*dst = v
	}
	return p, nil
}

// ParsePrices reads a price table: at most MaxPrices entries, each model once.
func ParsePrices(entries []string) ([]Price, error) {
	if len(entries) > MaxPrices {
		return nil, fmt.Errorf("names %d models, over the limit of %d", len(entries), MaxPrices)
	}
	seen := map[string]bool{}
	var out []Price
	for i, e := range entries {
		p, err := ParsePrice(e)
		if err != nil {
			return nil, fmt.Errorf("item %d %w", i, err)
		}
		if seen[p.Model] {
			return nil, fmt.Errorf("item %d prices %s again: price each model once", i, p.Model)
		}
		seen[p.Model] = true
		out = append(out, p)
	}
	return out, nil
}

func priceList(v json.RawMessage) error {
	entries, err := DecodeList(v)
	if err != nil {
		return err
	}
	_, err = ParsePrices(entries)
	return err
}

// Billings are the billing values of a runner's and a provider's block: metered (each step costs what
// its tokens cost) or subscription (a plan's flat fee: a step's cost is unmetered, whatever the route
// estimates).
func Billings() []string { return []string{"metered", "subscription"} }

// Billing is how a runner's or a provider's steps are paid for: a subscription, or by use at the
// route's own figure or the block's prices.
type Billing struct {
	Subscription bool
	Prices       []Price
}

// PriceOf is the price the table declares for model ("" has none).
func (b Billing) PriceOf(model string) (Price, bool) {
	for _, p := range b.Prices {
		if model != "" && p.Model == model {
			return p, true
		}
	}
	return Price{}, false
}

// ReadBilling reads a block's billing and prices (base is oracle.runner.NAME or oracle.api.NAME): the
// one reader both kinds of block share. A table that prices a model twice across layers is the
// prices key's *ValueError.
func ReadBilling(s *Stack, base string) (Billing, error) {
	billing, err := Get[string](s, base+".billing")
	if err != nil {
		return Billing{}, err
	}
	entries, err := s.Union(base + ".prices")
	if err != nil {
		return Billing{}, err
	}
	prices, err := ParsePrices(entries)
	if err != nil {
		e := &ValueError{Key: base + ".prices", Layer: LayerMachine, Msg: err.Error()}
		if found := s.Lookup(e.Key); len(found) > 0 {
			e.Layer, e.Origin = found[0].Layer, found[0].Origin
		}
		return Billing{}, e
	}
	return Billing{Subscription: billing.Set && billing.V == "subscription", Prices: prices}, nil
}
