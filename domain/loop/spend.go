package loop

import (
	"math"
	"sort"

	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
)

// Spend is what a set of a run's steps cost: the steps counted, the US dollars of those whose cost
// is known (reported by their route or priced), how many were unmetered (a subscription) or of
// unknown cost (the host's harness, RepoPrompt, a provider or a CLI with no figure and no price), the
// tokens reported, and the runners' wall time.
type Spend struct {
	Steps      int     `json:"steps" jsonschema:"minimum=0"`
	USD        float64 `json:"usd" jsonschema:"minimum=0"`
	Unmetered  int     `json:"unmetered" jsonschema:"minimum=0"`
	Unknown    int     `json:"unknown" jsonschema:"minimum=0"`
	Input      int64   `json:"input" jsonschema:"minimum=0"`
	Output     int64   `json:"output" jsonschema:"minimum=0"`
	CacheRead  int64   `json:"cache_read" jsonschema:"minimum=0"`
	CacheWrite int64   `json:"cache_write" jsonschema:"minimum=0"`
	WallMS     int64   `json:"wall_ms" jsonschema:"minimum=0"`
}

// Tokens is the input and output tokens spent: what a budget's tokens bound.
func (s Spend) Tokens() int64 { return s.Input + s.Output }

// NamedSpend is the spend of one lane, role or route.
type NamedSpend struct {
	Name  string `json:"name"`
	Spend Spend  `json:"spend"`
}

// Spending is what a run has spent so far: in all, and per lane, per role and per route (the route
// that took each step: a runner, a provider, rp, or the host), each list in name order.
type Spending struct {
	Run    Spend        `json:"run"`
	Lanes  []NamedSpend `json:"lanes"`
	Roles  []NamedSpend `json:"roles"`
	Routes []NamedSpend `json:"routes"`
}

// stepCost is one step as the spending counts it.
type stepCost struct {
	lane, role, route string
	receipt           *runner.Receipt
	tokensIn, tokOut  int64
	// usd and source are a provider's call's cost and where it came from ("" for the host and rp).
	usd    float64
	source runner.CostSource
}

// SpendOf sums what the run's recorded steps cost: every implementation and verdict (a runner's
// receipt, a provider's tokens, or nothing known: the host's, rp's), and every fallback whose route
// ran (a runner's, with its receipt; a route that failed after it was called, of unknown cost). A
// fallback that never reached its route (absent) or was stopped before it answered (interrupted, with
// no receipt) counts nothing.
func SpendOf(s State) Spending {
	var steps []stepCost
	for _, l := range s.Lanes {
		for _, im := range l.Implementations {
			c := stepCost{lane: l.ID, role: RoleImplementer, route: "host"}
			if im.Answered != nil && im.Answered.Route != "" {
				c.route, c.receipt = im.Answered.Route, im.Answered.Runner
			}
			steps = append(steps, c)
		}
		for _, r := range l.Rounds {
			for _, v := range r.Verdicts {
				c := stepCost{lane: l.ID, role: v.Role, route: "host"}
				if v.Answered.Route != "" {
					c.route, c.receipt = v.Answered.Route, v.Answered.Runner
					c.tokensIn, c.tokOut = int64(v.Answered.TokensIn), int64(v.Answered.TokensOut)
					c.usd, c.source = v.Answered.CostUSD, v.Answered.CostSource
				}
				steps = append(steps, c)
			}
		}
	}
	for _, f := range s.Fallbacks {
		if f.Runner == nil && (f.Reason == string(review.Absent) || f.Reason == string(review.Interrupted)) {
			continue
		}
		steps = append(steps, stepCost{lane: f.Lane, role: f.Role, route: f.Asked, receipt: f.Runner})
	}
	lanes, roles, routes := map[string]*Spend{}, map[string]*Spend{}, map[string]*Spend{}
	var out Spending
	for _, c := range steps {
		for _, sp := range []*Spend{&out.Run, spendAt(lanes, c.lane), spendAt(roles, c.role), spendAt(routes, c.route)} {
			sp.add(c)
		}
	}
	out.Run.USD = roundUSD(out.Run.USD)
	out.Lanes, out.Roles, out.Routes = sorted(lanes), sorted(roles), sorted(routes)
	return out
}

func spendAt(m map[string]*Spend, name string) *Spend {
	if m[name] == nil {
		m[name] = &Spend{}
	}
	return m[name]
}

func (sp *Spend) add(c stepCost) {
	sp.Steps++
	r := c.receipt
	if r == nil {
		switch c.source {
		case runner.CostPriced:
			sp.USD += c.usd
		case runner.CostUnmetered:
			sp.Unmetered++
		default:
			sp.Unknown++
		}
		sp.Input += c.tokensIn
		sp.Output += c.tokOut
		return
	}
	switch r.SourceOf() {
	case runner.CostReported, runner.CostPriced:
		sp.USD += r.CostUSD
	case runner.CostUnmetered:
		sp.Unmetered++
	default:
		sp.Unknown++
	}
	sp.Input += r.Usage.Input
	sp.Output += r.Usage.Output
	sp.CacheRead += r.Usage.CachedInput
	sp.CacheWrite += r.Usage.CacheWrite
	sp.WallMS += r.DurationMS
}

// roundUSD rounds a sum of dollars to a millionth, so a float's sum of exact figures reads as written.
func roundUSD(usd float64) float64 { return math.Round(usd*1e6) / 1e6 }

func sorted(m map[string]*Spend) []NamedSpend {
	out := make([]NamedSpend, 0, len(m))
	for name, sp := range m {
		sp.USD = roundUSD(sp.USD)
		out = append(out, NamedSpend{Name: name, Spend: *sp})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
