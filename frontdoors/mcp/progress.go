package mcp

// Progress notifications: a tools/call that carries params._meta.progressToken hears what a long
// verb (implement_run) does as it happens, one notifications/progress a line of its progress, on the
// connection the call came on, before the call's result. Over stdio; the HTTP door answers each
// POST with one JSON response, so a call there hears nothing until its result.

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// notifier sends a notification on a call's connection.
type notifier func(method string, params any)

type notifierKey struct{}

func withNotifier(ctx context.Context, n notifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, n)
}

func notifierOf(ctx context.Context) notifier {
	n, _ := ctx.Value(notifierKey{}).(notifier)
	return n
}

// maxTokenBytes bounds a progress token abcd echoes back.
const maxTokenBytes = 256

// progressToken is the call's params._meta.progressToken when it is one MCP allows (a string or an
// integer), as the client wrote it.
func progressToken(params map[string]any) (any, bool) {
	meta, ok := params["_meta"].(map[string]any)
	if !ok {
		return nil, false
	}
	switch t := meta["progressToken"].(type) {
	case string:
		return t, len(t) <= maxTokenBytes
	case json.Number:
		_, err := t.Int64()
		return t, err == nil
	}
	return nil, false
}

// callProgress sends each event with words as a progress notification for its token, numbered in
// order, until the call ends (stop): nothing is sent after the call's result.
type callProgress struct {
	mu      sync.Mutex
	token   any
	notify  notifier
	n       int
	stopped bool
}

var _ ports.Progress = (*callProgress)(nil)

func (p *callProgress) Event(ev ports.ProgressEvent) {
	if ev.Text == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.n++
	p.notify("notifications/progress", map[string]any{"progressToken": p.token, "progress": p.n, "message": text.ClipAt(ev.Text, 1000)})
}

func (p *callProgress) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// quiet hears a call's progress and says nothing.
type quiet struct{}

func (quiet) Event(ports.ProgressEvent) {}
