// What an implement run may spend: build.budget, or the invocation's --budget-* flags, checked before
// each step a route beside the host takes.

package loop

import (
	"context"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// budgetOf is the run's budget: each bound the input gives, else build.budget's (a value out of its
// bounds refused naming the file), else none.
func (a *Deps) budgetOf(ctx context.Context, in *ImplementRunInput) (loop.Budget, error) {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return loop.Budget{}, err
	}
	var b loop.Budget
	usd, err := config.Get[float64](stack, "build.budget.usd")
	if err != nil {
		return loop.Budget{}, core.ConfigRefusal(err)
	}
	tokens, err := config.Get[int64](stack, "build.budget.tokens")
	if err != nil {
		return loop.Budget{}, core.ConfigRefusal(err)
	}
	minutes, err := config.Get[int64](stack, "build.budget.minutes")
	if err != nil {
		return loop.Budget{}, core.ConfigRefusal(err)
	}
	b.USD, b.Tokens, b.Minutes = usd.V, tokens.V, minutes.V
	if in.BudgetUSD != "" {
		b.USD = in.BudgetUSD.USD()
	}
	if in.BudgetTokens != "" {
		b.Tokens = in.BudgetTokens.Tokens()
	}
	if in.BudgetMinutes != "" {
		b.Minutes = in.BudgetMinutes.Minutes()
	}
	return b, nil
}

// admit is the steps that may start now, in order: each within the budget with what is spent and
// what the steps running may still spend. A step with no cap of its own waits while others run; once
// a step would go over, the run is stopped: that step and every later one are returned with no call,
// to be recorded as not started.
func (d *driver) admit(jobs []dispatch) []dispatch {
	out := make([]dispatch, 0, len(jobs))
	for _, j := range jobs {
		if d.stopped == "" && d.budget.Set() {
			why := d.budget.Over(d.spent, j.cap, d.held, d.uncapped > 0)
			switch {
			case why == "":
			case (d.held > 0 || d.uncapped > 0) && d.budget.Over(d.spent, j.cap, 0, false) == "":
				// Within the budget once the steps running are done (they may spend less than
				// their caps): it waits for them, and is admitted again as each comes back.
				d.waiting = append(d.waiting, j)
				continue
			default:
				d.stopped = why
			}
		}
		if d.stopped != "" {
			j.call = nil
			out = append(out, j)
			continue
		}
		if j.cap > 0 {
			d.held += j.cap
		} else {
			d.uncapped++
		}
		d.runningOf[j.await] = j.cap
		out = append(out, j)
	}
	return out
}

// finished takes the steps that came back off what the running steps hold.
func (d *driver) finished(outs []answered) {
	for _, o := range outs {
		c, ok := d.runningOf[o.await]
		if !ok {
			continue
		}
		delete(d.runningOf, o.await)
		if c > 0 {
			d.held -= c
		} else {
			d.uncapped--
		}
	}
}

// takeWaiting hands back the steps held back for the running ones, to be admitted again.
func (d *driver) takeWaiting() []dispatch {
	w := d.waiting
	d.waiting = nil
	return w
}

// budgetStop is what a step the budget kept from starting records: interrupted, so the same command
// with a bigger budget hands it to its route again, and why.
func (d *driver) budgetStop() ports.ReviewOutcome {
	return ports.ReviewOutcome{FallbackReason: string(review.Interrupted), FallbackDetail: "not started: the run's budget stopped it (" + d.stopped + ")"}
}
