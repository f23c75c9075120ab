package provider

import (
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/oracle"
)

const machineFile = "/home/ada/.abcd/config.json"

func stack(t *testing.T, repo, machine string) *config.Stack {
	t.Helper()
	var r, m *config.Source
	if repo != "" {
		src, err := config.ParseConfig(config.LayerRepo, "/work/repo/.abcd/config.json", []byte(repo))
		assert.NilError(t, err)
		assert.NilError(t, config.Validate(src, machineFile))
		r = &src
	}
	if machine != "" {
		src, err := config.ParseConfig(config.LayerMachine, machineFile, []byte(machine))
		assert.NilError(t, err)
		assert.NilError(t, config.Validate(src, machineFile))
		m = &src
	}
	return config.NewStack(nil, r, m)
}

const twoProviders = `{"schema_version":1,"oracle":{
  "api":{
    "local":{"base_url":"http://127.0.0.1:11434/v1","models":["qwen2.5:7b"],"tiers":{"local":"qwen2.5:7b"}},
    "router":{"base_url":"https://openrouter.ai/api/v1","key_env":"OPENROUTER_API_KEY","models":["openai/gpt-5","anthropic/claude-x","z/small"],
      "tiers":{"economy":"z/small","frontier":"openai/gpt-5"},"defaults":{"temperature":0.2,"max_tokens":4096}}},
  "roles":{"security-reviewer":{"connection":"router","model":"anthropic/claude-x"},"ruthless-reviewer":{"connection":"local"}}}}`

func TestLoadGivesTheConnectionsRoutingAsksAbout(t *testing.T) {
	m, err := Load(stack(t, "", twoProviders))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(m.Names(), []string{"local", "router"}))
	for _, c := range []struct {
		tier oracle.Tier
		conn string
		ok   bool
	}{{oracle.Local, "local", true}, {oracle.Economy, "router", true}, {oracle.Frontier, "router", true}, {oracle.HostDecides, "", false}} {
		got, ok := m.Serves(c.tier)
		assert.Check(t, is.Equal(ok, c.ok), c.tier)
		assert.Check(t, is.Equal(got.Name, c.conn), c.tier)
		assert.Check(t, !got.Harness)
	}
	got, ok := m.Named("router")
	assert.Check(t, ok && got.Name == "router")
	_, ok = m.Named("nope")
	assert.Check(t, !ok)
	got, ok = m.Pointed("security-reviewer")
	assert.Check(t, ok && got.Name == "router")
	_, ok = m.Pointed("intent-auditor")
	assert.Check(t, !ok)
	assert.Check(t, is.DeepEqual(m.Defaults(oracle.Connection{Name: "router"}), oracle.Settings{"temperature": "0.2", "max_tokens": "4096"}))
	assert.Check(t, is.Len(m.Defaults(oracle.Harness()), 0))
	// Configured is the same answers as the data routing reads.
	assert.Check(t, is.DeepEqual(m.Configured(), oracle.Configured{Names: []string{"local", "router"},
		Serving: map[oracle.Tier]oracle.Connection{oracle.Local: {Name: "local"}, oracle.Economy: {Name: "router"}, oracle.Frontier: {Name: "router"}},
		Pointed: map[string]oracle.Connection{"security-reviewer": {Name: "router"}, "ruthless-reviewer": {Name: "local"}}}))
	p, _ := m.Provider("router")
	assert.Check(t, is.Equal(p.KeyEnv, "OPENROUTER_API_KEY"))
	assert.Check(t, is.Equal(p.BaseURL, "https://openrouter.ai/api/v1"))
}

func TestResolveSendsTheStepToAServingProvider(t *testing.T) {
	m, err := Load(stack(t, "", twoProviders))
	assert.NilError(t, err)
	layers := oracle.Layers{MachinePresent: true, Machine: oracle.Table{"intent-auditor": {Tier: oracle.Frontier, FanOut: 1}}}
	r, err := oracle.Resolve("intent-auditor", layers, m.Configured(), m.Defaults)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(r.Connection.Name, "router"))
	assert.Check(t, is.Equal(r.Fallback, ""))
	assert.Check(t, is.DeepEqual(r.Settings, oracle.Settings{"temperature": "0.2", "max_tokens": "4096"}), "connection defaults < row < flag")
}

func TestCallForPicksTheModelAndMergesSettings(t *testing.T) {
	m, err := Load(stack(t, "", twoProviders))
	assert.NilError(t, err)
	for _, c := range []struct {
		conn, agent string
		tier        oracle.Tier
		model       string
	}{
		{"router", "security-reviewer", oracle.Economy, "anthropic/claude-x"}, // the role's model wins
		{"router", "intent-auditor", oracle.Frontier, "openai/gpt-5"},         // the tier's model
		{"router", "ruthless-reviewer", oracle.Economy, "z/small"},            // pointed elsewhere: its model is not this provider's
		{"local", "ruthless-reviewer", oracle.HostDecides, "qwen2.5:7b"},      // the only model
	} {
		call, err := m.CallFor(c.conn, c.agent, c.tier, oracle.Settings{"temperature": "0.7"})
		assert.NilError(t, err)
		assert.Check(t, is.Equal(call.Model, c.model), "%+v", c)
		assert.Check(t, is.Equal(string(call.Settings["temperature"]), "0.7"), "the step's setting wins over the default")
	}
	call, _ := m.CallFor("router", "intent-auditor", oracle.Frontier, nil)
	assert.Check(t, is.DeepEqual(call.Settings, oracle.Settings{"temperature": "0.2", "max_tokens": "4096"}))

	for _, c := range []struct {
		conn     string
		tier     oracle.Tier
		settings oracle.Settings
		want     string
	}{
		{"nope", oracle.Local, nil, "not a configured provider"},
		{"router", oracle.Local, nil, "maps no model to tier local: map one with oracle.api.router.tiers.local"},
		{"router", oracle.Economy, oracle.Settings{"logit_bias": "1"}, "setting logit_bias is not a setting a provider accepts"},
		{"router", oracle.Economy, oracle.Settings{"temperature": "9"}, "setting temperature takes a number from 0 to 2"},
	} {
		_, err := m.CallFor(c.conn, "intent-auditor", c.tier, c.settings)
		assert.Check(t, err != nil && strings.Contains(err.Error(), c.want), "%+v: %v", c, err)
	}
}

func TestLoadRefusesWhatNoCallCouldHonour(t *testing.T) {
	p := func(block string) string {
		return `{"schema_version":1,"oracle":{"api":{"p":` + block + `}}}`
	}
	for _, c := range []struct {
		name, repo, machine, key, want string
	}{
		{"no base url", "", p(`{"models":["m"]}`), "oracle.api.p.base_url", "is missing"},
		{"no models", "", p(`{"base_url":"https://x/v1"}`), "oracle.api.p.models", "is missing"},
		{"both key places", "", p(`{"base_url":"https://x/v1","models":["m"],"key_env":"K","key_file":"/k"}`), "oracle.api.p.key_file", "name one place for the key"},
		{"tier off the allowlist", "", p(`{"base_url":"https://x/v1","models":["m"],"tiers":{"local":"n"}}`), "oracle.api.p.tiers.local", "not on oracle.api.p.models"},
		{"http off loopback", "", p(`{"base_url":"http://example.com/v1","models":["m"]}`), "oracle.api.p.base_url", "http only to a loopback"},
		{"reserved name", "", `{"schema_version":1,"oracle":{"api":{"harness":{"base_url":"https://x/v1","models":["m"]}}}}`, "oracle.api.harness.base_url", "not a provider's name"},
		{"upper-case name", "", `{"schema_version":1,"oracle":{"api":{"Big":{"base_url":"https://x/v1","models":["m"]}}}}`, "oracle.api.Big.base_url", "not a provider's name"},
		{"role to nowhere", "", `{"schema_version":1,"oracle":{"roles":{"intent-auditor":{"connection":"gone"}}}}`, "oracle.roles.intent-auditor.connection", "not a configured provider: configure oracle.api.gone"},
		{"role model off the allowlist", "", `{"schema_version":1,"oracle":{"api":{"p":{"base_url":"https://x/v1","models":["m"]}},"roles":{"intent-auditor":{"connection":"p","model":"n"}}}}`, "oracle.roles.intent-auditor.model", "not on oracle.api.p.models"},
		{"role model alone", "", `{"schema_version":1,"oracle":{"roles":{"intent-auditor":{"model":"n"}}}}`, "oracle.roles.intent-auditor.model", "without oracle.roles.intent-auditor.connection"},
		{"a repository denial wins over the machine's allowlist", `{"schema_version":1,"oracle":{"denylist":["DeepSeek/*"]}}`, p(`{"base_url":"https://x/v1","models":["deepseek/r1:free"]}`), "oracle.api.p.models", "denylist entry DeepSeek/* denies"},
		{"a bad denylist", `{"schema_version":1,"oracle":{"denylist":["no spaces allowed"]}}`, "", "oracle.denylist", "vendor/* or a model id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(stack(t, c.repo, c.machine))
			var ve *config.ValueError
			assert.Assert(t, errors.As(err, &ve), "%v", err)
			assert.Check(t, is.Equal(ve.Key, c.key))
			assert.Check(t, is.Contains(ve.Msg, c.want))
			assert.Check(t, ve.Origin != "", "the refusal names the file to change")
		})
	}
	var many strings.Builder
	many.WriteString(`{"schema_version":1,"oracle":{"api":{`)
	for i := range 17 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`"p` + string(rune('a'+i)) + `":{"base_url":"https://x/v1","models":["m"]}`)
	}
	many.WriteString(`}}}`)
	_, err := Load(stack(t, "", many.String()))
	assert.Check(t, err != nil && strings.Contains(err.Error(), "over the limit of 16"), "%v", err)
}

func TestNoConfigurationIsNoConnection(t *testing.T) {
	m, err := Load(stack(t, "", ""))
	assert.NilError(t, err)
	for _, tier := range oracle.Tiers() {
		_, ok := m.Serves(tier)
		assert.Check(t, !ok)
	}
	_, ok := m.Pointed("intent-auditor")
	assert.Check(t, !ok)
}

func TestADeniedTierModelServesNothing(t *testing.T) {
	// Serves holds the denylist too, whatever Load let through.
	m := &Machine{providers: map[string]Provider{"p": {Name: "p", Models: []string{"x/m"}, Tiers: map[oracle.Tier]string{oracle.Local: "x/m"}}},
		names: []string{"p"}, deny: NewDenylist([]string{"x/*"})}
	_, ok := m.Serves(oracle.Local)
	assert.Check(t, !ok)
	_, err := m.CallFor("p", "intent-auditor", oracle.Local, nil)
	assert.Check(t, err != nil && strings.Contains(err.Error(), "denied by the denylist entry x/*"), "%v", err)
}

func TestDenylistMatching(t *testing.T) {
	d := NewDenylist([]string{"deepseek/*", "x-ai/grok-4", "GPT-4o:free", "deepseek/*"})
	assert.Check(t, is.DeepEqual(d.Entries(), []string{"deepseek/*", "x-ai/grok-4", "GPT-4o:free"}))
	for model, want := range map[string]string{
		"deepseek/deepseek-r1":      "deepseek/*",
		"DeepSeek/V3:free":          "deepseek/*",
		"x-ai/grok-4":               "x-ai/grok-4",
		"X-AI/Grok-4:beta":          "x-ai/grok-4",
		"gpt-4o":                    "GPT-4o:free",
		"gpt-4o:latest":             "GPT-4o:free",
		"x-ai/grok-4-fast":          "",
		"deepseek":                  "",
		"openai/gpt-4o":             "",
		"deepseekx/model":           "",
		"meta-llama/deepseek-clone": "",
	} {
		entry, denied := d.Denies(model)
		assert.Check(t, is.Equal(denied, want != ""), model)
		assert.Check(t, is.Equal(entry, want), model)
	}
}

func FuzzDenies(f *testing.F) {
	f.Add("deepseek/*", "DeepSeek/r1:free")
	f.Add("gpt-4o", "gpt-4o:mini")
	f.Add("a", ":")
	f.Fuzz(func(t *testing.T, entry, model string) {
		d := NewDenylist([]string{entry})
		_, denied := d.Denies(model)
		// Case never changes the answer, and neither does a variant suffix.
		// Only where lowercasing, Denies' own rule, cannot tell the two apart: strings.EqualFold folds
		// more (ſ and S), so it would hold Denies to a rule it does not claim.
		//nolint:staticcheck // SA6005: the comparison is Denies' own lowercasing, on purpose
		if _, again := d.Denies(strings.ToUpper(model)); again != denied && strings.ToLower(strings.ToUpper(model)) == strings.ToLower(model) {
			t.Fatalf("case changed the answer for %q against %q", model, entry)
		}
		if !strings.Contains(model, ":") {
			if _, v := d.Denies(model + ":variant"); v != denied {
				t.Fatalf("a :variant suffix changed the answer for %q against %q", model, entry)
			}
		}
	})
}

// A provider's block declares its billing and price table as a runner's does, read by the one
// reader: a priced model is found, an unpriced one is not; a repository file may declare neither.
func TestAProviderBlockDeclaresItsPricesAndBilling(t *testing.T) {
	m, err := Load(stack(t, "", `{"schema_version":1,"oracle":{"api":{
	  "paid":{"base_url":"https://api.example.com/v1","models":["gpt-x","gpt-y"],"prices":["gpt-x 1.25 10 0.125 0","gpt-y 2 8"]},
	  "own":{"base_url":"http://127.0.0.1:11434/v1","models":["qwen"],"billing":"subscription"}}}}`))
	assert.NilError(t, err)
	paid, ok := m.Provider("paid")
	assert.Assert(t, ok)
	assert.Check(t, !paid.Billing.Subscription)
	p, ok := paid.Billing.PriceOf("gpt-x")
	assert.Check(t, ok)
	assert.Check(t, is.DeepEqual(p, config.Price{Model: "gpt-x", Input: 1.25, Output: 10, CacheRead: 0.125}))
	_, ok = paid.Billing.PriceOf("gpt-z")
	assert.Check(t, !ok, "a model the table leaves out has no price")
	own, _ := m.Provider("own")
	assert.Check(t, own.Billing.Subscription)
	assert.Check(t, is.Len(own.Billing.Prices, 0))

	_, err = Load(stack(t, "", `{"schema_version":1,"oracle":{"api":{"paid":{"base_url":"https://api.example.com/v1","models":["gpt-x"],"prices":["gpt-x 1 abc"]}}}}`))
	var ve *config.ValueError
	assert.Assert(t, errors.As(err, &ve), "%v", err)
	assert.Check(t, is.Equal(ve.Key, "oracle.api.paid.prices"))
	assert.Check(t, is.Contains(ve.Msg, "MODEL INPUT OUTPUT"))

	src, err := config.ParseConfig(config.LayerRepo, "/work/repo/.abcd/config.json",
		[]byte(`{"schema_version":1,"oracle":{"api":{"paid":{"prices":["gpt-x 1 2"]}}}}`))
	assert.NilError(t, err)
	err = config.Validate(src, machineFile)
	assert.Check(t, is.ErrorContains(err, "which only the machine file may declare"))
}
