// Package core holds what every verb family's use cases share: the repository one call works in,
// its configuration, its lock wait, the credentials to scrub from what a route says, and the words
// the verb table gives a verb. Each family's dependency struct embeds one Core per call.
package core

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/verb"
)

// Core is the ports every family reads through, and the state of one call.
type Core struct {
	Config      ports.ConfigSource
	Setup       ports.Setup
	Records     ports.RecordStore
	Runs        ports.RunStore
	Clock       ports.Clock
	Diag        ports.Diagnostics
	Credentials ports.Credentials // the keys abcd holds: every text a route says is scrubbed of them
	Connections ports.Connections // the providers this machine configures; nil reads them from the configuration
	// Verbs finds a declared verb by name in the verb table (the words a line names it by, the agents
	// it dispatches); nil knows none.
	Verbs func(name string) (verb.Verb, bool)

	// wait is this call's lock wait, read once when the call first takes a lock (ForCall).
	wait func() (time.Duration, error)
}

// ForCall is the core one invocation runs on: a copy of c whose lock wait is read once, under ctx,
// when the call first takes a lock, and never when it takes none.
func (c Core) ForCall(ctx context.Context) *Core {
	call := &c
	call.wait = sync.OnceValues(func() (time.Duration, error) { return call.ReadLockWait(ctx) })
	return call
}

// VerbWords is a verb as a person types it (issue close), or its name when no verb has it.
func (c *Core) VerbWords(name string) string {
	if v, ok := c.Verb(name); ok && len(v.Path) > 0 {
		return strings.Join(v.Path, " ")
	}
	return name
}

// Verb finds a declared verb by name.
func (c *Core) Verb(name string) (verb.Verb, bool) {
	if c.Verbs == nil {
		return verb.Verb{}, false
	}
	return c.Verbs(name)
}
