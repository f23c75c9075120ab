package loop

import (
	"context"

	"github.com/abcd-dev/abcd/domain/loop"
)

// RecordFinish records, under the run's lock, how the finished run was taken where the team works
// (ports/loop/finish), and returns the run's standing with it. A finish recorded already stands.
func (a *Deps) RecordFinish(ctx context.Context, run string, f loop.Finished) (RunView, error) {
	w := &routeWorker{}
	defer w.done()
	res, _, err := a.withRunRetry(ctx, "implement_run", run, w, func(ctx context.Context, st *step) (StepResult, bool, error) {
		if st.state.Finish != nil {
			return StepResult{}, false, nil
		}
		st.state.Finish = &f
		st.state.Changes++
		return StepResult{}, true, nil
	})
	return res.Run, err
}

// View is a run's standing, every path in it absolute.
func (a *Deps) View(s loop.State) RunView { return a.runView(s) }
