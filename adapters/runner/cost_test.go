package runner_test

import (
	"context"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/config"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// Each CLI's step settles its cost: Claude Code's reported figure stands; Codex and Gemini CLI
// report tokens alone (their input counted with the cached part taken out), priced from the runner's
// table for the model that answered, else unknown; a subscription's step is unmetered.
func TestEachCLIsStepSaysWhatItCostAndWhereTheFigureCameFrom(t *testing.T) {
	streams := map[domain.Kind][]string{
		domain.Codex: {`{"type":"thread.started","thread_id":"t-1"}`, `{"type":"turn.started"}`,
			`{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"OK"}}`,
			`{"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":300}}`},
		domain.Gemini: {`{"type":"init","session_id":"s-1","model":"gemini-x"}`, `{"type":"message","role":"assistant","content":"OK","delta":true}`,
			`{"type":"result","status":"success","stats":{"input_tokens":1200,"cached":200,"output_tokens":300,"models":{"gemini-x":{}}}}`},
	}
	model := map[domain.Kind]string{domain.Codex: "gpt-x", domain.Gemini: "gemini-x"}
	for k, stream := range streams {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			w := worldOf(t, k)
			w.script(lines(stream...)...)
			o := w.step(context.Background(), func(r *ports.RunnerStep) { r.Model = model[k] })
			r := o.Receipt
			assert.Check(t, is.DeepEqual(r.Usage, domain.Usage{Input: 1000, Output: 300, CachedInput: 200, Reported: true}))
			assert.Check(t, is.Equal(r.CostSource, domain.CostUnknown), "no price: no figure")
			assert.Check(t, is.Equal(r.CostUSD, 0.0))

			w.r.Billing.Prices = []config.Price{{Model: "other", Input: 100, Output: 100}, {Model: model[k], Input: 2, Output: 10, CacheRead: 0.5}}
			w.script(lines(stream...)...)
			r = w.step(context.Background(), func(r *ports.RunnerStep) { r.Model = model[k] }).Receipt
			assert.Check(t, is.Equal(r.CostSource, domain.CostPriced))
			assert.Check(t, is.Equal(r.CostUSD, 0.0051), "1000 at 2, 300 at 10, 200 at 0.5 per million")

			w.r.Billing.Subscription = true
			w.script(lines(stream...)...)
			r = w.step(context.Background(), func(r *ports.RunnerStep) { r.Model = model[k] }).Receipt
			assert.Check(t, is.Equal(r.CostSource, domain.CostUnmetered))
			assert.Check(t, is.Equal(r.CostUSD, 0.0))
		})
	}
}
