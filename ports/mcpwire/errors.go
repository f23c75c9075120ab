package mcpwire

// JSON-RPC and MCP error codes.
const (
	CodeParseError         = -32700
	CodeInvalidRequest     = -32600
	CodeMethodNotFound     = -32601
	CodeInvalidParams      = -32602
	CodeInternalError      = -32603
	CodeResourceNotFound   = -32002 // 2025-11-25 and earlier only
	CodeHeaderMismatch     = -32020
	CodeUnsupportedVersion = -32022
)

// Error is the JSON-RPC error object. Status is the HTTP status a Streamable HTTP server sends it
// with (0: the transport's default); it is not part of the object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
	Status  int    `json:"-"`
}

// NewError is an error object with a code and a message.
func NewError(code int, msg string) *Error { return &Error{Code: code, Message: msg} }

// WithStatus sets the HTTP status the error is sent with (in-band errors are 200).
func (e *Error) WithStatus(status int) *Error { e.Status = status; return e }
