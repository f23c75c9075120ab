//go:build unix

package main

// A provider's steps cost what its block's prices say, end to end through the built binary: the
// reviewers go to an OpenAI-compatible provider that reports its tokens, one asked for a model the
// table prices (priced), the other for one it leaves out (unknown, 0: never a guess). The npm
// stand-in the interop tests use (mock-llm) drops usage from a streamed answer, and abcd always
// streams, so the provider here is a small server of the test's own that streams usage as OpenAI
// does (tools/openai/interop.test.mjs connects mock-llm with prices and sees unknown).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/loop"
)

// usageProvider streams a review reply for whatever model it is asked for, and its usage: 1,000
// prompt tokens (400 of them from its cache) and 200 completion tokens.
func usageProvider(t *testing.T, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		if json.Unmarshal(body, &req) != nil {
			http.Error(w, "not json", http.StatusBadRequest)
			return
		}
		calls.Add(1)
		reply := map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}}
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "NEEDS-INPUT") {
				reply["verdict"] = "APPROVE"
			}
		}
		content, _ := json.Marshal(reply)
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(v any) {
			data, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", data)
		}
		event(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": string(content)}, "finish_reason": nil}}})
		event(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200, "prompt_tokens_details": map[string]any{"cached_tokens": 400}}})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// editMachine rewrites the world's machine file as edit changes it.
func (w runnerWorld) editMachine(t *testing.T, edit func(machine map[string]any)) {
	t.Helper()
	file := filepath.Join(w.c.home, ".abcd", "config.json")
	data, err := os.ReadFile(file)
	assert.NilError(t, err)
	var machine map[string]any
	assert.NilError(t, json.Unmarshal(data, &machine))
	edit(machine)
	data, err = json.Marshal(machine)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(file, data, 0o600))
}

// pointReviewersAt rewrites the machine file so both reviewers go to provider "paid" (the security
// reviewer asking for the model the table leaves out), and gives them a routing row.
func (w runnerWorld) pointReviewersAt(t *testing.T, baseURL string, prices []string) {
	t.Helper()
	w.editMachine(t, func(machine map[string]any) {
		oracle := machine["oracle"].(map[string]any)
		oracle["api"] = map[string]any{"paid": map[string]any{"base_url": baseURL, "models": []string{"gpt-priced", "gpt-unpriced"},
			"tiers": map[string]any{"economy": "gpt-priced"}, "prices": prices}}
		roles := oracle["roles"].(map[string]any)
		roles["ruthless-reviewer"] = map[string]any{"connection": "paid"}
		roles["security-reviewer"] = map[string]any{"connection": "paid", "model": "gpt-unpriced"}
	})
	routing := `{"schema_version": 1, "agents": {"ruthless-reviewer": {"tier": "economy"}, "security-reviewer": {"tier": "economy"}}}`
	assert.NilError(t, os.WriteFile(filepath.Join(w.c.home, ".abcd", "oracle-routing.json"), []byte(routing), 0o600))
}

// providerWorld is a two-lane runner world whose reviewers go to a provider priced so.
func providerWorld(t *testing.T, prices ...string) (runnerWorld, *httptest.Server, *atomic.Int32) {
	calls := &atomic.Int32{}
	srv := usageProvider(t, calls)
	w := newRunnerWorld(t, twoLanes)
	w.play(t, w.paidAgents(t)...)
	w.pointReviewersAt(t, srv.URL+"/v1", prices)
	return w, srv, calls
}

// A provider step asked for a model its block prices records priced, at what its tokens cost (the
// cached part at the cache-read price); one asked for a model the table leaves out records unknown
// and 0. The run's spend sums the priced steps beside the runners' reported ones.
func TestAProvidersStepsArePricedFromItsBlocksTable(t *testing.T) {
	w, _, calls := providerWorld(t, "gpt-priced 2 10 0.5 0")

	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	assert.Assert(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
	assert.Check(t, is.Equal(calls.Load(), int32(4)), "two reviewers of two lanes")

	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	// (600 × 2 + 400 × 0.5 + 200 × 10) / 1,000,000 US dollars a priced call.
	const each = 0.0034
	priced, unknown := 0, 0
	for _, v := range story.Verdicts {
		switch v.Role {
		case "ruthless-reviewer":
			priced++
			assert.Check(t, is.Equal(v.Call.Provider, "paid"))
			assert.Check(t, is.Equal(v.Call.ModelReported, "gpt-priced"))
			assert.Check(t, is.Equal(v.Call.CostSource, runner.CostPriced))
			assert.Check(t, is.Equal(v.Call.CostUSD, each))
		case "security-reviewer":
			unknown++
			assert.Check(t, is.Equal(v.Call.ModelReported, "gpt-unpriced"))
			assert.Check(t, is.Equal(v.Call.CostSource, runner.CostUnknown))
			assert.Check(t, is.Equal(v.Call.CostUSD, 0.0))
		}
	}
	assert.Check(t, is.Equal(priced, 2))
	assert.Check(t, is.Equal(unknown, 2))
	sp := story.Run.Spend.Run
	assert.Check(t, is.Equal(sp.Steps, 7))
	assert.Check(t, is.Equal(sp.USD, 0.75+2*each), "three runner calls at 0.25 and two priced provider calls")
	assert.Check(t, is.Equal(sp.Unknown, 2))
	assert.Check(t, is.Equal(sp.Input, int64(3000+4*1000)))
	for _, r := range story.Run.Spend.Routes {
		if r.Name == "paid" {
			assert.Check(t, is.Equal(r.Spend.USD, 2*each))
			assert.Check(t, is.Equal(r.Spend.Steps, 4))
		}
	}
}

// A provider whose billing is a subscription (a flat fee, or a server of one's own) records every
// step unmetered, whatever its tokens; ahoy connect writes the prices and the billing into the block,
// and refuses a price it cannot read, writing nothing.
func TestAProvidersBillingAndPricesAreConnectedAndASubscriptionIsUnmetered(t *testing.T) {
	w, srv, _ := providerWorld(t, "gpt-priced 2 10")
	file := filepath.Join(w.c.home, ".abcd", "config.json")

	before := tree(t, w.c.home)
	bad := w.abcd(t, "ahoy", "connect", "other", "--base-url", srv.URL+"/v1", "--model", "gpt-priced", "--price", "gpt-priced 2", "--json")
	bad.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(bad.Stdout(), `"code":"config_value_invalid"`))
	assert.Check(t, is.Contains(bad.Stdout(), "MODEL INPUT OUTPUT"))
	twice := w.abcd(t, "ahoy", "connect", "other", "--base-url", srv.URL+"/v1", "--model", "gpt-priced", "--price", "gpt-priced 2 3", "--price", "gpt-priced 1 1")
	twice.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(twice.Stderr(), "prices gpt-priced again"))
	assert.Check(t, is.DeepEqual(tree(t, w.c.home), before), "a refused connect wrote nothing")

	ok := w.abcd(t, "ahoy", "connect", "other", "--base-url", srv.URL+"/v1", "--model", "gpt-priced", "--price", "gpt-priced 2 10 0.5 0", "--billing", "subscription")
	ok.Assert(t, icmd.Success)
	data, err := os.ReadFile(file)
	assert.NilError(t, err)
	var machine struct {
		Oracle struct {
			API map[string]map[string]any `json:"api"`
		} `json:"oracle"`
	}
	assert.NilError(t, json.Unmarshal(data, &machine))
	assert.Check(t, is.DeepEqual(machine.Oracle.API["other"]["prices"], []any{"gpt-priced 2 10 0.5 0"}))
	assert.Check(t, is.Equal(machine.Oracle.API["other"]["billing"], "subscription"))

	// Both reviewers now go to the subscription's provider.
	w.editMachine(t, func(m map[string]any) {
		roles := m["oracle"].(map[string]any)["roles"].(map[string]any)
		roles["ruthless-reviewer"] = map[string]any{"connection": "other"}
		roles["security-reviewer"] = map[string]any{"connection": "other"}
	})

	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var out loop.ImplementRunResult
	decodeOne(t, res.Stdout(), &out)
	assert.Assert(t, is.Equal(out.Ended, loop.EndedFinished), "%+v", out)
	var story loop.ImplementRecordResult
	w.c.abcd(t, 0, &story, "implement", "record", "--run", out.Run.Run)
	n := 0
	for _, v := range story.Verdicts {
		if v.Call.Provider == "other" {
			n++
			assert.Check(t, is.Equal(v.Call.CostSource, runner.CostUnmetered))
			assert.Check(t, is.Equal(v.Call.CostUSD, 0.0))
		}
	}
	assert.Check(t, is.Equal(n, 4))
	assert.Check(t, is.Equal(story.Run.Spend.Run.Unmetered, 4))
	assert.Check(t, is.Equal(story.Run.Spend.Run.USD, 0.75))
}
