package loop_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func reviewReturn(run, role string) string {
	return loop.LaneDir(run, "lane-1") + "/validate/round-1/" + role + "/return.md"
}

// The route is called with the run's lock released: while it works, another invocation reads the
// run and hands in its own receipts; the answer is then placed under the lock and recorded as the
// route's. The request it is handed is whole: written beside the brief as request.md, holding the
// brief, the record and the implementer's report.
func TestTheRouteRunsOutsideTheRunsLock(t *testing.T) {
	var w apptest.LoopWorld
	sawUnlocked := 0
	var mu sync.Mutex // both reviews are out at once, and the fakes are not safe for concurrent use
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			mu.Lock()
			defer mu.Unlock()
			if !w.Rs.Held[w.Run] {
				sawUnlocked++
			}
			if req.Role == loop.RoleRuthless {
				st := apptest.RecRun[loopuc.ImplementStatusResult](t, w.A, "implement_status", map[string]any{"run": w.Run})
				assert.Check(t, is.Len(st.Runs, 1), "status answers while the route works")
			}
			return nil
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: apptest.VerdictFor(req.Role)}
		}}
	w = apptest.NewLoopWorld(t, v)
	res := w.Receipt(t)
	assert.Check(t, is.Equal(sawUnlocked, 2), "both reviews were out with the lock released")
	story := w.Record(t)
	assert.Check(t, is.Len(story.Verdicts, 2))
	for _, vd := range story.Verdicts {
		assert.Check(t, is.Equal(vd.Ran, "rp"))
		assert.Check(t, is.Equal(vd.Receipt.ConnectionUsed, "rp"))
	}
	assert.Check(t, strings.Contains(strings.Join(res.Did, "\n"), "was answered by rp"), "%v", res.Did)
	for _, req := range v.Requests {
		text := string(req.Request)
		assert.Check(t, is.Contains(text, "## The record: spc-"), req.Role)
		assert.Check(t, is.Contains(text, "## The implementer's report of the implementation"), req.Role)
		assert.Check(t, is.Contains(text, "## Your return"), req.Role)
		written := string(w.Rs.Files[loop.LaneDir(w.Run, "lane-1")+"/validate/round-1/"+req.Role+"/request.md"])
		assert.Check(t, is.Equal(written, text), "request.md holds what the route was handed")
	}
}

// A return the host's agent wrote first stands; the route's answer is kept aside, create-only under
// the next free name, and the step names the file.
func TestAHostReturnWrittenFirstStands(t *testing.T) {
	var w apptest.LoopWorld
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			if req.Role == loop.RoleRuthless {
				p := reviewReturn(w.Run, loop.RoleRuthless)
				w.Rs.Files[strings.TrimSuffix(p, "return.md")+"rp-return.md"] = []byte("an earlier answer")
				w.Rs.Files[p] = []byte("## Verdict\n\nFIX FIRST\n\nThe host's agent found a bug.\n")
			}
			return nil
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: apptest.VerdictFor(req.Role)}
		}}
	w = apptest.NewLoopWorld(t, v)
	res := w.Receipt(t)
	dir := strings.TrimSuffix(reviewReturn(w.Run, loop.RoleRuthless), "return.md")
	assert.Check(t, is.Equal(string(w.Rs.Files[dir+"rp-return-2.md"]), string(apptest.VerdictFor(loop.RoleRuthless))), "kept aside under the next free name")
	assert.Check(t, is.Equal(string(w.Rs.Files[dir+"rp-return.md"]), "an earlier answer"), "an answer kept aside is never replaced")
	assert.Check(t, strings.Contains(strings.Join(res.Did, "\n"), "rp-return-2.md"), "%v", res.Did)
	// The host's return is recorded as the host's by its receipt.
	after := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_receipt", map[string]any{"path": reviewReturn(w.Run, loop.RoleRuthless)})
	assert.Check(t, is.Equal(after.Recorded.Route, "host"))
	assert.Check(t, is.Equal(after.Recorded.Word, "FIX FIRST"))
}

// The bytes a route's answer was placed as are the route's, whoever hands them in later (a receipt
// that met the lock held, say); bytes the host's agent rewrote are the host's.
func TestAPlacedAnswerIsCreditedByItsDigest(t *testing.T) {
	for _, c := range []struct {
		name    string
		rewrite bool
		want    string
	}{{"the same bytes", false, "rp"}, {"rewritten by the host's agent", true, "host"}} {
		t.Run(c.name, func(t *testing.T) {
			w := apptest.NewLoopWorld(t, nil) // reviews on the host
			w.Receipt(t)
			path := apptest.StatePathOf(w.Run)
			s, err := loop.Decode(path, w.Rs.Files[path])
			assert.NilError(t, err)
			ret := reviewReturn(w.Run, loop.RoleRuthless)
			body := apptest.VerdictFor(loop.RoleRuthless)
			sum := sha256.Sum256(body)
			lane, idx, ok := s.Find(ret)
			assert.Assert(t, ok)
			s.Lanes[lane].Awaits[idx].Routing.Route = "rp"
			s.Lanes[lane].Awaits[idx].Answered = loop.Answer{Route: "rp", SHA256: hex.EncodeToString(sum[:])}
			w.Rs.Files[path] = loop.Encode(s)
			w.Rs.Files[ret] = body
			if c.rewrite {
				w.Rs.Files[ret] = append(append([]byte{}, body...), []byte("One more thought.\n")...)
			}
			res := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_receipt", map[string]any{"path": ret})
			assert.Check(t, is.Equal(res.Recorded.Route, c.want))
		})
	}
}

// A step interrupted while the route works (the person's SIGINT, a host's shorter timeout) still
// says so: the fallback receipt is placed, and the review is the host's.
func TestAnInterruptedRouteFallsBackToTheHost(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	v := &fake.Validator{Name: "rp", During: func(c context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
		cancel()
		<-c.Done()
		return &ports.ReviewOutcome{FallbackReason: "interrupted", FallbackDetail: "the step was interrupted"}
	}}
	w := apptest.NewLoopWorld(t, v)
	_, err := w.A.Call(ctx, "implement_receipt", map[string]any{"path": loop.LaneDir(w.Run, "lane-1") + "/implement/receipt.json"})
	assert.NilError(t, err)
	story := w.Record(t)
	assert.Assert(t, is.Len(story.Fallbacks, 2))
	for _, f := range story.Fallbacks {
		assert.Check(t, is.Equal(f.Reason, "interrupted"))
	}
	st := apptest.RecRun[loopuc.ImplementStatusResult](t, w.A, "implement_status", map[string]any{"run": w.Run})
	reviews := 0
	for _, aw := range st.Runs[0].Awaits {
		if aw.Kind == "review" {
			reviews++
		}
	}
	assert.Check(t, is.Equal(reviews, 2), "both reviews are open for the host")
}

// A step interrupted after the host's agent wrote its return: the host's return stands and is
// recorded by its receipt; what the route said is recorded nowhere (no interrupted fallback for a
// step the host took), and its answer is kept aside. The other review, with no return from the host,
// is the host's with its interrupted receipt.
func TestTheHostsReturnStandsOverAnInterruptedRoute(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var w apptest.LoopWorld
	v := &fake.Validator{Name: "rp",
		During: func(c context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			if req.Role == loop.RoleRuthless {
				w.Rs.Files[reviewReturn(w.Run, loop.RoleRuthless)] = []byte("## Verdict\n\nFIX FIRST\n\nThe host's agent found a bug.\n")
			}
			cancel()
			<-c.Done()
			return nil // the route answers all the same
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: apptest.VerdictFor(req.Role)}
		}}
	w = apptest.NewLoopWorld(t, v)
	res, err := w.A.Call(ctx, "implement_receipt", map[string]any{"path": loop.LaneDir(w.Run, "lane-1") + "/implement/receipt.json"})
	assert.NilError(t, err)
	did := strings.Join(res.(loopuc.StepResult).Did, "\n")
	story := w.Record(t)
	assert.Assert(t, is.Len(story.Fallbacks, 1), "%+v", story.Fallbacks)
	assert.Check(t, is.Equal(story.Fallbacks[0].Role, loop.RoleSecurity))
	assert.Check(t, is.Equal(story.Fallbacks[0].Reason, "interrupted"))
	dir := strings.TrimSuffix(reviewReturn(w.Run, loop.RoleRuthless), "return.md")
	assert.Check(t, is.Equal(string(w.Rs.Files[dir+"rp-return.md"]), string(apptest.VerdictFor(loop.RoleRuthless))), "the route's answer is kept aside")
	assert.Check(t, is.Contains(did, "the host's return for ruthless-reviewer stands; the answer is kept aside at"))
	after := apptest.RecRun[loopuc.StepResult](t, w.A, "implement_receipt", map[string]any{"path": reviewReturn(w.Run, loop.RoleRuthless)})
	assert.Check(t, is.Equal(after.Recorded.Route, "host"))
	assert.Check(t, is.Equal(after.Recorded.Word, "FIX FIRST"))
}

// An answer whose placement meets the lock held past every retry is kept aside, and the contention
// refusal says where.
func TestAnAnswerALockedRunCannotTakeIsKeptAside(t *testing.T) {
	var w apptest.LoopWorld
	var mu sync.Mutex
	v := &fake.Validator{Name: "rp",
		During: func(ctx context.Context, req ports.ReviewRequest) *ports.ReviewOutcome {
			mu.Lock()
			defer mu.Unlock()
			w.Rs.Held[w.Run] = true // another invocation takes the lock and keeps it
			return nil
		},
		Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
			return ports.ReviewOutcome{Return: apptest.VerdictFor(req.Role)}
		}}
	w = apptest.NewLoopWorld(t, v)
	_, err := w.A.Call(t.Context(), "implement_receipt", map[string]any{"path": loop.LaneDir(w.Run, "lane-1") + "/implement/receipt.json"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Kind, refusal.Contention))
	assert.Check(t, is.Contains(r.Why, "rp-return.md"))
	dir := strings.TrimSuffix(reviewReturn(w.Run, loop.RoleSecurity), "return.md")
	assert.Check(t, is.Equal(string(w.Rs.Files[dir+"rp-return.md"]), string(apptest.VerdictFor(loop.RoleSecurity))))
}

// A --route for an agent the invocation does not dispatch is refused before anything runs: abcd
// review --role ruthless-reviewer dispatches the ruthless reviewer alone.
func TestARouteForAnAgentNotDispatchedIsRefused(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.G.Branches["feature"] = apptest.VBase
	w.G.Commit("feature", "6666666666666666666666666666666666666666")
	w.G.Head = "feature"
	before := len(w.Rs.Dirs)
	_, err := w.A.Call(t.Context(), "review", map[string]any{"base": "main", "role": "ruthless-reviewer", "routes": []string{"security-reviewer=frontier"}})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRouteInvalid))
	assert.Check(t, is.Contains(r.Why, "security-reviewer"))
	assert.Check(t, is.Equal(len(w.Rs.Dirs), before), "nothing written")
	apptest.RecRun[loopuc.StepResult](t, w.A, "review", map[string]any{"base": "main", "role": "ruthless-reviewer", "routes": []string{"ruthless-reviewer=frontier"}})
}

// A reviewer whose routed tier a configured provider serves is reviewed by that provider: the call
// goes out with the agent's definition, the whole request and the reply's schema; the verdict is the
// provider's, with the model it reported; a provider that answers with a denied model falls back.
func TestAProviderTakesTheTierItServes(t *testing.T) {
	machine := `{"schema_version":1,"oracle":{"api":{"local":{"base_url":"http://127.0.0.1:11434/v1","models":["qwen3-coder"],` +
		`"tiers":{"economy":"qwen3-coder"}}},"denylist":["deepseek/*","deepseek-r1"]}}`
	routingTable := `{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"economy"},"security-reviewer":{"tier":"frontier"}}}`
	for _, c := range []struct {
		name, reported, ran, reason string
	}{
		{"the provider answers", "qwen3-coder", "local", ""},
		{"a denied model answers", "deepseek-r1:14b", "host", "invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := apptest.NewLoopWorld(t, nil)
			w.A.Config = fake.Config{Files: ports.ConfigFiles{
				RepoConfig:     ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"build":{"dod":"true"}}`)},
				MachineConfig:  ports.ConfigFile{Path: "/home/ada/.abcd/config.json", Present: true, Data: []byte(machine)},
				MachineRouting: ports.ConfigFile{Path: "/home/ada/.abcd/oracle-routing.json", Present: true, Data: []byte(routingTable)},
			}}
			w.A.Schemas = fake.Schemas{Files: map[string][]byte{"review_reply": []byte(`{"type":"object"}`), "audit_return": []byte(`{"type":"object"}`)}}
			prov := &fake.Providers{Validator: &fake.Validator{Name: "local", Answer: func(req ports.ReviewRequest) ports.ReviewOutcome {
				return ports.ReviewOutcome{Return: apptest.VerdictFor(req.Role), ModelAsked: "qwen3-coder", ModelReported: c.reported, SchemaEnforced: true,
					Usage: ports.TokenUsage{Prompt: 1200, Completion: 80}}
			}}}
			w.A.Providers = prov
			w.Receipt(t)
			story := w.Record(t)
			var ruthless *loopuc.RecordVerdictView
			for i := range story.Verdicts {
				if story.Verdicts[i].Role == loop.RoleRuthless {
					ruthless = &story.Verdicts[i]
				}
			}
			assert.Assert(t, is.Len(prov.Calls, 1), "only the reviewer whose tier the provider serves goes to it")
			call := prov.Calls[0]
			assert.Check(t, is.Equal(call.Name, "local"))
			assert.Check(t, is.Equal(call.Model, "qwen3-coder"))
			req := prov.Validator.Requests[0]
			assert.Check(t, is.Equal(req.Role, loop.RoleRuthless))
			assert.Check(t, is.Equal(req.Tier, "economy"))
			assert.Check(t, is.Equal(string(req.Reply), `{"type":"object"}`), "the reply's published schema goes with the call")
			assert.Check(t, is.Contains(string(req.Request), "## The diff"))
			if c.reason == "" {
				assert.Assert(t, ruthless != nil, "%+v", story.Verdicts)
				assert.Check(t, is.Equal(ruthless.Ran, "local"))
				assert.Check(t, is.Equal(ruthless.Receipt.ConnectionUsed, "local"))
				assert.Check(t, is.Equal(ruthless.Receipt.ModelReported, "qwen3-coder"))
				assert.Check(t, is.DeepEqual(ruthless.Call, loopuc.CallView{Provider: "local", ModelAsked: "qwen3-coder", ModelReported: "qwen3-coder",
					SchemaEnforced: true, TokensIn: 1200, TokensOut: 80, CostSource: runner.CostUnknown}), "no price: unknown")
				return
			}
			assert.Check(t, ruthless == nil, "a denied model's answer is never recorded")
			assert.Assert(t, is.Len(story.Fallbacks, 1))
			f := story.Fallbacks[0]
			assert.Check(t, is.Equal(f.Asked, "local"))
			assert.Check(t, is.Equal(f.Reason, c.reason))
			assert.Check(t, is.DeepEqual(story.Run.FallbacksByRoute, []loopuc.FallbackCount{{Name: "local", Total: 1}}))
			assert.Check(t, is.DeepEqual(story.Run.FallbacksByRole, []loopuc.FallbackCount{{Name: loop.RoleRuthless, Total: 1}}))
		})
	}
}
