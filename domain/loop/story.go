package loop

import (
	"fmt"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
)

// A run's story as its state tells it: the route blocks of its steps, and the steps a runner ran
// unconfined.

// RouteReceipt is a verdict's route block. A review asked of rp that the host ran carries the
// fallback's reason; otherwise the routing table's own fallback sentence (no connection serves the
// tier), if any.
func (s State) RouteReceipt(lane string, round int, v Verdict) oracle.Receipt {
	tried := v.Routing.Connection
	if v.Routing.Route != "" && v.Routing.Route != "host" {
		tried = v.Routing.Route
	}
	reason := v.Routing.Fallback
	for _, f := range s.Fallbacks {
		if f.Lane == lane && f.Round == round && f.Role == v.Role {
			reason = review.FallbackReason(f.Reason).Sentence()
		}
	}
	route := oracle.Route{Agent: v.Role, Row: oracle.Row{Tier: oracle.Tier(v.Routing.Tier)}, Override: v.Routing.Override, Settings: oracle.Settings{}}
	for k, val := range v.Answered.Settings {
		route.Settings[k] = oracle.Scalar(val)
	}
	return route.Receipt(tried, v.Routing.Ran, reason, v.Answered.ModelReported)
}

// ImplementerFallback is the route an implementer's step of a lane's round asked for and why it
// went to the host, when a route beside it gave it up (both "" otherwise).
func (s State) ImplementerFallback(lane string, round int) (string, string) {
	asked, reason := "", ""
	for _, f := range s.Fallbacks {
		if f.Lane == lane && f.Round == round && f.Role == RoleImplementer {
			asked, reason = f.Asked, review.FallbackReason(f.Reason).Sentence()
		}
	}
	return asked, reason
}

// Unfenced names the steps a runner ran with the sandbox off, from the runner receipts the run keeps:
// its implementations', its verdicts' and its fallbacks'.
func (s State) Unfenced() []string {
	out := []string{}
	note := func(lane, role string, round int, r *runner.Receipt) {
		if r != nil && r.Sandbox != nil && r.Sandbox.Kind == runner.SandboxOff {
			out = append(out, fmt.Sprintf("%s %s round %d on runner %s", lane, role, round, r.Runner))
		}
	}
	for _, l := range s.Lanes {
		for _, im := range l.Implementations {
			if im.Answered != nil {
				note(l.ID, RoleImplementer, im.Round, im.Answered.Runner)
			}
		}
		for _, r := range l.Rounds {
			for _, v := range r.Verdicts {
				note(l.ID, v.Role, r.N, v.Answered.Runner)
			}
		}
	}
	for _, f := range s.Fallbacks {
		note(f.Lane, f.Role, f.Round, f.Runner)
	}
	return out
}

// Request is the routing an await asked for, as a request's routing block.
func (r Routing) Request() oracle.RequestRouting {
	return oracle.RequestRouting{Agent: r.Agent, Tier: oracle.Tier(r.Tier), FanOut: r.FanOut, Source: oracle.Source(r.Source),
		Origin: r.Origin, Override: r.Override, Connection: r.Connection, Fallback: r.FallbackText()}
}
