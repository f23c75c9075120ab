// What an implement run may spend: build.budget, or the invocation's --budget-* flags, checked before
// each step a route beside the host takes.

package loop

import (
	"context"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// budgetOf is the run's budget (loop.BudgetFrom), a configured value out of its bounds refused.
func (a *Deps) budgetOf(ctx context.Context, in *ImplementRunInput) (loop.Budget, error) {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return loop.Budget{}, err
	}
	b, err := loop.BudgetFrom(stack, in.BudgetUSD, in.BudgetTokens, in.BudgetMinutes)
	if err != nil {
		return loop.Budget{}, core.ConfigRefusal(err)
	}
	return b, nil
}

// budgetStop is what a step the budget kept from starting records: interrupted, so the same command
// with a bigger budget hands it to its route again, and why.
func (d *driver) budgetStop() ports.ReviewOutcome {
	return ports.ReviewOutcome{FallbackReason: string(review.Interrupted), FallbackDetail: "not started: the run's budget stopped it (" + d.purse.Stopped + ")"}
}
