// Package oracle holds the model-tier vocabulary, the routing table's shape and the route receipt.
package oracle

import (
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
)

// Tier is the class of model an agent's step deserves. The set is closed and ordered.
type Tier string

const (
	Local       Tier = "local"
	Economy     Tier = "economy"
	Frontier    Tier = "frontier"
	HostDecides Tier = "host-decides"
)

// Tiers lists every tier in order; refusals render it so a person sees every choice.
func Tiers() []Tier { return []Tier{Local, Economy, Frontier, HostDecides} }

func (Tier) SchemaEnum() contract.Rule { return contract.Enum(Tiers()...) }

// TierList renders the tiers for a refusal: "local | economy | frontier | host-decides".
func TierList() string {
	names := make([]string, 0, 4)
	for _, t := range Tiers() {
		names = append(names, string(t))
	}
	return strings.Join(names, " | ")
}

// Valid reports whether t is one of the closed set.
func (t Tier) Valid() bool {
	for _, k := range Tiers() {
		if t == k {
			return true
		}
	}
	return false
}

// Escalate returns the tier one step up the ladder local → economy → frontier. Frontier is the top
// and stays; host-decides is not on the ladder (the harness picks the model) and stays; so does a
// tier outside the set.
func Escalate(t Tier) Tier {
	switch t {
	case Local:
		return Economy
	case Economy:
		return Frontier
	}
	return t
}

// ParseTier reads a tier's name exactly as the closed set spells it. The refusal names every tier.
func ParseTier(s string) (Tier, error) {
	t := Tier(s)
	if t.Valid() {
		return t, nil
	}
	if s == "" {
		return "", fmt.Errorf("no tier given: choose one of %s", TierList())
	}
	return "", fmt.Errorf("tier %s is not one of %s", echo(s), TierList())
}
