package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/frontdoors/internal/jsonstrict"
	"github.com/abcd-dev/abcd/ports/app"
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
	name, ok := m.params["name"].(string)
	if !ok {
		return nil, newError(codeInvalidParams, "Invalid params: tools/call needs params.name (a string)")
	}
	t, ok := s.byName[name]
	if !ok {
		return nil, newError(codeInvalidParams, "Unknown tool: "+clip(name))
	}
	args := map[string]any{}
	if raw, present := m.params["arguments"]; present {
		obj, isObject := raw.(map[string]any)
		if !isObject {
			return nil, newError(codeInvalidParams, "Invalid params: arguments must be an object")
		}
		args = obj
	}
	var doc []byte
	var isError bool
	if m.argsErr != nil {
		doc, isError = s.refusalBytes(argsRefusal(name, m.argsErr)), true
	} else {
		doc, isError = s.runTool(ctx, t, args)
	}
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

// runTool checks the arguments, runs the verb and checks its result against the outputSchema. It
// returns the document to send and whether it is a refusal or fault.
func (s *Server) runTool(ctx context.Context, t *tool, args map[string]any) ([]byte, bool) {
	v := t.verb
	// The schema comes first: it refuses an unknown field (every input schema closes its object) or
	// a value of the wrong shape without walking what it holds, so the string guard below only ever
	// walks arguments the tool takes.
	if e := t.input.Validate(args); e != nil {
		return s.refusalBytes(inputRefusal(v.Name, e.Error())), true
	}
	if r := guardStrings(ctx, v.Name, args); r != nil {
		return s.refusalBytes(r), true
	}
	in, err := decodeInput(v, args)
	if err != nil {
		return s.refusalBytes(inputRefusal(v.Name, err.Error())), true
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if !v.ReadOnly {
		// One writer at a time; a call waiting its turn still answers to its context (a cancellation,
		// the client going away, the server stopping) instead of queueing behind a long writer.
		select {
		case s.mutate <- struct{}{}:
			defer func() { <-s.mutate }()
		case <-ctx.Done():
			return s.refusalBytes(refusal.Busy("call_cancelled", "tools/call "+v.Name,
				"the call ended ("+ctx.Err().Error()+") while it waited for another call that writes to finish; nothing was written",
				"call "+v.Name+" again")), true
		}
	}
	result, err := s.run(ctx, v.Name, in)
	if err != nil {
		return s.refusalBytes(err), true
	}
	data, err := app.Encode(result)
	if err != nil {
		return s.refusalBytes(fmt.Errorf("encoding the %s result: %w", v.Name, err)), true
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	// The result is checked against the outputSchema the client holds, so a client that validates
	// never meets a result it must reject.
	tree, perr := jsonstrict.Parse(data, jsonstrict.Limits{MaxDepth: 128})
	if perr == nil {
		if e := t.output.Validate(tree); e != nil {
			perr = e
		}
	}
	if perr != nil {
		s.logf("tool %s: the result does not match %s.result: %v", v.Name, v.Name, perr)
		return s.refusalBytes(&refusal.Error{Kind: refusal.Fault, Code: "result_invalid", What: "tools/call " + v.Name,
			Why:    "the result does not match the tool's outputSchema: " + clip(perr.Error()),
			Remedy: "this is a bug in abcd; run `abcd " + strings.Join(v.Path, " ") + " --json` for the same result and report it"}), true
	}
	return data, false
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

// refusalBytes is the refusal document for err, encoded as the CLI encodes it under --json.
func (s *Server) refusalBytes(err error) []byte {
	data, encErr := app.Encode(refusal.DocumentOf(err))
	if encErr != nil {
		return []byte(`{"kind":"fault","code":"fault","what":"abcd","why":"the refusal could not be encoded","remedy":"report this","exit_code":1}`)
	}
	return bytes.TrimSuffix(data, []byte("\n"))
}

func inputRefusal(tool, why string) error {
	return refusal.New("input_invalid", "tools/call "+tool, "the arguments do not match the tool's inputSchema: "+clip(why),
		"send arguments that match the inputSchema tools/list gives for "+tool+" (abcd schema show "+tool+".input)")
}

func argsRefusal(tool string, e *jsonstrict.Error) error {
	code := "input_invalid"
	if e.Kind == jsonstrict.Limit {
		code = "input_too_large"
	}
	path := strings.TrimPrefix(strings.TrimPrefix(e.Path, "params.arguments"), ".")
	if path == "" {
		path = "arguments"
	}
	return refusal.New(code, "tools/call "+tool, path+": "+e.Msg,
		fmt.Sprintf("send each key once, strings of at most 1 MiB, nesting of at most %d levels and at most %d values in a message", maxDepth, maxMessageValues))
}

// decodeInput fills the verb's input from checked arguments, strictly: a field the input type does
// not have, or a value of the wrong type, refuses.
func decodeInput(v app.Verb, args map[string]any) (any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	in := v.NewInput()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: must be %s", te.Field, te.Type)
		}
		return nil, err
	}
	return in, nil
}

// refFields are argument names that carry a record reference or a path-like name. Their values
// never hold a path separator, a parent segment or a leading dot or dash: a reference names a
// record by id, id prefix or slug fragment, never a place on disk.
var refFields = []string{"ref", "refs", "related", "supersedes", "superseded_by", "implements", "intent", "spec", "issue", "decision", "parent", "id", "ids", "slug", "run", "lane", "await"}

// pathFields are argument names that carry a path inside the repository (a receipt an agent wrote,
// say). Their values are relative, use forward slashes, and never climb out with "..".
var pathFields = []string{"path", "paths", "file", "files"}

func isPathField(name string) bool {
	return slices.Contains(pathFields, name) || strings.HasSuffix(name, "_path") || strings.HasSuffix(name, "_paths") ||
		strings.HasSuffix(name, "_file") || strings.HasSuffix(name, "_files")
}

func isRefField(name string) bool {
	return slices.Contains(refFields, name) || strings.HasSuffix(name, "_ref") || strings.HasSuffix(name, "_refs") ||
		strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "_ids")
}

// guardStrings applies the boundary's own rules to every string in the arguments, beyond what the
// schema says: no NUL or other control character but tab, newline and carriage return, and no
// path-like value in a reference field. It walks the arguments once, keeping where it is as a list
// of steps that is written out only for a refusal, and stops when ctx ends.
func guardStrings(ctx context.Context, tool string, args map[string]any) error {
	g := &guard{ctx: ctx, tool: tool}
	return g.walk(args)
}

// guardCheckEvery is how many values the guard walks between looks at its context.
const guardCheckEvery = 1024

type guard struct {
	ctx   context.Context
	tool  string
	path  []step
	walks int
}

// step is one step of a path: a field name, or an array index when index is not negative.
type step struct {
	name  string
	index int
}

func (g *guard) refuse(why string) error {
	return refusal.New("input_unsafe", "tools/call "+g.tool, g.at()+": "+why,
		"send plain text; a record reference is an id, an id prefix or a slug fragment, never a path")
}

// at writes out the path being walked, like nested.list[1], each field name clipped.
func (g *guard) at() string {
	var b strings.Builder
	for _, st := range g.path {
		if st.index >= 0 {
			fmt.Fprintf(&b, "[%d]", st.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(clip(st.name))
	}
	return b.String()
}

func (g *guard) walk(v any) error {
	if g.walks++; g.walks%guardCheckEvery == 0 {
		if err := g.ctx.Err(); err != nil {
			return refusal.Busy("call_cancelled", "tools/call "+g.tool, "the call ended ("+err.Error()+") while its arguments were being checked; nothing was run",
				"call "+g.tool+" again")
		}
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			g.path = append(g.path, step{name: k, index: -1})
			if err := g.member(k, x[k]); err != nil {
				return err
			}
			g.path = g.path[:len(g.path)-1]
		}
	case []any:
		for i, e := range x {
			g.path = append(g.path, step{index: i})
			if err := g.walk(e); err != nil {
				return err
			}
			g.path = g.path[:len(g.path)-1]
		}
	case string:
		if bad := controlChar(x); bad != "" {
			return g.refuse("holds " + bad)
		}
	}
	return nil
}

// member checks one field, its name and its value; g.path ends with the field.
func (g *guard) member(k string, v any) error {
	if bad := controlChar(k); bad != "" {
		return g.refuse("a field name holds " + bad)
	}
	if isRefField(k) {
		if why := eachString(v, refStringProblem); why != "" {
			return g.refuse(why)
		}
	}
	if isPathField(k) {
		if why := eachString(v, pathStringProblem); why != "" {
			return g.refuse(why)
		}
	}
	return g.walk(v)
}

func controlChar(s string) string {
	for _, r := range s {
		switch {
		case r == 0:
			return "a NUL character"
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return fmt.Sprintf("the control character U+%04X", r)
		}
	}
	return ""
}

// eachString applies check to a string, or to each string of an array.
func eachString(v any, check func(string) string) string {
	switch x := v.(type) {
	case string:
		return check(x)
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				if why := check(s); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

func refStringProblem(s string) string {
	switch {
	case strings.ContainsAny(s, `/\`):
		return "a reference holds a path separator"
	case strings.Contains(s, ".."):
		return "a reference holds a parent segment (..)"
	case strings.HasPrefix(s, ".") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "~"):
		return "a reference starts with " + s[:1]
	case strings.ContainsAny(s, "\n\r\t"):
		return "a reference holds a line break or tab"
	}
	return ""
}

// climbsOut is a ".." segment in a slash-separated path, found without splitting it.
func climbsOut(s string) bool {
	for {
		seg, rest, more := strings.Cut(s, "/")
		if seg == ".." {
			return true
		}
		if !more {
			return false
		}
		s = rest
	}
}

func pathStringProblem(s string) string {
	switch {
	case strings.HasPrefix(s, "/") || len(s) > 1 && s[1] == ':':
		return "a path is absolute; give it relative to the repository"
	case strings.HasPrefix(s, "~"):
		return "a path starts with ~; give it relative to the repository"
	case strings.Contains(s, `\`):
		return "a path holds a backslash; use forward slashes"
	case climbsOut(s):
		return "a path climbs out with .."
	case strings.ContainsAny(s, "\n\r\t"):
		return "a path holds a line break or tab"
	}
	return ""
}
