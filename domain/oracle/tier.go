// Package oracle holds the model-tier vocabulary, the routing table's shape and the route receipt.
package oracle

import "strings"

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
