package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/guard"
)

func decode(t *testing.T, s string) File {
	t.Helper()
	f, err := Decode("test.json", []byte(s))
	assert.NilError(t, err)
	return f
}

func TestDecodeRefusesWhatIsNotARulesFile(t *testing.T) {
	long := strings.Repeat("x", MaxRuleBytes+1)
	manyDomains := `{"schema_version":1,"domains":[` + strings.TrimSuffix(strings.Repeat(`{"name":"d"},`, 1), ",")
	for i := 1; i <= MaxDomains; i++ {
		manyDomains += fmt.Sprintf(`,{"name":"d%d"}`, i)
	}
	manyDomains += `]}`
	manyRules := `{"schema_version":1,"domains":[{"name":"d","rules":[`
	for i := 0; i <= MaxRulesInDomain; i++ {
		if i > 0 {
			manyRules += ","
		}
		manyRules += fmt.Sprintf(`{"id":"r%d","text":"t"}`, i)
	}
	manyRules += `]}]}`
	for _, c := range []struct{ name, data, want string }{
		{"not json", `{`, "test.json"},
		{"an array", `[]`, "test.json"},
		{"unknown key", `{"schema_version":1,"domain":[]}`, `unknown field "domain"`},
		{"key twice", `{"schema_version":1,"schema_version":1}`, "twice"},
		{"trailing", `{"schema_version":1} {}`, "test.json"},
		{"version", `{"schema_version":2}`, "schema_version 2"},
		{"no version", `{}`, "schema_version 0"},
		{"a path for a name", `{"schema_version":1,"domains":[{"name":"../etc"}]}`, "cannot become a file name"},
		{"a slash in a name", `{"schema_version":1,"domains":[{"name":"db/x"}]}`, "cannot become a file name"},
		{"upper case", `{"schema_version":1,"domains":[{"name":"DB"}]}`, "cannot become a file name"},
		{"a dot", `{"schema_version":1,"domains":[{"name":"db.json"}]}`, "cannot become a file name"},
		{"two hyphens", `{"schema_version":1,"domains":[{"name":"a--b"}]}`, "cannot become a file name"},
		{"too long a name", `{"schema_version":1,"domains":[{"name":"` + strings.Repeat("a", MaxNameBytes+1) + `"}]}`, "longer than"},
		{"a reserved name", `{"schema_version":1,"domains":[{"name":"match"}]}`, "word of the rules command"},
		{"empty name", `{"schema_version":1,"domains":[{"name":""}]}`, "needs a name"},
		{"domain twice", `{"schema_version":1,"domains":[{"name":"a"},{"name":"a"}]}`, "declared twice"},
		{"too many domains", manyDomains, "domains, over the"},
		{"too many rules", manyRules, "rules, over the"},
		{"rule too long", `{"schema_version":1,"domains":[{"name":"a","rules":[{"id":"r","text":"` + long + `"}]}]}`, "one short convention"},
		{"empty rule", `{"schema_version":1,"domains":[{"name":"a","rules":[{"id":"r","text":"  "}]}]}`, "empty"},
		{"control character", `{"schema_version":1,"domains":[{"name":"a","rules":[{"id":"r","text":"a\u001b[31mb"}]}]}`, "control character"},
		{"bidi character", `{"schema_version":1,"domains":[{"name":"a","rules":[{"id":"r","text":"a\u202eb"}]}]}`, "bidirectional"},
		{"rule twice", `{"schema_version":1,"domains":[{"name":"a","rules":[{"id":"r","text":"x"},{"id":"r","text":"y"}]}]}`, "given twice"},
		{"bad id", `{"schema_version":1,"domains":[{"name":"a","rules":[{"id":"R 1","text":"x"}]}]}`, "id"},
		{"recall with punctuation", `{"schema_version":1,"domains":[{"name":"a","recall":["c++"]}]}`, "recall"},
		{"recall empty", `{"schema_version":1,"domains":[{"name":"a","recall":[""]}]}`, "empty"},
		{"recall of five words", `{"schema_version":1,"domains":[{"name":"a","recall":["a b c d e"]}]}`, "one to four"},
		{"short prefix", `{"schema_version":1,"domains":[{"name":"a","recall":["ab*"]}]}`, "three letters"},
		{"lone star", `{"schema_version":1,"domains":[{"name":"a","recall":["ab *"]}]}`, "cannot stand alone"},
		{"alias is a path", `{"schema_version":1,"domains":[{"name":"a","aliases":["x/y"]}]}`, "alias"},
		{"alias is the name", `{"schema_version":1,"domains":[{"name":"a","aliases":["a"]}]}`, "own name"},
		{"drop and give", `{"schema_version":1,"domains":[{"name":"a","rules":[{"id":"r","text":"x"}],"drop":["r"]}]}`, "same entry"},
		{"budget too small", `{"schema_version":1,"budget":{"bytes":10}}`, "budget.bytes"},
		{"budget too large", `{"schema_version":1,"budget":{"bytes":100000}}`, "budget.bytes"},
		{"budget rules", `{"schema_version":1,"budget":{"rules":65}}`, "budget.rules"},
		{"negative budget", `{"schema_version":1,"budget":{"rules":-1}}`, "budget.rules"},
		{"too large", `{"schema_version":1,"x":"` + strings.Repeat("a", MaxFileBytes) + `"}`, "over the"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode("test.json", []byte(c.data))
			assert.Assert(t, err != nil)
			assert.Check(t, is.Contains(err.Error(), c.want))
			assert.Check(t, strings.HasPrefix(err.Error(), "test.json"), "the error names the file: %v", err)
		})
	}
}

func compose(t *testing.T, files ...string) *Set {
	t.Helper()
	var srcs []Source
	layers := []Layer{Bundled, Machine, Repository}
	origins := []string{"abcd", "/home/p/.abcd/rules.json", "/repo/.abcd/rules.json"}
	for i, f := range files {
		srcs = append(srcs, Source{Layer: layers[i], Origin: origins[i], File: decode(t, f)})
	}
	s, err := Compose(srcs)
	assert.NilError(t, err)
	return s
}

const dbRules = `{"schema_version":1,"domains":[
 {"name":"database","recall":["sql","migrat*","schema change"],"aliases":["db"],
  "rules":[{"id":"reversible","text":"Every migration has a down step."},{"id":"no-orm","text":"Write SQL by hand."}]}]}`

func matchedNames(r Result) []string {
	var out []string
	for _, m := range r.Matched {
		out = append(out, m.Domain.Name)
	}
	return out
}

func TestWordsMatchOnWordBoundariesOnly(t *testing.T) {
	s := compose(t, `{"schema_version":1}`, dbRules)
	for _, c := range []struct {
		prompt string
		want   bool
	}{
		{"add a column with SQL", true},
		{"(sql)", true},
		{"sql.", true},
		{"move from postgresql", false},
		{"mysql is down", false},
		{"my_sql helper", false},
		{"sqlite", false},
		{"run the MIGRATIONS", true},
		{"migrate it", true},
		{"immigration policy", false},
		{"a schema change", true},
		{"a schema\nchange", true},
		{"a schema-change", true},
		{"change the schema", false},
		{"the db is slow", true},
		{"dbx", false},
		{"", false},
	} {
		res := s.Match(c.prompt)
		got := len(res.Matched) == 1
		assert.Check(t, is.Equal(got, c.want), "%q", c.prompt)
	}
	res := s.Match("Run the migration and check the SQL")
	assert.Assert(t, is.Len(res.Matched, 1))
	assert.Check(t, is.DeepEqual(res.Matched[0].Words, []string{"sql", "migrat*"}))
	assert.Check(t, is.Equal(res.Matched[0].Why(), `recalled by "sql", "migrat*"`))
}

func TestWordsInOtherScripts(t *testing.T) {
	s := compose(t, `{"schema_version":1,"domains":[{"name":"billing","recall":["facturación","Rechnung"],"rules":[{"id":"r","text":"x"}]}]}`)
	assert.Check(t, is.Len(s.Match("revisa la FACTURACIÓN de hoy").Matched, 1))
	assert.Check(t, is.Len(s.Match("die rechnung bitte").Matched, 1))
	assert.Check(t, is.Len(s.Match("Rechnungen").Matched, 0), "a whole word, not a prefix")
}

func TestDormantDomainsComeOnlyWhenForced(t *testing.T) {
	s := compose(t, `{"schema_version":1}`, `{"schema_version":1,"domains":[
		{"name":"release","dormant":true,"recall":["release"],"aliases":["ship-it"],"rules":[{"id":"notes","text":"Write release notes."},{"id":"narrow","text":"Tag it.","recall":["tag"]}]}]}`)
	res := s.Match("cut a release")
	assert.Check(t, is.Len(res.Matched, 0))
	assert.Assert(t, is.Len(res.Asleep, 1))
	assert.Check(t, is.DeepEqual(res.Asleep[0].Words, []string{"release"}))

	res = s.Match("please *release now")
	assert.Assert(t, is.Len(res.Matched, 1))
	assert.Check(t, is.Equal(res.Matched[0].Forced, "release"))
	assert.Check(t, is.Len(res.Matched[0].Rules, 2), "a forced domain brings its narrowed rules too")
	assert.Check(t, is.Equal(res.Matched[0].Why(), "forced by *release"))

	res = s.Match("*Ship-It")
	assert.Check(t, is.DeepEqual(matchedNames(res), []string{"release"}), "an alias forces, without case")
}

func TestForcingSyntax(t *testing.T) {
	for _, c := range []struct {
		s    string
		want []string
	}{
		{"*db", []string{"db"}},
		{"use *db, then *cache.", []string{"db", "cache"}},
		{"2*3", nil},
		{"**bold**", nil},
		{"*italic* word", nil},
		{"a *ci-cd- thing", []string{"ci-cd"}},
		{"(*db)", []string{"db"}},
		{"*", nil},
		{"* db", nil},
		{"*dbé", nil},
	} {
		assert.Check(t, is.DeepEqual(forced(c.s), c.want), "%q", c.s)
	}
	s := compose(t, `{"schema_version":1}`, dbRules)
	res := s.Match("*nope and *db")
	assert.Check(t, is.DeepEqual(res.Unknown, []string{"nope"}))
	assert.Check(t, is.DeepEqual(matchedNames(res), []string{"database"}))
}

func TestRuleRecallNarrowsItsRule(t *testing.T) {
	s := compose(t, `{"schema_version":1,"domains":[{"name":"web","recall":["http"],"rules":[
		{"id":"always","text":"a"},{"id":"cookies","text":"c","recall":["cookie*"]},{"id":"cors","text":"o","recall":["cors","origin"]}]}]}`)
	res := s.Match("an http handler")
	assert.Assert(t, is.Len(res.Matched, 1))
	assert.Check(t, is.Len(res.Matched[0].Rules, 1))
	res = s.Match("http cookies and CORS with an origin")
	var ids []string
	for _, c := range res.Matched[0].Rules {
		ids = append(ids, c.Rule.ID)
	}
	assert.Check(t, is.DeepEqual(ids, []string{"cors", "cookies", "always"}), "more of a rule's own words first")
}

func TestLayersKeepProvenance(t *testing.T) {
	s := compose(t,
		`{"schema_version":1,"domains":[{"name":"committing","rules":[{"id":"a","text":"A"},{"id":"b","text":"B"},{"id":"c","text":"C"}],"recall":["commit"]}]}`,
		`{"schema_version":1,"budget":{"rules":4},"domains":[{"name":"committing","recall":["push"],"rules":[{"id":"b","text":"B2"},{"id":"m","text":"M"}]}]}`,
		`{"schema_version":1,"inject":false,"budget":{"bytes":2000},"domains":[{"name":"committing","drop":["a"],"dormant":true},{"name":"mine","rules":[{"id":"x","text":"X"}]}]}`)
	d, ok := s.Lookup("committing")
	assert.Assert(t, ok)
	assert.Check(t, d.Guardrail)
	assert.Check(t, is.Equal(d.From.Layer, Bundled))
	var got []string
	for _, r := range d.Rules {
		rep := ""
		if r.Replaced != nil {
			rep = " over " + string(r.Replaced.Layer)
		}
		got = append(got, fmt.Sprintf("%s=%s from %s%s", r.ID, r.Text, r.From.Layer, rep))
	}
	assert.Check(t, is.DeepEqual(got, []string{"b=B2 from machine over bundled", "c=C from bundled", "m=M from machine"}))
	assert.Assert(t, is.Len(d.Dropped, 1))
	assert.Check(t, is.Equal(d.Dropped[0].By.Origin, "/repo/.abcd/rules.json"))
	assert.Check(t, d.Dormant)
	assert.Check(t, is.Equal(d.DormantFrom.Layer, Repository))
	assert.Check(t, is.Equal(d.Recall[1].From.Layer, Machine))

	assert.Check(t, !s.Inject)
	assert.Check(t, is.Equal(s.InjectFrom.Origin, "/repo/.abcd/rules.json"))
	assert.Check(t, is.Equal(s.Budget, Budget{Bytes: 2000, Rules: 4}))
	assert.Check(t, is.Equal(s.BytesFrom.Layer, Repository))
	assert.Check(t, is.Equal(s.RulesFrom.Layer, Machine))

	notices := strings.Join(s.Notices, "\n")
	assert.Check(t, is.Contains(notices, `/home/p/.abcd/rules.json rewrites the bundled guardrail rule committing/b (was "B")`))
	assert.Check(t, is.Contains(notices, `/repo/.abcd/rules.json drops the bundled guardrail rule committing/a ("A")`))
	assert.Check(t, is.Contains(notices, "/repo/.abcd/rules.json makes the bundled guardrail domain committing dormant"))
	assert.Check(t, is.Contains(notices, "rule injection is off: /repo/.abcd/rules.json sets inject false"))

	m, _ := s.Lookup("mine")
	assert.Check(t, !m.Guardrail, "a domain a file defines is no guardrail")
}

func TestComposeRefusesNameClashes(t *testing.T) {
	_, err := Compose([]Source{
		{Layer: Machine, Origin: "m.json", File: decode(t, `{"schema_version":1,"domains":[{"name":"database","aliases":["db"]}]}`)},
		{Layer: Repository, Origin: "r.json", File: decode(t, `{"schema_version":1,"domains":[{"name":"db"}]}`)},
	})
	assert.Check(t, is.ErrorContains(err, "r.json: domain db is already an alias of domain database"))
	_, err = Compose([]Source{
		{Layer: Machine, Origin: "m.json", File: decode(t, `{"schema_version":1,"domains":[{"name":"database"},{"name":"cache","aliases":["database"]}]}`)},
	})
	assert.Check(t, is.ErrorContains(err, "m.json: domain cache: alias database is already domain database's name or alias"))
}

func TestAStaleDropIsNamedNotRefused(t *testing.T) {
	s := compose(t, `{"schema_version":1,"domains":[{"name":"committing","rules":[{"id":"a","text":"A"}]}]}`,
		`{"schema_version":1,"domains":[{"name":"committing","drop":["gone"]}]}`)
	assert.Check(t, is.Contains(strings.Join(s.Notices, "\n"), "drops rule committing/gone, which no lower layer gives"))
}

func TestTheBudgetIsHeld(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"schema_version":1,"domains":[`)
	for d := 0; d < 6; d++ {
		if d > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"d%d","recall":["word%d","common"],"rules":[`, d, d)
		for r := 0; r < 8; r++ {
			if r > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":"r%d","text":"domain %d rule %d %s"}`, r, d, r, strings.Repeat("x", 40*r))
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	s := compose(t, `{"schema_version":1}`, b.String())
	res := s.Match("something common")
	assert.Assert(t, is.Len(res.Matched, 6))
	inj := s.Handed(res)
	assert.Check(t, len(inj.Text) <= s.Budget.Bytes, "%d bytes", len(inj.Text))
	assert.Check(t, len(inj.Included) <= s.Budget.Rules)
	assert.Check(t, is.Equal(len(inj.Included)+len(inj.LeftOut), 48))
	// Round by round: every domain gets its first rule before any gets its second.
	firsts := map[string]bool{}
	for _, r := range inj.Included {
		if r.ID == "r0" {
			firsts[r.Domain] = true
		}
	}
	assert.Check(t, is.Len(firsts, 6))
	assert.Check(t, is.Contains(inj.Text, "Left out over the budget of 3000 bytes and 10 rules: 38 rules of d0 (6), d1 (6)"))
	assert.Check(t, is.Contains(inj.Text, "abcd rules show DOMAIN"))

	// A tight budget: every text still within it, whatever fits.
	for _, bytes := range []int{MinBudgetBytes, 400, 700, 1500, MaxBudgetBytes} {
		for _, n := range []int{1, 3, 64} {
			s.Budget = Budget{Bytes: bytes, Rules: n}
			inj := s.Handed(res)
			assert.Check(t, len(inj.Text) <= bytes, "%d bytes over a budget of %d", len(inj.Text), bytes)
			assert.Check(t, len(inj.Included) <= n)
			assert.Check(t, len(inj.LeftOut) == 0 || strings.Contains(inj.Text, "Left out"), "what is left out is said")
		}
	}
}

func TestInjectionText(t *testing.T) {
	s := compose(t, `{"schema_version":1}`, dbRules)
	inj := s.Handed(s.Match("write a migration"))
	assert.Check(t, is.Equal(inj.Text, header+"[database] recalled by \"migrat*\"\n- Every migration has a down step.\n- Write SQL by hand.\n"))
	assert.Check(t, is.Len(inj.LeftOut, 0))
	assert.Check(t, is.Equal(s.Handed(s.Match("nothing here")).Text, ""))

	off := compose(t, `{"schema_version":1}`, dbRules, `{"schema_version":1,"inject":false}`)
	inj = off.Handed(off.Match("write a migration"))
	assert.Check(t, inj.Off)
	assert.Check(t, is.Equal(inj.Text, ""))
}

func TestLongPromptsAreReadFromTheirStart(t *testing.T) {
	s := compose(t, `{"schema_version":1}`, dbRules)
	res := s.Match("sql " + strings.Repeat("é", MaxPromptBytes))
	assert.Check(t, res.Truncated)
	assert.Check(t, is.Len(res.Matched, 1))
	res = s.Match(strings.Repeat("a ", MaxPromptBytes) + "sql")
	assert.Check(t, is.Len(res.Matched, 0))
}

func TestTheShellDomainIsTheGuardsRules(t *testing.T) {
	f, err := guard.Builtin()
	assert.NilError(t, err)
	src, err := BundledSource(f.Rules)
	assert.NilError(t, err)
	s, err := Compose([]Source{src})
	assert.NilError(t, err)
	shell, ok := s.Lookup(ShellDomain)
	assert.Assert(t, ok)
	assert.Check(t, shell.Guardrail)
	git, ok := s.Lookup(ShellGitDomain)
	assert.Assert(t, ok)
	system, ok := s.Lookup(ShellSystemDomain)
	assert.Assert(t, ok)
	assert.Check(t, git.Guardrail && system.Guardrail)
	assert.Assert(t, is.Len(shell.Rules, len(f.Rules)-len(git.Rules)-len(system.Rules)), "one lesson per guard rule, the git and system ones in their own domains")
	next := map[*Resolved]int{}
	for _, g := range f.Rules {
		d := shell
		for _, other := range []*Resolved{git, system} {
			if slices.ContainsFunc(other.Rules, func(r InForce) bool { return r.ID == g.ID }) {
				d = other
			}
		}
		r := d.Rules[next[d]]
		next[d]++
		assert.Check(t, is.Equal(r.ID, g.ID), "in the guard's order")
		assert.Check(t, is.Contains(r.Text, oneLine(strings.TrimSuffix(g.Why, "."), 400)), g.ID)
		assert.Check(t, is.Contains(r.Text, "rule "+g.ID), g.ID)
		assert.Check(t, len(r.Text) <= MaxRuleBytes)
		for _, c := range g.Command {
			w := wordOf(c)
			if w != "" && w != "http" && w != "https" {
				assert.Check(t, hasWord(d.Recall, w), "%s: its domain is recalled by %q", g.ID, w)
			}
		}
	}
	for _, name := range []string{"secrets", "committing", "machine-load"} {
		d, ok := s.Lookup(name)
		assert.Check(t, ok && d.Guardrail && len(d.Rules) > 0, name)
	}

	res := s.Match("then git push --force to origin")
	assert.Assert(t, len(res.Matched) >= 2)
	var shellMatch Matched
	for _, m := range res.Matched {
		if m.Domain.Name == ShellGitDomain {
			shellMatch = m
		}
	}
	assert.Assert(t, shellMatch.Domain != nil)
	assert.Check(t, is.Equal(shellMatch.Rules[0].Rule.ID, "git-push-force"), "the rule whose own words the prompt holds most comes first")
	for _, c := range shellMatch.Rules {
		assert.Check(t, !strings.HasPrefix(c.Rule.ID, "rm-"), "a git prompt brings no rm lesson: %s", c.Rule.ID)
	}
	assert.Check(t, is.Len(s.Match("look at https://example.com/x").Matched, 0), "a URL's scheme is no command")
}

// A guard rule added tomorrow is a lesson tomorrow: the domain is made from whatever the registry holds.
func TestTheShellDomainFollowsNewGuardRules(t *testing.T) {
	rules := []guard.Rule{{ID: "terraform-destroy", Tier: guard.Block, Command: []string{"terraform"}, Subcommand: []string{"destroy|apply"},
		All: []guard.Cond{{Flag: []string{"--auto-approve"}}}, Why: "destroys the infrastructure", Safer: "terraform plan -destroy", Bad: []string{"terraform destroy -auto-approve"}, Good: []string{"terraform plan"}}}
	d, err := ShellFromGuard(rules)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(d.Rules[0].Recall, []string{"terraform destroy", "terraform apply", "auto approve"}))
	assert.Check(t, is.Equal(d.Rules[0].Text, "Do not run `terraform destroy -auto-approve` (the guard blocks it, rule terraform-destroy): destroys the infrastructure. Instead: terraform plan -destroy."))
	assert.Check(t, hasWordString(d.Recall, "terraform"))
}

func hasWord(ws []Word, w string) bool {
	for _, x := range ws {
		if x.Text == w {
			return true
		}
	}
	return false
}

func hasWordString(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(dbRules))
	f.Add([]byte(`{"schema_version":1,"inject":false,"budget":{"bytes":300,"rules":2}}`))
	f.Add([]byte(`{"schema_version":1,"domains":[{"name":"a","drop":["x"],"dormant":true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode("fuzz.json", data)
		if err != nil {
			return
		}
		s, err := Compose([]Source{{Layer: Repository, Origin: "fuzz.json", File: file}})
		if err != nil {
			return
		}
		inj := s.Handed(s.Match("sql migration *a *db commit"))
		if len(inj.Text) > s.Budget.Bytes {
			t.Fatalf("%d bytes over a budget of %d", len(inj.Text), s.Budget.Bytes)
		}
	})
}

func FuzzMatch(f *testing.F) {
	f.Add("write a migration for the db, *database **bold** 2*3")
	f.Add("*")
	f.Add("a\xffb sql")
	base, err := guard.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	src, err := BundledSource(base.Rules)
	if err != nil {
		f.Fatal(err)
	}
	repo, err := Decode("r", []byte(dbRules))
	if err != nil {
		f.Fatal(err)
	}
	s, err := Compose([]Source{src, {Layer: Repository, Origin: "r", File: repo}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		inj := s.Handed(s.Match(prompt))
		if len(inj.Text) > s.Budget.Bytes || len(inj.Included) > s.Budget.Rules {
			t.Fatalf("over budget: %d bytes, %d rules", len(inj.Text), len(inj.Included))
		}
	})
}

// The compiled form reads back as the Set it was made from: the same domains with the same
// provenance, the same notices, the same answer to every prompt.
func TestTheCompiledFormIsTheSet(t *testing.T) {
	base, err := guard.Builtin()
	assert.NilError(t, err)
	src, err := BundledSource(base.Rules)
	assert.NilError(t, err)
	machine := decode(t, `{"schema_version":1,"budget":{"bytes":2000},"domains":[{"name":"committing","rules":[{"id":"commit-when-asked","text":"Ask first."}]}]}`)
	repo := decode(t, dbRules[:len(dbRules)-2]+`,{"name":"release","dormant":true,"recall":["release"],"rules":[{"id":"n","text":"Notes.","recall":["notes"]}]},{"name":"secrets","drop":["made-up-personal-data"]}]}`)
	s, err := Compose([]Source{src, {Layer: Machine, Origin: "m.json", File: machine}, {Layer: Repository, Origin: "r.json", File: repo}})
	assert.NilError(t, err)
	data := s.Compiled()
	back, err := FromCompiled(data)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(back.Notices, s.Notices))
	assert.Check(t, is.Equal(back.Budget, s.Budget))
	assert.Check(t, is.Equal(back.InjectFrom, s.InjectFrom))
	assert.Check(t, is.Len(back.Domains, len(s.Domains)))
	for i, d := range s.Domains {
		b := back.Domains[i]
		assert.Check(t, is.Equal(b.Name, d.Name))
		assert.Check(t, is.DeepEqual(b.Recall, d.Recall))
		assert.Check(t, is.DeepEqual(b.Aliases, d.Aliases))
		assert.Check(t, is.DeepEqual(b.Dropped, d.Dropped))
		assert.Check(t, is.DeepEqual(b.DormantFrom, d.DormantFrom))
		assert.Check(t, is.Equal(len(b.Rules), len(d.Rules)))
		for k := range d.Rules {
			assert.Check(t, is.Equal(b.Rules[k].Text, d.Rules[k].Text))
			assert.Check(t, is.DeepEqual(b.Rules[k].Replaced, d.Rules[k].Replaced))
		}
	}
	for _, p := range []string{"commit and git push --force", "a migration with sql", "*release notes", "*db", "rm -rf / then paste the api key", "nothing"} {
		assert.Check(t, is.DeepEqual(back.Handed(back.Match(p)), s.Handed(s.Match(p))), p)
	}
	// Anything cut or changed is unreadable, never a different Set.
	for _, cut := range []int{0, 5, len(compiledMagic), len(data) / 2, len(data) - 1} {
		_, err := FromCompiled(data[:cut])
		assert.Check(t, err != nil, "cut at %d", cut)
	}
	_, err = FromCompiled(append(append([]byte{}, data...), 0))
	assert.Check(t, err != nil, "trailing bytes")
}

func FuzzFromCompiled(f *testing.F) {
	s, err := Compose([]Source{{Layer: Repository, Origin: "r", File: File{SchemaVersion: 1, Domains: []Domain{{Name: "a", Recall: []string{"x"}, Rules: []Rule{{ID: "r", Text: "t"}}}}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(s.Compiled())
	f.Fuzz(func(t *testing.T, data []byte) {
		back, err := FromCompiled(data)
		if err != nil {
			return
		}
		back.Handed(back.Match("x a *a"))
	})
}
