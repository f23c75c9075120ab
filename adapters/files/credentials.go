package files

import (
	"context"
	"strings"

	"github.com/abcd-dev/abcd/ports"
)

// Credentials reads the credentials the machine's configuration names: the environment's variables
// through Getenv, key files through ReadSecret's guarded reader.
type Credentials struct {
	Getenv func(string) string
}

var _ ports.Credentials = Credentials{}

// Values is every credential set at where, trimmed; one unset, empty or unreadable is left out.
func (c Credentials) Values(_ context.Context, where ports.CredentialSources) []string {
	var out []string
	for _, name := range where.Env {
		if c.Getenv == nil || name == "" {
			continue
		}
		if v := strings.TrimSpace(c.Getenv(name)); v != "" {
			out = append(out, v)
		}
	}
	for _, p := range where.Files {
		if p == "" {
			continue
		}
		if data, err := ReadSecret(p); err == nil {
			if v := strings.TrimSpace(string(data)); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
