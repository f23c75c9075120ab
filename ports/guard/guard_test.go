package guard_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	guarduc "github.com/abcd-dev/abcd/ports/guard"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// words is a reader for the use-case tests: it splits on spaces, which is all these lines need (the
// real reader, adapters/shell, has its own tests).
func words(line string) (guard.Line, error) {
	fields := strings.Fields(line)
	cmd := guard.Command{Name: guard.Lit(fields[0]), Text: line}
	for _, f := range fields[1:] {
		cmd.Args = append(cmd.Args, guard.Lit(f))
	}
	return guard.Line{Commands: []guard.Command{cmd}, Home: "/home/ada"}, nil
}

// guardApp is a repository at /work/repo whose working tree holds file as .abcd/guard.json (none
// when empty), on a machine whose allow file holds allowed (none when empty).
func guardApp(file, allowed string) (*app.App, *fake.Diag) {
	diag := &fake.Diag{}
	recs := fake.NewRecords()
	if file != "" {
		recs.Files[guarduc.GuardFile] = []byte(file)
	}
	setup := fake.NewSetup("/work/repo", "/home/ada/.abcd")
	if allowed != "" {
		setup.Machine[guard.AllowFileName] = []byte(allowed)
	}
	// No git: the guard reads no history and starts no process.
	return &app.App{Setup: setup, Records: recs, Journal: fake.NewJournal(recs, nil), Diag: diag, Commands: fake.Commands{Read: words}}, diag
}

// allowOf is an allow file allowing file's bytes at the repository's guard file path.
func allowOf(file string) string {
	return fmt.Sprintf(`{"schema_version":1,"allow":[{"file":"/work/repo/.abcd/guard.json","sha256":%q}]}`, guard.Digest([]byte(file)))
}

func runGuard(t *testing.T, a *app.App, line string) guarduc.GuardVerdict {
	t.Helper()
	v, err := guarduc.GuardCheck(context.Background(), app.DepsOf[*guarduc.Deps](context.Background(), a), &guarduc.GuardCheckInput{Command: guard.CommandLine(line)})
	assert.NilError(t, err)
	return v
}

func TestGuardBuiltInRules(t *testing.T) {
	a, diag := guardApp("", "")
	v := runGuard(t, a, "rm -rf /")
	assert.Equal(t, v.Decision, "block")
	assert.Equal(t, v.Rule, "rm-recursive-root")
	assert.Equal(t, v.Rules, "built-in")
	assert.Assert(t, v.Safer != "" && v.Why != "")
	assert.Check(t, is.Len(diag.Warnings, 0))

	v = runGuard(t, a, "ls -la /")
	assert.Equal(t, v.Decision, "allow")
	assert.Check(t, is.Len(v.Findings, 0))
	assert.Check(t, v.Via != nil && v.Notices != nil, "no null in the document")
}

func TestGuardWorkingTreeMayTighten(t *testing.T) {
	a, _ := guardApp(apptest.AddRule, "")
	v := runGuard(t, a, "terraform destroy")
	assert.Equal(t, v.Decision, "block")
	assert.Equal(t, v.Rule, "no-terraform-destroy")
	assert.Equal(t, v.Rules, "working-tree")

	a, _ = guardApp(apptest.RaiseStash, "")
	v = runGuard(t, a, "git stash drop")
	assert.Equal(t, v.Decision, "block", "a raised tier takes effect before it is committed")
}

func TestGuardWeakeningNeedsThePersonsAllow(t *testing.T) {
	for name, file := range map[string]string{"disable": apptest.DisableRoot, "lower": apptest.LowerRoot, "off": apptest.SwitchOff} {
		t.Run(name, func(t *testing.T) {
			a, diag := guardApp(file, "")
			v := runGuard(t, a, "rm -rf /")
			assert.Equal(t, v.Decision, "block", "the weaker file is not allowed, so the built-in rules decide")
			assert.Equal(t, v.Rules, "built-in")
			assert.Assert(t, is.Len(v.Notices, 1))
			assert.Check(t, is.Contains(v.Notices[0], "/work/repo/.abcd/guard.json weakens the guard"))
			assert.Check(t, is.Contains(v.Notices[0], "not allowed"))
			assert.Check(t, is.Contains(v.Notices[0], "abcd guard allow"))
			assert.Check(t, is.Len(diag.Warnings, 1), "the notice is loud")

			// The same file, allowed on this machine, is in force.
			a, diag = guardApp(file, allowOf(file))
			v = runGuard(t, a, "rm -rf /srv")
			assert.Check(t, v.Decision != "block", "%+v", v)
			assert.Check(t, is.Len(v.Notices, 0))
			assert.Check(t, is.Len(diag.Warnings, 0))
		})
	}
	a, _ := guardApp(apptest.SwitchOff, allowOf(apptest.SwitchOff))
	v := runGuard(t, a, "rm -rf /")
	assert.Equal(t, v.Decision, "allow")
	assert.Equal(t, v.Rules, "off")
}

func TestGuardAllowIsOfExactBytesAtThatPath(t *testing.T) {
	// The person allowed one file; the agent changed a byte of it.
	edited := strings.Replace(apptest.LowerRoot, "warn", "allow", 1)
	a, _ := guardApp(edited, allowOf(apptest.LowerRoot))
	v := runGuard(t, a, "rm -rf /srv")
	assert.Equal(t, v.Decision, "block")
	assert.Check(t, is.Contains(strings.Join(v.Notices, "\n"), "not allowed"))

	// The same bytes allowed at another path (another repository) do not count here.
	elsewhere := fmt.Sprintf(`{"schema_version":1,"allow":[{"file":"/other/.abcd/guard.json","sha256":%q}]}`, guard.Digest([]byte(apptest.LowerRoot)))
	a, _ = guardApp(apptest.LowerRoot, elsewhere)
	v = runGuard(t, a, "rm -rf /srv")
	assert.Equal(t, v.Decision, "block")
}

func TestGuardWeakerFileKeepsItsAdditions(t *testing.T) {
	both := `{"schema_version":1,"disable":["rm-recursive-root"],"tiers":{"git-stash-drop":"block"},"rules":[{"id":"no-terraform-destroy","tier":"block","command":["terraform"],"subcommand":["destroy"],
		"why":"destroys the infrastructure","safer":"terraform plan -destroy","bad":["terraform destroy"],"good":["terraform plan"]}]}`
	a, _ := guardApp(both, "")
	for line, rule := range map[string]string{"terraform destroy": "no-terraform-destroy", "rm -rf /": "rm-recursive-root", "git stash drop": "git-stash-drop"} {
		v := runGuard(t, a, line)
		assert.Equal(t, v.Decision, "block", line)
		assert.Equal(t, v.Rule, rule, line)
		assert.Equal(t, v.Rules, "working-tree")
	}
}

func TestGuardGitWhileAWeakerFileIsNotAllowed(t *testing.T) {
	a, _ := guardApp(apptest.DisableRoot, "")
	v := runGuard(t, a, "git commit -am wip")
	assert.Equal(t, v.Decision, "block")
	assert.Equal(t, v.Rule, "guard-git-unallowed")

	a, _ = guardApp(apptest.DisableRoot, allowOf(apptest.DisableRoot))
	v = runGuard(t, a, "git commit -am wip")
	assert.Equal(t, v.Decision, "allow", "once allowed, git runs as ever")
	a, _ = guardApp(apptest.AddRule, "")
	v = runGuard(t, a, "git commit -am wip")
	assert.Equal(t, v.Decision, "allow", "a file that only adds needs no allow")
}

func TestGuardBrokenFileFallsBack(t *testing.T) {
	for name, file := range map[string]string{
		"not json":        `{"schema_version":1,`,
		"unknown field":   `{"schema_version":1,"rulez":[]}`,
		"repeated key":    `{"schema_version":1,"disable":[],"disable":[]}`,
		"wrong version":   `{"schema_version":2}`,
		"unknown rule id": `{"schema_version":1,"tiers":{"no-such-rule":"block"}}`,
		"built-in id":     `{"schema_version":1,"rules":[{"id":"rm-recursive-root","tier":"warn","command":["rm"],"why":"x","safer":"y","bad":["rm"],"good":["ls"]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			a, diag := guardApp(file, "")
			v := runGuard(t, a, "rm -rf /")
			assert.Equal(t, v.Decision, "block")
			assert.Equal(t, v.Rules, "built-in")
			assert.Assert(t, is.Len(v.Notices, 1))
			assert.Check(t, is.Contains(v.Notices[0], "is broken"))
			assert.Check(t, is.Len(diag.Warnings, 1))
		})
	}
}

func TestGuardBrokenAllowFileAllowsNothing(t *testing.T) {
	for name, allowed := range map[string]string{
		"not json":      `{`,
		"unknown field": `{"schema_version":1,"allow":[],"deny":[]}`,
		"relative file": fmt.Sprintf(`{"schema_version":1,"allow":[{"file":"repo/.abcd/guard.json","sha256":%q}]}`, guard.Digest([]byte(apptest.DisableRoot))),
		"short digest":  `{"schema_version":1,"allow":[{"file":"/work/repo/.abcd/guard.json","sha256":"abc"}]}`,
		"twice":         `{"schema_version":1,"allow":[{"file":"/a/g.json","sha256":"` + strings.Repeat("a", 64) + `"},{"file":"/a/g.json","sha256":"` + strings.Repeat("b", 64) + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			a, _ := guardApp(apptest.DisableRoot, allowed)
			v := runGuard(t, a, "rm -rf /")
			assert.Equal(t, v.Decision, "block")
			assert.Check(t, is.Contains(strings.Join(v.Notices, "\n"), "guard-allowed.json is broken"))
		})
	}
}

func TestGuardCwdMustBeThere(t *testing.T) {
	a, _ := guardApp("", "")
	_, err := guarduc.GuardCheck(context.Background(), app.DepsOf[*guarduc.Deps](context.Background(), a), &guarduc.GuardCheckInput{Command: "ls", Cwd: "/work/repo/no-such-folder"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, r.Code, refusal.CodeGuardCwdMissing)
	assert.Check(t, is.Contains(r.Why, "/work/repo/no-such-folder does not exist"))
}

func TestGuardRefusesBadInput(t *testing.T) {
	a, _ := guardApp("", "")
	for _, in := range []guarduc.GuardCheckInput{{Command: "  "}, {Command: "ls", Cwd: "relative/dir"}, {Command: "ls\x1b[31m"}, {Command: "ls", Cwd: "/a\x00b"}} {
		_, err := guarduc.GuardCheck(context.Background(), app.DepsOf[*guarduc.Deps](context.Background(), a), &in)
		r, ok := refusal.As(err)
		assert.Assert(t, ok, "%+v: %v", in, err)
		assert.Equal(t, r.Kind, refusal.Refused)
	}
}

func TestGuardUnreadableLineIsBlocked(t *testing.T) {
	a, _ := guardApp("", "")
	a.Commands = fake.Commands{Read: func(string) (guard.Line, error) { return guard.Line{Refused: "too deep"}, nil }}
	v := runGuard(t, a, "x")
	assert.Equal(t, v.Decision, "block")
	assert.Equal(t, v.Rule, guard.UnreadableRule)
	assert.Equal(t, v.Why, "too deep")
}

// writeLines reads the lines runner.WriteLines makes (": > 'p'", "rm -- 'p'", "ln -s -- 't' 'p'"),
// which is all the write check hands the reader.
func writeLines(line string) (guard.Line, error) {
	fields := strings.Fields(strings.ReplaceAll(line, "'", ""))
	cmd := guard.Command{Name: guard.Lit(fields[0]), Text: line}
	if len(fields) == 3 && fields[1] == ">" {
		cmd.Redirects = []guard.Redirect{{Op: ">", Target: guard.Lit(fields[2])}}
	} else {
		for _, f := range fields[1:] {
			cmd.Args = append(cmd.Args, guard.Lit(f))
		}
	}
	return guard.Line{Commands: []guard.Command{cmd}, Home: "/home/ada"}, nil
}

// A runner's changes are checked as writes by the rules the guard hook holds: the built-in ones, and
// a rule the repository's guard file adds.
func TestARunnersChangesAreCheckedAsWrites(t *testing.T) {
	const addWrite = `{"schema_version":1,"rules":[{"id":"no-secrets-write","tier":"block","all":[{"redirect":["**/secrets/**"],"exact":true}],
		"why":"writes the secrets folder","safer":"leave secrets/ alone","bad":["echo x > secrets/key"],"good":["cat secrets/key"]}]}`
	a, _ := guardApp(addWrite, "")
	a.Commands = fake.Commands{Read: writeLines}
	w, err := app.DepsOf[*guarduc.Deps](context.Background(), a).WriteGuard(context.Background())
	assert.NilError(t, err)
	dir := "/work/repo/.abcd-lanes/run-1/lane-1"
	got, err := w.Guarded(dir, []runner.Entry{
		{Path: "src/main.go", Kind: runner.EntryFile},
		{Path: ".abcd/guard.json", Kind: runner.EntryFile},
		{Path: ".claude/settings.json", Kind: runner.EntryDeleted},
		{Path: "secrets/key", Kind: runner.EntryFile},
		{Path: "docs/link", Kind: runner.EntryLink, Link: "../README.md"},
		{Path: "g", Kind: runner.EntryLink, Link: ".abcd/guard.json"},
		{Path: "new/dir/file.txt", Kind: runner.EntryFile},
	})
	assert.NilError(t, err)
	var rules []string
	for _, g := range got {
		rules = append(rules, g.Path+" "+g.Rule)
		assert.Check(t, g.Why != "")
	}
	assert.Check(t, is.DeepEqual(rules, []string{".abcd/guard.json guard-file-write", ".claude/settings.json harness-settings-write",
		"secrets/key no-secrets-write", "g guard-file-mode"}))

	// Without the repository's rule its path is the runner's to change.
	a, _ = guardApp("", "")
	a.Commands = fake.Commands{Read: writeLines}
	w, err = app.DepsOf[*guarduc.Deps](context.Background(), a).WriteGuard(context.Background())
	assert.NilError(t, err)
	got, err = w.Guarded(dir, []runner.Entry{{Path: "secrets/key", Kind: runner.EntryFile}})
	assert.NilError(t, err)
	assert.Check(t, is.Len(got, 0))
}
