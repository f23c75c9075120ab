package mcpwire_test

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// AppendOutbound writes what EncodeOutbound writes, after what dst holds, for a result and an error.
func TestAppendOutboundIsEncodeOutboundAppended(t *testing.T) {
	for _, o := range []mcpwire.Outbound{
		{ID: json.RawMessage("7"), Result: json.RawMessage(`{"tools":[]}`)},
		{ID: json.RawMessage(`"a"`), Error: mcpwire.NewError(-32601, "no")},
	} {
		want := string(mcpwire.EncodeOutbound(o))
		buf := make([]byte, 0, 4)
		buf = append(buf, "xy"...)
		got := mcpwire.AppendOutbound(buf, o)
		assert.Equal(t, string(got), "xy"+want)
		// Reused, the buffer is overwritten from where it is cut.
		got = mcpwire.AppendOutbound(got[:0], o)
		assert.Equal(t, string(got), want)
	}
}
