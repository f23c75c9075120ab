package mcp

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestBudgetServesInOrder: a request that does not fit waits; the ones behind it wait their turn
// even when they would fit (a large message is not starved by small ones); one that gives up lets
// those behind it through.
func TestBudgetServesInOrder(t *testing.T) {
	b := newBudget(10)
	ctx := context.Background()
	assert.NilError(t, b.acquire(ctx, 6))
	got := make(chan string, 3)
	wait := func(name string, ctx context.Context, n int64) {
		go func() {
			if b.acquire(ctx, n) == nil {
				got <- name
			} else {
				got <- name + " gave up"
			}
		}()
	}
	giveUp, cancel := context.WithCancel(ctx)
	waiting := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			b.mu.Lock()
			l := b.waiters.Len()
			b.mu.Unlock()
			if l == n {
				return
			}
		}
		t.Fatalf("want %d waiting", n)
	}
	wait("eight", giveUp, 8)
	waiting(1)
	wait("three", ctx, 3)
	waiting(2)
	select {
	case name := <-got:
		t.Fatalf("%s went ahead of the request waiting before it", name)
	case <-time.After(20 * time.Millisecond):
	}
	cancel()
	// The two goroutines report in either order; what matters is that both happen.
	results := map[string]bool{<-got: true, <-got: true}
	assert.Check(t, is.DeepEqual(results, map[string]bool{"eight gave up": true, "three": true}),
		"the request behind the one that gave up goes through")
	b.release(6)
	b.release(3)
	assert.Check(t, is.Equal(b.used, int64(0)))

	assert.NilError(t, b.acquire(ctx, 100), "a request beyond the whole budget takes all of it")
	assert.Check(t, is.Equal(b.used, int64(10)))
	b.release(100)
	assert.Check(t, is.Equal(b.used, int64(0)))
}

func TestMessageCost(t *testing.T) {
	assert.Check(t, is.Equal(messageCost(freeMessageBytes), int64(0)), "small messages are free")
	assert.Check(t, is.Equal(messageCost(10_000), int64(20_000+5_001*valueCost)))
	assert.Check(t, is.Equal(messageCost(MaxMessageBytes), int64(2*MaxMessageBytes+maxMessageValues*valueCost)))
	assert.Check(t, memoryBudget >= 4*messageCost(MaxMessageBytes))
	assert.Check(t, parsedCost(10_000, 3) < messageCost(10_000))
}
