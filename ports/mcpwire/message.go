package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/strictjson"
)

// Limits on what a server reads in one message.
const (
	// MaxMessageBytes is the longest message a server reads: one stdio line or one HTTP body.
	MaxMessageBytes = 16 << 20
	// MaxStringBytes bounds any one string in a message, tool arguments included.
	MaxStringBytes = 1 << 20
	// MaxDepth bounds nesting in a message.
	MaxDepth = 64
	// MaxMessageValues bounds the values one message holds (strictjson.Limits.MaxValues).
	MaxMessageValues = 100_000
)

// ServerLimits are the bounds a server parses every message with. A client reads answers with its
// own bounds (a review's answer is one string of up to 8 MiB).
var ServerLimits = strictjson.Limits{MaxDepth: MaxDepth, MaxString: MaxStringBytes, MaxValues: MaxMessageValues}

// Message is one parsed JSON-RPC message.
type Message struct {
	ID        json.RawMessage // the id as received; nil for a notification
	Method    string
	Params    map[string]any // nil when absent
	HasParams bool
	// Response is true for a result or error object (no method); Result and Error hold what it
	// carried, as parsed, for the reader to check with Reply.
	Response bool
	Result   any
	Error    any
	Values   int // how many values the message holds, for its memory charge
	// ArgsErr is a strictness failure found inside params.arguments: it is the tool's refusal to give,
	// not the protocol's, so the message is still read and answered with the tool result.
	ArgsErr *strictjson.Error

	hasResult, hasError bool
}

// IsNotification reports a message without an id.
func (m *Message) IsNotification() bool { return m.ID == nil }

// Meta returns params._meta when it is an object.
func (m *Message) Meta() (map[string]any, bool) {
	raw, ok := m.Params["_meta"]
	if !ok {
		return nil, false
	}
	obj, ok := raw.(map[string]any)
	return obj, ok
}

// Claim is the protocol version named in params._meta, and whether the key is there at all.
func (m *Message) Claim() (version string, present bool) {
	meta, ok := m.Meta()
	if !ok {
		return "", false
	}
	v, present := meta[MetaProtocolVersion]
	s, _ := v.(string)
	return s, present
}

// ParseMessage reads one message under lim. A nil message with an error means the error is the
// answer; the id, when it could be read, is returned so the answer reaches the request that caused
// it.
func ParseMessage(data []byte, lim strictjson.Limits) (*Message, json.RawMessage, *Error) {
	if !utf8.Valid(data) {
		return nil, RecoverID(data), NewError(CodeParseError, "Parse error: the message is not valid UTF-8").WithStatus(400)
	}
	tree, values, err := strictjson.ParseCount(data, lim)
	var argsErr *strictjson.Error
	if err != nil {
		var je *strictjson.Error
		if !errors.As(err, &je) || je.Kind == strictjson.Syntax {
			return nil, nil, NewError(CodeParseError, "Parse error: "+err.Error()).WithStatus(400)
		}
		if !insideArguments(je.At) {
			var id json.RawMessage
			if je.Path != "id" { // an id named twice is no id to answer to
				id = RecoverID(data)
			}
			return nil, id, NewError(CodeInvalidRequest, "Invalid Request: "+je.Error()).WithStatus(400)
		}
		// Inside the tool's arguments: read the envelope strictly around them and let the tool
		// refuse. The arguments become an empty object: they are refused, never used.
		argsErr = je
		if tree, err = strictjson.ParseOpaque(data, lim, argumentsPath); err != nil {
			return nil, nil, NewError(CodeInvalidRequest, "Invalid Request: "+je.Error()).WithStatus(400)
		}
		if params, ok := tree.(map[string]any)["params"].(map[string]any); ok {
			params["arguments"] = map[string]any{}
		}
	}
	switch top := tree.(type) {
	case []any:
		return nil, nil, NewError(CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported (MCP removed batching in 2025-06-18); send one message per line or request").WithStatus(400)
	case map[string]any:
		m, id, rerr := readEnvelope(top, argsErr)
		if m != nil {
			m.Values = values
		}
		return m, id, rerr
	default:
		return nil, nil, NewError(CodeInvalidRequest, "Invalid Request: a message is a JSON object").WithStatus(400)
	}
}

func readEnvelope(obj map[string]any, argsErr *strictjson.Error) (*Message, json.RawMessage, *Error) {
	m := &Message{ArgsErr: argsErr}
	if raw, ok := obj["id"]; ok {
		id, valid := encodeID(raw)
		if !valid {
			return nil, nil, NewError(CodeInvalidRequest, "Invalid Request: id must be a string or a number").WithStatus(400)
		}
		m.ID = id
	}
	if v, _ := obj["jsonrpc"].(string); v != "2.0" {
		return nil, m.ID, NewError(CodeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`).WithStatus(400)
	}
	method, hasMethod := obj["method"]
	if !hasMethod {
		result, hasResult := obj["result"]
		errObj, hasError := obj["error"]
		if (hasResult || hasError) && m.ID != nil {
			m.Response = true
			m.Result, m.Error = result, errObj
			m.hasResult, m.hasError = hasResult, hasError
			return m, nil, nil
		}
		return nil, m.ID, NewError(CodeInvalidRequest, "Invalid Request: method is missing").WithStatus(400)
	}
	name, ok := method.(string)
	if !ok || name == "" {
		return nil, m.ID, NewError(CodeInvalidRequest, "Invalid Request: method must be a non-empty string").WithStatus(400)
	}
	m.Method = name
	if raw, ok := obj["params"]; ok {
		m.HasParams = true
		switch p := raw.(type) {
		case map[string]any:
			m.Params = p
		case []any:
			return nil, m.ID, NewError(CodeInvalidParams, "Invalid params: MCP params are an object, not an array").WithStatus(400)
		default:
			return nil, m.ID, NewError(CodeInvalidRequest, "Invalid Request: params must be an object").WithStatus(400)
		}
	}
	return m, nil, nil
}

// Reply reads a response as a client must: exactly one of a result and an error; a result is an
// object; an error is an object with an integer code and a string message. problem says what is
// wrong when it is neither.
func (m *Message) Reply() (result map[string]any, rpcErr *Error, problem string) {
	hasResult, hasError := m.hasResult, m.hasError
	switch {
	case !m.Response:
		return nil, nil, "the message is not a response"
	case hasResult && hasError:
		return nil, nil, "the response holds both a result and an error"
	case hasError:
		obj, ok := m.Error.(map[string]any)
		if !ok {
			return nil, nil, "the response's error is not an object"
		}
		code, ok := obj["code"].(json.Number)
		if !ok {
			return nil, nil, "the response's error has no numeric code"
		}
		n, err := code.Int64()
		if err != nil || n != int64(int32(n)) {
			return nil, nil, "the response's error code is not an integer"
		}
		msg, ok := obj["message"].(string)
		if !ok {
			return nil, nil, "the response's error has no message"
		}
		return nil, &Error{Code: int(n), Message: msg, Data: obj["data"]}, ""
	default:
		obj, ok := m.Result.(map[string]any)
		if !ok {
			return nil, nil, "the response's result is not an object"
		}
		return obj, nil, ""
	}
}

// encodeID turns a parsed id back into its JSON text. MCP ids are strings or numbers, never null.
func encodeID(v any) (json.RawMessage, bool) {
	switch x := v.(type) {
	case json.Number:
		return json.RawMessage(x), true
	case string:
		b, err := Marshal(x)
		return b, err == nil
	}
	return nil, false
}

// RecoverID reads the id of a message that cannot be accepted, so the refusal reaches its request.
// It reads leniently (encoding/json replaces invalid UTF-8) and only a string or number id counts.
func RecoverID(data []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &probe) != nil || len(probe.ID) == 0 {
		return nil
	}
	return validID(probe.ID)
}

func validID(raw json.RawMessage) json.RawMessage {
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		b, _ := Marshal(s)
		return b
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return raw
	}
	return nil
}

// RecoverIDFromPrefix reads the id of a message too long to read whole, from its first bytes, when
// the id comes before the point the prefix is cut.
func RecoverIDFromPrefix(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key == "id" {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil || len(raw) == 0 {
				return nil
			}
			return validID(raw)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return nil
}

// argumentsPath is where a tools/call message carries the tool's arguments.
var argumentsPath = []string{"params", "arguments"}

// insideArguments reports whether a fault sits inside params.arguments (not at it): the tool's to
// refuse, not the protocol's.
func insideArguments(at []strictjson.Segment) bool {
	return len(at) > 2 && at[0].Index < 0 && at[0].Key == "params" && at[1].Index < 0 && at[1].Key == "arguments"
}

// Outbound is a response: a result or an error for a request's id.
type Outbound struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// EncodeOutbound writes a response as one line of JSON, newline included. The encoder does not
// escape HTML, so a result document's bytes pass through unchanged.
func EncodeOutbound(o Outbound) []byte { return AppendOutbound(nil, o) }

// AppendOutbound is EncodeOutbound appending to dst, so a writer can reuse one buffer for every
// response instead of allocating one the size of each.
func AppendOutbound(dst []byte, o Outbound) []byte {
	if o.Error == nil && o.Result != nil && o.ID != nil {
		// A result is JSON the sender encoded (or cached) itself: it is written as it is, without a
		// second pass of the encoder over what may be tens of kilobytes.
		dst = slices.Grow(dst, len(o.Result)+len(o.ID)+32)
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = append(dst, o.ID...)
		dst = append(dst, `,"result":`...)
		dst = append(dst, o.Result...)
		return append(dst, '}', '\n')
	}
	o.JSONRPC = "2.0"
	b, err := Marshal(o)
	if err != nil {
		b, _ = Marshal(Outbound{JSONRPC: "2.0", ID: o.ID, Error: NewError(CodeInternalError, "Internal error: the response could not be encoded")})
	}
	return append(append(dst, b...), '\n')
}

// Request is a request (with an ID) or a notification (without).
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

// EncodeRequest writes a request or a notification as JSON, without a newline.
func EncodeRequest(r Request) ([]byte, error) {
	r.JSONRPC = "2.0"
	return Marshal(r)
}

// Marshal is json.Marshal without HTML escaping and without the trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
