// Package mcp is abcd's MCP front door: a server over stdio and over Streamable HTTP on loopback that
// lists one tool per verb of the verb table and runs each call through the same use cases the CLI
// drives. It owns transport and input validation only: every call's arguments are decoded strictly
// and checked against the verb's published input schema before App.Run sees them, and every result
// is the verb's result document exactly as `abcd <verb> --json` prints it.
//
// One process serves both protocol eras: the handshake revisions (2025-06-18, 2025-11-25: initialize,
// notifications/initialized, ping) and 2026-07-28 (no handshake; every request carries its protocol
// version and client capabilities in _meta; server/discover; resultType on every result; caching
// hints on list results). The MCP protocol is spoken with the standard library only.
package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/strictjson"
)

// Protocol revisions this server speaks.
const (
	// Modern is the 2026-07-28 revision: per-request _meta, no handshake.
	Modern = "2026-07-28"
	// Legacy revisions open with the initialize handshake.
	Legacy20251125 = "2025-11-25"
	Legacy20250618 = "2025-06-18"
)

// legacyVersions are the handshake revisions, preferred first; the first is what initialize
// answers a client asking for a revision this server does not speak.
var legacyVersions = []string{Legacy20251125, Legacy20250618}

// modernVersions are the per-request revisions.
var modernVersions = []string{Modern}

// SupportedVersions is every revision served, newest first: what server/discover advertises and
// what an unsupported-version error lists (the handshake revisions through initialize).
func SupportedVersions() []string {
	return append(append([]string{}, modernVersions...), legacyVersions...)
}

func isLegacyVersion(v string) bool { return v == Legacy20251125 || v == Legacy20250618 }
func isModernVersion(v string) bool { return v == Modern }

// namesModernRevision is true for a revision of the modern era, known or not: revision names are
// dates, and every revision from 2026-07-28 on carries its version per request.
func namesModernRevision(v string) bool {
	return len(v) == len(Modern) && v >= Modern && v[4] == '-' && v[7] == '-'
}

// JSON-RPC and MCP error codes.
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
	codeInternalError      = -32603
	codeResourceNotFound   = -32002 // 2025-11-25 and earlier only
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// Reserved _meta keys of the 2026-07-28 revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Limits on what a message may carry.
const (
	// MaxMessageBytes is the longest message read: one stdio line or one HTTP body.
	MaxMessageBytes = 16 << 20
	// maxStringBytes bounds any one string in a message, tool arguments included.
	maxStringBytes = 1 << 20
	// maxDepth bounds nesting in a message.
	maxDepth = 64
)

// messageLimits are the bounds every message is parsed with (maxMessageValues: see budget.go).
var messageLimits = strictjson.Limits{MaxDepth: maxDepth, MaxString: maxStringBytes, MaxValues: maxMessageValues}

// message is one parsed JSON-RPC message.
type message struct {
	id        json.RawMessage // the id as received; nil for a notification
	method    string
	params    map[string]any // nil when absent
	hasParams bool
	response  bool // a result or error object sent to the server
	values    int  // how many values the message holds, for its memory charge
	// argsErr is a strictness failure found inside params.arguments: it is the tool's refusal to give,
	// not the protocol's, so the message is still read and answered with the tool result.
	argsErr *strictjson.Error
}

func (m *message) isNotification() bool { return m.id == nil }

// meta returns params._meta when it is an object.
func (m *message) meta() (map[string]any, bool) {
	raw, ok := m.params["_meta"]
	if !ok {
		return nil, false
	}
	obj, ok := raw.(map[string]any)
	return obj, ok
}

// claim is the protocol version named in params._meta, and whether the key is there at all.
func (m *message) claim() (version string, present bool) {
	meta, ok := m.meta()
	if !ok {
		return "", false
	}
	v, present := meta[metaProtocolVersion]
	s, _ := v.(string)
	return s, present
}

// rpcError is a JSON-RPC error with the HTTP status it is sent with on Streamable HTTP.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
	status  int
}

func newError(code int, msg string) *rpcError { return &rpcError{Code: code, Message: msg} }

// withStatus sets the HTTP status a ladder rejection is sent with (in-band errors are 200).
func (e *rpcError) withStatus(status int) *rpcError { e.status = status; return e }

// parseMessage reads one message. A nil message with an error means the error is the answer; the
// id, when it could be read, is returned so the answer reaches the request that caused it.
func parseMessage(data []byte) (*message, json.RawMessage, *rpcError) {
	if !utf8.Valid(data) {
		return nil, recoverID(data), newError(codeParseError, "Parse error: the message is not valid UTF-8").withStatus(400)
	}
	tree, values, err := strictjson.ParseCount(data, messageLimits)
	var argsErr *strictjson.Error
	if err != nil {
		je := err.(*strictjson.Error)
		if je.Kind == strictjson.Syntax {
			return nil, nil, newError(codeParseError, "Parse error: "+je.Error()).withStatus(400)
		}
		if !insideArguments(je.At) {
			var id json.RawMessage
			if je.Path != "id" { // an id named twice is no id to answer to
				id = recoverID(data)
			}
			return nil, id, newError(codeInvalidRequest, "Invalid Request: "+je.Error()).withStatus(400)
		}
		// Inside the tool's arguments: read the envelope strictly around them and let the tool
		// refuse. The arguments become an empty object: they are refused, never used.
		argsErr = je
		if tree, err = strictjson.ParseOpaque(data, messageLimits, argumentsPath); err != nil {
			return nil, nil, newError(codeInvalidRequest, "Invalid Request: "+je.Error()).withStatus(400)
		}
		if params, ok := tree.(map[string]any)["params"].(map[string]any); ok {
			params["arguments"] = map[string]any{}
		}
	}
	switch top := tree.(type) {
	case []any:
		return nil, nil, newError(codeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported (MCP removed batching in 2025-06-18); send one message per line or request").withStatus(400)
	case map[string]any:
		m, id, rerr := readEnvelope(top, argsErr)
		if m != nil {
			m.values = values
		}
		return m, id, rerr
	default:
		return nil, nil, newError(codeInvalidRequest, "Invalid Request: a message is a JSON object").withStatus(400)
	}
}

func readEnvelope(obj map[string]any, argsErr *strictjson.Error) (*message, json.RawMessage, *rpcError) {
	m := &message{argsErr: argsErr}
	if raw, ok := obj["id"]; ok {
		id, valid := encodeID(raw)
		if !valid {
			return nil, nil, newError(codeInvalidRequest, "Invalid Request: id must be a string or a number").withStatus(400)
		}
		m.id = id
	}
	if v, _ := obj["jsonrpc"].(string); v != "2.0" {
		return nil, m.id, newError(codeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`).withStatus(400)
	}
	method, hasMethod := obj["method"]
	if !hasMethod {
		_, hasResult := obj["result"]
		_, hasError := obj["error"]
		if (hasResult || hasError) && m.id != nil {
			m.response = true
			return m, nil, nil
		}
		return nil, m.id, newError(codeInvalidRequest, "Invalid Request: method is missing").withStatus(400)
	}
	name, ok := method.(string)
	if !ok || name == "" {
		return nil, m.id, newError(codeInvalidRequest, "Invalid Request: method must be a non-empty string").withStatus(400)
	}
	m.method = name
	if raw, ok := obj["params"]; ok {
		m.hasParams = true
		switch p := raw.(type) {
		case map[string]any:
			m.params = p
		case []any:
			return nil, m.id, newError(codeInvalidParams, "Invalid params: MCP params are an object, not an array").withStatus(400)
		default:
			return nil, m.id, newError(codeInvalidRequest, "Invalid Request: params must be an object").withStatus(400)
		}
	}
	return m, nil, nil
}

// encodeID turns a parsed id back into its JSON text. MCP ids are strings or numbers, never null.
func encodeID(v any) (json.RawMessage, bool) {
	switch x := v.(type) {
	case json.Number:
		return json.RawMessage(x), true
	case string:
		b, err := marshal(x)
		return b, err == nil
	}
	return nil, false
}

// recoverID reads the id of a message that cannot be accepted, so the refusal reaches its request.
// It reads leniently (encoding/json replaces invalid UTF-8) and only a string or number id counts.
func recoverID(data []byte) json.RawMessage {
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
		b, _ := marshal(s)
		return b
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return raw
	}
	return nil
}

// recoverIDFromPrefix reads the id of a message too long to read whole, from its first bytes, when
// the id comes before the point the prefix is cut.
func recoverIDFromPrefix(prefix []byte) json.RawMessage {
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

// outbound is one message the server writes.
type outbound struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// encodeOutbound writes a response as one line of JSON, newline included. The encoder does not
// escape HTML, so a result document's bytes pass through unchanged.
func encodeOutbound(o outbound) []byte {
	if o.Error == nil && o.Result != nil && o.ID != nil {
		// A result is JSON this server encoded (or cached) itself: it is written as it is, without a
		// second pass of the encoder over what may be tens of kilobytes.
		b := make([]byte, 0, len(o.Result)+len(o.ID)+32)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, o.ID...)
		b = append(b, `,"result":`...)
		b = append(b, o.Result...)
		return append(b, '}', '\n')
	}
	o.JSONRPC = "2.0"
	b, err := marshal(o)
	if err != nil {
		b, _ = marshal(outbound{JSONRPC: "2.0", ID: o.ID, Error: newError(codeInternalError, "Internal error: the response could not be encoded")})
	}
	return append(b, '\n')
}

// marshal is json.Marshal without HTML escaping and without the trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// idKey is a map key for an id: its JSON text.
func idKey(id json.RawMessage) string { return string(id) }

// idFromParam reads a request id named inside params (notifications/cancelled's requestId).
func idFromParam(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case string:
		b, err := marshal(x)
		return string(b), err == nil
	}
	return "", false
}
