package app

import (
	"context"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/fake"
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

func guardApp(working, committed string) (*App, *fake.Diag) {
	diag := &fake.Diag{}
	recs := fake.NewRecords()
	if working != "" {
		recs.Files[GuardFile] = []byte(working)
	}
	git := fake.NewGit("c0")
	git.AtHead = map[string][]byte{}
	if committed != "" {
		git.AtHead[GuardFile] = []byte(committed)
	}
	return &App{Setup: fake.NewSetup("/work/repo", "/home/ada/.abcd"), Records: recs, Journal: fake.NewJournal(recs, nil), Git: git, Diag: diag,
		Commands: fake.Commands{Read: words}}, diag
}

func runGuard(t *testing.T, a *App, line string) GuardVerdict {
	t.Helper()
	v, err := guardCheck(context.Background(), a, &GuardCheckInput{Command: guard.CommandLine(line)})
	assert.NilError(t, err)
	return v
}

const (
	addRule = `{"schema_version":1,"rules":[{"id":"no-terraform-destroy","tier":"block","command":["terraform"],"subcommand":["destroy"],
		"why":"destroys the infrastructure","safer":"terraform plan -destroy","bad":["terraform destroy"],"good":["terraform plan"]}]}`
	disableRoot = `{"schema_version":1,"disable":["rm-recursive-root"]}`
	lowerRoot   = `{"schema_version":1,"tiers":{"rm-recursive-root":"warn"}}`
	raiseStash  = `{"schema_version":1,"tiers":{"git-stash-drop":"block"}}`
	switchOff   = `{"schema_version":1,"enabled":false}`
)

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
	a, _ := guardApp(addRule, "")
	v := runGuard(t, a, "terraform destroy")
	assert.Equal(t, v.Decision, "block")
	assert.Equal(t, v.Rule, "no-terraform-destroy")
	assert.Equal(t, v.Rules, "working-tree")

	a, _ = guardApp(raiseStash, "")
	v = runGuard(t, a, "git stash drop")
	assert.Equal(t, v.Decision, "block", "a raised tier takes effect before it is committed")
}

func TestGuardUncommittedWeakeningIsRefused(t *testing.T) {
	for name, file := range map[string]string{"disable": disableRoot, "lower": lowerRoot, "off": switchOff} {
		t.Run(name, func(t *testing.T) {
			a, diag := guardApp(file, "")
			v := runGuard(t, a, "rm -rf /")
			assert.Equal(t, v.Decision, "block", "the weakening is not committed, so the built-in rules decide")
			assert.Equal(t, v.Rules, "built-in")
			assert.Assert(t, is.Len(v.Notices, 1))
			assert.Check(t, is.Contains(v.Notices[0], "takes effect once committed"))
			assert.Check(t, is.Len(diag.Warnings, 1), "the notice is loud")
		})
	}
}

func TestGuardCommittedWeakeningTakesEffect(t *testing.T) {
	a, _ := guardApp(disableRoot, disableRoot)
	v := runGuard(t, a, "rm -rf /")
	assert.Equal(t, v.Rules, "committed")
	assert.Check(t, v.Decision != "block" || v.Rule != "rm-recursive-root", "%+v", v)

	a, _ = guardApp(lowerRoot, lowerRoot)
	v = runGuard(t, a, "rm -rf /usr")
	assert.Equal(t, v.Decision, "warn")

	a, _ = guardApp(switchOff, switchOff)
	v = runGuard(t, a, "rm -rf /")
	assert.Equal(t, v.Decision, "allow")
	assert.Equal(t, v.Rules, "off")
}

func TestGuardWeakeningACommittedAdditionIsRefused(t *testing.T) {
	// The committed file adds a rule; the working tree drops it again without committing.
	a, _ := guardApp(`{"schema_version":1}`, addRule)
	v := runGuard(t, a, "terraform destroy")
	assert.Equal(t, v.Decision, "block")
	assert.Equal(t, v.Rules, "committed")
	assert.Check(t, is.Contains(strings.Join(v.Notices, "\n"), "removes rule no-terraform-destroy"))

	// Deleting the committed file in the working tree is the same weakening.
	a, _ = guardApp("", addRule)
	v = runGuard(t, a, "terraform destroy")
	assert.Equal(t, v.Decision, "block")
	assert.Check(t, is.Contains(strings.Join(v.Notices, "\n"), "deleted"))
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
	// A broken working copy of a good committed file keeps the committed rules.
	a, _ := guardApp(`{`, addRule)
	v := runGuard(t, a, "terraform destroy")
	assert.Equal(t, v.Decision, "block")
	assert.Equal(t, v.Rules, "committed")
}

func TestGuardRefusesBadInput(t *testing.T) {
	a, _ := guardApp("", "")
	for _, in := range []GuardCheckInput{{Command: "  "}, {Command: "ls", Cwd: "relative/dir"}, {Command: "ls\x1b[31m"}, {Command: "ls", Cwd: "/a\x00b"}} {
		_, err := guardCheck(context.Background(), a, &in)
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
