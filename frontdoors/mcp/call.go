package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/verb"
)

// callTimeout bounds one tool call.
const callTimeout = 5 * time.Minute

// content is a text content block.
type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// callResult is a CallToolResult. structuredContent is the verb's result document as raw bytes, so
// it reaches the client exactly as `abcd <verb> --json` prints it.
type callResult struct {
	Content           []content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	modernFields
}

// callTool answers tools/call. An unknown tool or a malformed request is a protocol error; anything
// about the arguments, and every refusal and fault of the verb, is a tool result with isError.
func (s *Server) callTool(ctx context.Context, m *message, modern bool) (json.RawMessage, *rpcError) {
	name, ok := m.Params["name"].(string)
	if !ok {
		return nil, newError(codeInvalidParams, "Invalid params: tools/call needs params.name (a string)")
	}
	t, ok := s.byName[name]
	if !ok {
		return nil, newError(codeInvalidParams, "Unknown tool: "+text.Clip(name))
	}
	args := map[string]any{}
	if raw, present := m.Params["arguments"]; present {
		obj, isObject := raw.(map[string]any)
		if !isObject {
			return nil, newError(codeInvalidParams, "Invalid params: arguments must be an object")
		}
		args = obj
	}
	if m.ArgsErr != nil {
		return s.toolResult(s.refusalBytes(argsRefusal(name, m.ArgsErr)), true, modern)
	}
	// The verb's input types check every value as it is decoded, exactly as they do for the CLI, so
	// both doors refuse the same value the same way; the published inputSchema is generated from
	// those types and says what they say. That is the one validation path: the tests hold every
	// verb's generated input cases and every result, through both doors, to the published schemas
	// (docs/architecture.md, "The contract, checked in the tests").
	in, err := t.verb.Decode(args)
	if err != nil {
		return s.toolResult(s.refusalBytes(err), true, modern)
	}
	if modern && t.verb.Long && declaresTasks(m) {
		// A long verb runs as a task for a client that can follow one (tasks.go); its input is
		// refused, above, before any task is made.
		return s.startTask(ctx, t, in)
	}
	// A call hears its progress only when it asked for it; the process's own progress (stderr,
	// which the person's harness may show as the server's log) hears nothing of a call.
	var p ports.Progress = quiet{}
	if token, ok := progressToken(m.Params); ok && t.verb.Long {
		if n := notifierOf(ctx); n != nil {
			cp := &callProgress{token: token, notify: n}
			defer cp.stop()
			p = cp
		}
	}
	doc, isError := s.runDecoded(ports.WithProgress(ctx, p), t, in)
	return s.toolResult(doc, isError, modern)
}

// toolResult is the CallToolResult carrying doc: a verb's result document, or with isError its
// refusal or fault.
func (s *Server) toolResult(doc []byte, isError, modern bool) (json.RawMessage, *rpcError) {
	res := callResult{Content: []content{{Type: "text", Text: string(doc)}}, IsError: isError}
	if !isError {
		res.StructuredContent = doc
	}
	if modern {
		res.modernFields = s.modern(false)
	}
	out, err := marshal(res)
	if err != nil {
		return nil, newError(codeInternalError, "Internal error: the result could not be encoded")
	}
	return out, nil
}

// runDecoded runs the verb on its decoded input. It returns the document to send and whether it is
// a refusal or fault.
func (s *Server) runDecoded(ctx context.Context, t *tool, in any) ([]byte, bool) {
	v := t.verb
	if !v.Long {
		// A long verb (implement_run) is bounded by its routes' own bounds, and ends when the client
		// cancels the call or the server stops.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	// Calls that write queue on the record's and the runs' locks as separate processes do (each take
	// is its own open file, so the kernel serialises them within this process too), never on the
	// server: a review a route works on for minutes holds no lock, and blocks no other call.
	result, err := s.run(ctx, v.Name, in)
	if err != nil {
		return s.refusalBytes(err), true
	}
	completed(ctx)
	// Its next steps are spelled in MCP's terms: the tool to call and its arguments.
	data, err := verb.Encode(hint.Spell(result, Spelling))
	if err != nil {
		return s.refusalBytes(fmt.Errorf("encoding the %s result: %w", v.Name, err)), true
	}
	return bytes.TrimSuffix(data, []byte("\n")), false
}

// run calls the verb, turning a panic into a fault so the server keeps serving.
func (s *Server) run(ctx context.Context, name string, in any) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logf("tool %s panicked: %v\n%s", name, p, debug.Stack())
			result, err = nil, fmt.Errorf("the %s verb failed unexpectedly", name)
		}
	}()
	return s.core.Run(ctx, name, in)
}

// refusalBytes is the refusal document for err, spelled in MCP's terms and encoded as the CLI
// encodes it under --json.
func (s *Server) refusalBytes(err error) []byte {
	data, encErr := verb.Encode(refusal.DocumentFor(err, Spelling))
	if encErr != nil {
		return []byte(`{"kind":"fault","code":"fault","what":"abcd","why":"the refusal could not be encoded","remedy":"report this","exit_code":1}`)
	}
	return bytes.TrimSuffix(data, []byte("\n"))
}

// Spelling spells the door-neutral parts of a refusal or a next step in MCP's terms: an invocation
// as the tool to call with its arguments, a field as the tool's argument, the thing refused as the
// call.
var Spelling refusal.Renderer = mcpSpelling{}

type mcpSpelling struct{}

func (mcpSpelling) Run(inv refusal.Invocation) string {
	if len(inv.Args) == 0 {
		return "call " + inv.Verb
	}
	return "call " + inv.Verb + " with " + refusal.ArgsJSON(inv.Args)
}

func (mcpSpelling) Field(_, field string) string { return "the " + field + " argument" }

func (mcpSpelling) Subject(verb, field string) string {
	if field == "" {
		return "tools/call " + verb
	}
	return "tools/call " + verb + ", argument " + field
}

func argsRefusal(tool string, e *strictjson.Error) error {
	code := refusal.CodeInputInvalid
	if e.Kind == strictjson.Limit {
		code = refusal.CodeInputTooLarge
	}
	path := strings.TrimPrefix(strings.TrimPrefix(e.Path, "params.arguments"), ".")
	if path == "" {
		path = "arguments"
	}
	return refusal.New(code, "tools/call "+tool, path+": "+e.Msg,
		fmt.Sprintf("send each key once, strings of at most 1 MiB, nesting of at most %d levels and at most %d values in a message", maxDepth, maxMessageValues))
}
