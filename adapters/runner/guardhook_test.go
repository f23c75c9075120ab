package runner_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/codex"
	"github.com/abcd-dev/abcd/adapters/runner/gemini"
	domain "github.com/abcd-dev/abcd/domain/runner"
)

// The guard's hook sees every tool an implementer on a runner writes with, not its shell alone: a
// runner may not write what the guard blocks in a person's session (.abcd/guard.json, the harness's
// settings, abcd's machine folder) through a file tool (Codex: apply_patch, whose patch the hook
// reads). Each CLI matches its hook's matcher as a regular expression against the whole tool name;
// the reading tools stay outside it.
func TestTheGuardHookSeesEveryToolThatWrites(t *testing.T) {
	for _, tc := range []struct {
		dialect runner.Dialect
		event   string
		writes  []string
		reads   []string
	}{
		{claude.Dialect{}, "PreToolUse", []string{"Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"}, []string{"Read", "Grep", "Glob"}},
		{gemini.Dialect{}, "BeforeTool", []string{"run_shell_command", "write_file", "replace"}, []string{"read_file", "glob", "search_file_content"}},
		{codex.Dialect{}, "PreToolUse", []string{"Bash", "apply_patch", "write_stdin"}, []string{"view_image", "web_search"}},
	} {
		t.Run(string(tc.dialect.Kind()), func(t *testing.T) {
			cmd, err := tc.dialect.Invocation(runner.Invocation{Dir: t.TempDir(), Private: t.TempDir(), Policy: domain.PolicyImplement,
				Guard: []string{"/opt/abcd", "guard", "hook"}})
			assert.NilError(t, err)
			if tc.dialect.Kind() == domain.Codex {
				// Codex takes its hooks as TOML in a --config flag.
				hook := regexp.MustCompile(`^--config=hooks=\{PreToolUse=\[\{matcher="([^"]*)",hooks=\[\{type="command",command="/opt/abcd guard hook"`)
				var m []string
				for _, a := range cmd.Args {
					if m == nil {
						m = hook.FindStringSubmatch(a)
					}
				}
				assert.Assert(t, m != nil, "%q", cmd.Args)
				checkMatcher(t, m[1], tc.writes, tc.reads)
				// and no terminal sessions, whose typed input (write_stdin) Codex sends no hook for
				assert.Check(t, is.Contains(cmd.Args, "--config=features.unified_exec_tty=false"), "%q", cmd.Args)
				return
			}
			var settings struct {
				Hooks map[string][]struct {
					Matcher string `json:"matcher"`
					Hooks   []struct {
						Command string `json:"command"`
					} `json:"hooks"`
				} `json:"hooks"`
			}
			file := cmd.Files["settings.json"]
			if tc.dialect.Kind() == domain.Gemini {
				file = cmd.HomeFiles[filepath.Join(".gemini", "settings.json")] // its user settings, in the home abcd gives it
			}
			assert.NilError(t, json.Unmarshal(file, &settings))
			hooks := settings.Hooks[tc.event]
			assert.Assert(t, is.Len(hooks, 1))
			assert.Check(t, is.Equal(hooks[0].Hooks[0].Command, "/opt/abcd guard hook"))
			checkMatcher(t, hooks[0].Matcher, tc.writes, tc.reads)
		})
	}
}

func checkMatcher(t *testing.T, m string, writes, reads []string) {
	t.Helper()
	matcher := regexp.MustCompile("^(?:" + m + ")$")
	for _, tool := range writes {
		assert.Check(t, matcher.MatchString(tool), "%s passes no guard", tool)
	}
	for _, tool := range reads {
		assert.Check(t, !matcher.MatchString(tool), "%s is a reading tool", tool)
	}
}
