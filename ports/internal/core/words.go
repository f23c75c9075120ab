package core

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

func (a *Core) Warn(msg string) {
	if a.Diag != nil {
		a.Diag.Warn(msg)
	}
}

// ErrText is an error's sentence for a notice: a refusal's why whole (abcd's own words, which bound
// what they echo themselves), any other error's bounded as a path is, since it names one.
func ErrText(err error) string {
	if r, ok := refusal.As(err); ok {
		return r.Why
	}
	return text.ClipPath(err.Error())
}

// OnField names the verb's field a refusal from a value's own check is about.
func OnField(err error, verb, field string) error {
	if r, ok := refusal.As(err); ok {
		return r.On(verb, field)
	}
	return err
}

// ProblemText is a refusal's sentence for a board that cannot show its lines.
func ProblemText(err error) string {
	if r, ok := refusal.As(err); ok {
		return r.Error()
	}
	return err.Error()
}

func Strs[T ~string](v ...T) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = string(x)
	}
	return out
}

func LayerNames(ls ...config.Layer) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// InParallel runs do over the indices 0..n-1 on at most GOMAXPROCS goroutines, each taking runs of
// neighbouring indices; a short list runs on the caller's goroutine. do must touch only its own
// index's results.
func InParallel(n int, do func(i int)) {
	const run = 64
	workers := min(runtime.GOMAXPROCS(0), (n+run-1)/run)
	if workers <= 1 {
		for i := range n {
			do(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				from := int(next.Add(run)) - run
				if from >= n {
					return
				}
				for i := from; i < min(from+run, n); i++ {
					do(i)
				}
			}
		}()
	}
	wg.Wait()
}
