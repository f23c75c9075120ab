package roster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedAgents parses the repository's own roster, agents/*.md.
func TestShippedAgents(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "agents", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var agents []Agent
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Parse("agents/"+filepath.Base(p), data)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if got := frontMatterKeys(string(data)); strings.Join(got, ",") != strings.Join(Keys(), ",") {
			t.Errorf("%s: keys in order %q, want %q", p, got, Keys())
		}
		agents = append(agents, a)
	}
	r, err := New(agents)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ruthless-reviewer", "security-reviewer", "intent-auditor"} {
		a, ok := r.Get(name)
		if !ok {
			t.Errorf("roster %q lacks %s", r.Names(), name)
			continue
		}
		// Each reads diffs and records written by others, and only reads.
		if !a.ReadsUntrustedInput || a.CapabilityScope != ScopeReadOnly {
			t.Errorf("%s: reads_untrusted_input=%v capability_scope=%s, want true and read-only",
				name, a.ReadsUntrustedInput, a.CapabilityScope)
		}
	}
}

// frontMatterKeys lists the keys between the fences, in file order.
func frontMatterKeys(s string) []string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var keys []string
	for _, l := range lines[1:] {
		if l == "---" {
			break
		}
		if k, _, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			keys = append(keys, k)
		}
	}
	return keys
}
