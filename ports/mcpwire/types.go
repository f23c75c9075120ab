package mcpwire

// Streamable HTTP header names.
const (
	// HeaderSessionID carries the session a handshake-era server assigned, on every later request.
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion carries the negotiated revision on every request after initialize.
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderLastEventID asks a server to resume an event stream after the event it names.
	HeaderLastEventID = "Last-Event-ID"
)

// Reserved _meta keys of the 2026-07-28 revision.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Implementation names a client or a server.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// InitializeParams open the handshake.
type InitializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    any            `json:"capabilities"`
	ClientInfo      Implementation `json:"clientInfo"`
}

// InitializeResult answers it.
type InitializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    any            `json:"capabilities"`
	ServerInfo      Implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

// ListToolsParams ask for a page of the tool catalog; Cursor is the previous page's nextCursor.
type ListToolsParams struct {
	Cursor string `json:"cursor,omitempty"`
}

// CallToolParams call one tool.
type CallToolParams struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// TextContent is a text content block of a tool result.
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}
