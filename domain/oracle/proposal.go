package oracle

// Ceiling is every roster agent's fan-out ceiling: how many of one agent may run at once for one step.
//
// Ruling, carried from the original design record: no agent contract under agents/ declares a fan-out ceiling, and
// every agent in the roster is a single prompt that spawns no sub-agent, so each ceiling is 1. A
// row's fan_out above it is reported and clamped, never raised; 0 or absent means the ceiling. When an
// agent's contract gains a ceiling field, the number moves there and the proposal test holds it.
const Ceiling = 1

// BundledOrigin is the origin a route names when the bundled proposal supplied its row.
const BundledOrigin = "abcd's bundled proposal"

// Proposal is abcd's bundled routing proposal: one row per agent of the roster (agents/*.md), keyed
// on the agent's name, at the tier abcd proposes and the contract ceiling. It applies only once a
// routing table is accepted (a repository or machine routing file exists), and then only to an agent
// that table has no row for. A test holds it to the roster: an agent added without a row, or a row
// for an agent removed, fails the build. Each call returns a fresh map.
func Proposal() RoutingAgents {
	return RoutingAgents{
		"intent-auditor":    {Tier: Frontier, FanOut: Ceiling},
		"ruthless-reviewer": {Tier: Frontier, FanOut: Ceiling},
		"security-reviewer": {Tier: Frontier, FanOut: Ceiling},
	}
}
