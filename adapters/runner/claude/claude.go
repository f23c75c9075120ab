// Package claude is Claude Code's dialect for the runner route: `claude --print --output-format
// stream-json --verbose`, the prompt on stdin, abcd's own settings and MCP configuration only (proven
// loaded by abcd's start-up hook, whose answer Claude Code writes in its stream before its init, and
// by the MCP servers its init lists as connected), and the one `result` line as the authoritative end
// of a step.
package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
)

// Dialect is Claude Code.
type Dialect struct{}

var _ runner.Dialect = Dialect{}

func (Dialect) Kind() domain.Kind { return domain.Claude }

// Help prints the flags.
func (Dialect) Help() []string { return []string{"--help"} }

// Flags are every flag Invocation passes. --max-turns is not among them: 2.1.x no longer lists it,
// so abcd counts turns from the stream itself.
func (Dialect) Flags() []string {
	return []string{"--print", "--output-format", "--verbose", "--include-hook-events", "--input-format", "--no-session-persistence", "--restricted",
		"--strict-mcp-config", "--mcp-config", "--settings", "--permission-mode", "--permission-prompts", "--tools", "--allowedTools",
		"--model", "--json-schema", "--max-budget-usd"}
}

// Tools each policy is given. Reviewers read; the implementer also edits and runs commands, each
// Bash command and each file it writes checked by abcd's guard (the PreToolUse hook) before it runs,
// as the plugin's hook checks them in a person's session.
var (
	readTools      = []string{"Read", "Grep", "Glob"}
	implementTools = []string{"Read", "Grep", "Glob", "Edit", "Write", "NotebookEdit", "Bash"}
)

// GuardMatcher is the PreToolUse matcher of the guard's hook: every implementer tool that runs a
// command or writes a file.
const GuardMatcher = "Bash|Write|Edit|MultiEdit|NotebookEdit"

// Invocation builds the command line. Every value abcd passes is written --flag=value, so a value
// cannot be read as a flag and a variadic flag cannot swallow what follows.
func (Dialect) Invocation(in runner.Invocation) (runner.Command, error) {
	tools := readTools
	mode := "dontAsk"
	allowed := slices.Clone(in.Catalog.Allowed)
	// abcd's start-up hook runs for every step: its answer, in the stream before init, proves Claude
	// Code loaded these settings (a file that fails validation is ignored in silence in print mode).
	hooks := map[string]any{"SessionStart": []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": runner.StartHook(in.Guard, in.Nonce, ""), "timeout": 10}}}}}
	settings := map[string]any{"hooks": hooks}
	switch {
	case in.Probe:
		tools = nil
	case in.Policy == domain.PolicyImplement:
		if len(in.Guard) == 0 {
			return runner.Command{}, fmt.Errorf("the implementer's shell commands need abcd's guard, and this build names no guard command")
		}
		tools = implementTools
		mode = "acceptEdits"
		allowed = append(allowed, "Bash")
		hooks["PreToolUse"] = []any{map[string]any{"matcher": GuardMatcher,
			"hooks": []any{map[string]any{"type": "command", "command": runner.ShellWords(in.Guard), "timeout": 10}}}}
	case in.Policy != domain.PolicyRead:
		return runner.Command{}, fmt.Errorf("policy %q is not one abcd knows", in.Policy)
	}
	servers := map[string]any{}
	for _, s := range in.Catalog.Servers {
		servers[s.Name] = map[string]any{"type": "stdio", "command": s.Command, "args": runner.NonNil(s.Args)}
	}
	mcp, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		return runner.Command{}, err
	}
	set, err := json.Marshal(settings)
	if err != nil {
		return runner.Command{}, err
	}
	args := []string{"--print", "--output-format=stream-json", "--verbose", "--include-hook-events", "--input-format=text", "--no-session-persistence",
		"--restricted", "--strict-mcp-config", "--mcp-config=" + filepath.Join(in.Private, "mcp.json"),
		"--settings=" + filepath.Join(in.Private, "settings.json"), "--permission-mode=" + mode, "--permission-prompts=none",
		"--tools=" + strings.Join(tools, ","), "--allowedTools=" + strings.Join(allowed, ",")}
	if in.Model != "" {
		args = append(args, "--model="+in.Model)
	}
	if len(in.Schema) > 0 {
		schema, err := runner.BareSchema(in.Schema)
		if err != nil {
			return runner.Command{}, err
		}
		args = append(args, "--json-schema="+string(schema))
	}
	if in.Limits.BudgetUSD > 0 {
		args = append(args, "--max-budget-usd="+strconv.FormatFloat(in.Limits.BudgetUSD, 'f', -1, 64))
	}
	return runner.Command{
		Args:  args,
		Files: map[string][]byte{"mcp.json": mcp, "settings.json": set},
		Env: map[string]string{
			// Retries are bounded by abcd (a 401 or a 429 is otherwise retried ten times, minutes).
			"CLAUDE_CODE_MAX_RETRIES": strconv.Itoa(in.Limits.APIRetries),
			// A step checks for no update and sends no telemetry or error reports.
			"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		},
		SchemaEnforced: len(in.Schema) > 0,
	}, nil
}

// ExitCause: Claude Code's exit code says nothing a stream without a result can be classified by.
func (Dialect) ExitCause(int) domain.Cause { return "" }

// NewParser reads one step's stream.
func (Dialect) NewParser() runner.Parser { return &parser{messages: map[string]bool{}} }

type parser struct {
	messages map[string]bool // assistant message ids seen: a new id is a new turn
}

// Each event is decoded by its type, and only the members the parser reads are typed: another
// member of a type abcd does not expect (a system event's message text, say) is not its business.
// Keys are looked up, never read in order.

// head is what every event carries.
type head struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
}

// system is a system event: init names the model and the MCP servers started; api_retry the status it
// retries after; hook_response a hook's answer (--include-hook-events).
type system struct {
	Model       string          `json:"model"`
	ErrorStatus *int            `json:"error_status"`
	Error       json.RawMessage `json:"error"`
	MCPServers  []mcpServer     `json:"mcp_servers"`
	HookEvent   string          `json:"hook_event"`
	Stdout      string          `json:"stdout"`
	ExitCode    *int            `json:"exit_code"`
}

// mcpServer is an MCP server init lists, and whether it started.
type mcpServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// chat is an assistant or user event: its message, and an API error Claude Code met.
type chat struct {
	Message *message        `json:"message"`
	Error   json.RawMessage `json:"error"`
}

type message struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	// Content is a list of blocks, or (a user message Claude Code writes itself) plain text.
	Content json.RawMessage `json:"content"`
}

// blocks are a message's content blocks; text content holds none.
func (m *message) blocks() ([]content, error) {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || c[0] != '[' {
		return nil, nil
	}
	var out []content
	if err := json.Unmarshal(c, &out); err != nil {
		return nil, &runner.ErrEvent{Msg: "a message's content blocks are not of the types Claude Code writes (" + typeError(err) + ")"}
	}
	return out, nil
}

// content is a message's block; Content is a tool result's, kept as its JSON.
type content struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// result is the terminal event.
type result struct {
	head
	IsError           *bool                      `json:"is_error"`
	Result            *string                    `json:"result"`
	StructuredOutput  json.RawMessage            `json:"structured_output"`
	NumTurns          int                        `json:"num_turns"`
	TotalCostUSD      *float64                   `json:"total_cost_usd"`
	Usage             *usage                     `json:"usage"`
	ModelUsage        map[string]json.RawMessage `json:"modelUsage"`
	PermissionDenials []json.RawMessage          `json:"permission_denials"`
	TerminalReason    string                     `json:"terminal_reason"`
	APIErrorStatus    *int                       `json:"api_error_status"`
	Errors            []json.RawMessage          `json:"errors"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// known are the event types of 2.1.x the parser knows; any other is counted, and is never terminal.
var known = []string{"system", "assistant", "user", "result", "stream_event", "rate_limit_event", "tool_progress", "auth_status"}

// synthetic is the model Claude Code names on a message it made itself (an API error's text).
const synthetic = "<synthetic>"

// decode reads an event's members into v, naming the member a wrong type is about.
func decode(line []byte, v any) error {
	if err := json.Unmarshal(line, v); err != nil {
		return &runner.ErrEvent{Msg: "its members are not of the types Claude Code writes (" + typeError(err) + ")"}
	}
	return nil
}

func (p *parser) Event(line []byte) (runner.Event, error) {
	var h head
	if err := decode(line, &h); err != nil {
		return runner.Event{}, err
	}
	ev := runner.Event{Type: h.Type, Known: slices.Contains(known, h.Type), Session: h.SessionID}
	if h.Type == "" {
		return ev, &runner.ErrEvent{Msg: "it has no type"}
	}
	switch h.Type {
	case "system":
		if err := systemEvent(&ev, line, h.Subtype); err != nil {
			return ev, err
		}
	case "assistant", "user":
		var e chat
		if err := decode(line, &e); err != nil {
			return ev, err
		}
		if e.Message == nil {
			return ev, &runner.ErrEvent{Msg: "an " + h.Type + " event carries no message"}
		}
		blocks, err := e.Message.blocks()
		if err != nil {
			return ev, err
		}
		if h.Type == "user" {
			for _, c := range blocks {
				if c.Type == "tool_result" {
					ev.Closed = append(ev.Closed, runner.Call{ID: c.ToolUseID, Result: append([]byte(strconv.FormatBool(c.IsError)+"\x00"), c.Content...)})
				}
			}
			break
		}
		if m := e.Message.Model; m != "" && m != synthetic {
			ev.Models = []string{m}
		}
		if id := e.Message.ID; id != "" && !p.messages[id] {
			p.messages[id] = true
			ev.Turn = e.Message.Model != synthetic
		}
		if len(e.Error) > 0 && string(e.Error) != "null" {
			ev.Note = "the API said " + errorWord(e.Error, 0)
		}
		for _, c := range blocks {
			if c.Type == "tool_use" {
				ev.Opened = append(ev.Opened, runner.Call{ID: c.ID, Content: append([]byte(c.Name+"\x00"), c.Input...)})
			}
		}
	case "result":
		var e result
		if err := decode(line, &e); err != nil {
			return ev, err
		}
		t, err := terminal(e)
		if err != nil {
			return ev, err
		}
		ev.Terminal = t
	}
	return ev, nil
}

// systemEvent reads a system event: init names the model and the MCP servers started, api_retry a
// retry, permission_denied a denial, and a session-start hook's answer may prove abcd's settings.
func systemEvent(ev *runner.Event, line []byte, subtype string) error {
	var e system
	if err := decode(line, &e); err != nil {
		return err
	}
	switch subtype {
	case "init":
		ev.Handshake = true
		ev.Models = []string{e.Model}
		ev.Servers = map[string]string{}
		for _, m := range e.MCPServers {
			ev.Servers[m.Name] = m.Status
		}
	case "hook_response":
		// Only a session-start hook that exited 0 can prove abcd's settings loaded.
		if e.HookEvent == "SessionStart" && e.ExitCode != nil && *e.ExitCode == 0 {
			ev.Loaded = e.Stdout
		}
	case "api_retry":
		ev.Retries = 1
		if e.ErrorStatus != nil {
			ev.RetryStatus = *e.ErrorStatus
		}
		ev.Note = "the API answered " + errorWord(e.Error, ev.RetryStatus) + " and Claude Code retried"
	case "permission_denied":
		ev.Denials = 1
	}
	return nil
}

// terminal reads the result line: success only when its subtype is success, is_error is false, and
// (when 2.1.x says them) the terminal reason is completed and no API error status is set.
func terminal(e result) (*runner.Terminal, error) {
	if e.Subtype == "" || e.IsError == nil {
		return nil, &runner.ErrEvent{Msg: "a result event lacks its subtype or is_error"}
	}
	t := &runner.Terminal{Event: "result", Reason: e.Subtype, Turns: e.NumTurns, Session: e.SessionID, Denials: len(e.PermissionDenials)}
	if e.Result != nil {
		t.Final = *e.Result
	}
	if len(e.StructuredOutput) > 0 && string(e.StructuredOutput) != "null" {
		t.Structured = e.StructuredOutput
	}
	if e.TotalCostUSD != nil {
		t.CostUSD, t.CostReported = *e.TotalCostUSD, true
	}
	if e.Usage != nil {
		t.Usage = domain.Usage{Input: e.Usage.InputTokens, Output: e.Usage.OutputTokens, CachedInput: e.Usage.CacheReadInputTokens,
			CacheWrite: e.Usage.CacheCreationInputTokens, Reported: true}
	}
	for m := range e.ModelUsage {
		t.Models = append(t.Models, m)
	}
	slices.Sort(t.Models)
	status := 0
	if e.APIErrorStatus != nil {
		status = *e.APIErrorStatus
	}
	ok := e.Subtype == "success" && !*e.IsError && (e.TerminalReason == "" || e.TerminalReason == "completed") && status == 0
	if ok {
		return t, nil
	}
	words := firstError(e)
	cause := domain.CauseCLIError
	switch {
	case e.Subtype == "error_max_turns" || e.TerminalReason == "max_turns":
		cause = domain.CauseMaxTurns
	case e.Subtype == "error_max_budget_usd":
		cause = domain.CauseBudget
	case e.Subtype == "error_max_structured_output_retries" || e.TerminalReason == "structured_output_retry_exhausted":
		cause = domain.CauseSchema
	case status == 401 || status == 403:
		cause = domain.CauseAuth
	case status == 429:
		cause = domain.CauseRateLimit
	case status == 404:
		cause = domain.CauseModel
	case status != 0 || e.TerminalReason == "api_error" || e.TerminalReason == "model_error":
		cause = domain.CauseAPIError
	}
	detail := fmt.Sprintf("Claude Code ended with result %s", e.Subtype)
	if e.TerminalReason != "" {
		detail += ", terminal reason " + e.TerminalReason
	}
	if status != 0 {
		detail += fmt.Sprintf(", API status %d", status)
	}
	if words != "" {
		detail += ": " + words
	}
	t.Failure = domain.Failf(cause, "%s", detail)
	return t, nil
}

// typeError names the member a decoding error is about, never its value.
func typeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "member " + te.Field + " is not a " + te.Type.String()
	}
	return "it does not decode"
}

// firstError is the first of the result's errors, or its result text when it is an error's.
func firstError(e result) string {
	for _, raw := range e.Errors {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	if e.Result != nil && *e.IsError {
		return *e.Result
	}
	return ""
}

// errorWord is an error member's word (a string, or an object's type), else the status.
func errorWord(raw json.RawMessage, status int) string {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	var obj struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Type != "" {
		return obj.Type
	}
	return strconv.Itoa(status)
}
