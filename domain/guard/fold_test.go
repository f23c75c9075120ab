package guard

import (
	"testing"
)

func TestFoldName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{".ABCD/Guard.JSON", ".abcd/guard.json"},
		{".abcd/gu\u200card.json", ".abcd/guard.json"},           // a zero-width non-joiner HFS+ ignores
		{".g\u200dit/hooks/pre-commit", ".git/hooks/pre-commit"}, // and a joiner
		{".abcd/guard.j\u017fon", ".abcd/guard.json"},            // LONG S folds to s
		{".abcd/\u212aey", ".abcd/key"},                          // KELVIN SIGN folds to k
		{".abcd/guard.json.", ".abcd/guard.json"},                // NTFS drops trailing dots
		{".abcd /guard.json  ", ".abcd/guard.json"},              // and spaces
		{".abcd/guard.json::$DATA", ".abcd/guard.json"},          // the default data stream
		{"./.abcd/../x", "./.abcd/../x"},                         // . and .. stay
		{"caf\u00e9", "cafe\u0301"},                              // NFC decomposed
		{"CAFE\u0301", "cafe\u0301"},                             // NFD kept, case folded
		{"\u00c5ngstr\u00f6m", "a\u030angstro\u0308m"},
		{".abcd/gua\u0301rd.json", ".abcd/gua\u0301rd.json"}, // another name: an accent is no case
	} {
		if got := foldName(c.in); got != c.want {
			t.Errorf("foldName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFoldedPlaces: a protected place is named in any spelling a folding file system reads as the
// same name, and a repository's own place in its NFC or NFD spelling.
func TestFoldedPlaces(t *testing.T) {
	f, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	repo := File{SchemaVersion: 1, Rules: []Rule{{ID: "no-cafe-env", Tier: Block, All: []Cond{{Redirect: []string{"{repo}/deploy/caf\u00e9.env"}}},
		Why: "x", Safer: "y", Bad: []string{"x"}, Good: []string{"y"}}}}
	reg, err := Compile(f, &repo)
	if err != nil {
		t.Fatal(err)
	}
	ctx := Context{Cwd: "/home/dev/proj", Repo: "/home/dev/proj", Machine: "/home/dev/.abcd"}
	write := func(target string) Verdict {
		cmd := Command{Name: Lit("echo"), Redirects: []Redirect{{Op: ">", Target: Lit(target)}}}
		return reg.Evaluate(Line{Home: "/home/dev", Commands: []Command{cmd}}, ctx)
	}
	for target, rule := range map[string]string{
		".ABCD/guard.json":                   "guard-file-write",
		".abcd/GUARD.json.":                  "guard-file-write",
		".abcd/gu\u200card.json":             "guard-file-write",
		".CLAUDE/settings.local.json":        "harness-settings-write",
		"/home/dev/.ABCD/guard-allowed.json": "abcd-home-write",
		".Git/hooks/pre-commit":              "git-hooks-tamper",
		"deploy/cafe\u0301.env":              "no-cafe-env",
		"deploy/CAF\u00c9.env":               "no-cafe-env",
	} {
		if v := write(target); v.Rule != rule {
			t.Errorf("a write of %q: rule %q, want %q", target, v.Rule, rule)
		}
	}
	for _, target := range []string{".abcd/gua\u0301rd.json", "deploy/cafe.env", ".abcd/notes.md"} {
		if v := write(target); v.Decision != Allow {
			t.Errorf("a write of %q: %s (%s), want allow", target, v.Decision, v.Rule)
		}
	}
}
