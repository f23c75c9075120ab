package acp

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	domain "github.com/abcd-dev/abcd/domain/runner"
)

// An error answer's cause reads its data's message too: codex-acp answers a refused key with
// "Internal error" and says 401 Unauthorized only there.
func TestAnErrorsDataSaysItsCause(t *testing.T) {
	for _, tc := range []struct {
		name  string
		e     rpcError
		cause domain.Cause
		words string
	}{
		{"codex-acp's refused key", rpcError{Code: -32603, Message: "Internal error",
			Data: json.RawMessage(`{"message":"unexpected status 401 Unauthorized: stand-in error 401","codex_error_info":"other"}`)},
			domain.CauseAuth, "Internal error: unexpected status 401 Unauthorized"},
		{"no data", rpcError{Code: -32603, Message: "Internal error"}, domain.CauseCLIError, "(-32603): Internal error"},
		{"data not an object", rpcError{Code: -32603, Message: "Internal error", Data: json.RawMessage(`"auth"`)}, domain.CauseCLIError, "Internal error"},
		{"auth_required", rpcError{Code: -32000, Message: "Authentication required"}, domain.CauseAuth, "Authentication required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := rpcFailure("session/prompt", &tc.e)
			assert.Check(t, is.Equal(f.Cause, tc.cause))
			assert.Check(t, is.Contains(f.Detail, tc.words))
		})
	}
}
