package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports"
)

// workerEnv, set in a test binary's environment, makes it a capturing process instead of a test run:
// "home first count" keeps sessions first..first+count-1 in the store under home, each as a capture
// does (a look for what is kept, the put, the prune), and exits 1 on the first error.
const workerEnv = "ABCD_HISTORY_STORE_WORKER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(workerEnv); spec != "" {
		os.Exit(captureWorker(spec))
	}
	os.Exit(m.Run())
}

func captureWorker(spec string) int {
	var home string
	var first, count int
	if _, err := fmt.Sscan(spec, &home, &first, &count); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	ctx := context.Background()
	s := Store{Home: home}
	for i := first; i < first+count; i++ {
		key := "claude:s" + strconv.Itoa(i)
		if _, _, err := s.Get(ctx, repo, key); err != nil {
			fmt.Fprintln(os.Stderr, key, "get:", err)
			return 1
		}
		e := entry(key, "session "+strconv.Itoa(i), 1000+i, fmt.Sprintf("2026-12-01T10:00:%02dZ", i%60), "message one of "+key, "message two")
		if err := s.Put(ctx, repo, e); err != nil {
			fmt.Fprintln(os.Stderr, key, "put:", err)
			return 1
		}
		if _, err := s.Prune(ctx, repo, 1<<30); err != nil {
			fmt.Fprintln(os.Stderr, key, "prune:", err)
			return 1
		}
	}
	return 0
}

// Sub-agents that end together each start a capture: 8 processes capturing 40 sessions at once into
// one new store keep all 40, each whole and found by a search, and none fails.
func TestConcurrentCapturesLoseNothing(t *testing.T) {
	const procs, each = 8, 5
	home := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]string, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d", workerEnv, home, p*each, each))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[p] = fmt.Sprintf("process %d: %v: %s", p, err, out)
			}
		}()
	}
	wg.Wait()
	assert.Check(t, is.Equal(strings.Join(errs, ""), ""), "every capture succeeds")
	s := Store{Home: home}
	list, err := s.List(context.Background(), repo, ports.HistoryFilter{Limit: MaxLimit})
	assert.NilError(t, err)
	assert.Check(t, is.Len(list, procs*each), "every session captured is kept")
	for i := range procs * each {
		key := "claude:s" + strconv.Itoa(i)
		e, ok, err := s.Show(context.Background(), repo, key)
		assert.NilError(t, err)
		assert.Check(t, ok && len(e.Messages) == 2, "%s is kept whole", key)
	}
	hits, err := s.Search(context.Background(), repo, "one", MaxLimit)
	assert.NilError(t, err)
	assert.Check(t, is.Len(hits, procs*each), "each session's messages are in the index once")
}
