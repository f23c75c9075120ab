// Package acp drives any agent that speaks the Agent Client Protocol (JSON-RPC 2.0 over stdio: Gemini
// CLI --acp, the Claude Code and Codex adapters) as a runner, with abcd as its client. abcd keeps
// approval and execution: every permission the agent asks for is answered from abcd's guard, allow
// once or reject once, never always; the agent reads and writes files through abcd, inside its
// worktree, and runs commands through abcd, inside the step's fence. A step completes only on the
// prompt's stopReason end_turn; every other end, and anything the protocol does not allow (a line
// that is not one of its messages, an answer to a request abcd never made), fails closed.
//
// The protocol is written here by hand over the adapter's bounded line reader and the strict JSON
// reader, not with github.com/coder/acp-go-sdk: docs/architecture.md says why.
package acp

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/abcd-dev/abcd/adapters/runner"
	domain "github.com/abcd-dev/abcd/domain/runner"
)

// ReadVerbs are abcd's own verbs a step's agent may call over MCP: what reads the record (a spec, an
// intent, an issue, a decision), which the lane's worktree holds and the fence shows. None writes. The
// run's status (implement_status, status) is not among them: the agent starts the catalog inside its
// fence, which hides the run's state (.abcd/.work.local) and the person's machine configuration, so
// there they would answer "no run" and the step's private home, not the truth; the step's brief
// already says what the agent needs of the run (its lane, its step, its round).
func ReadVerbs() []string {
	return []string{"spec_show", "intent_show", "issue_show", "decision_show"}
}

// Dialect is the ACP runner.
type Dialect struct {
	// Self is abcd's own executable, which serves the step's catalog (abcd mcp serve); "" hands the
	// agent no catalog.
	Self string
	// Schema reads a published schema by name (<verb>.input), for the catalog's tool definitions.
	Schema func(name string) ([]byte, bool, error)
}

var _ runner.Conversant = Dialect{}

func (Dialect) Kind() domain.Kind { return domain.ACP }

// Invocation is the agent's own command line: the runner's arguments and nothing of abcd's, which
// speaks to it over stdin instead.
func (Dialect) Invocation(in runner.Invocation) (runner.Command, error) {
	return runner.Command{Args: slices.Clone(in.Args)}, nil
}

// Flags are none: an ACP agent's command line is the person's, and its --help is not read.
func (Dialect) Flags() []string { return []string{} }
func (Dialect) Help() []string  { return nil }

// NewParser is never used: a conversing step reads through its Session.
func (Dialect) NewParser() runner.Parser { return refuse{} }

// ExitCause: the protocol names no exit codes.
func (Dialect) ExitCause(int) domain.Cause { return "" }

type refuse struct{}

func (refuse) Event([]byte) (runner.Event, error) {
	return runner.Event{}, errors.New("an ACP agent is read through its session")
}

// Catalog is abcd's own MCP server for the step's folder, offering the read verbs alone, each with its
// published input schema.
func (d Dialect) Catalog(dir string) ([]domain.MCPServer, error) {
	if d.Self == "" || d.Schema == nil || dir == "" {
		return nil, nil
	}
	s := domain.MCPServer{Name: "abcd", Command: d.Self, Args: []string{"mcp", "serve", "--repo", dir}}
	for _, v := range ReadVerbs() {
		s.Args = append(s.Args, "--tool", v)
		schema, ok, err := d.Schema(v + ".input")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errors.New("abcd publishes no input schema for " + v)
		}
		s.Tools = append(s.Tools, domain.MCPTool{Name: v, Description: "abcd " + v + " (read only)", InputSchema: json.RawMessage(schema)})
	}
	return []domain.MCPServer{s}, nil
}

// Converse begins a step's session.
func (Dialect) Converse(c runner.Conversation) runner.Session { return newSession(c) }
