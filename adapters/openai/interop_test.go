package openai

import (
	"context"
	"os"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	domainprovider "github.com/abcd-dev/abcd/domain/provider"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

// TestInteropMockLLM dispatches reviews to a third-party OpenAI-compatible server,
// @dwmkerr/mock-llm, which tools/openai/interop.test.mjs starts (make test-tools) and names in
// ABCD_OPENAI_INTEROP_URL, with the published review_reply schema in ABCD_OPENAI_INTEROP_SCHEMA.
// Run on its own it has no server to reach.
func TestInteropMockLLM(t *testing.T) {
	base, schemaPath := os.Getenv("ABCD_OPENAI_INTEROP_URL"), os.Getenv("ABCD_OPENAI_INTEROP_SCHEMA")
	if base == "" {
		t.Skip("no interop server: tools/openai/interop.test.mjs starts one and runs this test")
	}
	schema, err := os.ReadFile(schemaPath)
	assert.NilError(t, err)
	c := New(func(k string) string {
		if k == "ABCD_TEST_KEY" {
			return canary
		}
		return ""
	}, nil)
	deny := domainprovider.NewDenylist([]string{"deepseek/*"})
	for _, tc := range []struct {
		model    string
		enforced bool
	}{{"strict-review", true}, {"loose-review", false}} {
		v, err := c.Open(ports.ProviderCall{Name: "mock", BaseURL: base, KeyEnv: "ABCD_TEST_KEY", Model: tc.model,
			Settings: map[string]string{"temperature": "0"}, Denied: deny.Denies})
		assert.NilError(t, err)
		req := reviewReq("ruthless-reviewer")
		req.Reply = schema
		out, err := v.Review(context.Background(), req)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(out.FallbackReason, ""), out.FallbackDetail)
		assert.Check(t, is.Equal(out.ModelReported, tc.model), "the server's own report of its model")
		assert.Check(t, is.Equal(out.SchemaEnforced, tc.enforced))
		verdict, err := review.ParseReviewerReturn(review.Ruthless, out.Return)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(verdict.Word, "SHIP"))
		assertNoCanary(t, "the outcome", string(out.Return)+out.FallbackDetail+out.ModelReported)
		t.Logf("%s: model %s, schema enforced %v, verdict %s", tc.model, out.ModelReported, out.SchemaEnforced, verdict.Word)
	}
	check, err := c.Verify(context.Background(), ports.ProviderCall{Name: "mock", BaseURL: base, Model: "any-model"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(check, ports.ProviderCheck{ModelReported: "any-model"}))
}
