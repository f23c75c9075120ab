package verb

import (
	"bytes"
	"encoding/json"
)

// Encode is the one encoding of a result or refusal document both front doors use, so the CLI's
// --json output and the MCP server's structuredContent are the same bytes: compact, no HTML escaping,
// one trailing newline.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
