package cli

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
)

// verbArgs is what each verb needs after its command path to produce a result. Every verb in the
// table must appear here, so a new verb cannot dodge the checks below.
var verbArgs = map[string][]string{
	"status":              nil,
	"version":             nil,
	"schema_list":         nil,
	"schema_show":         {"refusal"},
	"guard_check":         {"--command", "git status"},
	"guard_allow":         {"--revoke"},
	"config_show":         nil,
	"ahoy_install":        {"--yes"},
	"ahoy_uninstall":      nil,
	"ahoy_sandbox":        nil,
	"ahoy_connect":        {"local", "--base-url", "http://127.0.0.1:11434/v1", "--model", "qwen2.5:7b", "--tier", "local=qwen2.5:7b"},
	"ahoy_disconnect":     {"local"},
	"lint":                nil,
	"intent_new":          {"A new intent"},
	"intent_list":         nil,
	"intent_show":         {"draft-intent"},
	"intent_ready":        {"draft-intent"},
	"intent_plan":         {"draft-intent"},
	"intent_ship":         {"planned-intent"},
	"spec_new":            {"--intent", "planned-intent", "Another spec"},
	"spec_list":           nil,
	"spec_show":           {"open-spec"},
	"spec_close":          {"open-spec"},
	"capture":             {"It flickers on resize", "--related", "draft-intent"},
	"issue_list":          nil,
	"issue_show":          {"noticed-issue"},
	"issue_close":         {"noticed-issue", "--why", "fixed"},
	"decision_new":        {"Another decision", "--supersedes", "a-decision"},
	"decision_list":       nil,
	"decision_show":       {"a-decision"},
	"implement_start":     {"open-spec", "--again"},
	"implement_abandon":   nil,
	"implement_prune":     nil,
	"implement_step":      nil,
	"implement_run":       {"open-spec"},
	"implement_receipt":   {seedReceiptPath()},
	"implement_status":    nil,
	"implement_record":    nil,
	"review":              nil,
	"intent_audit":        {"draft-intent"},
	"record_finish_move":  {seedIssueID},
	"record_renumber":     {seedTwinPath},
	"record_finish_merge": nil,
	"rules":               {"committing"},
	"rules_show":          {"committing", "--prompt", "commit it"},
	"rules_match":         {"--prompt", "commit and git push --force"},
	"history_capture":     {"--all"},
	"history_list":        nil,
	"history_show":        {"s1234"},
	"history_search":      {"hello"},
}

// verbSeeds add to the seeded record what a verb mends and no other verb should meet (lint would
// count it): an issue a move left in two folders, a second issue carrying another's id.
var verbSeeds = map[string]func(r *fake.Records){
	"record_finish_move": seedMovedTwice,
	"record_renumber":    seedTwin,
}

func seeded(name string, a *app.App) *app.App {
	if seed, ok := verbSeeds[name]; ok {
		seed(a.Records.(*fake.Records))
	}
	return a
}

// emptyApp is the core over fakes that hold as little as they may: zero facts with a nil Records
// map, an index with no schemas, and a build that knows nothing about itself.
func emptyApp() *app.App {
	recs, runs := seededRecords(), seededRuns()
	return &app.App{
		Inspector: fake.Inspector{Facts: ports.RepoFacts{}},
		Schemas: fake.Schemas{
			Idx:   contract.Index{},
			Files: map[string][]byte{"refusal": []byte(`{}`)},
		},
		Config:      fake.Config{},
		Roster:      fake.Roster{},
		Setup:       fake.NewSetup("/work/repo", "/home/ada/.abcd"),
		Prompter:    &fake.Prompter{},
		Diag:        &fake.Diag{},
		Records:     recs,
		Journal:     fake.NewJournal(recs, runs),
		Clock:       fake.Clock{T: testNow},
		Random:      &fake.Random{},
		Git:         seededGit(),
		Runs:        runs,
		Commands:    fake.Commands{},
		Rules:       fake.Rules{},
		History:     seededHistory(),
		Transcripts: fake.Transcripts{HomeDir: "/home/ada"},
		Credentials: fake.Credentials{},
		Providers:   &fake.Providers{Check: ports.ProviderCheck{ModelReported: "qwen2.5:7b"}},
	}
}

// nulls lists the JSON paths in v that hold null.
func nulls(v any, path string) []string {
	switch x := v.(type) {
	case nil:
		return []string{path}
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(out, nulls(e, path+"."+k)...)
		}
		return out
	case []any:
		var out []string
		for i, e := range x {
			out = append(out, nulls(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	default:
		return nil
	}
}

// TestJSONResultsHaveNoNull: a consumer reading a schema that promises an array or object must never
// meet null. Every verb runs with full and with empty fakes, and so do the refusal documents.
func TestJSONResultsHaveNoNull(t *testing.T) {
	root := NewRoot(newApp(factsInitialized), &IO{In: strings.NewReader("")})
	paths := VerbCommands(root)
	for _, v := range app.Table() {
		extra, ok := verbArgs[v.Name]
		assert.Check(t, ok, "verb %q has no entry in verbArgs", v.Name)
		args := append(append([]string{}, v.Path...), extra...)
		args = append(args, "--json")
		for name, a := range map[string]*app.App{
			"full":  seeded(v.Name, newApp(factsInitialized)),
			"empty": seeded(v.Name, emptyApp()),
		} {
			t.Run(v.Name+"/"+name, func(t *testing.T) {
				assert.Check(t, paths[v.Name] != "", "verb %q has no command", v.Name)
				res := run(t, a, args...)
				assert.Equal(t, res.code, 0, "stdout: %s stderr: %s", res.stdout, res.stderr)
				assert.Check(t, is.Equal(res.stderr, ""))
				var doc any
				decodeOne(t, res.stdout, &doc)
				_, isObject := doc.(map[string]any)
				assert.Check(t, isObject, "a result is a JSON object: %s", res.stdout)
				assert.Check(t, is.Len(nulls(doc, "$"), 0), "stdout: %s", res.stdout)
			})
		}
	}
	for _, tc := range refusals {
		t.Run("refusal/"+tc.name, func(t *testing.T) {
			res := run(t, emptyApp(), append(tc.args, "--json")...)
			var doc any
			decodeOne(t, res.stdout, &doc)
			assert.Check(t, is.Len(nulls(doc, "$"), 0), "stdout: %s", res.stdout)
		})
	}
}

// TestJSONResultsDecodeStrictly: each verb's --json stdout is its declared result type, no field more.
func TestJSONResultsDecodeStrictly(t *testing.T) {
	for _, v := range app.Table() {
		t.Run(v.Name, func(t *testing.T) {
			args := append(append(append([]string{}, v.Path...), verbArgs[v.Name]...), "--json")
			res := run(t, seeded(v.Name, newApp(factsInitialized)), args...)
			assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
			decodeOne(t, res.stdout, reflect.New(v.ResultType()).Interface())
		})
	}
}
