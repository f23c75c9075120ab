package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/ports/rules"
)

// docsRulesFile is the example rules file docs/rules.md shows.
func docsRulesFile(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "rules.md"))
	assert.NilError(t, err)
	m := regexp.MustCompile("(?s)```json\n(\\{\n  \"schema_version\": 1,.*?)```").FindSubmatch(page)
	assert.Assert(t, m != nil, "docs/rules.md shows an example rules file")
	return string(m[1])
}

// The example on docs/rules.md, as the repository's file, read by the built binary through the real
// files: the layers, recall, a dormant domain forced in, the dropped guardrail named.
func TestRulesFromTheDocsThroughTheBinary(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s := newSandbox(t, true)
	assert.NilError(t, os.MkdirAll(filepath.Join(s.root, ".abcd"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(s.root, ".abcd", "rules.json"), []byte(docsRulesFile(t)), 0o644))

	res := s.run(t, "rules", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var list rules.RulesResult
	decodeOne(t, res.Stdout(), &list)
	assert.Check(t, is.Equal(list.Files[1].Path, filepath.Join(s.root, ".abcd", "rules.json")))
	assert.Check(t, list.Files[1].Present && !list.Files[0].Present)
	assert.Check(t, is.Contains(strings.Join(list.Notices, "\n"), "drops the bundled guardrail rule committing/small-commits"))
	assert.Check(t, is.Contains(res.Stderr(), "drops the bundled guardrail rule committing/small-commits"), "warned on every load")

	res = s.run(t, "rules", "match", "--prompt", "add a column in the next migration, then *release", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var m rules.RulesMatchResult
	decodeOne(t, res.Stdout(), &m)
	var got []string
	for _, d := range m.Matched {
		got = append(got, d.Domain+": "+d.Why)
	}
	assert.Check(t, is.DeepEqual(got, []string{"release: forced by *release", `database: recalled by "migration"`}))
	assert.Check(t, is.Contains(m.Context, "- Add columns nullable first; never lock a large table.\n"))

	// The hook, as Claude Code runs it from a subfolder of the repository.
	sub := filepath.Join(s.root, "src")
	assert.NilError(t, os.Mkdir(sub, 0o755))
	payload, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": filepath.Join(s.home, "t.jsonl"), "cwd": sub,
		"permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": "write the sql for the migration"})
	res = icmd.RunCmd(icmd.Command(binary, "rules", "hook"), icmd.Dir(s.home), icmd.WithEnv(s.env()...), icmd.WithStdin(strings.NewReader(string(payload))))
	res.Assert(t, icmd.Expected{ExitCode: 0})
	var h struct {
		SystemMessage      string
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	assert.NilError(t, json.Unmarshal([]byte(res.Stdout()), &h))
	assert.Check(t, is.Contains(h.HookSpecificOutput.AdditionalContext, "[database] recalled by \"migration\", \"sql\""))
	assert.Check(t, is.Contains(h.SystemMessage, "small-commits"), "the dropped guardrail is named to the person")

	// A broken file: the verbs refuse naming it, and write nothing.
	assert.NilError(t, os.WriteFile(filepath.Join(s.root, ".abcd", "rules.json"), []byte(`{"schema_version":1,"domains":[{"name":"a/b"}]}`), 0o644))
	res = s.run(t, "rules", "--json")
	res.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(res.Stdout(), `"code":"rules_file_invalid"`))
	assert.Check(t, is.Contains(res.Stdout(), filepath.Join(s.root, ".abcd", "rules.json")))

	// A machine file others may write is refused, naming the chmod.
	assert.NilError(t, os.Remove(filepath.Join(s.root, ".abcd", "rules.json")))
	assert.NilError(t, os.WriteFile(filepath.Join(s.abcdHome, "rules.json"), []byte(`{"schema_version":1}`), 0o666))
	assert.NilError(t, os.Chmod(filepath.Join(s.abcdHome, "rules.json"), 0o666))
	res = s.run(t, "rules")
	res.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(res.Stderr(), "chmod 600"))
}
