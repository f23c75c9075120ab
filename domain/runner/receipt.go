package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
)

// commitPattern is a full commit id, as git prints it (SHA-1 or SHA-256).
var commitPattern = pattern.New(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Policy is what a step's CLI may do, by role: reviewers and the auditor read; the implementer edits
// and runs commands, each command checked by abcd's guard first.
type Policy string

const (
	PolicyRead      Policy = "read"
	PolicyImplement Policy = "implement"
)

// PolicyFor is a role's policy: the implementer's is implement, every other role's read.
func PolicyFor(r review.Role) Policy {
	if r == review.Implementer {
		return PolicyImplement
	}
	return PolicyRead
}

// Outcomes of a step.
const (
	Completed = "completed"
	Failed    = "failed"
)

// Bounds of a receipt's texts.
const (
	MaxDetailBytes    = 400
	maxReceiptWord    = 200
	MaxModelsReported = 16
)

// Receipt is what one step on a runner did, recorded beside the step whatever its outcome. Every
// field is always present; a count the CLI does not report is 0, with Usage.Reported and CostReported
// saying whether the figures are the CLI's.
type Receipt struct {
	// Runner is the runner's name; CLI the CLI it drives and CLIVersion the version that ran.
	Runner     string `json:"runner" jsonschema:"minLength=1,maxLength=32"`
	CLI        Kind   `json:"cli"`
	CLIVersion string `json:"cli_version" jsonschema:"maxLength=20"`
	// ModelAsked is the model the CLI was asked for ("": its own default); ModelsReported the models
	// its events named, in order (a CLI that names none leaves it empty).
	ModelAsked     string   `json:"model_asked" jsonschema:"maxLength=200"`
	ModelsReported []string `json:"models_reported" jsonschema:"maxItems=16"`
	SessionID      string   `json:"session_id" jsonschema:"maxLength=200"`
	// TerminalEvent is the terminal event's type as the CLI wrote it (result, turn.completed,
	// turn.failed), "" when none came; TerminalReason its subtype or status as written.
	TerminalEvent  string `json:"terminal_event" jsonschema:"maxLength=200"`
	TerminalReason string `json:"terminal_reason" jsonschema:"maxLength=200"`
	// Outcome is completed only on the CLI's explicit, successful terminal event.
	Outcome string `json:"outcome"`
	// Cause is why a failed step failed ("" when it completed); Reason the fallback reason it falls
	// under; Detail abcd's own words, scrubbed and bounded.
	Cause  Cause  `json:"cause"`
	Reason Reason `json:"reason"`
	Detail string `json:"detail" jsonschema:"maxLength=400"`
	// ExitCode is the CLI's exit status, recorded beside the outcome and never deciding it; -1 when it
	// did not exit by itself (Signal then names the signal that ended it, if one did).
	ExitCode   int    `json:"exit_code" jsonschema:"minimum=-1,maximum=255"`
	Signal     string `json:"signal" jsonschema:"maxLength=16"`
	DurationMS int64  `json:"duration_ms" jsonschema:"minimum=0"`
	// Turns are the model turns, ToolCalls the distinct tool calls, PermissionDenials the calls the
	// CLI's permissions refused, APIRetries the API retries it reported, UnknownEvents the events of a
	// type abcd does not know (counted, never fatal unless terminal).
	Turns             int `json:"turns" jsonschema:"minimum=0"`
	ToolCalls         int `json:"tool_calls" jsonschema:"minimum=0"`
	PermissionDenials int `json:"permission_denials" jsonschema:"minimum=0"`
	APIRetries        int `json:"api_retries" jsonschema:"minimum=0"`
	UnknownEvents     int `json:"unknown_events" jsonschema:"minimum=0"`
	// CostUSD is what the step cost in US dollars, and CostSource where that figure came from: the
	// CLI's report (CostReported), the runner's prices, or none (unmetered, unknown: then 0).
	CostUSD      float64    `json:"cost_usd" jsonschema:"minimum=0"`
	CostReported bool       `json:"cost_reported"`
	CostSource   CostSource `json:"cost_source"`
	Usage        Usage      `json:"usage"`
	// SchemaEnforced is true when the CLI itself held the answer to its schema (Claude's
	// --json-schema, Codex's --output-schema); false when abcd checks the answer alone, or none was
	// asked for.
	SchemaEnforced bool `json:"schema_enforced"`
	// Commits are the commits abcd made from the step's work (the loop's; empty for a reviewer).
	Commits []string `json:"commits" jsonschema:"maxItems=200,uniqueItems=true"`
	// Leftovers name the processes the step started that abcd could not end once it was over (a kill
	// refused, a process still there after SIGKILL), each with why, at most 8 and a count of the rest;
	// absent when none was left.
	Leftovers []string `json:"leftovers,omitempty" jsonschema:"maxItems=9"`
	// Sandbox is the fence the CLI ran in (adapters/sandbox), or off when the person turned it off for
	// this runner; absent only on a step the loop asked no fence for.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	// Asks are what an ACP agent asked of abcd and what abcd answered, in order: each permission it
	// asked for and the guard's verdict, each file it read or wrote and each command it ran through
	// abcd, at most MaxAsks, and AsksMore counts the rest; absent for every other CLI.
	Asks     []Ask `json:"asks,omitempty" jsonschema:"maxItems=64"`
	AsksMore int   `json:"asks_more,omitempty" jsonschema:"minimum=0"`
}

// MaxAsks bounds the questions a receipt records.
const MaxAsks = 64

// Ask is one request an ACP agent made of abcd, and abcd's answer.
type Ask struct {
	// Method is the request as the protocol names it (session/request_permission, fs/write_text_file,
	// terminal/create, ...); CallID the tool call it was about, when it named one.
	Method string `json:"method" jsonschema:"minLength=1,maxLength=200"`
	CallID string `json:"call_id" jsonschema:"maxLength=200"`
	// What is what it asked for in one line: the command, the path, the tool call's kind and title.
	What string `json:"what" jsonschema:"maxLength=400"`
	// Answer is abcd's: a permission allowed or rejected once, an operation done or refused.
	Answer AskAnswer `json:"answer"`
	// Why is abcd's reason: the guard's rule and words, or the bound the operation broke.
	Why string `json:"why" jsonschema:"maxLength=400"`
}

// AskAnswer is abcd's answer to an agent's request: a closed set. Never an "always": every permission
// is asked again.
type AskAnswer string

const (
	AnswerAllowOnce  AskAnswer = "allow_once"
	AnswerRejectOnce AskAnswer = "reject_once"
	AnswerDone       AskAnswer = "done"
	AnswerRefused    AskAnswer = "refused"
)

func (AskAnswer) SchemaEnum() contract.Rule {
	return contract.Enum(AnswerAllowOnce, AnswerRejectOnce, AnswerDone, AnswerRefused)
}

// Reason is a fallback reason on a receipt: one of review.FallbackReasons, or "" for a completed step.
type Reason string

// SchemaEnum: a receipt's reason is one of review.FallbackReasons, or empty when the step completed.
func (Reason) SchemaEnum() contract.Rule {
	enum := []Reason{""}
	for _, r := range review.FallbackReasons() {
		enum = append(enum, Reason(r))
	}
	return contract.Enum(enum...)
}

// Usage is the tokens a CLI reported, when Reported: input and output as it counts them, the input
// it read from its prompt cache (CachedInput) and wrote to it (CacheWrite).
type Usage struct {
	Input       int64 `json:"input" jsonschema:"minimum=0"`
	Output      int64 `json:"output" jsonschema:"minimum=0"`
	CachedInput int64 `json:"cached_input" jsonschema:"minimum=0"`
	CacheWrite  int64 `json:"cache_write" jsonschema:"minimum=0"`
	Reported    bool  `json:"reported"`
}

// Outcome is a step's whole result: its receipt, and what the CLI answered when it completed.
type Outcome struct {
	Receipt Receipt
	// Final is the CLI's final message, scrubbed; Structured the answer in its schema when one was
	// asked for and the CLI gave it (nil otherwise).
	Final      string
	Structured json.RawMessage
	// Failure is nil exactly when Receipt.Outcome is completed.
	Failure *Failure
}

// Fail records f on the outcome: the receipt's cause, reason and detail (made one plain line,
// bounded), and outcome failed. The first failure stands; a later one is not recorded over it.
func (o *Outcome) Fail(f *Failure) {
	if o.Failure != nil || f == nil {
		return
	}
	f.Detail = Plain(f.Detail)
	o.Failure = f
	o.Receipt.Outcome, o.Receipt.Cause, o.Receipt.Reason, o.Receipt.Detail = Failed, f.Cause, Reason(f.Cause.Reason()), f.Detail
}

// Plain makes a detail one plain line of at most MaxDetailBytes: control characters become spaces,
// and an address's scheme separator is broken so no detail reads as a URL.
func Plain(s string) string {
	s = strings.ToValidUTF8(s, "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || text.Hidden(r) != "" {
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "://", ": //")
	if len(s) > MaxDetailBytes {
		cut := MaxDetailBytes - len("…")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// Check names every field of a receipt that breaks its rules, or returns nil: a completed receipt has
// no cause and a terminal event; a failed one a cause and its reason; every text within its bound and
// one plain line; no detail holding an address.
func (r Receipt) Check() error {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if r.Runner == "" || len(r.Runner) > 32 {
		add("runner is empty or longer than 32 bytes")
	}
	if !r.CLI.Valid() {
		add("cli %q is not a CLI abcd knows", text.Clip(string(r.CLI)))
	}
	if r.CLIVersion != "" {
		if _, ok := ParseVersion(r.CLIVersion); !ok {
			add("cli_version %q is not major.minor.patch", text.Clip(r.CLIVersion))
		}
	}
	if r.ModelAsked != "" && !config.ValidModelID(r.ModelAsked) {
		add("model_asked %q is not a model id", text.Clip(r.ModelAsked))
	}
	if len(r.ModelsReported) > MaxModelsReported {
		add("models_reported holds %d models, over %d", len(r.ModelsReported), MaxModelsReported)
	}
	for _, w := range append([]string{r.SessionID, r.TerminalEvent, r.TerminalReason, r.Signal}, r.ModelsReported...) {
		if len(w) > maxReceiptWord || text.LineProblem(w) != "" {
			add("%q is longer than %d bytes or holds a control character", text.Clip(w), maxReceiptWord)
		}
	}
	switch r.Outcome {
	case Completed:
		if r.Cause != "" || r.Reason != "" {
			add("a completed step has no cause or reason")
		}
		if r.TerminalEvent == "" {
			add("a completed step names its terminal event")
		}
	case Failed:
		if !r.Cause.Valid() {
			add("cause %q is not one of the causes", text.Clip(string(r.Cause)))
		} else if r.Reason != Reason(r.Cause.Reason()) {
			add("reason %q is not the reason cause %s falls under (%s)", text.Clip(string(r.Reason)), r.Cause, r.Cause.Reason())
		}
	default:
		add("outcome %q is neither %s nor %s", text.Clip(r.Outcome), Completed, Failed)
	}
	if len(r.Detail) > MaxDetailBytes || strings.ContainsFunc(r.Detail, unicode.IsControl) || strings.Contains(r.Detail, "://") {
		add("detail is longer than %d bytes, holds a control character, or holds an address", MaxDetailBytes)
	}
	if r.ExitCode < -1 || r.ExitCode > 255 {
		add("exit_code %d is outside -1 to 255", r.ExitCode)
	}
	for _, n := range []int{r.Turns, r.ToolCalls, r.PermissionDenials, r.APIRetries, r.UnknownEvents} {
		if n < 0 {
			add("a count is negative")
		}
	}
	p = append(p, r.costProblems()...)
	if len(r.Commits) > review.MaxCommits {
		add("commits lists %d, over %d", len(r.Commits), review.MaxCommits)
	}
	seen := map[string]bool{}
	for _, c := range r.Commits {
		if !commitPattern.MatchString(c) || seen[c] {
			add("commit %q is not a full commit id (40 or 64 lowercase hex), or is listed twice", text.Clip(c))
		}
		seen[c] = true
	}
	if r.Sandbox != nil {
		p = append(p, r.Sandbox.problems()...)
	}
	p = append(p, r.askProblems()...)
	if len(p) > 0 {
		return fmt.Errorf("the runner receipt: %s", strings.Join(p, "; "))
	}
	return nil
}

// costProblems names what breaks the rules of a receipt's time, tokens and cost.
func (r Receipt) costProblems() []string {
	var p []string
	if r.DurationMS < 0 || r.CostUSD < 0 || r.Usage.Input < 0 || r.Usage.Output < 0 || r.Usage.CachedInput < 0 || r.Usage.CacheWrite < 0 {
		p = append(p, "a duration, cost or token count is negative")
	}
	if r.CostSource != "" && !r.CostSource.Valid() {
		p = append(p, fmt.Sprintf("cost_source %q is not one of the sources", text.Clip(string(r.CostSource))))
	}
	if (r.CostSource == CostUnmetered || r.CostSource == CostUnknown) && r.CostUSD != 0 {
		p = append(p, fmt.Sprintf("an %s cost is 0", r.CostSource))
	}
	return p
}

// askProblems names what breaks the rules of a receipt's asks.
func (r Receipt) askProblems() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if len(r.Asks) > MaxAsks || r.AsksMore < 0 {
		add("asks holds %d, over %d, or asks_more is negative", len(r.Asks), MaxAsks)
	}
	for _, a := range r.Asks {
		switch {
		case a.Method == "" || len(a.Method) > maxReceiptWord || len(a.CallID) > maxReceiptWord:
			add("an ask's method is empty, or its method or call id longer than %d bytes", maxReceiptWord)
		case len(a.What) > MaxDetailBytes || len(a.Why) > MaxDetailBytes:
			add("an ask's what or why is longer than %d bytes", MaxDetailBytes)
		case text.LineProblem(a.Method+a.CallID+a.What+a.Why) != "":
			add("an ask holds a control character")
		}
		switch a.Answer {
		case AnswerAllowOnce, AnswerRejectOnce, AnswerDone, AnswerRefused:
		default:
			add("an ask's answer %q is not one abcd gives", text.Clip(string(a.Answer)))
		}
	}
	return p
}

func (Receipt) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"outcome": contract.Enum(Completed, Failed)}
}
