package files

import (
	"context"
	"strings"

	"github.com/abcd-dev/abcd/ports"
)

// HarnessKeyEnvs are the environment variables the harnesses and their vendors' tools read keys
// from: their values are looked for too when history is redacted, as the keys abcd holds are.
var HarnessKeyEnvs = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"OPENAI_API_KEY", "CODEX_API_KEY",
	"GEMINI_API_KEY", "GOOGLE_API_KEY",
	"GITHUB_TOKEN", "GH_TOKEN",
	"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
}

// Credentials reads the secrets abcd holds at the moment they are asked for: each provider's key from
// its key_env or key_file (through ReadSecret's checks), and the harnesses' keys from the environment.
// A key that cannot be read is left out: redaction still runs every other check.
type Credentials struct {
	Getenv func(string) string
}

// Held returns every secret value, trimmed, each once.
func (c Credentials) Held(_ context.Context, providers []ports.ProviderCall) []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, p := range providers {
		if p.KeyEnv != "" && c.Getenv != nil {
			add(c.Getenv(p.KeyEnv))
		}
		if p.KeyFile != "" {
			if key, err := ReadSecret(p.KeyFile); err == nil {
				add(string(key))
			}
		}
	}
	if c.Getenv != nil {
		for _, name := range HarnessKeyEnvs {
			add(c.Getenv(name))
		}
	}
	return out
}
