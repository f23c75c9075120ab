// Package mcp is abcd's MCP front door: a server over stdio and over Streamable HTTP on loopback that
// lists one tool per verb of the verb table and runs each call through the same use cases the CLI
// drives. It owns transport and input validation only: every call's arguments are decoded strictly
// and checked against the verb's published input schema before App.Run sees them, and every result
// is the verb's result document exactly as `abcd <verb> --json` prints it. Its prompts are the agent
// roster and the driver that tells a harness how to run a spec to the end (prompts.go).
//
// One process serves both protocol eras: the handshake revisions (2025-06-18, 2025-11-25: initialize,
// notifications/initialized, ping) and 2026-07-28 (no handshake; every request carries its protocol
// version and client capabilities in _meta; server/discover; resultType on every result; caching
// hints on list results). The MCP protocol is spoken with the standard library only.
package mcp

import (
	"encoding/json"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// The wire (envelope, strict reader, error object, revisions) is ports/mcpwire, shared with the
// RepoPrompt client; these are the names this package has always used for it.

// Protocol revisions this server speaks.
const (
	Modern         = mcpwire.Modern
	Legacy20251125 = mcpwire.Legacy20251125
	Legacy20250618 = mcpwire.Legacy20250618
)

// SupportedVersions is every revision served, newest first: what server/discover advertises and
// what an unsupported-version error lists (the handshake revisions through initialize).
func SupportedVersions() []string { return mcpwire.SupportedVersions() }

func isLegacyVersion(v string) bool     { return mcpwire.IsLegacyVersion(v) }
func isModernVersion(v string) bool     { return mcpwire.IsModernVersion(v) }
func namesModernRevision(v string) bool { return mcpwire.NamesModernRevision(v) }

// JSON-RPC and MCP error codes.
const (
	codeParseError         = mcpwire.CodeParseError
	codeInvalidRequest     = mcpwire.CodeInvalidRequest
	codeMethodNotFound     = mcpwire.CodeMethodNotFound
	codeInvalidParams      = mcpwire.CodeInvalidParams
	codeInternalError      = mcpwire.CodeInternalError
	codeResourceNotFound   = mcpwire.CodeResourceNotFound
	codeHeaderMismatch     = mcpwire.CodeHeaderMismatch
	codeUnsupportedVersion = mcpwire.CodeUnsupportedVersion
)

// Reserved _meta keys of the 2026-07-28 revision.
const (
	metaProtocolVersion    = mcpwire.MetaProtocolVersion
	metaClientCapabilities = mcpwire.MetaClientCapabilities
	metaClientInfo         = mcpwire.MetaClientInfo
)

// Limits on what a message may carry.
const (
	// MaxMessageBytes is the longest message read: one stdio line or one HTTP body.
	MaxMessageBytes = mcpwire.MaxMessageBytes
	// maxDepth bounds nesting in a message.
	maxDepth = mcpwire.MaxDepth
)

// message is one parsed JSON-RPC message; rpcError a JSON-RPC error with the HTTP status it is
// sent with on Streamable HTTP; outbound one message the server writes.
type (
	message  = mcpwire.Message
	rpcError = mcpwire.Error
	outbound = mcpwire.Outbound
)

func newError(code int, msg string) *rpcError { return mcpwire.NewError(code, msg) }

// parseMessage reads one message within the server's bounds (see mcpwire.ParseMessage).
func parseMessage(data []byte) (*message, json.RawMessage, *rpcError) {
	return mcpwire.ParseMessage(data, messageLimits)
}

// messageLimits are the bounds every message is parsed with (maxMessageValues: see budget.go).
var messageLimits = strictjson.Limits{MaxDepth: maxDepth, MaxString: mcpwire.MaxStringBytes, MaxValues: maxMessageValues}

func recoverIDFromPrefix(prefix []byte) json.RawMessage { return mcpwire.RecoverIDFromPrefix(prefix) }
func encodeOutbound(o outbound) []byte                  { return mcpwire.EncodeOutbound(o) }

// marshal is json.Marshal without HTML escaping and without the trailing newline.
func marshal(v any) ([]byte, error) { return mcpwire.Marshal(v) }

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
