// Package gemini is Gemini CLI's dialect for the runner route: `gemini --output-format stream-json`,
// the prompt on stdin, abcd's settings as the user settings of the home abcd gives it (GEMINI_CLI_HOME;
// Gemini CLI reads a system settings file only when root owns it and every folder above it, so
// abcd's were skipped, without a word on the stream, for every other user and anywhere under /tmp),
// proven loaded by abcd's start-up hook, whose answer Gemini CLI puts before the prompt in its first
// user message; its policy engine and approval mode per role, abcd's guard as the BeforeTool hook of
// every shell command and file write, and the one `result` line as the authoritative end of a step.
package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
)

// GuardMatcher is the BeforeTool matcher of the guard's hook: the implementer's shell commands and
// the files its tools write (write_file, replace), as the guard checks them in a person's session.
const GuardMatcher = "run_shell_command|write_file|replace"

// Dialect is Gemini CLI.
type Dialect struct{}

var _ runner.Dialect = Dialect{}

func (Dialect) Kind() domain.Kind { return domain.Gemini }

func (Dialect) Help() []string { return []string{"--help"} }

// Flags are every flag Invocation passes.
func (Dialect) Flags() []string {
	return []string{"--output-format", "--approval-mode", "--policy", "--allowed-mcp-server-names", "--model"}
}

// noServer is the MCP server name allowed when a step hands the CLI none: no server has it, so none
// of the person's own is started.
const noServer = "abcd-no-server"

// Invocation builds the command line. Headless Gemini CLI runs only in a trusted folder, and a
// trusted folder's .gemini/ (its settings, hooks, MCP servers, policies) is loaded over the user's:
// so a folder that carries one is refused, and abcd trusts only folders that carry none. abcd's
// settings are the user settings of the home it gives the CLI; only a system settings file the
// machine's administrator owns is read over them.
func (Dialect) Invocation(in runner.Invocation) (runner.Command, error) {
	if _, err := os.Lstat(filepath.Join(in.Dir, ".gemini")); err == nil {
		return runner.Command{}, domain.Failf(domain.CauseRepoConfig, "the folder holds .gemini/, which Gemini CLI loads in the trusted folder it needs to run headless (its settings, hooks and MCP servers); abcd runs Gemini CLI only in a folder that carries none")
	} else if !errors.Is(err, fs.ErrNotExist) {
		return runner.Command{}, err
	}
	settings := map[string]any{
		// The folder's .env would set the CLI's variables (its API's address among them).
		"advanced":  map[string]any{"ignoreLocalEnv": true},
		"security":  map[string]any{"folderTrust": map[string]any{"enabled": true}},
		"model":     map[string]any{"maxSessionTurns": in.Limits.Turns},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		// abcd's start-up hook runs for every step: its answer opens the first user message.
		"hooks": map[string]any{"SessionStart": []any{map[string]any{"matcher": "*",
			"hooks": []any{map[string]any{"type": "command", "command": runner.StartHook(in.Guard, in.Nonce, ""), "timeout": 10000}}}}},
	}
	if in.Env["GEMINI_API_KEY"] != "" {
		// The home abcd gives the CLI has no sign-in of the person's; with a base URL set, Gemini CLI
		// would take the gateway's sign-in, which its headless mode refuses.
		settings["security"] = map[string]any{"folderTrust": map[string]any{"enabled": true}, "auth": map[string]any{"selectedType": "gemini-api-key"}}
	}
	mode := "plan"
	args := []string{"--output-format=stream-json"}
	files := map[string][]byte{}
	switch {
	case in.Probe || in.Policy == domain.PolicyRead:
		if len(in.Catalog.Servers) > 0 {
			// Plan mode, which keeps a reviewer to reading, offers the model no MCP tool: a catalog
			// handed over would be dropped without a word.
			return runner.Command{}, domain.Failf(domain.CauseCatalog, "Gemini CLI's read-only (plan) mode offers no MCP tools, so a reviewer's catalog cannot reach it")
		}
	case in.Policy == domain.PolicyImplement:
		if len(in.Guard) == 0 {
			return runner.Command{}, fmt.Errorf("the implementer's shell commands need abcd's guard, and this build names no guard command")
		}
		mode = "auto_edit"
		settings["hooks"].(map[string]any)["BeforeTool"] = []any{map[string]any{"matcher": GuardMatcher,
			"hooks": []any{map[string]any{"type": "command", "command": runner.ShellWords(in.Guard), "timeout": 10000}}}}
		// Headless Gemini CLI denies what would ask; the policy lets shell commands run, each one past
		// the guard's hook first.
		files["policy.toml"] = []byte("[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 500\n")
		args = append(args, "--policy="+filepath.Join(in.Private, "policy.toml"))
	default:
		return runner.Command{}, fmt.Errorf("policy %q is not one abcd knows", in.Policy)
	}
	names := []string{noServer}
	servers := map[string]any{}
	for _, s := range in.Catalog.Servers {
		var tools []string
		for _, t := range s.Tools {
			tools = append(tools, t.Name)
		}
		servers[s.Name] = map[string]any{"command": s.Command, "args": runner.NonNil(s.Args), "includeTools": tools, "trust": false}
		names = append(names, s.Name)
	}
	if len(servers) > 0 {
		settings["mcpServers"] = servers
		names = names[1:]
	}
	args = append(args, "--approval-mode="+mode, "--allowed-mcp-server-names="+strings.Join(names, ","))
	if in.Model != "" {
		args = append(args, "--model="+in.Model)
	}
	set, err := json.Marshal(settings)
	if err != nil {
		return runner.Command{}, err
	}
	cmd := runner.Command{Args: args, Files: files, HomeFiles: map[string][]byte{filepath.Join(".gemini", "settings.json"): set},
		Env: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}}
	if len(servers) > 0 {
		// Gemini CLI says an MCP server did not start on its stderr alone.
		cmd.StderrRefusals = []string{MCPIssues}
	}
	return cmd, nil
}

// MCPIssues is what Gemini CLI prints on stderr when an MCP server it was given did not start.
const MCPIssues = "MCP issues detected"

// ExitCause reads Gemini CLI's documented exit codes, and an API error's HTTP status, which it exits
// with modulo 256, for a stream that ended without its result.
func (Dialect) ExitCause(code int) domain.Cause {
	switch code {
	case 41, 401 % 256, 403 % 256:
		return domain.CauseAuth
	case 42, 52, 55:
		return domain.CauseFlags
	case 53:
		return domain.CauseMaxTurns
	case 54:
		return domain.CauseCLIError
	case 429 % 256:
		return domain.CauseRateLimit
	case 404 % 256:
		return domain.CauseModel
	}
	return ""
}

// NewParser reads one step's stream.
func (Dialect) NewParser() runner.Parser { return &parser{waiting: true} }

type parser struct {
	answer  strings.Builder // the assistant's text since its last tool call
	talking bool            // the assistant is answering in text
	waiting bool            // the model has the floor: its next output starts a turn
}

type event struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"`
	Output     json.RawMessage `json:"output"`
	Error      json.RawMessage `json:"error"`
	Severity   string          `json:"severity"`
	Message    string          `json:"message"`
	Stats      *stats          `json:"stats"`
}

type stats struct {
	InputTokens  int64                      `json:"input_tokens"`
	OutputTokens int64                      `json:"output_tokens"`
	Cached       int64                      `json:"cached"`
	Models       map[string]json.RawMessage `json:"models"`
}

type errorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

var known = []string{"init", "message", "tool_use", "tool_result", "error", "result"}

func (p *parser) Event(line []byte) (runner.Event, error) {
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		return runner.Event{Type: "?"}, &runner.ErrEvent{Msg: "its members are not of the types Gemini CLI writes"}
	}
	ev := runner.Event{Type: e.Type, Known: slices.Contains(known, e.Type)}
	switch e.Type {
	case "":
		return ev, &runner.ErrEvent{Msg: "it has no type"}
	case "init":
		ev.Handshake = true
		ev.Session = e.SessionID
		if e.Model != "" && e.Model != "auto" {
			ev.Models = []string{e.Model}
		}
	case "message":
		if e.Role == "user" {
			ev.Loaded = hookContext(e.Content)
		}
		if e.Role == "assistant" {
			if !p.talking {
				p.talking = true
				p.answer.Reset()
			}
			ev.Turn, p.waiting = p.waiting, false
			p.answer.WriteString(e.Content)
		}
	case "tool_use":
		p.talking = false
		ev.Turn, p.waiting = p.waiting, false
		ev.Opened = []runner.Call{{ID: e.ToolID, Content: append([]byte(e.ToolName+"\x00"), e.Parameters...)}}
	case "tool_result":
		p.talking, p.waiting = false, true
		var eb errorBody
		if len(e.Error) > 0 && json.Unmarshal(e.Error, &eb) == nil && eb.Type == "policy_violation" {
			ev.Denials = 1
		}
		ev.Closed = []runner.Call{{ID: e.ToolID, Result: append(append([]byte(e.Status+"\x00"), e.Output...), e.Error...)}}
	case "error":
		ev.Note = e.Message
	case "result":
		t, err := p.terminal(e)
		if err != nil {
			return ev, err
		}
		ev.Terminal = t
	}
	return ev, nil
}

// hookContext is the context session-start hooks added, which Gemini CLI puts at the head of the
// first user message: "<hook_context>...</hook_context>" before the prompt ("" when there is none).
func hookContext(content string) string {
	rest, ok := strings.CutPrefix(content, "<hook_context>")
	if !ok {
		return ""
	}
	ctx, _, ok := strings.Cut(rest, "</hook_context>")
	if !ok {
		return ""
	}
	return ctx
}

func (p *parser) terminal(e event) (*runner.Terminal, error) {
	if e.Status == "" {
		return nil, &runner.ErrEvent{Msg: "a result event lacks its status"}
	}
	t := &runner.Terminal{Event: "result", Reason: e.Status, Final: p.answer.String()}
	if e.Stats != nil {
		// Gemini counts the cached input within input_tokens: the receipt's input is what was read
		// afresh, so a price per token charges each token once.
		t.Usage = domain.Usage{Input: max(e.Stats.InputTokens-e.Stats.Cached, 0), Output: e.Stats.OutputTokens, CachedInput: e.Stats.Cached, Reported: true}
		for m := range e.Stats.Models {
			t.Models = append(t.Models, m)
		}
		slices.Sort(t.Models)
	}
	if e.Status == "success" {
		return t, nil
	}
	var eb errorBody
	_ = json.Unmarshal(e.Error, &eb) // a result whose error does not read still failed
	t.Failure = failure(e.Status, eb)
	return t, nil
}

// statusPattern is compiled on first use: abcd starts on every hook call, and most never read a stream.
var statusPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(4\d\d|5\d\d)\b`) })

// failure classifies a result that did not succeed by its error's type, status and words.
func failure(status string, eb errorBody) *domain.Failure {
	low := strings.ToLower(eb.Type + " " + eb.Message)
	code := 0
	if m := statusPattern().FindStringSubmatch(eb.Message); m != nil {
		code, _ = strconv.Atoi(m[1])
	}
	cause := domain.CauseCLIError
	switch {
	case code == 401 || code == 403 || strings.Contains(low, "api_key_invalid") || strings.Contains(low, "api key not valid") || strings.Contains(low, "unauthenticated") || strings.Contains(low, "permission_denied"):
		cause = domain.CauseAuth
	case code == 429 || strings.Contains(low, "resource_exhausted") || strings.Contains(low, "quota") || strings.Contains(low, "rate limit"):
		cause = domain.CauseRateLimit
	case code == 404 || strings.Contains(low, "model") && strings.Contains(low, "not found"):
		cause = domain.CauseModel
	case strings.Contains(low, "turn") && strings.Contains(low, "limit") || strings.Contains(low, "max session turns"):
		cause = domain.CauseMaxTurns
	case code >= 400 || strings.Contains(low, "api error"):
		cause = domain.CauseAPIError
	}
	words := eb.Message
	if words == "" {
		words = "with no message"
	}
	return domain.Failf(cause, "Gemini CLI ended with result %s (%s): %s", status, eb.Type, words)
}
