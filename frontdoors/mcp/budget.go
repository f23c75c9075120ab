package mcp

import (
	"container/list"
	"context"
	"sync"

	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// Memory bounds. A parsed message takes more memory than its text: its bytes, the strings decoded
// from them and, for each value, a hundred bytes or more of interface, slice and map (measured:
// 120 for a number in an array, 230 for a one-member object). Every message being read, parsed or
// served draws on one budget per server, so a burst of large messages waits instead of holding
// gigabytes: a message is charged the most it can take before it is parsed (twice its length, and
// valueCost for as many values as it could hold), then what it does take once it is.
const (
	// maxMessageValues bounds the values one message holds (strictjson.Limits.MaxValues).
	maxMessageValues = mcpwire.MaxMessageValues
	// valueCost is what one parsed value is charged.
	valueCost = 160
	// freeMessageBytes is the size up to which a message is not charged: pings, cancellations and
	// ordinary calls are never held up behind large messages. The number of such messages held at
	// once is bounded by the transports (requests running or queued).
	freeMessageBytes = 4 << 10
	// memoryBudget is what the messages held at once may be charged: four of the largest.
	memoryBudget = 4 * (2*MaxMessageBytes + maxMessageValues*valueCost)
)

// messageCost is the most a message of n bytes can take once parsed: its bytes, its strings, and
// its values (each takes at least one byte and a separator).
func messageCost(n int) int64 {
	if n <= freeMessageBytes {
		return 0
	}
	return 2*int64(n) + int64(min(n/2+1, maxMessageValues))*valueCost
}

// parsedCost is what a message of n bytes holding the given number of values takes.
func parsedCost(n, values int) int64 {
	if n <= freeMessageBytes {
		return 0
	}
	return 2*int64(n) + int64(values)*valueCost
}

// budget is a weighted semaphore in bytes, served first come first served so a large message is
// not starved by a stream of smaller ones.
type budget struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters list.List // of *budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(size int64) *budget { return &budget{size: size} }

// acquire takes n bytes, waiting until they are free or ctx ends. A request larger than the whole
// budget waits for all of it.
func (b *budget) acquire(ctx context.Context, n int64) error {
	if n <= 0 {
		return nil
	}
	n = min(n, b.size)
	b.mu.Lock()
	if b.used+n <= b.size && b.waiters.Len() == 0 {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	elem := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready:
			// Granted while giving up: hand it back.
			b.used -= n
			b.notify()
		default:
			front := b.waiters.Front() == elem
			b.waiters.Remove(elem)
			if front {
				b.notify() // the waiters behind it may fit now
			}
		}
		b.mu.Unlock()
		return ctx.Err()
	}
}

// release returns n bytes taken by acquire.
func (b *budget) release(n int64) {
	if n <= 0 {
		return
	}
	n = min(n, b.size)
	b.mu.Lock()
	b.used -= n
	b.notify()
	b.mu.Unlock()
}

// notify grants waiters in order while the first of them fits. b.mu is held.
func (b *budget) notify() {
	for {
		front := b.waiters.Front()
		if front == nil {
			return
		}
		w := front.Value.(*budgetWaiter)
		if b.used+w.n > b.size {
			return
		}
		b.used += w.n
		b.waiters.Remove(front)
		close(w.ready)
	}
}

// charge is what one message holds of a budget; it grows as the message is read and parsed, and is
// given back at once when the message is done with.
type charge struct {
	b    *budget
	held int64
}

// to raises the charge to total bytes, waiting for them or for ctx to end.
func (c *charge) to(ctx context.Context, total int64) error {
	total = min(total, c.b.size)
	if total <= c.held {
		return nil
	}
	if err := c.b.acquire(ctx, total-c.held); err != nil {
		return err
	}
	c.held = total
	return nil
}

// shrink lowers the charge to total bytes, giving back the rest.
func (c *charge) shrink(total int64) {
	if total < c.held {
		c.b.release(c.held - max(total, 0))
		c.held = max(total, 0)
	}
}

func (c *charge) release() {
	c.b.release(c.held)
	c.held = 0
}
