// Package notify tells the person an implement run ended in a way they want to hear of (finished,
// needs them, stopped by its budget, failed): the machine's build.notify command with one JSON event
// on its stdin, or, where none is configured, the terminal bell. A notifier is the person's own
// command: whatever it does (fails, hangs, floods its output) the run's result and exit stay as they
// were; it is bounded in time, its output is kept bounded, and what went wrong is said once.
package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// Timeout bounds the notifier's run; its process group is ended after it.
const Timeout = 5 * time.Second

// Key is the configuration key that names the notifier: the machine file's alone
// (config.Key.MachineOnly), since a repository's file would run it on every clone's machine.
const Key = "build.notify"

// End is how an implement run ended, as the notification tells it.
type End struct {
	Run, Spec string
	// Ended is the driver's word (finished, host, interrupted, budget); Err the invocation's error.
	Ended string
	Err   error
	// Stages are the run's lanes' stages; Spend and Budget what it spent and ran under; Next the
	// driver's own last word on what to do next, in plain words.
	Stages []string
	Spend  loop.Spend
	Budget loop.BudgetView
	Next   string
	At     time.Time
}

// Send tells the person of end, when it is worth telling: through n (the build.notify command the
// machine names) with the event scrubbed of every credential abcd holds, or else by bell (the front
// door rings it where stderr is a terminal). It returns the event it sent (false when it sent none).
func Send(ctx context.Context, c *core.Core, n ports.Notifier, bell func(), end End) (loop.NotifyEvent, bool) {
	lanes := loop.LanesOf(end.Stages)
	kind, ok := loop.NotifyKindOf(end.Ended, end.Err != nil, lanes)
	if !ok {
		return loop.NotifyEvent{}, false
	}
	ev := loop.NotifyEvent{SchemaVersion: loop.NotifyVersion, Event: kind, Run: end.Run, Spec: end.Spec, Repository: filepath.Base(c.Root()),
		Ended: end.Ended, Lanes: lanes, Spend: end.Spend, Budget: end.Budget, At: end.At.UTC().Format(time.RFC3339)}
	if end.Err != nil {
		ev.Ended, ev.Fault = "", core.FaultCode(end.Err)
	}
	// Clipped below the schema's bounds, which count characters: the mark a cut adds is one more.
	ev.Next = text.ClipAt(end.Next, 1999)
	ev.Summarise()
	ev.Summary = text.ClipAt(ev.Summary, 999)
	ev = ev.Scrubbed(c.Scrubber(ctx).Scrub)

	command, err := commandOf(ctx, c)
	if err != nil {
		c.Warn(fmt.Sprintf("%s could not be read, so no notification was sent: %v", Key, err))
		return ev, false
	}
	if command == "" {
		if bell != nil {
			bell()
		}
		return ev, false
	}
	if n == nil {
		c.Warn(Key + " is set, but this build of abcd runs no notifier")
		return ev, false
	}
	data, err := json.Marshal(ev)
	if err != nil {
		c.Warn(fmt.Sprintf("the notification's event could not be written: %v", err))
		return ev, false
	}
	res, err := n.Notify(context.WithoutCancel(ctx), c.Root(), command, append(data, '\n'), Timeout)
	if why := failure(res, err); why != "" {
		c.Warn(c.Scrubber(ctx).Scrub(fmt.Sprintf("%s %s; the run is as it was", Key, why)))
	}
	return ev, true
}

// commandOf is build.notify as the configuration says it ("" when unset).
func commandOf(ctx context.Context, c *core.Core) (string, error) {
	_, stack, err := c.LoadConfig(ctx)
	if err != nil {
		return "", err
	}
	v, err := config.Get[string](stack, Key)
	if err != nil {
		return "", err
	}
	return v.V, nil
}

// failure says how the notifier went wrong ("" when it exited 0): its problem, or its exit code and
// the last line it printed, clipped.
func failure(res ports.DoDResult, err error) string {
	switch {
	case err != nil:
		return "could not be run: " + err.Error()
	case res.Problem != "":
		return res.Problem
	case res.ExitCode != 0:
		why := fmt.Sprintf("exited %d", res.ExitCode)
		lines := strings.Split(strings.TrimSpace(res.Tail), "\n")
		if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
			why += ": " + text.ClipAt(last, 200)
		}
		return why
	}
	return ""
}
