// Package sandbox is the fence around every process a runner's step starts, and around the definition
// of done abcd runs on a runner's work: writes only to the roots the step is given, no reads of the
// person's credential folders or of what the policy hides, the network only to the runner's
// endpoints, and no new privileges.
//
// On Linux abcd stays unconfined: it starts itself again as a small helper (Helper, the hidden entry
// every binary that starts fenced processes calls first in main) inside new user, mount and network
// namespaces. The helper hides folders under empty read-only file systems, brings up loopback and
// opens there the listeners abcd forwards to the allowed endpoints, drops every capability, applies
// Landlock (best effort up to the kernel's ABI, never below MinABI), and executes the command: the
// rules hold for it and everything it starts. A fence that cannot be built is an *Unavailable error
// naming what is missing, and nothing runs. Other systems have no fence yet (docs/security.md holds
// the macOS design): Start refuses there.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// HelperArg is the one argument abcd is started with when it is the helper. It is no verb a person
// types: Helper takes it before any command line is read.
const HelperArg = "__abcd-sandbox-helper"

// Options configure the fence at the composition root.
type Options struct {
	// Helper is the executable whose main calls Helper first (abcd itself); "" is the running
	// executable.
	Helper string
	// MinABI is the lowest Landlock ABI the fence accepts (DefaultMinABI when zero).
	MinABI int
	// DialTimeout bounds each connection abcd makes to an allowed endpoint (10 s when zero).
	DialTimeout time.Duration
}

// DefaultMinABI is the lowest Landlock ABI the fence is built on: from ABI 3 Landlock handles
// truncate(2), without which a step could empty any file its user owns.
const DefaultMinABI = 3

// Fence starts commands inside the fence a policy describes.
type Fence struct {
	helper string
	minABI int
	dial   time.Duration
}

// New is the fence.
func New(o Options) *Fence {
	f := &Fence{helper: o.Helper, minABI: o.MinABI, dial: o.DialTimeout}
	if f.minABI == 0 {
		f.minABI = DefaultMinABI
	}
	if f.dial == 0 {
		f.dial = 10 * time.Second
	}
	return f
}

// Unavailable is a fence this machine cannot build: Missing names what is missing (a kernel feature,
// a permission). The command never ran.
type Unavailable struct{ Missing string }

func (e *Unavailable) Error() string {
	return "the sandbox cannot be built on this machine: " + e.Missing
}

// IsUnavailable reports whether err is (or wraps) an *Unavailable, and returns it.
func IsUnavailable(err error) (*Unavailable, bool) {
	var u *Unavailable
	ok := errors.As(err, &u)
	return u, ok
}

// PolicyError is a policy the fence refuses to build (a relative path, a writable root for a role that
// may not write, a bad endpoint): the caller's fault, named.
type PolicyError struct{ Why string }

func (e *PolicyError) Error() string { return "sandbox policy: " + e.Why }

// listener is one socket listening inside the step's network namespace: a loopback endpoint's
// address, forwarded to the same address outside, or abcd's proxy (Proxy).
type listener struct {
	Addr  string `json:"addr"`
	Proxy bool   `json:"proxy,omitempty"`
}

// maxPaths bounds each list of a policy: more is a caller's fault, not a fence.
const maxPaths = 64

// plan is a policy made whole for one start: the caller's, plus what every fence holds.
type plan struct {
	Write, Protect, Hide, Show []string
	Endpoints                  []string // host:port
	Temp                       string
	Home                       string
	MinABI                     int
}

// complete checks p and adds what every fence holds: the credential folders under home, the shared
// temporary folders and the person's runtime folder (their sockets) hidden; Temp, State and Write
// shown where they sit inside a hidden folder.
func complete(p ports.SandboxPolicy, home string, minABI int) (plan, error) {
	if p.Temp == "" {
		return plan{}, &PolicyError{"no private temporary folder was given"}
	}
	if len(p.Write) > 0 && p.Role != ports.SandboxRoleImplementer && p.Role != ports.SandboxRoleDoD {
		return plan{}, &PolicyError{fmt.Sprintf("a %q step may write nowhere, and was given %d writable roots", p.Role, len(p.Write))}
	}
	for _, list := range [][]string{p.Write, p.Protect, p.Hide, p.Show, p.State, {p.Temp}} {
		if len(list) > maxPaths {
			return plan{}, &PolicyError{fmt.Sprintf("%d paths in one list, over the bound of %d", len(list), maxPaths)}
		}
		for _, x := range list {
			if !filepath.IsAbs(x) || filepath.Clean(x) != x || x == "/" || strings.ContainsAny(x, "\x00\n") {
				return plan{}, &PolicyError{fmt.Sprintf("%q is not a clean absolute path below /", x)}
			}
		}
	}
	for _, x := range p.Protect {
		if !slices.ContainsFunc(p.Write, func(w string) bool { return within(x, w) }) {
			return plan{}, &PolicyError{fmt.Sprintf("%s is kept read-only but lies in no writable root", x)}
		}
	}
	if len(p.Endpoints) > runner.MaxSandboxEndpoints {
		return plan{}, &PolicyError{fmt.Sprintf("%d endpoints, over the bound of %d", len(p.Endpoints), runner.MaxSandboxEndpoints)}
	}
	pl := plan{Temp: p.Temp, Home: home, MinABI: minABI}
	for _, e := range p.Endpoints {
		if why := e.Check(); why != "" {
			return plan{}, &PolicyError{fmt.Sprintf("endpoint %s: %s", e, why)}
		}
		if !slices.Contains(pl.Endpoints, e.String()) {
			pl.Endpoints = append(pl.Endpoints, e.String())
		}
	}
	pl.Write = dedupe(append(append(slices.Clone(p.Write), p.State...), p.Temp))
	pl.Protect = dedupe(slices.Clone(p.Protect))
	hide := slices.Clone(p.Hide)
	hide = append(hide, runner.CredentialFolders(home)...)
	// The shared temporary folders and the person's runtime folder hold other programs' sockets (a
	// terminal multiplexer's, the session bus, an agent's): Landlock below ABI 9 does not stop a
	// connect(2) to a named socket, so they are hidden. The step's own temporary folder is TMPDIR.
	hide = append(hide, "/tmp", "/var/tmp", "/run/screen", fmt.Sprintf("/run/user/%d", os.Getuid()))
	pl.Hide = dedupe(hide)
	for _, w := range pl.Write {
		// A writable root inside a hidden folder is shown (the lane's worktree in the run's folder); one
		// the policy hides itself cannot be both.
		if slices.Contains(p.Hide, w) {
			return plan{}, &PolicyError{fmt.Sprintf("%s is both writable and hidden", w)}
		}
	}
	pl.Show = dedupe(append(slices.Clone(p.Show), pl.Write...))
	return pl, nil
}

// within reports whether path is root or lies below it.
func within(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

func dedupe(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// Off is the receipt of a step the person ran unconfined.
func Off() runner.Sandbox {
	return runner.Sandbox{Kind: runner.SandboxOff, Writable: []string{}, Hidden: []string{}, Network: []string{}, Refused: []string{}}
}
