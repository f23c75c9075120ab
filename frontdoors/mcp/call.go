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
	if r := guardStrings(v.Name, args, ""); r != nil {
		return s.refusalBytes(r), true
	}
	if e := t.input.Validate(args); e != nil {
		return s.refusalBytes(inputRefusal(v.Name, e.Error())), true
	}
	in, err := decodeInput(v, args)
	if err != nil {
		return s.refusalBytes(inputRefusal(v.Name, err.Error())), true
	}
	if !v.ReadOnly {
		s.mutate.Lock()
		defer s.mutate.Unlock()
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
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
		"send each key once, strings of at most 1 MiB and nesting of at most 64 levels")
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
// path-like value in a reference field.
func guardStrings(tool string, v any, path string) error {
	refuse := func(at, why string) error {
		return refusal.New("input_unsafe", "tools/call "+tool, at+": "+why,
			"send plain text; a record reference is an id, an id prefix or a slug fragment, never a path")
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			at := k
			if path != "" {
				at = path + "." + k
			}
			if bad := controlChar(k); bad != "" {
				return refuse(at, "a field name holds "+bad)
			}
			if isRefField(k) {
				if why := eachString(x[k], refStringProblem); why != "" {
					return refuse(at, why)
				}
			}
			if isPathField(k) {
				if why := eachString(x[k], pathStringProblem); why != "" {
					return refuse(at, why)
				}
			}
			if err := guardStrings(tool, x[k], at); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := guardStrings(tool, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case string:
		if bad := controlChar(x); bad != "" {
			return refuse(path, "holds "+bad)
		}
	}
	return nil
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

func pathStringProblem(s string) string {
	switch {
	case strings.HasPrefix(s, "/") || len(s) > 1 && s[1] == ':':
		return "a path is absolute; give it relative to the repository"
	case strings.HasPrefix(s, "~"):
		return "a path starts with ~; give it relative to the repository"
	case strings.Contains(s, `\`):
		return "a path holds a backslash; use forward slashes"
	case slices.Contains(strings.Split(s, "/"), ".."):
		return "a path climbs out with .."
	case strings.ContainsAny(s, "\n\r\t"):
		return "a path holds a line break or tab"
	}
	return ""
}
