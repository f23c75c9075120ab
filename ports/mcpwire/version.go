// Package mcpwire is the MCP wire abcd speaks, written once for both ends: the server
// (frontdoors/mcp) and the RepoPrompt client (adapters/repoprompt). It holds the JSON-RPC 2.0
// envelope and its strict reader, the error object and codes, the protocol revisions and how a
// handshake settles on one, the Streamable HTTP header names, and the initialize and tools types.
// It is pure: the standard library and domain only, no I/O. It lives under ports/ because the
// dependency rule lets both a front door and an adapter import ports, and neither the other.
package mcpwire

// Protocol revisions abcd speaks.
const (
	// Modern is the 2026-07-28 revision: per-request _meta, no handshake.
	Modern = "2026-07-28"
	// Legacy revisions open with the initialize handshake.
	Legacy20251125 = "2025-11-25"
	Legacy20250618 = "2025-06-18"
)

// LegacyVersions are the handshake revisions, newest (preferred) first: the first is what a server
// answers a client asking for one it does not speak, and what a client offers.
func LegacyVersions() []string { return []string{Legacy20251125, Legacy20250618} }

// ModernVersions are the per-request revisions.
func ModernVersions() []string { return []string{Modern} }

// SupportedVersions is every revision, newest first: what server/discover advertises and what an
// unsupported-version error lists (the handshake revisions through initialize).
func SupportedVersions() []string { return append(ModernVersions(), LegacyVersions()...) }

// IsLegacyVersion reports a handshake revision abcd speaks.
func IsLegacyVersion(v string) bool { return v == Legacy20251125 || v == Legacy20250618 }

// IsModernVersion reports a per-request revision abcd speaks.
func IsModernVersion(v string) bool { return v == Modern }

// NamesModernRevision is true for a revision of the modern era, known or not: revision names are
// dates, and every revision from 2026-07-28 on carries its version per request.
func NamesModernRevision(v string) bool {
	return len(v) == len(Modern) && v >= Modern && v[4] == '-' && v[7] == '-'
}

// The handshake's negotiation, both sides of it. A client offers Offer(); a server answers
// Negotiate(what the client asked); the client goes on only when Accept(what the server answered).

// Offer is the revision a client asks for in initialize: the newest handshake revision.
func Offer() string { return Legacy20251125 }

// Negotiate is the revision a server answers initialize with: the one asked for when it speaks it,
// else its newest, which a client that cannot speak it will refuse.
func Negotiate(requested string) string {
	if IsLegacyVersion(requested) {
		return requested
	}
	return LegacyVersions()[0]
}

// Accept reports whether a client can go on in the revision a server answered with.
func Accept(answered string) bool { return IsLegacyVersion(answered) }
