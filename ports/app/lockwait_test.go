package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// lockWaitApp is the core over an empty record whose repository configuration file holds repo.
func lockWaitApp(repo string) (*fake.Records, func(map[string]any) (any, error)) {
	r := fake.NewRecords()
	a := apptest.RecApp(r)
	if repo != "" {
		a.Config = fake.Config{Files: ports.ConfigFiles{RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(repo)}}}
	}
	return r, func(in map[string]any) (any, error) { return a.Call(context.Background(), "capture", in) }
}

// The record's lock waits what lock.wait_ms says, 3 s when nothing does; a value out of range
// refuses the write naming the file, and a fault elsewhere in the file leaves the default.
func TestTheRecordLockWaitsWhatTheConfigurationSays(t *testing.T) {
	for _, c := range []struct {
		name, repo string
		wait       time.Duration
	}{
		{"no file", "", 3 * time.Second},
		{"the file sets it", `{"schema_version":1,"lock":{"wait_ms":250}}`, 250 * time.Millisecond},
		{"zero tries once", `{"schema_version":1,"lock":{"wait_ms":0}}`, 0},
		{"a fault elsewhere", `{"schema_version":1,"oracle":{"rp":{"url":"http://127.0.0.1:1/mcp"}}}`, 3 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, capture := lockWaitApp(c.repo)
			r.Waited = -1
			_, err := capture(map[string]any{"text": "a thing noticed"})
			assert.NilError(t, err)
			assert.Check(t, is.Equal(r.Waited, c.wait))
			assert.Check(t, is.Len(r.Files, 1))
		})
	}
	for _, bad := range []string{`{"schema_version":1,"lock":{"wait_ms":60001}}`, `{"schema_version":1,"lock":{"wait_ms":-1}}`, `{"schema_version":1,"lock":{"wait_ms":"3s"}}`} {
		r, capture := lockWaitApp(bad)
		_, err := capture(map[string]any{"text": "a thing noticed"})
		re := apptest.RecRefused(t, err, refusal.Refused, "config_value_invalid")
		assert.Check(t, is.Contains(re.Why, "lock.wait_ms"))
		assert.Check(t, is.Equal(re.What, "/work/repo/.abcd/config.json"))
		assert.Check(t, is.Len(r.Files, 0), "nothing written")
	}
}

// The runs' and the machine folder's locks wait what lock.wait_ms says too, read once per call: a
// step that takes the run's lock and then the record's reads it once.
func TestEveryLockWaitsWhatTheConfigurationSays(t *testing.T) {
	w := apptest.NewLoopWorld(t, nil)
	w.Rs.Waited = -1
	repo := ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true, Data: []byte(`{"schema_version":1,"lock":{"wait_ms":250},"build":{"dod":"true"}}`)}
	counted := &countingConfig{Config: fake.Config{Files: ports.ConfigFiles{RepoConfig: repo}}}
	w.A.Config = counted
	apptest.RecRun[loop.StepResult](t, w.A, "implement_abandon", map[string]any{"run": w.Run})
	assert.Check(t, is.Equal(w.Rs.Waited, 250*time.Millisecond))
	assert.Check(t, is.Equal(counted.reads, 1), "the wait is read once, when the first lock is taken")

	setup := fake.NewSetup("/work/repo", "/home/ada/.abcd")
	w.A.Setup = setup
	setup.Waited = -1
	_, err := w.A.Call(t.Context(), "ahoy_disconnect", map[string]any{"name": "nobody"})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(setup.Waited, 250*time.Millisecond))

	counted.reads = 0
	apptest.RecRun[loop.ImplementStatusResult](t, w.A, "implement_status", map[string]any{})
	assert.Check(t, is.Equal(counted.reads, 0), "a call that takes no lock reads no configuration for one")
}

// countingConfig counts the configuration reads.
type countingConfig struct {
	fake.Config
	reads int
}

func (c *countingConfig) ReadConfig(ctx context.Context) (ports.ConfigFiles, error) {
	c.reads++
	return c.Config.ReadConfig(ctx)
}

// A key under the lock namespace that abcd does not read is refused, as under build and oracle.
func TestTheLockNamespaceIsClaimed(t *testing.T) {
	r, capture := lockWaitApp(`{"schema_version":1,"lock":{"wait":3000}}`)
	_, err := capture(map[string]any{"text": "a thing noticed"})
	assert.NilError(t, err, "a fault elsewhere leaves the default")
	assert.Check(t, is.Equal(r.Waited, 3*time.Second))
	a := apptest.RecApp(fake.NewRecords())
	a.Config = fake.Config{Files: ports.ConfigFiles{RepoConfig: ports.ConfigFile{Path: "/work/repo/.abcd/config.json", Present: true,
		Data: []byte(`{"schema_version":1,"lock":{"wait":3000}}`)}}}
	_, err = a.Call(context.Background(), "config_show", map[string]any{})
	re, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Contains(re.Why, "lock.wait"), "%+v", re)
}

// lint reports the temporary files killed writers left, as the store lists them: an error beside a
// record, a warning in abcd's git-ignored temporary folder.
func TestLintReportsStrayTemps(t *testing.T) {
	r := fake.NewRecords()
	r.Temps = []ports.StrayTemp{{Path: ".abcd/.work.local/tmp/.abcd-tmp-7-1", Ignored: true}, {Path: ".abcd/work/issues/open/.abcd-tmp-7-2"}}
	res := apptest.RecRun[record.LintResult](t, apptest.RecApp(r), "lint", map[string]any{})
	assert.Check(t, is.Equal(res.Errors, 1))
	assert.Check(t, is.Equal(res.Warnings, 1))
	assert.Assert(t, is.Len(res.Findings, 2))
	for i, want := range []string{".abcd/.work.local/tmp/.abcd-tmp-7-1", ".abcd/work/issues/open/.abcd-tmp-7-2"} {
		assert.Check(t, is.Equal(res.Findings[i].File, want))
		assert.Check(t, is.Equal(res.Findings[i].Code, "stray_temp"))
	}
}

// What a killed merge driver left is named by lint: a warning in git's own folder, an error where git
// would commit it.
func TestLintReportsWhatAKilledMergeDriverLeft(t *testing.T) {
	r := fake.NewRecords()
	r.MergeTempFiles = []ports.StrayTemp{{Path: ".git/abcd-tmp/merge-123", Ignored: true}, {Path: ".abcd-tmp-merge-9"}}
	res := apptest.RecRun[record.LintResult](t, apptest.RecApp(r), "lint", map[string]any{})
	assert.Check(t, is.Equal(res.Errors, 1))
	assert.Check(t, is.Equal(res.Warnings, 1))
	assert.Assert(t, is.Len(res.Findings, 2), "%+v", res.Findings)
	for _, f := range res.Findings {
		assert.Check(t, is.Equal(f.Code, "stray_temp"), "%+v", f)
	}
}
