package runner

import (
	"errors"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/provider"
)

const machineFile = "/home/ada/.abcd/config.json"

func parse(t *testing.T, layer config.Layer, file, doc string) (*config.Source, error) {
	t.Helper()
	src, err := config.ParseConfig(layer, file, []byte(doc))
	assert.NilError(t, err)
	if err := config.Validate(src, machineFile); err != nil {
		return nil, err
	}
	return &src, nil
}

func load(t *testing.T, machine string) (*Machine, error) {
	t.Helper()
	src, err := parse(t, config.LayerMachine, machineFile, machine)
	assert.NilError(t, err)
	s := config.NewStack(nil, nil, src)
	pm, err := provider.Load(s)
	if err != nil {
		return nil, err
	}
	return Load(s, pm.Names())
}

const twoRunners = `{"schema_version":1,"oracle":{
  "runner":{
    "cc":{"cli":"claude","executable":"/usr/local/bin/claude","version":"2.1.332","tiers":{"frontier":"claude-opus-4-5","economy":"claude-haiku-4-5"},
      "credential_env":["ANTHROPIC_API_KEY"],"pass_env":["ANTHROPIC_BASE_URL","HTTPS_PROXY"],"concurrency":4,
      "limits":{"wall_clock_s":600,"first_event_s":30,"silence_s":60,"turns":40,"api_retries":0,"budget_usd":2.5}},
    "cx":{"cli":"codex","executable":"/opt/codex/bin/codex","billing":"metered","prices":["gpt-5-codex 1.25 10 0.125 0","gpt-5 1.25 10"]},
    "cs":{"cli":"claude","executable":"/usr/local/bin/claude","billing":"subscription"}},
  "roles":{"implementer":{"runner":"cc"},"ruthless-reviewer":{"runner":"cx","model":"gpt-5-codex"}}}}`

func TestLoadReadsEveryRunnerKey(t *testing.T) {
	m, err := load(t, twoRunners)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(m.Names(), []string{"cc", "cs", "cx"}))
	cc, ok := m.Runner("cc")
	assert.Assert(t, ok)
	assert.Check(t, is.DeepEqual(cc, Runner{Name: "cc", CLI: Claude, Executable: "/usr/local/bin/claude", Version: "2.1.332",
		Tiers:         map[oracle.Tier]string{oracle.Frontier: "claude-opus-4-5", oracle.Economy: "claude-haiku-4-5"},
		CredentialEnv: []string{"ANTHROPIC_API_KEY"}, PassEnv: []string{"ANTHROPIC_BASE_URL", "HTTPS_PROXY"}, Concurrency: 4,
		Limits: Limits{WallClock: 10 * time.Minute, FirstEvent: 30 * time.Second, Silence: time.Minute, Turns: 40, APIRetries: 0, BudgetUSD: 2.5}}))
	cx, _ := m.Runner("cx")
	assert.Check(t, is.DeepEqual(cx.Limits, DefaultLimits()))
	assert.Check(t, is.DeepEqual(cx.Billing, Billing{Prices: []config.Price{{Model: "gpt-5-codex", Input: 1.25, Output: 10, CacheRead: 0.125}, {Model: "gpt-5", Input: 1.25, Output: 10}}}))
	cs, _ := m.Runner("cs")
	assert.Check(t, is.DeepEqual(cs.Billing, Billing{Subscription: true}))
	assert.Check(t, is.Equal(cx.Concurrency, 1))
	role, ok := m.Sent("ruthless-reviewer")
	assert.Check(t, ok)
	assert.Check(t, is.DeepEqual(role, Role{Runner: "cx", Model: "gpt-5-codex"}))
	_, ok = m.Sent("security-reviewer")
	assert.Check(t, !ok)
	assert.Check(t, is.Equal(cc.ModelFor("", oracle.Frontier), "claude-opus-4-5"))
	assert.Check(t, is.Equal(cc.ModelFor("", oracle.Local), ""))
	assert.Check(t, is.Equal(cc.ModelFor("claude-sonnet-4-5", oracle.Frontier), "claude-sonnet-4-5"))
}

func TestARepositoryDeclaringARunnerIsRefusedNamingTheMachineFile(t *testing.T) {
	for _, doc := range []string{
		`{"schema_version":1,"oracle":{"runner":{"cc":{"cli":"claude"}}}}`,
		`{"schema_version":1,"oracle":{"runner":{"cc":{"credential_env":["X"]}}}}`,
		`{"schema_version":1,"oracle":{"roles":{"implementer":{"runner":"cc"}}}}`,
	} {
		_, err := parse(t, config.LayerRepo, "/repo/.abcd/config.json", doc)
		var fe *config.FileError
		assert.Assert(t, errors.As(err, &fe), doc)
		assert.Check(t, is.Contains(fe.Msg, "only the machine file may declare: move it to "+machineFile), doc)
		assert.Check(t, is.Equal(fe.File, "/repo/.abcd/config.json"))
	}
}

func TestLoadRefusesEachBrokenRule(t *testing.T) {
	block := func(inner string) string {
		return `{"schema_version":1,"oracle":{"runner":{"cc":{` + inner + `}}}}`
	}
	exe := `"executable":"/bin/claude"`
	for _, c := range []struct {
		doc, key, want string
	}{
		{block(exe), "oracle.runner.cc.cli", "is missing"},
		{block(`"cli":"claude"`), "oracle.runner.cc.executable", "is missing"},
		{block(`"cli":"cursor",` + exe), "oracle.runner.cc.cli", "takes one of claude | codex | gemini | acp | qoder | opencode"},
		{block(`"cli":"claude","executable":"claude"`), "oracle.runner.cc.executable", "absolute, clean path"},
		{block(`"cli":"claude",` + exe + `,"version":"2.1"`), "oracle.runner.cc.version", "major.minor.patch"},
		{block(`"cli":"claude",` + exe + `,"tiers":{"frontier":"a b"}`), "oracle.runner.cc.tiers.frontier", "model id"},
		{block(`"cli":"claude",` + exe + `,"credential_env":["sk-ant-123"]`), "oracle.runner.cc.credential_env", "never its value"},
		{block(`"cli":"claude",` + exe + `,"credential_env":["A","A"]`), "oracle.runner.cc.credential_env", "repeats A"},
		{block(`"cli":"claude",` + exe + `,"credential_env":["A"],"pass_env":["A"]`), "oracle.runner.cc.pass_env", "names A, which oracle.runner.cc.credential_env names too"},
		{block(`"cli":"claude",` + exe + `,"pass_env":["CLAUDECODE"]`), "oracle.runner.cc.pass_env", "nested"},
		{block(`"cli":"claude",` + exe + `,"pass_env":["CLAUDE_CODE_ENTRYPOINT"]`), "oracle.runner.cc.pass_env", "nested"},
		{block(`"cli":"claude",` + exe + `,"pass_env":["LD_PRELOAD"]`), "oracle.runner.cc.pass_env", "past abcd's guard"},
		{block(`"cli":"claude",` + exe + `,"pass_env":["NODE_OPTIONS"]`), "oracle.runner.cc.pass_env", "abcd sets or keeps out"},
		{block(`"cli":"claude",` + exe + `,"pass_env":["PATH"]`), "oracle.runner.cc.pass_env", "given already"},
		{block(`"cli":"claude",` + exe + `,"concurrency":0`), "oracle.runner.cc.concurrency", "from 1 to 16"},
		{block(`"cli":"claude",` + exe + `,"limits":{"wall_clock_s":5}`), "oracle.runner.cc.limits.wall_clock_s", "from 10 to 86400"},
		{block(`"cli":"claude",` + exe + `,"limits":{"api_retries":11}`), "oracle.runner.cc.limits.api_retries", "from 0 to 10"},
		{block(`"cli":"codex",` + exe + `,"limits":{"budget_usd":1}`), "oracle.runner.cc.limits.budget_usd", "cannot bound what a step spends"},
		{block(`"cli":"claude",` + exe + `,"limits":{"budget_usd":"1"}`), "oracle.runner.cc.limits.budget_usd", "takes a number"},
		{`{"schema_version":1,"oracle":{"runner":{"Bad":{"cli":"claude",` + exe + `}}}}`, "oracle.runner.Bad.cli", "is not a runner's name"},
		{`{"schema_version":1,"oracle":{"runner":{"rp":{"cli":"claude",` + exe + `}}}}`, "oracle.runner.rp.cli", "is not a runner's name"},
		{`{"schema_version":1,"oracle":{"api":{"cc":{"base_url":"http://127.0.0.1:1/v1","models":["m"]}},"runner":{"cc":{"cli":"claude",` + exe + `}}}}`, "oracle.runner.cc.cli", "also a provider's name"},
		{`{"schema_version":1,"oracle":{"roles":{"implementer":{"runner":"nope"}}}}`, "oracle.roles.implementer.runner", "not a configured runner"},
		{`{"schema_version":1,"oracle":{"runner":{"cc":{"cli":"claude",` + exe + `}},"roles":{"Implementer":{"runner":"cc"}}}}`, "oracle.roles.Implementer.runner", "not an agent's name"},
	} {
		_, err := load(t, c.doc)
		var ve *config.ValueError
		assert.Assert(t, errors.As(err, &ve), "%s: %v", c.doc, err)
		assert.Check(t, is.Equal(ve.Key, c.key), c.doc)
		assert.Check(t, is.Contains(ve.Msg, c.want), c.doc)
		assert.Check(t, is.Equal(ve.Origin, machineFile), c.doc)
		assert.Check(t, !strings.Contains(ve.Error(), "sk-ant-123"), "a value that looks like a key is never echoed")
	}
}

func TestAnAgentTakesOneRoute(t *testing.T) {
	doc := `{"schema_version":1,"oracle":{"api":{"p":{"base_url":"http://127.0.0.1:1/v1","models":["m"]}},
	  "runner":{"cc":{"cli":"claude","executable":"/bin/claude"}},"roles":{"implementer":{"runner":"cc","connection":"p"}}}}`
	_, err := load(t, doc)
	var ve *config.ValueError
	assert.Assert(t, errors.As(err, &ve), "%v", err)
	assert.Check(t, is.Equal(ve.Key, "oracle.roles.implementer.runner"))
	assert.Check(t, is.Contains(ve.Msg, "an agent takes one route"))
	// A model beside a runner is the runner's: provider.Load no longer asks for a connection.
	_, err = load(t, `{"schema_version":1,"oracle":{"runner":{"cc":{"cli":"claude","executable":"/bin/claude"}},"roles":{"implementer":{"runner":"cc","model":"claude-x"}}}}`)
	assert.NilError(t, err)
}

func TestTooManyRunnersAreRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"schema_version":1,"oracle":{"runner":{`)
	for i := 0; i <= MaxRunners; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"r` + string(rune('a'+i)) + `":{"cli":"claude","executable":"/bin/claude"}`)
	}
	b.WriteString(`}}}`)
	_, err := load(t, b.String())
	assert.ErrorContains(t, err, "over the limit of 16")
}

func TestTheConfigurationAndTheDomainNameTheSameCLIs(t *testing.T) {
	var kinds []string
	for _, k := range Kinds() {
		kinds = append(kinds, string(k))
		assert.Check(t, k.Valid())
		assert.Check(t, k.Name() != string(k))
	}
	assert.Check(t, is.DeepEqual(kinds, config.RunnerCLIs()))
	assert.Check(t, !Kind("cursor").Valid())
}

func TestOnlyCLIsWithATerminalEventAreDriven(t *testing.T) {
	for _, k := range []Kind{Claude, Codex, Gemini} {
		assert.Check(t, is.Equal(k.Unsupported(), ""), k)
		assert.Check(t, k.Known().Min.Less(k.Known().Below), k)
	}
	assert.Check(t, is.Contains(OpenCode.Unsupported(), "no terminal event"))
}

func TestVersionsAreReadAndChecked(t *testing.T) {
	for out, want := range map[string]string{
		"2.1.332 (Claude Code)\n": "2.1.332", "codex-cli 0.171.0": "0.171.0", "0.61.0\n": "0.61.0", "v2.1.400-beta.1 x": "2.1.400",
	} {
		v, ok := VersionIn(out)
		assert.Check(t, ok, out)
		assert.Check(t, is.Equal(v.String(), want), out)
	}
	for _, out := range []string{"", "Claude Code", "1.2", "x 1.2.3.4.5x", "99999999.1.1"} {
		_, ok := VersionIn(out)
		assert.Check(t, !ok, out)
	}
	_, why := Claude.CheckVersion("2.1.332 (Claude Code)")
	assert.Check(t, is.Equal(why, ""))
	_, why = Claude.CheckVersion("2.0.9 (Claude Code)")
	assert.Check(t, is.Contains(why, "Claude Code is 2.0.9, outside the versions abcd knows (>= 2.1.328, < 2.2.0)"))
	_, why = Codex.CheckVersion("codex-cli 0.180.0")
	assert.Check(t, is.Contains(why, "outside"))
	_, why = Gemini.CheckVersion("gemini")
	assert.Check(t, is.Contains(why, "no version abcd can read"))
}

func TestABadPriceTableOrBillingIsRefusedNamingTheKey(t *testing.T) {
	for doc, want := range map[string]string{
		`{"schema_version":1,"oracle":{"runner":{"cx":{"cli":"codex","executable":"/x","prices":["gpt-5 1.25"]}}}}`:    "oracle.runner.cx.prices",
		`{"schema_version":1,"oracle":{"runner":{"cx":{"cli":"codex","executable":"/x","prices":["m 1 2","m 3 4"]}}}}`: "prices m again",
		`{"schema_version":1,"oracle":{"runner":{"cx":{"cli":"codex","executable":"/x","billing":"free"}}}}`:           "oracle.runner.cx.billing",
	} {
		_, err := load(t, doc)
		assert.Check(t, is.ErrorContains(err, want), doc)
	}
}
