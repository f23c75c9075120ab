package runner

import (
	"crypto/sha256"
	"slices"

	"github.com/abcd-dev/abcd/domain/text"
)

// MaxToolCalls bounds the distinct tool calls one step may hold in its ledger.
const MaxToolCalls = 4096

// maxCallIDBytes bounds a tool call's id.
const maxCallIDBytes = 256

// Ledger keeps a step's tool calls by id, as the CLI reports them. Its rule: a call seen again with
// the same content is a repeat and is ignored; the same id with other content is a protocol failure;
// a result for a call never opened is a protocol failure; a call still open when the step ends is a
// protocol failure (the terminal event came with work outstanding).
type Ledger struct {
	calls   map[string]*call
	order   []string
	repeats int
}

type call struct {
	content [sha256.Size]byte
	result  [sha256.Size]byte
	closed  bool
}

// NewLedger is an empty ledger.
func NewLedger() *Ledger { return &Ledger{calls: map[string]*call{}} }

func checkID(id string) *Failure {
	if id == "" || len(id) > maxCallIDBytes || text.LineProblem(id) != "" {
		return Failf(CauseBadLine, "a tool call's id is empty, longer than %d bytes, or holds a control character", maxCallIDBytes)
	}
	return nil
}

// Open records a call the CLI started: id and what the call is (its tool and arguments, as bytes the
// CLI gave them).
func (l *Ledger) Open(id string, content []byte) *Failure {
	if f := checkID(id); f != nil {
		return f
	}
	sum := sha256.Sum256(content)
	if c, ok := l.calls[id]; ok {
		if c.content != sum {
			return Failf(CauseToolCallConflict, "tool call %s was reported again with other content", text.Clip(id))
		}
		l.repeats++
		return nil
	}
	if len(l.calls) >= MaxToolCalls {
		return Failf(CauseToolCallLimit, "the step made more than %d tool calls", MaxToolCalls)
	}
	l.calls[id] = &call{content: sum}
	l.order = append(l.order, id)
	return nil
}

// Close records the result of call id. A result repeated as it was is ignored; another result for a
// closed call, or a result for a call never opened, is a protocol failure.
func (l *Ledger) Close(id string, result []byte) *Failure {
	if f := checkID(id); f != nil {
		return f
	}
	c, ok := l.calls[id]
	if !ok {
		return Failf(CauseToolCallConflict, "the CLI reported a result for tool call %s, which it never opened", text.Clip(id))
	}
	sum := sha256.Sum256(result)
	if c.closed {
		if c.result != sum {
			return Failf(CauseToolCallConflict, "tool call %s was given a second, different result", text.Clip(id))
		}
		l.repeats++
		return nil
	}
	c.closed, c.result = true, sum
	return nil
}

// Whole records a call the CLI reports only once it is done (its start and its result in one event).
func (l *Ledger) Whole(id string, content, result []byte) *Failure {
	if f := l.Open(id, content); f != nil {
		return f
	}
	return l.Close(id, result)
}

// Open calls, in the order they were opened.
func (l *Ledger) Unclosed() []string {
	var out []string
	for _, id := range l.order {
		if !l.calls[id].closed {
			out = append(out, id)
		}
	}
	return out
}

// AtEnd is the ledger's verdict when the step ends: a failure naming the first call still open.
func (l *Ledger) AtEnd() *Failure {
	if open := l.Unclosed(); len(open) > 0 {
		return Failf(CauseOpenToolCall, "%s still open when the CLI ended (first: %s)", text.Count(len(open), "tool call was", "tool calls were"), text.Clip(open[0]))
	}
	return nil
}

// Calls counts the distinct calls; Repeats the events ignored as exact repeats.
func (l *Ledger) Calls() int   { return len(l.calls) }
func (l *Ledger) Repeats() int { return l.repeats }

// IDs lists the calls in the order they were opened.
func (l *Ledger) IDs() []string { return slices.Clone(l.order) }
