package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/gemini"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// Real CLIs that ignore the settings abcd gives them, each in a way it really does, and without a
// word on its stream: the step is refused with settings_ignored before the force push the guard
// would have blocked runs. (TestHarnessTheRealCLIsImplement is the other side: the same CLIs, their
// settings home under a world-writable /tmp, load abcd's settings and the guard blocks.)

// systemSettings is Gemini CLI's dialect handing abcd's settings over the way abcd did before it gave
// each CLI a home of its own: as the system settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH) in the
// step's private folder. Gemini CLI reads that file only when root owns it and every folder above it
// and none of them is writable by group or others, so it skips it for every user but root, and for
// root too under /tmp, saying so on stderr alone. The sign-in alone stays in the user settings,
// where a person's own would hold it.
type systemSettings struct{ gemini.Dialect }

func (d systemSettings) Invocation(in runner.Invocation) (runner.Command, error) {
	cmd, err := d.Dialect.Invocation(in)
	if err != nil {
		return cmd, err
	}
	user := filepath.Join(".gemini", "settings.json")
	if cmd.Files == nil {
		cmd.Files = map[string][]byte{}
	}
	cmd.Files["system-settings.json"] = cmd.HomeFiles[user]
	cmd.HomeFiles[user] = []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
	cmd.Env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = filepath.Join(in.Private, "system-settings.json")
	return cmd, nil
}

// invalidSettings is Claude Code's dialect with one member of abcd's settings that Claude Code's
// validation refuses (a permission mode it does not know): in print mode it then ignores the whole
// file, hooks included, as a future version whose settings drifted from abcd's would.
type invalidSettings struct{ claude.Dialect }

func (d invalidSettings) Invocation(in runner.Invocation) (runner.Command, error) {
	cmd, err := d.Dialect.Invocation(in)
	if err != nil {
		return cmd, err
	}
	var set map[string]any
	if err := json.Unmarshal(cmd.Files["settings.json"], &set); err != nil {
		return cmd, err
	}
	set["permissions"] = map[string]any{"defaultMode": "notAMode"}
	cmd.Files["settings.json"], err = json.Marshal(set)
	return cmd, err
}

func TestHarnessACLIThatIgnoredAbcdsSettingsIsRefused(t *testing.T) {
	ignoring := map[domain.Kind]runner.Dialect{domain.Gemini: systemSettings{}, domain.Claude: invalidSettings{}}
	for _, c := range clis(t) {
		d, ok := ignoring[c.kind]
		if !ok {
			continue
		}
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			w := newHarness(t, c, c.implement)
			w.a = runner.New(runner.Options{Dialects: []runner.Dialect{d}, Guard: []string{os.Getenv("ABCD_BIN"), "guard", "hook"}, Environ: func() []string { return w.env }, TempDir: runnersFolder(t)})
			req := ports.RunnerStep{Runner: w.r, Dir: w.work, PromptFile: w.prompt, Policy: domain.PolicyImplement, Model: c.model, Limits: w.r.Limits}
			o, err := w.a.Step(context.Background(), req)
			assert.NilError(t, err)
			assert.Assert(t, o.Failure != nil, "%+v", o.Receipt)
			assert.Check(t, is.Equal(o.Failure.Cause, domain.CauseSettingsIgnored), o.Failure.Detail)
			assert.Check(t, is.Equal(requestText(w.api, 3), ""), "the force push the guard would have blocked never ran")
			t.Logf("%s: %s (%d model requests)", c.kind, o.Failure.Detail, w.api.Count())
		})
	}
}
