package provider

import (
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func TestInputsCheckThemselves(t *testing.T) {
	for _, c := range []struct {
		value string
		ok    bool
		code  string
		into  interface{ UnmarshalText([]byte) error }
	}{
		{"openai", true, "", new(Name)},
		{"local-llm_2", true, "", new(Name)},
		{"harness", false, "provider_name_invalid", new(Name)},
		{"host", false, "provider_name_invalid", new(Name)},
		{"rp", false, "provider_name_invalid", new(Name)},
		{"OpenAI", false, "provider_name_invalid", new(Name)},
		{strings.Repeat("a", 33), false, "provider_name_invalid", new(Name)},
		{"https://api.openai.com/v1", true, "", new(BaseURL)},
		{"http://127.0.0.1:11434/v1", true, "", new(BaseURL)},
		{"http://[::1]:8080/v1", true, "", new(BaseURL)},
		{"http://api.example.com/v1", false, "base_url_invalid", new(BaseURL)},
		{"https://user:hunter2@api.example.com/v1", false, "base_url_invalid", new(BaseURL)},
		{"https://api.example.com/v1?key=hunter2", false, "base_url_invalid", new(BaseURL)},
		{"https://api.example.com/v1#frag", false, "base_url_invalid", new(BaseURL)},
		{"gpt-4o", true, "", new(Model)},
		{"qwen2.5:7b", true, "", new(Model)},
		{"a model", false, "model_invalid", new(Model)},
		{"economy=z/small", true, "", new(TierModel)},
		{"host-decides=m", false, "tier_model_invalid", new(TierModel)},
		{"economy", false, "tier_model_invalid", new(TierModel)},
		{"economy=", false, "tier_model_invalid", new(TierModel)},
		{"OPENAI_API_KEY", true, "", new(KeyEnv)},
		{"sk-hunter2hunter2", false, "key_env_invalid", new(KeyEnv)},
		{"/home/ada/.abcd/openai.key", true, "", new(KeyFile)},
		{"openai.key", false, "key_file_invalid", new(KeyFile)},
	} {
		err := c.into.UnmarshalText([]byte(c.value))
		if c.ok {
			assert.Check(t, err, c.value)
			continue
		}
		r, ok := refusal.As(err)
		if assert.Check(t, ok, "%q: %v", c.value, err) {
			assert.Check(t, is.Equal(string(r.Code), c.code), c.value)
			for _, secret := range []string{"hunter2", "api.example.com"} {
				assert.Check(t, !strings.Contains(r.Error(), secret), "a refusal quotes %q: %v", secret, r)
			}
		}
	}
	tier, model := TierModel("frontier=openai/gpt-5").Split()
	assert.Check(t, is.Equal(string(tier), "frontier"))
	assert.Check(t, is.Equal(model, "openai/gpt-5"))
}

// FuzzInputs: whatever a person types, each value type either keeps it verbatim or refuses with a
// bounded refusal that never quotes more than a clip of it.
func FuzzInputs(f *testing.F) {
	for _, s := range []string{"openai", "https://api.openai.com/v1", "economy=z/small", "OPENAI_API_KEY", "/k", "a\u202eb", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []interface{ UnmarshalText([]byte) error }{new(Name), new(BaseURL), new(Model), new(TierModel), new(KeyEnv), new(KeyFile)} {
			err := v.UnmarshalText([]byte(s))
			if err == nil {
				continue
			}
			r, ok := refusal.As(err)
			if !ok || len(r.Why) > 400 || !utf8.ValidString(r.Why) && utf8.ValidString(s) {
				t.Fatalf("%T refused %q with %v", v, s, err)
			}
		}
	})
}
