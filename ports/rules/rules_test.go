package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/rules"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/guard"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	rulesuc "github.com/abcd-dev/abcd/ports/rules"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const (
	machineRules = "/home/ada/.abcd/rules.json"
	repoRules    = "/work/repo/.abcd/rules.json"
)

func rulesApp(machine, repo, guardFile string) (*app.App, *fake.Diag) {
	diag := &fake.Diag{}
	recs := fake.NewRecords()
	if guardFile != "" {
		recs.Files[guard.GuardFile] = []byte(guardFile)
	}
	files := ports.RuleFiles{
		Machine:    ports.ConfigFile{Path: machineRules, Present: machine != "", Data: []byte(machine)},
		Repository: ports.ConfigFile{Path: repoRules, Present: repo != "", Data: []byte(repo)},
	}
	return &app.App{Setup: fake.NewSetup("/work/repo", "/home/ada/.abcd"), Records: recs, Diag: diag, Rules: fake.Rules{Files: files}}, diag
}

func TestRulesListsTheLayers(t *testing.T) {
	a, diag := rulesApp(`{"schema_version":1,"budget":{"rules":5}}`,
		`{"schema_version":1,"domains":[{"name":"database","recall":["migration"],"aliases":["db"],"dormant":true,"rules":[{"id":"down","text":"Every migration has a down step."}]},
		{"name":"committing","drop":["commit-when-asked"]}]}`, "")
	res, err := rulesuc.RulesList(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesInput{})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(res.Files, []rulesuc.RulesFileStatus{{Layer: "machine", Path: machineRules, Present: true}, {Layer: "repository", Path: repoRules, Present: true}}))
	assert.Check(t, res.Inject.On)
	assert.Check(t, is.Equal(res.Budget.Rules, 5))
	assert.Check(t, is.Equal(res.Budget.RulesFrom.Origin, machineRules))
	assert.Check(t, is.Equal(res.Budget.Bytes, rules.DefaultBudgetBytes))
	assert.Check(t, is.Equal(res.Budget.BytesFrom.Layer, "bundled"))
	var names []string
	for _, d := range res.Domains {
		names = append(names, d.Name)
	}
	assert.Check(t, is.DeepEqual(names, []string{"committing", "database", "machine-load", "secrets", "shell", "shell-git", "shell-system"}))
	db := res.Domains[1]
	assert.Check(t, db.Dormant && !db.Guardrail)
	assert.Check(t, is.Equal(db.Origin, repoRules))
	assert.Check(t, is.Equal(res.Domains[0].Dropped, 1))

	// The dropped guardrail is named in the result and warned, on every load.
	assert.Check(t, is.Len(res.Notices, 1))
	assert.Check(t, is.Contains(res.Notices[0], repoRules+" drops the bundled guardrail rule committing/commit-when-asked"))
	assert.Check(t, is.Len(diag.Warnings, 1))
	_, err = rulesuc.RulesList(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesInput{Domain: "db"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(diag.Warnings, 2), "named again on the next load")

	one, err := rulesuc.RulesList(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesInput{Domain: "db"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(one.Domains, 1))
	assert.Check(t, is.Equal(one.Domains[0].Name, "database"), "an alias finds its domain")

	_, err = rulesuc.RulesList(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesInput{Domain: "nope"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRulesDomainUnknown))
	assert.Check(t, is.Equal(r.Field, "domain"))
}

// A file that fails to parse is a loud refusal naming it, never zero rules.
func TestABrokenRulesFileIsRefusedNamingIt(t *testing.T) {
	for _, c := range []struct{ name, machine, repo, path, want string }{
		{"repository json", "", `{"schema_version":1,"domains":[`, repoRules, "is not JSON"},
		{"machine version", `{"schema_version":3}`, "", machineRules, "schema_version 3"},
		{"a name that cannot be a path", "", `{"schema_version":1,"domains":[{"name":"../../etc"}]}`, repoRules, "cannot become a file name"},
		{"an unknown key", `{"schema_version":1,"domain":[]}`, "", machineRules, `the document has the unknown field "domain": its fields are schema_version, inject, budget, domains`},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _ := rulesApp(c.machine, c.repo, "")
			for _, call := range []func() error{
				func() error {
					_, err := rulesuc.RulesList(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesInput{})
					return err
				},
				func() error {
					_, err := rulesuc.RulesShow(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesShowInput{})
					return err
				},
				func() error {
					_, err := rulesuc.RulesMatch(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesMatchInput{Prompt: "commit it"})
					return err
				},
			} {
				r, ok := refusal.As(call())
				assert.Assert(t, ok)
				assert.Check(t, is.Equal(r.Code, refusal.CodeRulesFileInvalid))
				assert.Check(t, is.Equal(r.What, c.path))
				assert.Check(t, is.Contains(r.Why, c.want))
				assert.Check(t, !strings.Contains(r.Why, c.path), "the file is named once, as what is refused: %s", r.Why)
				assert.Check(t, !strings.Contains(r.Why, "json: "), "in abcd's words, never Go's: %s", r.Why)
				assert.Check(t, is.Equal(r.Kind, refusal.Refused))
			}
		})
	}
	a, _ := rulesApp(`{"schema_version":1,"domains":[{"name":"database","aliases":["db"]}]}`, `{"schema_version":1,"domains":[{"name":"db"}]}`, "")
	_, err := rulesuc.RulesList(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesInput{})
	r, ok := refusal.As(err)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRulesFileInvalid))
	assert.Check(t, is.Contains(r.Why, repoRules+": domain db is already an alias of domain database"))

	// A file abcd may not read (a link, another owner's machine file) is the adapter's refusal.
	a.Rules = fake.Rules{Err: refusal.New("config_file", machineRules, "is a symbolic link", "replace the link")}
	_, err = rulesuc.RulesList(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesInput{})
	r, ok = refusal.As(err)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(r.Code, refusal.CodeConfigFile))
}

func TestRulesShowSaysWhereEachRuleCameFromAndWhy(t *testing.T) {
	a, _ := rulesApp(`{"schema_version":1,"domains":[{"name":"committing","rules":[{"id":"no-force-push","text":"Ask before any force-push."}]}]}`,
		`{"schema_version":1,"domains":[{"name":"release","dormant":true,"recall":["release"],"rules":[{"id":"notes","text":"Write the notes."}]}]}`, "")
	res, err := rulesuc.RulesShow(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesShowInput{Domain: "committing", Prompt: "commit it, then cut a release"})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(res.Domains, 1))
	d := res.Domains[0]
	assert.Check(t, d.Guardrail)
	var replaced *rulesuc.RulesRuleView
	for i, r := range d.Rules {
		if r.ID == "no-force-push" {
			replaced = &d.Rules[i]
		}
	}
	assert.Assert(t, replaced != nil)
	assert.Check(t, is.Equal(replaced.Origin, machineRules))
	assert.Check(t, is.DeepEqual(replaced.Replaces, &rulesuc.RulesLayer{Layer: "bundled", Origin: "abcd"}))
	assert.Assert(t, d.Match != nil)
	assert.Check(t, d.Match.Comes)
	assert.Check(t, is.Equal(d.Match.Why, `recalled by "commit"`))

	res, err = rulesuc.RulesShow(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesShowInput{Prompt: "cut a release *nope"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(res.Unknown, []string{"nope"}))
	for _, d := range res.Domains {
		switch d.Name {
		case "release":
			assert.Check(t, !d.Match.Comes)
			assert.Check(t, is.Contains(d.Match.Why, "dormant"))
			assert.Check(t, is.Equal(d.DormantFrom.Origin, repoRules))
		case "secrets":
			assert.Check(t, !d.Match.Comes)
			assert.Check(t, is.Contains(d.Match.Why, "none of its recall words"))
		}
	}
}

func TestRulesMatchHandsTheBudget(t *testing.T) {
	a, _ := rulesApp("", `{"schema_version":1,"budget":{"rules":2},"domains":[{"name":"database","recall":["migration"],"rules":[
		{"id":"down","text":"Every migration has a down step."},{"id":"sql","text":"Write SQL by hand."}]}]}`, "")
	res, err := rulesuc.RulesMatch(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesMatchInput{Prompt: "write a migration and commit it"})
	assert.NilError(t, err)
	var order []string
	for _, m := range res.Matched {
		order = append(order, m.Domain)
	}
	assert.Check(t, is.DeepEqual(order, []string{"committing", "database"}), "guardrails first, then by words")
	assert.Check(t, is.DeepEqual(res.Included, []rulesuc.RulesRef{{Domain: "committing", ID: "commit-when-asked"}, {Domain: "database", ID: "down"}}),
		"every domain's first rule before any second")
	assert.Check(t, is.Len(res.LeftOut, 5))
	assert.Check(t, is.Contains(res.Context, "- Every migration has a down step.\n"))
	assert.Check(t, is.Contains(res.Context, "Left out over the budget"))
	assert.Check(t, res.Matched[1].Rules[0].Included && !res.Matched[1].Rules[1].Included)

	_, err = rulesuc.RulesMatch(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesMatchInput{Prompt: "a\x1b[31m"})
	r, ok := refusal.As(err)
	assert.Assert(t, ok)
	assert.Check(t, is.Equal(r.Code, refusal.CodeRulesPromptInvalid))

	off, _ := rulesApp("", `{"schema_version":1,"inject":false}`, "")
	res, err = rulesuc.RulesMatch(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), off), &rulesuc.RulesMatchInput{Prompt: "commit it"})
	assert.NilError(t, err)
	assert.Check(t, !res.Inject.On)
	assert.Check(t, is.Equal(res.Inject.Origin, repoRules), "the switch says which file set it")
	assert.Check(t, is.Equal(res.Context, ""))
	assert.Check(t, is.Len(res.Matched, 1), "what matched is still shown")
}

// The shell domain follows the guard: a rule the repository's guard.json adds is a lesson at once.
func TestShellLessonsFollowTheRepositorysGuardFile(t *testing.T) {
	a, _ := rulesApp("", "", apptest.AddRule)
	res, err := rulesuc.RulesMatch(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesMatchInput{Prompt: "run terraform destroy"})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(res.Matched, 1))
	assert.Check(t, is.Equal(res.Matched[0].Domain, rules.ShellDomain))
	assert.Check(t, is.Equal(res.Matched[0].Rules[0].ID, "no-terraform-destroy"))
	assert.Check(t, is.Contains(res.Context, "destroys the infrastructure"))

	broken, diag := rulesApp("", "", `{"schema_version":1,`)
	res, err = rulesuc.RulesMatch(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), broken), &rulesuc.RulesMatchInput{Prompt: "rm -rf /"})
	assert.NilError(t, err)
	assert.Check(t, is.Contains(strings.Join(res.Notices, "\n"), ".abcd/guard.json is broken"))
	assert.Check(t, is.Len(diag.Warnings, 1))
	assert.Check(t, is.Contains(res.Context, "rm-recursive-root"), "the built-in lessons stay")
}

// What was composed is kept under the digest of its inputs and read back on the next load: the same
// answer, the same notices warned; a changed file is another key; a kept form that cannot be read is
// composed again and kept anew.
func TestComposedRulesAreKeptAndReadBack(t *testing.T) {
	a, diag := rulesApp("", `{"schema_version":1,"domains":[{"name":"committing","drop":["commit-when-asked"]},{"name":"database","recall":["migration"],"rules":[{"id":"down","text":"Down steps."}]}]}`, "")
	kept := map[string][]byte{}
	src := a.Rules.(fake.Rules)
	src.Kept = kept
	a.Rules = src
	_, err := rulesuc.RulesMatch(context.Background(), app.DepsOf[*rulesuc.Deps](context.Background(), a), &rulesuc.RulesMatchInput{Prompt: "a migration to commit"})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(kept, 0), "the verb is read-only: it keeps nothing")
	first, err := a.RulesHook(context.Background(), &rulesuc.RulesMatchInput{Prompt: "a migration to commit"})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(kept, 1))
	second, err := a.RulesHook(context.Background(), &rulesuc.RulesMatchInput{Prompt: "a migration to commit"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(first, second))
	assert.Check(t, is.Len(diag.Warnings, 1), "the verb warns of the dropped guardrail on stderr")
	for _, r := range []rulesuc.RulesMatchResult{first, second} {
		assert.Check(t, is.Contains(strings.Join(r.Notices, "\n"), "drops the bundled guardrail rule committing/commit-when-asked"),
			"the dropped guardrail is named on every load, kept or not, in the hook's answer (its one warning)")
	}

	for k := range kept {
		kept[k] = []byte("garbage")
	}
	third, err := a.RulesHook(context.Background(), &rulesuc.RulesMatchInput{Prompt: "a migration to commit"})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(first, third))
	for _, v := range kept {
		assert.Check(t, string(v) != "garbage", "kept anew")
	}

	src.Files.Repository.Data = []byte(`{"schema_version":1}`)
	a.Rules = src
	fourth, err := a.RulesHook(context.Background(), &rulesuc.RulesMatchInput{Prompt: "a migration to commit"})
	assert.NilError(t, err)
	assert.Check(t, is.Len(kept, 2), "a changed file is another key")
	assert.Check(t, is.Len(fourth.Notices, 0))
}
