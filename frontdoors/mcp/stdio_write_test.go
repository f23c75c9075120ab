package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// A connection writes each response from its one buffer: a cached result as large as the tool list
// costs no allocation per response, and a response over keepBytes is written whole and not kept.
func TestStdioWritesResponsesFromOneBuffer(t *testing.T) {
	var out bytes.Buffer
	c := &stdioConn{out: &out}
	list := json.RawMessage(`{"tools":["` + strings.Repeat("x", 90<<10) + `"]}`)
	c.write(outbound{ID: json.RawMessage("1"), Result: list})
	assert.Equal(t, out.String(), string(encodeOutbound(outbound{ID: json.RawMessage("1"), Result: list})))
	out.Grow(1 << 24)
	id := json.RawMessage("2")
	allocs := testing.AllocsPerRun(50, func() {
		c.write(outbound{ID: id, Result: list})
	})
	assert.Equal(t, allocs, 0.0)

	huge := json.RawMessage(`"` + strings.Repeat("y", keepBytes) + `"`)
	out.Reset()
	c.write(outbound{ID: json.RawMessage("3"), Result: huge})
	assert.Equal(t, out.Len(), len(encodeOutbound(outbound{ID: json.RawMessage("3"), Result: huge})))
	assert.Assert(t, c.buf == nil, "a response over keepBytes is not kept")
}
