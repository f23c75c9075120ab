package core

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// inParallel runs do over the indices 0..n-1 on at most GOMAXPROCS goroutines, each taking runs of
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
