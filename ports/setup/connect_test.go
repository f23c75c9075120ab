package setup_test

import (
	"context"
	"encoding/json"
	"fmt"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const (
	provHome     = "/home/ada/.abcd"
	provMachine  = provHome + "/config.json"
	provRepoPath = "/work/repo/.abcd/config.json"
	// provCanary stands for a key: it may reach the adapter's call and nothing else.
	provCanary = "sk-canary-2b9d71c4e0"
)

// provApp is the core with a machine file (held by the fake Setup, read back through the fake
// config source) and a provider adapter that answers as told.
type provWorld struct {
	a     *app.App
	setup *fake.Setup
	prov  *fake.Providers
	diag  *fake.Diag
	repo  string
}

func newProvWorld(t *testing.T, machine, repo string) *provWorld {
	t.Helper()
	w := &provWorld{setup: fake.NewSetup("/work/repo", provHome), prov: &fake.Providers{Check: ports.ProviderCheck{ModelReported: "m-1-2026"}},
		diag: &fake.Diag{}, repo: repo}
	if machine != "" {
		w.setup.Machine["config.json"] = []byte(machine)
	}
	w.a = &app.App{Setup: w.setup, Providers: w.prov, Diag: w.diag, Config: w, Roster: fake.Roster{R: apptest.RtRoster(t)}}
	return w
}

// ReadConfig serves the machine file as the fake Setup holds it, so a write is read back.
func (w *provWorld) ReadConfig(context.Context) (ports.ConfigFiles, error) {
	files := ports.ConfigFiles{RepoConfig: ports.ConfigFile{Path: provRepoPath}, MachineConfig: ports.ConfigFile{Path: provMachine}}
	if data, ok := w.setup.Machine["config.json"]; ok {
		files.MachineConfig.Present, files.MachineConfig.Data = true, data
	}
	if w.repo != "" {
		files.RepoConfig.Present, files.RepoConfig.Data = true, []byte(w.repo)
	}
	files.RepoRouting, files.MachineRouting = ports.ConfigFile{Path: apptest.RtRepoPath}, ports.ConfigFile{Path: apptest.RtMachinePath}
	if data, ok := w.setup.Machine["oracle-routing.json"]; ok {
		files.MachineRouting.Present, files.MachineRouting.Data = true, data
	}
	return files, nil
}

func (w *provWorld) call(t *testing.T, verb string, in map[string]any) (any, error) {
	t.Helper()
	return w.a.Call(context.Background(), verb, in)
}

func refusalCode(t *testing.T, err error) string {
	t.Helper()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal, got %v", err)
	return string(r.Code)
}

func TestConnectVerifiesThenWritesTheBlock(t *testing.T) {
	w := newProvWorld(t, `{"schema_version":1,"oracle":{"review":"host","rp":{"url":"http://127.0.0.1:8765/mcp"}}}`, "")
	res, err := w.call(t, "ahoy_connect", map[string]any{"name": "router", "base_url": "https://openrouter.ai/api/v1", "model": "z/small",
		"tiers": []any{"frontier=openai/gpt-5", "economy=z/small"}, "key_env": "OPENROUTER_API_KEY"})
	assert.NilError(t, err)
	got := res.(setup.AhoyConnectResult)
	assert.Check(t, is.DeepEqual(got, setup.AhoyConnectResult{Name: "router", File: provMachine, Models: []string{"z/small", "openai/gpt-5"},
		Tiers: []string{"economy=z/small", "frontier=openai/gpt-5"}, Credential: "key_env", ModelReported: "m-1-2026", Next: got.Next,
		Routed: []string{}, Skipped: []string{provMachineRouting + " (abcd's proposed routing table: written only with your consent, in a terminal)"}}))
	// No routing table is accepted, so no step goes to it, and the next line says so.
	assert.Check(t, is.Contains(got.Next.String(), "no routing table is accepted, so every agent goes to the harness and no step goes to router"))
	assert.Assert(t, is.Len(w.prov.Verified, 1), "one verification call")
	v := w.prov.Verified[0]
	assert.Check(t, is.Equal(v.Model, "z/small"))
	assert.Check(t, is.Equal(v.KeyEnv, "OPENROUTER_API_KEY"))
	assert.Check(t, is.Equal(v.BaseURL, "https://openrouter.ai/api/v1"))

	var doc map[string]any
	assert.NilError(t, json.Unmarshal(w.setup.Machine["config.json"], &doc))
	o := doc["oracle"].(map[string]any)
	assert.Check(t, is.Equal(o["review"], "host"), "the rest of the file stays")
	assert.Check(t, is.DeepEqual(o["api"], map[string]any{"router": map[string]any{"base_url": "https://openrouter.ai/api/v1",
		"key_env": "OPENROUTER_API_KEY", "models": []any{"z/small", "openai/gpt-5"}, "tiers": map[string]any{"economy": "z/small", "frontier": "openai/gpt-5"}}}))

	// What was written is what routing now reads.
	conns, err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).LoadConnections(context.Background())
	assert.NilError(t, err)
	c, ok := conns.Configured().Serving[oracle.Frontier]
	assert.Check(t, ok && c.Name == "router")

	// Never replaced silently.
	_, err = w.call(t, "ahoy_connect", map[string]any{"name": "router", "base_url": "http://127.0.0.1:1/v1", "model": "m"})
	r, _ := refusal.As(err)
	assert.Assert(t, r != nil && r.Code == "provider_exists", "%v", err)
	assert.Check(t, is.Equal(r.Remedy.Runs()[0].Verb, "ahoy_disconnect"))
	assert.Check(t, is.Len(w.prov.Verified, 1), "refused before any call")

	// A keyless local server, into a machine that had no file.
	w2 := newProvWorld(t, "", "")
	res, err = w2.call(t, "ahoy_connect", map[string]any{"name": "local", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5:7b", "tiers": []any{"local=qwen2.5:7b"}})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.(setup.AhoyConnectResult).Credential, "none"))
	assert.Check(t, strings.HasPrefix(string(w2.setup.Machine["config.json"]), "{\n  \"oracle\""), "%s", w2.setup.Machine["config.json"])
}

func TestConnectRefusesBeforeWriting(t *testing.T) {
	for _, c := range []struct {
		name, machine, repo string
		in                  map[string]any
		check               ports.ProviderCheck
		code                string
	}{
		{"verification failed", "", "", map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "m"},
			ports.ProviderCheck{FallbackReason: "refused", Detail: "provider p: the provider refused the key (HTTP 401)"}, "provider_unverified"},
		{"a denied model", "", `{"schema_version":1,"oracle":{"denylist":["deepseek/*"]}}`, map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "DeepSeek/r1"},
			ports.ProviderCheck{}, "model_denied"},
		{"a tier twice", "", "", map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "m", "tiers": []any{"local=m", "local=n"}},
			ports.ProviderCheck{}, "tier_twice"},
		{"both key places", "", "", map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "m", "key_env": "K", "key_file": "/k"},
			ports.ProviderCheck{}, "key_twice"},
		{"a reserved name", "", "", map[string]any{"name": "harness", "base_url": "https://x.example/v1", "model": "m"},
			ports.ProviderCheck{}, "provider_name_invalid"},
		{"http off loopback", "", "", map[string]any{"name": "p", "base_url": "http://x.example/v1", "model": "m"},
			ports.ProviderCheck{}, "base_url_invalid"},
		{"a key for a name", "", "", map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "m", "key_env": provCanary},
			ports.ProviderCheck{}, "key_env_invalid"},
		{"a broken machine file", `{"schema_version":1,"oracle":{"api":{"q":{"models":["m"]}}}}`, "", map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "m"},
			ports.ProviderCheck{}, "config_value_invalid"},
		{"a repository declaring a provider", "", `{"schema_version":1,"oracle":{"api":{"q":{"base_url":"https://x/v1"}}}}`, map[string]any{"name": "p", "base_url": "https://x.example/v1", "model": "m"},
			ports.ProviderCheck{}, "config_invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newProvWorld(t, c.machine, c.repo)
			w.prov.Check = c.check
			before := string(w.setup.Machine["config.json"])
			_, err := w.call(t, "ahoy_connect", c.in)
			assert.Check(t, is.Equal(refusalCode(t, err), c.code))
			assert.Check(t, is.Equal(string(w.setup.Machine["config.json"]), before), "nothing written")
			assert.Check(t, !strings.Contains(err.Error(), provCanary), "the refusal quotes the key: %v", err)
			if c.code == "config_invalid" {
				assert.Check(t, is.Contains(err.Error(), "move it to "+provMachine))
			}
		})
	}
	// The limit of 16.
	var many strings.Builder
	many.WriteString(`{"schema_version":1,"oracle":{"api":{`)
	for i := range 16 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `"p%d":{"base_url":"https://x/v1","models":["m"]}`, i)
	}
	many.WriteString(`}}}`)
	w := newProvWorld(t, many.String(), "")
	_, err := w.call(t, "ahoy_connect", map[string]any{"name": "one-more", "base_url": "https://x.example/v1", "model": "m"})
	assert.Check(t, is.Equal(refusalCode(t, err), "provider_limit"))
}

func TestDisconnectRemovesTheBlockAndItsRoles(t *testing.T) {
	machine := `{"schema_version":1,"oracle":{"api":{"a":{"base_url":"https://x/v1","models":["m"]},"b":{"base_url":"https://y/v1","models":["n"]}},
	  "roles":{"intent-auditor":{"connection":"a","model":"m"},"security-reviewer":{"connection":"b"}}}}`
	w := newProvWorld(t, machine, "")
	res, err := w.call(t, "ahoy_disconnect", map[string]any{"name": "a"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(res, setup.AhoyDisconnectResult{Name: "a", File: provMachine, Removed: true, RolesRemoved: []string{"intent-auditor"}}))
	var doc map[string]any
	assert.NilError(t, json.Unmarshal(w.setup.Machine["config.json"], &doc))
	o := doc["oracle"].(map[string]any)
	assert.Check(t, is.Len(o["api"], 1))
	assert.Check(t, is.DeepEqual(o["roles"], map[string]any{"security-reviewer": map[string]any{"connection": "b"}}))
	_, err = app.DepsOf[*loopuc.Deps](context.Background(), w.a).LoadConnections(context.Background())
	assert.NilError(t, err, "what is left reads")

	res, err = w.call(t, "ahoy_disconnect", map[string]any{"name": "b"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(res, setup.AhoyDisconnectResult{Name: "b", File: provMachine, Removed: true, RolesRemoved: []string{"security-reviewer"}}))
	assert.Check(t, is.Equal(string(w.setup.Machine["config.json"]), "{\n  \"schema_version\": 1\n}\n"), "empty namespaces go too")

	before := string(w.setup.Machine["config.json"])
	res, err = w.call(t, "ahoy_disconnect", map[string]any{"name": "b"})
	assert.NilError(t, err)
	assert.Check(t, !res.(setup.AhoyDisconnectResult).Removed, "a second disconnect removes nothing")
	assert.Check(t, is.Equal(string(w.setup.Machine["config.json"]), before))
	res, err = newProvWorld(t, "", "").call(t, "ahoy_disconnect", map[string]any{"name": "b"})
	assert.NilError(t, err)
	assert.Check(t, !res.(setup.AhoyDisconnectResult).Removed)
}

const provMachineFile = `{"schema_version":1,"oracle":{"denylist":["x-ai/*"],
  "api":{"router":{"base_url":"https://openrouter.ai/api/v1","key_env":"OPENROUTER_API_KEY","models":["openai/gpt-5","z/small"],
    "tiers":{"economy":"z/small","frontier":"openai/gpt-5"},"defaults":{"temperature":0.2}}},
  "roles":{"security-reviewer":{"connection":"router","model":"openai/gpt-5"}}}}`

func TestProviderValidatorDecidesTheCallAndTheAdapterMakesIt(t *testing.T) {
	w := newProvWorld(t, provMachineFile, "")
	w.prov.Outcome = ports.ReviewOutcome{Return: []byte("## Verdict\nSHIP\n"), ModelReported: "z/small-2026", SchemaEnforced: true}
	ctx := context.Background()

	_, ok, err := app.DepsOf[*loopuc.Deps](ctx, w.a).ProviderValidator(ctx, "host")
	assert.NilError(t, err)
	assert.Check(t, !ok, "the harness is not a provider")
	_, ok, _ = app.DepsOf[*loopuc.Deps](ctx, w.a).ProviderValidator(ctx, "rp")
	assert.Check(t, !ok)

	v, ok, err := app.DepsOf[*loopuc.Deps](ctx, w.a).ProviderValidator(ctx, "router")
	assert.NilError(t, err)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(v.Route(), "router"))
	out, err := v.Review(ctx, ports.ReviewRequest{Role: "ruthless-reviewer", Tier: "economy", Settings: map[string]string{"max_tokens": "2048"}})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(out.FallbackReason, ""))
	assert.Check(t, is.Equal(out.ModelReported, "z/small-2026"))
	assert.Assert(t, is.Len(w.prov.Calls, 1))
	c := w.prov.Calls[0]
	assert.Check(t, is.Equal(c.Model, "z/small"))
	assert.Check(t, is.DeepEqual(c.Settings, map[string]string{"temperature": "0.2", "max_tokens": "2048"}), "defaults under the step's settings")
	assert.Check(t, is.Equal(c.KeyEnv, "OPENROUTER_API_KEY"))
	_, denied := c.Denied("X-AI/grok:free")
	assert.Check(t, denied, "the adapter holds the denylist too")

	// The role's model wins for the agent pointed here.
	_, _ = v.Review(ctx, ports.ReviewRequest{Role: "security-reviewer", Tier: "economy"})
	assert.Check(t, is.Equal(w.prov.Calls[1].Model, "openai/gpt-5"))

	for _, f := range []struct {
		name   string
		req    ports.ReviewRequest
		reason string
		detail string
	}{
		{"no model for the tier", ports.ReviewRequest{Role: "intent-auditor", Tier: "local"}, "failed", "maps no model to tier local"},
		{"a setting no provider takes", ports.ReviewRequest{Role: "intent-auditor", Tier: "economy", Settings: map[string]string{"logit_bias": "1"}}, "failed", "not a setting a provider accepts"},
	} {
		out, err := v.Review(ctx, f.req)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(out.FallbackReason, f.reason), f.name)
		assert.Check(t, is.Contains(out.FallbackDetail, f.detail), f.name)
		assert.Check(t, strings.HasPrefix(out.FallbackDetail, "provider router: "), f.name)
	}
	assert.Check(t, is.Len(w.prov.Calls, 2), "nothing is sent that could not be honoured")

	// A denied model reported by any adapter: the answer is discarded.
	w.prov.Outcome = ports.ReviewOutcome{Return: []byte("## Verdict\nSHIP\n"), ModelReported: "x-ai/grok-4"}
	out, _ = v.Review(ctx, ports.ReviewRequest{Role: "ruthless-reviewer", Tier: "economy"})
	assert.Check(t, is.Equal(out.FallbackReason, "invalid"))
	assert.Check(t, out.Return == nil)

	// No adapter wired.
	w.a.Providers = nil
	v, _, _ = app.DepsOf[*loopuc.Deps](ctx, w.a).ProviderValidator(ctx, "router")
	out, _ = v.Review(ctx, ports.ReviewRequest{Role: "ruthless-reviewer", Tier: "economy"})
	assert.Check(t, is.Equal(out.FallbackReason, "failed"))
	assert.Check(t, is.Equal(out.ModelAsked, "z/small"))
}

func TestLoadConnectionsRefusesNamingTheKey(t *testing.T) {
	w := newProvWorld(t, `{"schema_version":1,"oracle":{"roles":{"intent-auditor":{"connection":"gone"}}}}`, "")
	_, err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).LoadConnections(context.Background())
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeConfigValueInvalid))
	assert.Check(t, is.Contains(r.Why, "oracle.roles.intent-auditor.connection"))
	assert.Check(t, is.Equal(r.What, provMachine))

	w = newProvWorld(t, provMachineFile, "")
	conns, err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).LoadConnections(context.Background())
	assert.NilError(t, err)
	layers := oracle.Layers{MachinePresent: true, Machine: oracle.Table{"intent-auditor": {Tier: oracle.Frontier, FanOut: 1}}}
	route, err := oracle.Resolve("intent-auditor", layers, conns.Configured(), conns.Defaults)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(route.Connection.Name, "router"))
	assert.Check(t, is.DeepEqual(route.Settings, oracle.Settings{"temperature": "0.2"}))
	assert.Check(t, conns.Defaults(oracle.Harness()) == nil)
}

// The canary key reaches the adapter's call and nowhere else: not a result, a refusal, a warning, a
// written file or a fallback.
func TestTheKeyIsNeverWrittenOrEchoed(t *testing.T) {
	w := newProvWorld(t, "", "")
	w.prov.Outcome = ports.ReviewOutcome{FallbackReason: "refused", FallbackDetail: "provider local: the provider refused the key (HTTP 401)"}
	var seen []string
	res, err := w.call(t, "ahoy_connect", map[string]any{"name": "local", "base_url": "http://127.0.0.1:11434/v1", "model": "m", "key_env": "LOCAL_KEY"})
	assert.NilError(t, err)
	data, _ := json.Marshal(res)
	seen = append(seen, string(data))
	for _, bad := range []map[string]any{
		{"name": "x", "base_url": "https://" + provCanary + "@x.example/v1", "model": "m"},
		{"name": "x", "base_url": "https://x.example/v1?key=" + provCanary, "model": "m"},
		{"name": "x", "base_url": "https://x.example/v1", "model": "m", "key_env": provCanary},
		{"name": "x", "base_url": "https://x.example/v1", "model": "m", "key_file": provCanary},
	} {
		_, err := w.call(t, "ahoy_connect", bad)
		assert.Assert(t, err != nil)
		seen = append(seen, err.Error(), refusal.DocumentOf(err).Why, refusal.DocumentOf(err).Remedy)
	}
	v, _, err := app.DepsOf[*loopuc.Deps](context.Background(), w.a).ProviderValidator(context.Background(), "local")
	assert.NilError(t, err)
	out, _ := v.Review(context.Background(), ports.ReviewRequest{Role: "ruthless-reviewer", Tier: "economy"})
	seen = append(seen, out.FallbackDetail, string(out.Return), out.ModelReported)
	for name, file := range w.setup.Machine {
		seen = append(seen, name, string(file))
	}
	seen = append(seen, w.diag.Warnings...)
	for _, s := range seen {
		assert.Check(t, !strings.Contains(s, provCanary) && !strings.Contains(s, "canary-2b9d"), "the key leaked: %s", s)
	}
}

const provMachineRouting = "/home/ada/.abcd/oracle-routing.json"

// ahoy connect says exactly what it routed: with a table that sends tiers it serves, the agents
// whose steps now go to it; with none accepted, in a terminal, it offers abcd's proposal and, given
// consent, writes it and names the agents it now takes; declined, it names what it skipped; with a
// table whose tiers it does not serve, it says no step goes to it.
func TestConnectSaysExactlyWhatItRouted(t *testing.T) {
	connect := func(w *provWorld, tiers ...any) setup.AhoyConnectResult {
		t.Helper()
		res, err := w.call(t, "ahoy_connect", map[string]any{"name": "router", "base_url": "https://openrouter.ai/api/v1", "model": "z/small",
			"tiers": tiers, "key_env": "OPENROUTER_API_KEY"})
		assert.NilError(t, err)
		return res.(setup.AhoyConnectResult)
	}

	w := newProvWorld(t, "", "")
	w.setup.Machine["oracle-routing.json"] = setup.ProposalFile()
	got := connect(w, "frontier=openai/gpt-5")
	assert.Check(t, is.DeepEqual(got.Routed, []string{"intent-auditor (frontier)", "ruthless-reviewer (frontier)", "security-reviewer (frontier)"}))
	assert.Check(t, is.Contains(got.Next.String(), "steps of intent-auditor (frontier), ruthless-reviewer (frontier), security-reviewer (frontier) now go to router"))

	w = newProvWorld(t, "", "")
	w.setup.Machine["oracle-routing.json"] = setup.ProposalFile()
	got = connect(w, "economy=z/small")
	assert.Check(t, is.Len(got.Routed, 0))
	assert.Check(t, is.Contains(got.Next.String(), "no agent's tier in the routing table is one router serves (economy=z/small), so no step goes to it"))

	p := &fake.Prompter{TTY: true, Answers: []bool{true}}
	w = newProvWorld(t, "", "")
	w.a.Prompter = p
	got = connect(w, "frontier=openai/gpt-5")
	assert.Check(t, is.Equal(string(w.setup.Machine["oracle-routing.json"]), string(setup.ProposalFile())), "consent writes abcd's proposal")
	assert.Check(t, is.Len(got.Routed, 3))
	assert.Check(t, is.Len(got.Skipped, 0))
	assert.Assert(t, is.Len(p.Questions, 1))
	assert.Check(t, is.Contains(p.Questions[0], "so the steps whose tier router serves go to it?"))

	p = &fake.Prompter{TTY: true, Answers: []bool{false}}
	w = newProvWorld(t, "", "")
	w.a.Prompter = p
	got = connect(w, "frontier=openai/gpt-5")
	_, wrote := w.setup.Machine["oracle-routing.json"]
	assert.Check(t, !wrote, "declined, nothing is written")
	assert.Check(t, is.DeepEqual(got.Skipped, []string{provMachineRouting + " (declined)"}))
	assert.Check(t, is.Len(got.Routed, 0))
}
