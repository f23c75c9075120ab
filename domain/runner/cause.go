package runner

import (
	"fmt"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
)

// Cause is why a runner's step did not complete: a closed vocabulary, recorded on the step's receipt
// beside the fallback reason it falls under. Every failure of the route has exactly one.
type Cause string

const (
	// Before the CLI starts.
	CauseUnsupported Cause = "unsupported" // the CLI is one abcd cannot drive (Kind.Unsupported)
	CauseExecutable  Cause = "executable"  // the executable is missing, not a regular file, or not executable
	CauseVersion     Cause = "version"     // its --version is outside the range abcd knows
	CauseFlags       Cause = "flags"       // its --help lacks a flag abcd passes, or it refused one
	CauseCredentials Cause = "credentials" // a variable credential_env names is unset
	CauseCatalog     Cause = "catalog"     // the step's tool catalog breaks a bound (a CatalogError)
	CausePrompt      Cause = "prompt"      // the prompt file cannot be handed over (missing, too large)
	CauseSpawn       Cause = "spawn"       // the process could not be started
	CauseRepoConfig  Cause = "repo_config" // the folder carries the CLI's own configuration, which it would load
	// The fence around the CLI could not be built on this machine (the detail names what is missing):
	// the step is never run unconfined in its place.
	CauseSandboxUnavailable Cause = "sandbox_unavailable"
	// As the CLI starts: it did not load the settings abcd gave it (abcd's start-up hook never answered
	// before the CLI's work began, or an MCP server abcd handed it did not start), so its guard hook
	// cannot be trusted to run either. The step is refused before its work counts.
	CauseSettingsIgnored Cause = "settings_ignored"

	// What the CLI reported in its terminal event, or in the events before it.
	CauseAuth       Cause = "auth"        // the vendor's API refused the credentials
	CauseRateLimit  Cause = "rate_limit"  // the vendor's API limited the rate or the quota
	CauseModel      Cause = "model"       // the model asked for is unknown or unavailable
	CauseMaxTurns   Cause = "max_turns"   // the turn bound was reached (the CLI's or abcd's count)
	CauseBudget     Cause = "budget"      // the spending bound was reached
	CauseAPIError   Cause = "api_error"   // another error from the vendor's API
	CauseAPIRetries Cause = "api_retries" // the CLI retried its API more often than the bound allows
	CauseCLIError   Cause = "cli_error"   // the CLI ended the step with an error of its own
	CauseSchema     Cause = "schema"      // the answer does not fit the schema it was asked in
	// An ACP agent's turn ended on a stop reason other than end_turn (max_turn_requests is max_turns).
	CauseMaxTokens Cause = "max_tokens" // the model reached its token limit
	CauseRefusal   Cause = "refusal"    // the agent refused to go on
	CauseCancelled Cause = "cancelled"  // the agent cancelled the turn, abcd having asked nothing of the kind

	// The stream broke the protocol: the step fails closed.
	CauseNoTerminal       Cause = "no_terminal_event"     // the stream ended with no terminal event
	CauseSecondTerminal   Cause = "second_terminal_event" // a terminal event came twice
	CauseBadLine          Cause = "bad_line"              // a line that is not one JSON object (an ANSI escape, text, a cut line)
	CauseLineTooLong      Cause = "line_too_long"         // a line over MaxLineBytes
	CauseStreamTooLong    Cause = "stream_too_long"       // a stream over MaxStreamBytes
	CauseOpenToolCall     Cause = "open_tool_call"        // a tool call still open at the terminal event
	CauseToolCallConflict Cause = "tool_call_conflict"    // a tool-call id reused with other content
	CauseToolCallLimit    Cause = "tool_call_limit"       // more tool calls than a step may hold

	// Bounds on time.
	CauseFirstEvent Cause = "first_event_timeout" // no event within the first-event bound
	CauseSilence    Cause = "silence_timeout"     // no event within the silence bound
	CauseWallClock  Cause = "wall_clock_timeout"  // the step took longer than its wall-clock bound

	// After a completed step, what abcd verifies (the loop's).
	CauseNoChanges    Cause = "no_changes"           // the implementer left nothing to commit
	CauseRefsMoved    Cause = "refs_moved"           // HEAD or a ref moved during the step
	CauseHooksChanged Cause = "hooks_changed"        // .git's hooks or config changed during the step
	CausePathEscape   Cause = "path_escape"          // a change names a path outside the worktree
	CauseGuardedPath  Cause = "guarded_path_changed" // a changed path is one the guard's write rules block (the guard file, a harness's settings)
	// The step's change carries a credential abcd holds (in any spelling the scrubber knows), or is
	// too large to be scanned for one: abcd commits none of it.
	CauseCredentialInChange Cause = "credential_in_change"
	CauseDoDFailed          Cause = "dod_failed" // the definition of done failed on the step's work

	// The person ended it.
	CauseInterrupted Cause = "interrupted" // Ctrl-C, SIGTERM, or the caller's deadline
)

// Causes lists every cause, in the order a step meets them.
func Causes() []Cause {
	return []Cause{CauseUnsupported, CauseExecutable, CauseVersion, CauseFlags, CauseCredentials, CauseCatalog, CausePrompt, CauseSpawn, CauseRepoConfig, CauseSandboxUnavailable,
		CauseSettingsIgnored,
		CauseAuth, CauseRateLimit, CauseModel, CauseMaxTurns, CauseBudget, CauseAPIError, CauseAPIRetries, CauseCLIError, CauseSchema,
		CauseMaxTokens, CauseRefusal, CauseCancelled,
		CauseNoTerminal, CauseSecondTerminal, CauseBadLine, CauseLineTooLong, CauseStreamTooLong, CauseOpenToolCall, CauseToolCallConflict, CauseToolCallLimit,
		CauseFirstEvent, CauseSilence, CauseWallClock,
		CauseNoChanges, CauseRefsMoved, CauseHooksChanged, CausePathEscape, CauseGuardedPath, CauseCredentialInChange, CauseDoDFailed,
		CauseInterrupted}
}

// SchemaEnum: a receipt's cause is one of Causes, or empty when the step completed.
func (Cause) SchemaEnum() contract.Rule { return contract.Enum(append([]Cause{""}, Causes()...)...) }

// Valid reports whether c is one of Causes.
func (c Cause) Valid() bool {
	for _, x := range Causes() {
		if c == x {
			return true
		}
	}
	return false
}

// Reason is the fallback reason a cause falls under, so a runner's failure reads as every other
// route's does.
func (c Cause) Reason() review.FallbackReason {
	switch c {
	case CauseUnsupported, CauseExecutable:
		return review.Absent
	case CauseAPIRetries:
		return review.Unreachable
	case CauseFirstEvent, CauseSilence, CauseWallClock:
		return review.Timeout
	case CauseAuth, CauseRateLimit, CauseModel, CauseMaxTurns, CauseBudget, CauseAPIError, CauseCLIError, CauseMaxTokens, CauseRefusal, CauseCancelled:
		return review.Refused
	case CauseNoTerminal, CauseSecondTerminal, CauseBadLine, CauseOpenToolCall, CauseToolCallConflict:
		return review.Unparsable
	case CauseLineTooLong, CauseStreamTooLong, CauseToolCallLimit, CauseSchema,
		CauseNoChanges, CauseRefsMoved, CauseHooksChanged, CausePathEscape, CauseGuardedPath, CauseCredentialInChange, CauseDoDFailed:
		return review.Invalid
	case CauseVersion, CauseFlags, CauseCredentials, CauseCatalog, CausePrompt, CauseSpawn, CauseRepoConfig, CauseSandboxUnavailable, CauseSettingsIgnored:
		return review.Failed
	case CauseInterrupted:
		return review.Interrupted
	}
	return review.Failed
}

// Protocol reports whether the cause is the stream breaking the rules a step is read by: the step
// failed closed, whatever the CLI's exit code said.
func (c Cause) Protocol() bool {
	switch c {
	case CauseNoTerminal, CauseSecondTerminal, CauseBadLine, CauseLineTooLong, CauseStreamTooLong, CauseOpenToolCall, CauseToolCallConflict, CauseToolCallLimit:
		return true
	}
	return false
}

// sentences say each cause in plain words, without a trailing period.
var sentences = map[Cause]string{
	CauseUnsupported:        "abcd cannot drive this CLI",
	CauseExecutable:         "the runner's executable is missing or cannot be run",
	CauseVersion:            "the CLI's version is outside the range abcd knows",
	CauseFlags:              "the CLI no longer takes a flag abcd passes",
	CauseCredentials:        "a credential variable the runner names is not set",
	CauseCatalog:            "the step's tool catalog is beyond its bounds",
	CausePrompt:             "the step's prompt could not be handed to the CLI",
	CauseSpawn:              "the CLI could not be started",
	CauseRepoConfig:         "the folder carries the CLI's own configuration, which the CLI would load",
	CauseSandboxUnavailable: "the sandbox abcd runs the CLI in cannot be built on this machine",
	CauseSettingsIgnored:    "the CLI did not load the settings abcd gave it (its guard hook, its MCP servers)",
	CauseAuth:               "the vendor's API refused the credentials",
	CauseRateLimit:          "the vendor's API limited the rate or the quota",
	CauseModel:              "the model asked for is unknown or unavailable",
	CauseMaxTurns:           "the step reached its turn bound",
	CauseBudget:             "the step reached its spending bound",
	CauseAPIError:           "the vendor's API answered with an error",
	CauseAPIRetries:         "the CLI retried its API more often than the runner allows",
	CauseCLIError:           "the CLI ended the step with an error",
	CauseSchema:             "the answer does not fit the schema it was asked in",
	CauseMaxTokens:          "the agent's model reached its token limit",
	CauseRefusal:            "the agent refused to go on",
	CauseCancelled:          "the agent cancelled its turn",
	CauseNoTerminal:         "the CLI's stream ended with no terminal event",
	CauseSecondTerminal:     "the CLI's stream held a second terminal event",
	CauseBadLine:            "the CLI printed a line that is not one JSON event",
	CauseLineTooLong:        "the CLI printed a line longer than a line may be",
	CauseStreamTooLong:      "the CLI's stream grew longer than a stream may be",
	CauseOpenToolCall:       "a tool call was still open when the CLI ended",
	CauseToolCallConflict:   "the CLI reused a tool call's id for another call",
	CauseToolCallLimit:      "the CLI made more tool calls than a step may hold",
	CauseFirstEvent:         "the CLI printed no event within the first-event bound",
	CauseSilence:            "the CLI printed no event within the silence bound",
	CauseWallClock:          "the step took longer than its wall-clock bound",
	CauseNoChanges:          "the implementer left no change to commit",
	CauseRefsMoved:          "HEAD or a ref moved while the step ran",
	CauseHooksChanged:       "git's hooks or configuration changed while the step ran",
	CausePathEscape:         "a change names a path outside the worktree",
	CauseGuardedPath:        "the step changed a path the guard's write rules block",
	CauseCredentialInChange: "the step's change carries a credential abcd holds, or is too large to be shown not to",
	CauseDoDFailed:          "the definition of done failed on the step's work",
	CauseInterrupted:        "the step was interrupted",
}

// Sentence says the cause in plain words, without a trailing period.
func (c Cause) Sentence() string {
	if s, ok := sentences[c]; ok {
		return s
	}
	return fmt.Sprintf("the step failed (cause %q)", text.Clip(string(c)))
}

// Failure is a step that did not complete: its cause and abcd's own words for it (scrubbed, bounded,
// never an address).
type Failure struct {
	Cause  Cause
	Detail string
}

func (f *Failure) Error() string { return string(f.Cause) + ": " + f.Detail }

// Failf is a failure with its detail.
func Failf(c Cause, format string, args ...any) *Failure {
	return &Failure{Cause: c, Detail: fmt.Sprintf(format, args...)}
}
