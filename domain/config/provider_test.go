package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestListKeysTakeArraysAndNoOtherKeyDoes(t *testing.T) {
	src, err := ParseConfig(LayerMachine, "m.json", []byte(`{"schema_version":1,"oracle":{"denylist":["deepseek/*"],"api":{"p":{"models":["a","b/c"]}}}}`))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(src.Values["oracle.api.p.models"]), `["a","b/c"]`))
	assert.Check(t, is.Equal(string(src.Values["oracle.denylist"]), `["deepseek/*"]`))
	for _, data := range []string{
		`{"schema_version":1,"oracle":{"review":["host"]}}`,
		`{"schema_version":1,"oracle":{"api":{"p":{"tiers":{"local":["m"]}}}}}`,
		`{"schema_version":1,"elsewhere":{"list":[1]}}`,
	} {
		_, err := ParseConfig(LayerMachine, "m.json", []byte(data))
		assert.Check(t, err != nil && strings.Contains(err.Error(), "only build.dod_env, oracle.api.*.models, oracle.api.*.prices, oracle.runner.*.args, oracle.runner.*.credential_env, oracle.runner.*.pass_env, oracle.runner.*.endpoints, oracle.runner.*.prices and oracle.denylist take a list"), "%s: %v", data, err)
	}
}

func TestProviderKeyChecks(t *testing.T) {
	cases := []struct {
		key, value string
		ok         bool
	}{
		{"oracle.api.p.models", `["gpt-4o","meta-llama/llama-3-70b","qwen2.5:7b","@cf/meta/llama"]`, true},
		{"oracle.api.p.models", `[]`, false},
		{"oracle.api.p.models", `["a","a"]`, false},
		{"oracle.api.p.models", `["has space"]`, false},
		{"oracle.api.p.models", `"gpt-4o"`, false},
		{"oracle.api.p.models", `[1]`, false},
		{"oracle.api.p.models", `[` + strings.Repeat(`"m",`, 64) + `"z"]`, false},
		{"oracle.api.p.tiers.local", `"qwen2.5:7b"`, true},
		{"oracle.api.p.tiers.local", `"http://x"`, false}, // a model id may hold : and /, but never //
		{"oracle.api.p.tiers.local", `"a b"`, false},
		{"oracle.api.p.key_file", `"/home/ada/.abcd/openai.key"`, true},
		{"oracle.api.p.key_file", `"openai.key"`, false},
		{"oracle.api.p.key_file", `"/home/ada/../x"`, false},
		{"oracle.api.p.defaults.temperature", `0.2`, true},
		{"oracle.api.p.defaults.temperature", `3`, false},
		{"oracle.api.p.defaults.temperature", `"0.2"`, false},
		{"oracle.api.p.defaults.top_p", `1`, true},
		{"oracle.api.p.defaults.max_tokens", `4096`, true},
		{"oracle.api.p.defaults.max_tokens", `1.5`, false},
		{"oracle.api.p.defaults.max_tokens", `0`, false},
		{"oracle.api.p.defaults.seed", `-7`, true},
		{"oracle.api.p.defaults.stop", `"END"`, true},
		{"oracle.api.p.defaults.stop", `7`, false},
		{"oracle.api.p.defaults.frequency_penalty", `-2`, true},
		{"oracle.api.p.defaults.presence_penalty", `2.5`, false},
		{"oracle.roles.ruthless-reviewer.model", `"gpt-4o"`, true},
		{"oracle.roles.ruthless-reviewer.model", `""`, false},
		{"oracle.denylist", `["deepseek/*","x-ai/grok-4:free","gpt-4o"]`, true},
		{"oracle.denylist", `[]`, true},
		{"oracle.denylist", `["/*"]`, false},
		{"oracle.denylist", `["a b"]`, false},
	}
	for _, c := range cases {
		s := NewStack(nil, nil, &Source{Layer: LayerMachine, Origin: "m.json", Values: map[string]json.RawMessage{c.key: json.RawMessage(c.value)}})
		_, _, err := s.Winner(c.key)
		assert.Check(t, (err == nil) == c.ok, "%s = %s: err %v, want ok=%v", c.key, c.value, err, c.ok)
	}
}

func TestADefaultOutsideTheAcceptedSettingsIsAnUnknownKey(t *testing.T) {
	_, ok := Match("oracle.api.p.defaults.logit_bias")
	assert.Check(t, !ok)
	err := Validate(Source{Layer: LayerMachine, Origin: "m.json", Values: map[string]json.RawMessage{"oracle.api.p.defaults.logit_bias": json.RawMessage(`1`)}}, "m.json")
	assert.Check(t, err != nil && strings.Contains(err.Error(), `unknown key "oracle.api.p.defaults.logit_bias"`), "%v", err)
	for _, name := range ProviderSettings() {
		_, ok := Match("oracle.api.p.defaults." + name)
		assert.Check(t, ok, name)
	}
}

func TestProviderKeysAreMachineOnlyButTheDenylistIsShared(t *testing.T) {
	for _, key := range []string{"oracle.api.p.models", "oracle.api.p.key_file", "oracle.api.p.defaults.seed", "oracle.roles.a.model"} {
		err := Validate(Source{Layer: LayerRepo, Origin: "r.json", Values: map[string]json.RawMessage{key: json.RawMessage(`1`)}}, "/h/config.json")
		assert.Check(t, err != nil && strings.Contains(err.Error(), "move it to /h/config.json"), "%s: %v", key, err)
	}
	assert.NilError(t, Validate(Source{Layer: LayerRepo, Origin: "r.json", Values: map[string]json.RawMessage{"oracle.denylist": json.RawMessage(`["x/*"]`)}}, "/h/config.json"))
}

func TestUnionTakesEveryLayerAndRefusesABadOne(t *testing.T) {
	repo := &Source{Layer: LayerRepo, Origin: "r.json", Values: map[string]json.RawMessage{"oracle.denylist": json.RawMessage(`["deepseek/*"]`)}}
	machine := &Source{Layer: LayerMachine, Origin: "m.json", Values: map[string]json.RawMessage{"oracle.denylist": json.RawMessage(`["gpt-4o"]`)}}
	got, err := NewStack(nil, repo, machine).Union("oracle.denylist")
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(got, []string{"deepseek/*", "gpt-4o"}))

	none, err := NewStack(nil, nil, nil).Union("oracle.denylist")
	assert.NilError(t, err)
	assert.Check(t, is.Len(none, 0))

	machine.Values["oracle.denylist"] = json.RawMessage(`["bad entry"]`)
	_, err = NewStack(nil, repo, machine).Union("oracle.denylist")
	var ve *ValueError
	assert.Assert(t, errors.As(err, &ve))
	assert.Check(t, is.Equal(ve.Layer, LayerMachine), "the lower layer's fault is still a fault: nothing is unioned past it")
	_, err = NewStack(nil, repo, machine).Union("oracle.review")
	assert.Check(t, err != nil)
}

func TestMembersListsOneSegment(t *testing.T) {
	machine := &Source{Layer: LayerMachine, Origin: "m.json", Values: map[string]json.RawMessage{
		"oracle.api.b.base_url": json.RawMessage(`"https://x/v1"`), "oracle.api.a.models": json.RawMessage(`["m"]`),
		"oracle.api.a.tiers.local": json.RawMessage(`"m"`), "oracle.review": json.RawMessage(`"host"`)}}
	assert.Check(t, is.DeepEqual(NewStack(nil, nil, machine).Members("oracle.api"), []string{"a", "b"}))
	assert.Check(t, is.Len(NewStack(nil, nil, machine).Members("oracle.roles"), 0))
}

func TestValueTextWritesItsJSON(t *testing.T) {
	data, err := json.Marshal(struct {
		A ValueText `json:"a"`
		B ValueText `json:"b"`
	}{`["x"]`, ""})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(data), `{"a":["x"],"b":""}`))
}
