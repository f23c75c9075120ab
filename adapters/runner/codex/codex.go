// Package codex is Codex CLI's dialect for the runner route: `codex exec --json`, the prompt on stdin,
// its OS sandbox (read-only for reviewers, workspace-write for the implementer, whose shell commands
// also pass abcd's guard as a PreToolUse hook; none inside abcd's fence, which holds the same), abcd's
// own MCP servers and hooks only (Codex's stream shows no hook: abcd's start-up hook proves they
// loaded by writing the step's nonce to a marker in Codex's home; each MCP server is required, so
// Codex starts no thread without it), and turn.completed or turn.failed as the authoritative end of
// a step.
package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
)

// GuardMatcher is the PreToolUse matcher of the guard's hook: the implementer's shell commands, its
// file edits (apply_patch, whose patch the guard reads file by file) and what it would type into a
// running command (write_stdin, read as a command line). Codex 0.171 sends the hook for the first
// two only; the interactive sessions write_stdin types into are switched off (noTTY below).
const GuardMatcher = "Bash|apply_patch|write_stdin"

// Dialect is Codex CLI.
type Dialect struct{}

var _ runner.Dialect = Dialect{}

func (Dialect) Kind() domain.Kind { return domain.Codex }

// Help prints exec's flags.
func (Dialect) Help() []string { return []string{"exec", "--help"} }

// Flags are every flag Invocation passes.
func (Dialect) Flags() []string {
	return []string{"--json", "--color", "--skip-git-repo-check", "--ephemeral", "--ignore-rules", "--sandbox", "--config",
		"--dangerously-bypass-hook-trust", "--model", "--output-schema"}
}

// Invocation builds `codex exec`. Project configuration is never trusted (no --trust: an untrusted
// project's .codex is not loaded), the rules files are ignored, and what the person's own
// configuration sets for MCP servers and hooks is replaced by abcd's (none, or the step's catalog and
// the guard).
func (Dialect) Invocation(in runner.Invocation) (runner.Command, error) {
	sandbox := "read-only"
	marker := ""
	if in.Home != "" {
		marker = filepath.Join(in.Home, ".codex", Marker)
	}
	// abcd's start-up hook runs for every step; Codex runs it before its first model request.
	hooks := `SessionStart=[{hooks=[{type="command",command=` + str(runner.StartHook(in.Guard, in.Nonce, marker)) + `,timeout=10}]}]`
	switch {
	case in.Probe || in.Policy == domain.PolicyRead:
	case in.Policy == domain.PolicyImplement:
		if len(in.Guard) == 0 {
			return runner.Command{}, fmt.Errorf("the implementer's shell commands need abcd's guard, and this build names no guard command")
		}
		sandbox = "workspace-write"
		hooks = `PreToolUse=[{matcher=` + str(GuardMatcher) + `,hooks=[{type="command",command=` + str(runner.ShellWords(in.Guard)) + `,timeout=10}]}],` + hooks
	default:
		return runner.Command{}, fmt.Errorf("policy %q is not one abcd knows", in.Policy)
	}
	if in.Fenced {
		// Inside abcd's fence Codex's own sandbox (bubblewrap) cannot map its user namespace, and every
		// command it wraps fails; the fence holds the writes (none for a reviewer) and the network.
		sandbox = "danger-full-access"
	}
	var servers []string
	for _, s := range in.Catalog.Servers {
		var tools []string
		for _, t := range s.Tools {
			tools = append(tools, str(t.Name))
		}
		var args []string
		for _, a := range s.Args {
			args = append(args, str(a))
		}
		// Required: a server that does not start ends Codex before its thread, rather than being left
		// out in silence (which Codex does with any other).
		servers = append(servers, fmt.Sprintf("%s={command=%s,args=[%s],enabled_tools=[%s],required=true}", str(s.Name), str(s.Command), strings.Join(args, ","), strings.Join(tools, ",")))
	}
	args := []string{"exec", "--json", "--color=never", "--skip-git-repo-check", "--ephemeral", "--ignore-rules", "--sandbox=" + sandbox,
		"--config=mcp_servers={" + strings.Join(servers, ",") + "}", "--config=hooks={" + hooks + "}", `--config=web_search="disabled"`, noTTY,
		// The hooks enabled are abcd's, set just above over whatever a configuration holds (the home
		// abcd gives Codex holds none).
		"--dangerously-bypass-hook-trust"}
	if in.Model != "" {
		args = append(args, "--model="+in.Model)
	}
	if in.SchemaFile != "" {
		args = append(args, "--output-schema="+in.SchemaFile)
	}
	cmd := runner.Command{Args: args, SchemaEnforced: in.SchemaFile != "", Marker: marker}
	if conf := provider(in); conf != "" {
		cmd.HomeFiles = map[string][]byte{filepath.Join(".codex", "config.toml"): []byte(conf)}
	}
	return cmd, nil
}

// Marker is the file in Codex's home (CODEX_HOME) abcd's start-up hook writes the step's nonce to.
const Marker = "abcd-start-hook"

// provider is the configuration (config.toml in the home abcd gives Codex) naming Codex's model
// provider when the runner passes a base URL (OPENAI_BASE_URL): Codex reads none from its
// environment, and that home holds no configuration of the person's, so abcd names a provider of its
// own there, speaking the Responses API, its key from the runner's first credential variable,
// retrying no more than the step's bound. It is a file (0600), not a flag, so a base URL carrying a
// credential is in no command line. "" without one: Codex uses OpenAI's own.
func provider(in runner.Invocation) string {
	base := in.Env["OPENAI_BASE_URL"]
	if base == "" {
		return ""
	}
	conf := fmt.Sprintf("model_provider = \"abcd\"\n\n[model_providers.abcd]\nname = \"abcd: OPENAI_BASE_URL\"\nbase_url = %s\nwire_api = \"responses\"\nrequest_max_retries = %d\nstream_max_retries = %d\n",
		str(base), in.Limits.APIRetries, in.Limits.APIRetries)
	if len(in.CredentialEnv) > 0 {
		conf += "env_key = " + str(in.CredentialEnv[0]) + "\n"
	}
	return conf
}

// noTTY switches off Codex's terminal sessions: with one, the model starts a shell (exec_command with
// tty) and types commands into it with write_stdin, which no hook sees. Without it a command's stdin
// is closed, so write_stdin has nothing to type into.
const noTTY = "--config=features.unified_exec_tty=false"

// str is a TOML basic string.
func str(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes; JSON's escapes are TOML's, as used here
	return strings.TrimSuffix(b.String(), "\n")
}

// ExitCause: Codex exits 1 for every failure, so its code names none.
func (Dialect) ExitCause(int) domain.Cause { return "" }

// NewParser reads one step's stream.
func (Dialect) NewParser() runner.Parser { return &parser{open: map[string]bool{}, waiting: true} }

type parser struct {
	final   string          // the last agent message: the answer once the turn completes
	open    map[string]bool // calls that began with item.started
	waiting bool            // the model has the floor: its next item starts a model turn
}

type event struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     *item           `json:"item"`
	Usage    *usage          `json:"usage"`
	Error    json.RawMessage `json:"error"`
	Message  string          `json:"message"`
}

type item struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Text   string `json:"text"`
	Status string `json:"status"`
}

type usage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
}

// known are the event types of 0.16x and 0.17x; any other is counted, and is never terminal.
var known = []string{"thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed",
	"error", "request_user_input", "item.plan.delta"}

// calls are the item types that are tool calls: opened when started, closed when completed.
var calls = []string{"command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call"}

// identity is what stays the same in a call's item from its start to its end.
var identity = []string{"command", "server", "tool", "arguments", "query", "changes", "tool_name"}

// reconnect is compiled on first use: abcd starts on every hook call, and most never read a stream.
var reconnect = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Reconnecting\.\.\. \d+/\d+`) })

func (p *parser) Event(line []byte) (runner.Event, error) {
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		return runner.Event{Type: "?"}, &runner.ErrEvent{Msg: "its members are not of the types Codex writes"}
	}
	ev := runner.Event{Type: e.Type, Known: slices.Contains(known, e.Type)}
	if e.Type == "" {
		return ev, &runner.ErrEvent{Msg: "it has no type"}
	}
	switch e.Type {
	case "thread.started":
		ev.Handshake = true
		ev.Session = e.ThreadID
	case "item.started", "item.updated", "item.completed":
		if e.Item == nil || e.Item.ID == "" || e.Item.Type == "" {
			return ev, &runner.ErrEvent{Msg: "an item event carries no item with an id and a type"}
		}
		var whole map[string]json.RawMessage
		if err := json.Unmarshal(line, &struct {
			Item *map[string]json.RawMessage `json:"item"`
		}{&whole}); err != nil {
			return ev, &runner.ErrEvent{Msg: "its item is not an object"}
		}
		p.item(&ev, e.Type, *e.Item, whole)
	case "error":
		ev.Note = e.Message
		if reconnect().MatchString(e.Message) {
			ev.Retries = 1
			ev.RetryStatus = status(e.Message)
		}
	case "turn.completed":
		t := &runner.Terminal{Event: e.Type, Reason: "completed", Final: p.final}
		if e.Usage != nil {
			// Codex counts the cached input within input_tokens (OpenAI's usage): the receipt's input
			// is what was read afresh, so a price per token charges each token once.
			t.Usage = domain.Usage{Input: max(e.Usage.InputTokens-e.Usage.CachedInputTokens, 0), Output: e.Usage.OutputTokens,
				CachedInput: e.Usage.CachedInputTokens, Reported: true}
		}
		ev.Terminal = t
	case "turn.failed":
		var fe struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(e.Error, &fe) // a turn.failed without its message still failed
		ev.Terminal = &runner.Terminal{Event: e.Type, Reason: "failed", Failure: failure(fe.Message)}
	}
	return ev, nil
}

func (p *parser) item(ev *runner.Event, typ string, it item, whole map[string]json.RawMessage) {
	// Codex's stream shows no model turns: one is counted where the model's output resumes, at the
	// first message or call after a call's result (or the turn's start).
	call := slices.Contains(calls, it.Type)
	resumes := call && (typ == "item.started" || typ == "item.completed" && !p.open[it.ID]) ||
		!call && typ == "item.completed" && (it.Type == "agent_message" || it.Type == "reasoning")
	if resumes {
		ev.Turn, p.waiting = p.waiting, false
	}
	if !call {
		if typ == "item.completed" && it.Type == "agent_message" {
			p.final = it.Text
		}
		if typ == "item.completed" && it.Type == "error" {
			var m struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(whole["message"], &m.Message)
			ev.Note = m.Message
		}
		return
	}
	content := []byte(it.Type)
	keys := make([]string, 0, len(identity))
	for _, k := range identity {
		if _, ok := whole[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		content = append(append(append(content, 0), k...), whole[k]...)
	}
	switch typ {
	case "item.started":
		p.open[it.ID] = true
		ev.Opened = append(ev.Opened, runner.Call{ID: it.ID, Content: content})
	case "item.completed":
		result := []byte(it.Status)
		for _, k := range []string{"exit_code", "aggregated_output", "result", "error"} {
			result = append(append(append(result, 0), k...), whole[k]...)
		}
		if it.Status == "declined" {
			ev.Denials = 1
		}
		// A call that began with item.started is closed by its completion; one reported only when
		// completed is taken whole.
		if p.open[it.ID] {
			ev.Closed = append(ev.Closed, runner.Call{ID: it.ID, Result: result})
		} else {
			ev.Whole = append(ev.Whole, runner.Call{ID: it.ID, Content: content, Result: result})
		}
		p.waiting = true
	}
}

// statusPattern is compiled on first use: abcd starts on every hook call, and most never read a stream.
var statusPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:status:? |status )(\d{3})\b`) })

// status is the HTTP status a Codex message names ("unexpected status 401", "last status: 429").
func status(msg string) int {
	if m := statusPattern().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// failure classifies a turn.failed by the status or words of its message.
func failure(msg string) *domain.Failure {
	low := strings.ToLower(msg)
	cause := domain.CauseCLIError
	switch st := status(msg); {
	case st == 401 || st == 403 || strings.Contains(low, "unauthorized") || strings.Contains(low, "invalid api key") || strings.Contains(low, "not logged in"):
		cause = domain.CauseAuth
	case st == 429 || strings.Contains(low, "too many requests") || strings.Contains(low, "rate limit") || strings.Contains(low, "quota"):
		cause = domain.CauseRateLimit
	case st == 404 || strings.Contains(low, "model") && (strings.Contains(low, "not found") || strings.Contains(low, "does not exist") || strings.Contains(low, "not supported")):
		cause = domain.CauseModel
	case st >= 500 || st >= 400 || strings.Contains(low, "high demand") || strings.Contains(low, "stream disconnected") || strings.Contains(low, "retry limit"):
		cause = domain.CauseAPIError
	}
	if msg == "" {
		msg = "with no message"
	}
	return domain.Failf(cause, "Codex's turn failed: %s", msg)
}
