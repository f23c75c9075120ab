// Package runner drives headless coding-agent CLIs for the runner route (ports.Runners). What every
// CLI shares is written here once: the process (executed directly, stdin from the prompt file, its own
// process group, an allowlisted environment), the bounded line reader, the bounds on time, turns and
// retries, the tool-call ledger's rule and the scrubbing of what the CLI says. What differs lives in
// one folder per CLI (claude/, codex/, gemini/): its flags, its events and its terminal rule, as a
// Dialect.
package runner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/runner"
)

// Dialect is one CLI: how it is invoked, and how its stream reads. A step completes only on the
// terminal event the dialect's parser reports after the CLI's handshake, never on an exit code, EOF,
// silence or a timer.
type Dialect interface {
	Kind() runner.Kind
	// Invocation is the command line for a step (without the executable), the files the CLI is
	// handed (written 0600 into the step's private folder before it starts), and the environment the
	// CLI needs beside the allowlist. It never puts the prompt in argv. An error that is a
	// *runner.Failure is the step's cause; any other is the cause flags (a step abcd cannot express).
	Invocation(in Invocation) (Command, error)
	// Flags are every flag Invocation may pass, checked against the CLI's --help before a run.
	Flags() []string
	// Help is the argument list that prints the help naming Flags (["--help"], or ["exec", "--help"]).
	Help() []string
	// NewParser reads one step's stream.
	NewParser() Parser
	// ExitCause is the cause an exit code says when the stream ended with no terminal event, for a CLI
	// that documents its exit codes ("" when the code says nothing more). The step has failed either
	// way: this only names why.
	ExitCause(code int) runner.Cause
}

// Invocation is what a dialect builds a command line from.
type Invocation struct {
	// Dir is the CLI's working folder; Private a folder of the step's own (0700) where the files of
	// Command.Files are written, and which is removed after the step.
	Dir, Private string
	Policy       runner.Policy
	Model        string
	Limits       runner.Limits
	// SchemaFile is the path (in Private) of the answer's JSON Schema, and Schema its bytes; both empty
	// when no schema is asked for.
	SchemaFile string
	Schema     []byte
	// Catalog is the step's checked MCP catalog (empty when it hands the CLI none).
	Catalog runner.Catalog
	// Guard is the command the CLI runs before each shell command (abcd guard hook), for the
	// implementer; the dialect wires it where its CLI can.
	Guard []string
	// Probe is true for the proving call of a preflight: one reply, no tools.
	Probe bool
	// Fenced is true when the CLI runs inside abcd's fence (adapters/sandbox): a sandbox of the CLI's
	// own inside it cannot make the user namespace it needs, and abcd's fence holds what it would.
	Fenced bool
	// Home is the settings home abcd gives the CLI (0700, inside Private): HOME and the CLI's own
	// configuration variable point there (runner.Kind.HomeEnv), and Command.HomeFiles are written
	// into it. It is never the person's home.
	Home string
	// Nonce is the step's proof that the CLI loaded abcd's settings: abcd's start-up hook (StartHook),
	// which the dialect puts in those settings, says it when the CLI starts, and the step counts only
	// once the CLI's stream (Event.Loaded) or the hook's marker (Command.Marker) shows it.
	Nonce string
	// Env is the environment the CLI is given before the dialect's own variables (the allowlist and
	// the runner's variables, by name), and CredentialEnv the names among them that hold credentials:
	// read to shape the CLI's settings (where its API is, how it authenticates), never put in argv.
	Env           map[string]string
	CredentialEnv []string
	// Args are the runner's own arguments (an ACP agent's --acp): only a conversing CLI has any.
	Args []string
}

// Command is a dialect's invocation.
type Command struct {
	Args []string
	// Env is set in the CLI's environment over the allowlist (the CLI's own settings: its retry bound,
	// where it reads abcd's settings from).
	Env map[string]string
	// Files are written into the private folder before the CLI starts, by name, 0600; HomeFiles into
	// the settings home, by a path relative to it (folders made 0700).
	Files     map[string][]byte
	HomeFiles map[string][]byte
	// SchemaEnforced is true when the CLI itself holds the answer to the schema.
	SchemaEnforced bool
	// Marker is the file, inside the settings home, abcd's start-up hook writes the nonce to, for a CLI
	// whose stream cannot show the hook ran (Codex); "" when the stream shows it (Event.Loaded). The
	// step reads it when the CLI's work begins.
	Marker string
	// StderrRefusals are words by which the CLI says on stderr alone that it did not load part of
	// abcd's settings (Gemini CLI's for an MCP server that did not start): a step whose stderr holds
	// one does not count.
	StderrRefusals []string
}

// Parser reads one step's stream, one event at a time. Every line handed to Event is one JSON
// object, already checked (no key twice, valid UTF-8).
type Parser interface {
	Event(line []byte) (Event, error)
}

// Event is what one line of a CLI's stream means, in terms every CLI shares.
type Event struct {
	// Type is the event's type as the CLI wrote it; Known is false for a type the dialect does not
	// know (counted, never fatal).
	Type  string
	Known bool
	// Handshake is set on the event the CLI starts its stream with, which names its session (Claude
	// Code's system/init, Codex's thread.started, Gemini CLI's init): no terminal event before it
	// completes a step.
	Handshake bool
	// Session is the CLI's session or thread id, when the event names one; Models the models it names.
	Session string
	Models  []string
	// Turn is true when the event starts a model turn.
	Turn bool
	// Opened are tool calls the event starts; Closed results it gives; Whole calls it reports done in
	// one event.
	Opened []Call
	Closed []Call
	Whole  []Call
	// Retries are API retries the event reports; RetryStatus the HTTP status of the last (0 unknown).
	Retries     int
	RetryStatus int
	// Denials are tool calls the CLI's permissions refused.
	Denials int
	// Note is an error the CLI printed in a non-terminal event, kept for a failure's detail.
	Note string
	// Doing are lines of what the CLI is doing that the event tells, for the step's progress (an ACP
	// agent's tool calls, plan and messages); scrubbed and bounded by the step.
	Doing []string
	// Loaded is what the event reports abcd's start-up hook said (Claude Code's SessionStart hook
	// response, Gemini CLI's hook context before the prompt): the step's proof that the CLI loaded
	// abcd's settings when it holds the step's nonce.
	Loaded string
	// Version is the version the CLI's handshake named (an ACP agent's protocol, as major.0.0).
	Version string
	// Servers are the MCP servers the CLI reports it started, by name, with their status
	// ("connected"), where it reports them (Claude Code's init); nil where it does not.
	Servers map[string]string
	// Terminal is set on the CLI's authoritative terminal event.
	Terminal *Terminal
}

// Call is one tool call in the ledger: its id, and what it is (Content) or what it gave (Result).
type Call struct {
	ID      string
	Content []byte
	Result  []byte
}

// Terminal is what a terminal event said.
type Terminal struct {
	// Event is its type and Reason its subtype or status, as written.
	Event, Reason string
	// Failure is nil when the CLI says the step succeeded; otherwise its cause and the CLI's words.
	Failure *runner.Failure
	// Final is the final message; Structured the answer in its schema, when the CLI held it to one.
	Final      string
	Structured json.RawMessage
	// Turns the CLI counted (0 when it does not say); the other figures when Reported.
	Turns        int
	CostUSD      float64
	CostReported bool
	Usage        runner.Usage
	Denials      int
	Models       []string
	Session      string
}

// ErrEvent is returned by a parser for a line that is a JSON object but not one the CLI's protocol
// allows (a known type without the members it must carry): the step fails closed as a bad line.
type ErrEvent struct{ Msg string }

func (e *ErrEvent) Error() string { return e.Msg }

// BareSchema is a published schema without the members that name it ($schema, $id): Claude Code's
// validator does not know draft 2020-12's meta-schema and refuses a schema that names it, and neither
// member says anything about the answer.
func BareSchema(schema []byte) ([]byte, error) {
	var s map[string]json.RawMessage
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the answer's schema is not a JSON object: %w", err)
	}
	delete(s, "$schema")
	delete(s, "$id")
	return json.Marshal(s)
}

// ShellWords quotes argv for the shell a CLI runs a hook's command with (every CLI runs hook commands
// through sh): a word of safe characters as it is, any other in single quotes.
func ShellWords(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// StartHook is the command of abcd's start-up hook, which each dialect puts in the settings it gives
// its CLI as the hook the CLI runs when a session starts (SessionStart in all three). abcd's guard
// answers the start-up event first, so the hook that checks every command is proven to run where the
// CLI runs its hooks (a guard that cannot be started there fails a tool's hook open in some CLIs);
// then the hook says the step's nonce: as the session's added context, which Claude Code and Gemini
// CLI show in their streams, or, given a marker, into that file, for a CLI whose stream shows no hook.
// With no guard (a build that names none, for a reviewer) it says the nonce alone.
func StartHook(guard []string, nonce, marker string) string {
	say := "printf '%s\\n' " + ShellWords([]string{StartContext(nonce)})
	if marker != "" {
		say = "umask 077 && printf '%s' " + ShellWords([]string{nonce}) + " > " + ShellWords([]string{marker})
	}
	if len(guard) == 0 {
		return say
	}
	return ShellWords(guard) + " >/dev/null && " + say
}

// StartContext is what abcd's start-up hook prints: the session's added context, in the answer
// format Claude Code, Codex and Gemini CLI share for SessionStart, naming the nonce.
func StartContext(nonce string) string {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": "SessionStart",
		"additionalContext": "abcd started this session with its own settings (" + nonce + ")."}})
	return string(b) // a map of strings always encodes
}

// NonNil is s, or an empty list for nil (a CLI's configuration wants [] where a JSON null would be
// refused).
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
