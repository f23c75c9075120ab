package ports

import (
	"context"

	"github.com/abcd-dev/abcd/domain/runner"
)

// ---- The runner route (issue 23) ----

// Runners drives the headless coding-agent CLIs this machine configures (adapters/runner): one step
// at a time, each in its own process group, bounded, decided only by the CLI's explicit terminal
// event. Every text it returns is scrubbed of the credentials the step held.
//
// A step runs outside the run's lock, as a RepoPrompt or provider review does. A ctx ended by the
// person (SIGINT, SIGTERM) or by a shorter deadline ends the process group and is the cause
// interrupted; no process the step started outlives Step.
type Runners interface {
	// Step runs one step and returns its outcome: completed only on the CLI's successful terminal
	// event, else failed with its cause. An error is a fault of the adapter itself (the loop records
	// it as the fallback reason failed); everything the CLI or its inputs did wrong is a Failure.
	Step(ctx context.Context, req RunnerStep) (runner.Outcome, error)
	// Check is the preflight abcd ahoy connect runs, and the loop before a run starts: the executable
	// is a regular, executable file; --version is in the range abcd knows; --help offers every flag
	// abcd will pass; and, with Prove, one small bounded call answers with the credentials. Failure
	// names the first check that failed (cause executable, version, flags, credentials, or the
	// proving call's own cause).
	Check(ctx context.Context, req RunnerCheck) (RunnerReport, error)
}

// RunnerStep is one step on a runner: everything the CLI is handed, decided before it starts.
type RunnerStep struct {
	// Runner is the configured runner (its CLI, executable, variables, limits).
	Runner runner.Runner
	// Dir is where the CLI works: the lane's worktree for the implementer, a folder holding nothing of
	// the repository's for a reviewer whose request is whole in its prompt.
	Dir string
	// PromptFile holds the prompt; the CLI reads it on stdin, opened read-only (never a pipe left
	// open, never a terminal).
	PromptFile string
	// Policy is what the CLI may do: read (reviewers, the auditor) or implement (edit, and run
	// commands each checked by abcd's guard first).
	Policy runner.Policy
	// Model is the model asked for ("": the CLI's own default).
	Model string
	// Limits bound the step (usually Runner.Limits).
	Limits runner.Limits
	// Schema, when set, is the JSON Schema the final answer must fit (a reviewer's review_reply): the
	// CLI is held to it where it can be (Claude's --json-schema, Codex's --output-schema), and the
	// receipt says whether it was.
	Schema []byte
	// MCP are the MCP servers the step hands the CLI, and the only tools of them it may call: a
	// request-scoped catalog, checked against its bounds before the CLI starts (a CatalogError is the
	// cause catalog). Nothing else is loaded: not the repository's .mcp.json, not the person's own.
	MCP []runner.MCPServer
	// Scrub are further credentials abcd holds (a provider's key, say), taken out of everything the
	// step returns beside the runner's own credential variables.
	Scrub []string
	// Waiting, when set, is called once if the step must wait for one of the runner's slots (every
	// one of its concurrency is taken, by this process or another). Started, when set, is called once
	// with the process group's id as soon as the CLI runs, so the caller can record which process is
	// taking the step.
	Waiting func()
	Started func(pgid int)
	// Doing, when set, is called as the CLI works with one plain line of what it is doing (a tool
	// call begun or ended, its plan, a message it said, a question abcd answered), scrubbed of the
	// step's credentials, at most MaxDoing a step: for the person watching, never part of a result.
	Doing func(line string)
	// Sandbox is the fence the CLI and every process it starts run in (SandboxPolicy). nil runs the
	// step as before the fence existed, unconfined and with no sandbox on its receipt: the loop passes
	// one for every step (Off when the runner's block says "sandbox": "off").
	Sandbox *SandboxPolicy
}

// MaxDoing bounds the lines of what a CLI is doing that one step reports; the last says how many
// more there were not.
const MaxDoing = 200

// RunnerCheck is a preflight of one CLI.
type RunnerCheck struct {
	// Runner names the CLI and its executable (empty: the CLI's command found on abcd's PATH), and
	// the variables a proving call is given.
	Runner runner.Runner
	// Prove makes one small, bounded call through the CLI with its credentials (abcd ahoy connect);
	// without it nothing reaches the vendor's API.
	Prove bool
	// Model is the model the proving call asks for ("": the CLI's default).
	Model string
	// Sandbox is the fence the proving call runs in, as a reviewer's step would (no writable root):
	// connect proves the sandbox with the call. nil runs it unconfined.
	Sandbox *SandboxPolicy
}

// RunnerReport is what a preflight found.
type RunnerReport struct {
	// Executable is the absolute path checked: the one given, or the one found on PATH.
	Executable string
	// Version is the version the CLI printed, when it printed one abcd reads.
	Version string
	// Flags are the flags abcd will pass that --help was checked for.
	Flags []string
	// ModelReported is the model the proving call named, when it ran and the CLI says.
	ModelReported string
	// Failure is the first check that failed; nil when every check passed.
	Failure *runner.Failure
	// Sandbox is the fence the proving call ran in (off when the runner runs unconfined); nil when no
	// proving call was made or it asked for none.
	Sandbox *runner.Sandbox
}

// Progress hears what a verb that drives a run for a long time (implement run) is doing, one event
// at a time, as it happens: the CLI writes each to stderr, MCP sends each as a progress notification
// to a client that asked for them. It is never a result: the verb's result says the whole story.
type Progress interface {
	Event(ProgressEvent)
}

// ProgressEvent is one thing that happened.
type ProgressEvent struct {
	// Run, Lane, Role and Route say what it is about ("" where none applies).
	Run, Lane, Role, Route string
	// Kind is what happened: started (a route took a step), waiting (for one of a runner's slots),
	// running (its CLI runs, PGID its process group), doing (a line of what its CLI is doing, as it
	// does it), answered, fell-back, did (a line of what a step did), and the driver's own: round,
	// host (what is left for the host), done.
	Kind string
	// Text is the event in one line.
	Text string
	PGID int
	// Done and Total count the run's lanes that are over and all its lanes, for a progress bar.
	Done, Total int
	// USD and Cost are what a step cost, on its answered and fell-back events: the US dollars of a
	// runner's settled receipt and where that figure came from (runner.CostSource); Cost is "" when no
	// runner's receipt came back (a provider or RepoPrompt route, a step the budget kept from
	// starting), so what the step cost is not known here.
	USD  float64
	Cost runner.CostSource
}

type progressKey struct{}

// WithProgress is ctx carrying the progress one invocation reports to (an MCP call that asked for
// progress notifications: each call its own, though one App serves them all).
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf is the progress ctx carries; nil when none.
func ProgressOf(ctx context.Context) Progress {
	p, _ := ctx.Value(progressKey{}).(Progress)
	return p
}

// ---- The fence (issue 31) ----

// SandboxPolicy is what the loop asks of the fence around one step's process tree (adapters/sandbox):
// what it may write, what it may not read, where it may connect. Paths are absolute. Whatever the
// policy says, the person's credential folders under the step's HOME (runner.CredentialFolders), the
// shared temporary folders (/tmp, /var/tmp, the person's /run/user folder) and the step's own
// environment beyond its allowlist stay out of reach, and the step gains no privilege.
type SandboxPolicy struct {
	// Off runs the step unconfined, as the runner's block asks with "sandbox": "off"; its receipt says
	// so. The rest of the policy is then not read.
	Off bool
	// Role is the step's agent (implementer, ruthless-reviewer, security-reviewer, intent-auditor),
	// SandboxRoleDoD for the definition of done, or SandboxRoleConnect for connect's proving call: only
	// the implementer and the definition of done may be given a writable root.
	Role string
	// Write are the roots the step may write: the lane's worktree for the implementer and the
	// definition of done, nothing for the others.
	Write []string
	// Protect are paths inside Write the step may read but never write, remove or replace (the
	// worktree's .git: abcd commits).
	Protect []string
	// Hide are folders and files the step may not read: the run's folder, the other lanes' worktrees,
	// $ABCD_HOME. Each is shown to the step as empty.
	Hide []string
	// Show are paths inside a hidden folder the step may read all the same (the lane's worktree inside
	// the run's folder, a reviewer's; $ABCD_HOME/config.json for abcd's guard hook). A root of Write,
	// State or Temp inside a hidden folder is shown, and writable, without being named here.
	Show []string
	// Endpoints are the only destinations the step may connect to. nil gives a runner's step its
	// runner's own: the base URLs its CLI is passed (a *_BASE_URL variable of its block), else its
	// vendor's API (Kind.VendorEndpoints); an empty list gives none. A loopback endpoint is reached at
	// the same address; any other through abcd's proxy (HTTPS_PROXY, CONNECT only: https).
	Endpoints []runner.Endpoint
	// Temp is the step's private temporary folder (TMPDIR), writable; "" has the adapter make one per
	// step and remove it after.
	Temp string
	// State are the CLI's own state folders it may write (the folder abcd points CLAUDE_CONFIG_DIR,
	// CODEX_HOME or the CLI's HOME at).
	State []string
}

// Roles a fence is asked for beside the build loop's agents.
const (
	SandboxRoleImplementer = "implementer"
	SandboxRoleDoD         = "dod"
	SandboxRoleConnect     = "connect"
)
