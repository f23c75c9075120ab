package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
)

// result is what one run of the command tree left behind.
type result struct {
	code   int
	stdout string
	stderr string
}

// run executes abcd with args over a, with colour off (as NO_COLOR or a pipe gives).
func run(t *testing.T, a *app.App, args ...string) result {
	t.Helper()
	return runColor(t, a, false, args...)
}

func runColor(t *testing.T, a *app.App, color bool, args ...string) result {
	t.Helper()
	if args == nil {
		args = []string{} // nil would make cobra read the test binary's own os.Args
	}
	var out, errOut bytes.Buffer
	s := &IO{In: strings.NewReader(""), Out: &out, Err: &errOut, Color: color}
	code := Execute(context.Background(), NewRoot(a, s), s, args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

var testBuild = app.BuildInfo{Version: "1.2.3", Commit: "abc1234", Go: "go1.26.8"}

// testIndex is a small published index: one document, one verb's input and result.
func testIndex() contract.Index {
	return contract.Index{
		SchemaVersion: 1,
		Namespace:     contract.Namespace,
		Schemas: []contract.Entry{
			{Name: "refusal", ID: contract.ID("refusal"), File: contract.FileName("refusal"),
				Role: contract.RoleDocument, Describes: "what --json prints instead of a result when a verb refuses"},
			{Name: "version.input", ID: contract.ID("version.input"), File: contract.FileName("version.input"),
				Role: contract.RoleInput, Verb: "version", Describes: "the input of abcd version"},
			{Name: "version.result", ID: contract.ID("version.result"), File: contract.FileName("version.result"),
				Role: contract.RoleResult, Verb: "version", Describes: "the result of abcd version --json"},
		},
	}
}

func testSchemaFiles() map[string][]byte {
	return map[string][]byte{
		"refusal":        []byte("{\n  \"$id\": \"https://schemas.abcd.dev/v1/refusal.schema.json\",\n  \"type\": \"object\"\n}\n"),
		"version.input":  []byte("{\n  \"$id\": \"https://schemas.abcd.dev/v1/version.input.schema.json\",\n  \"type\": \"object\"\n}\n"),
		"version.result": []byte("{\n  \"$id\": \"https://schemas.abcd.dev/v1/version.result.schema.json\",\n  \"type\": \"object\"\n}\n"),
	}
}

// The three repository states bare abcd distinguishes.
var (
	factsNotGit = ports.RepoFacts{
		Root:           "/work/scratch",
		RepoConfig:     ports.FileFact{Path: "/work/scratch/.abcd/config.json"},
		RepoRouting:    ports.FileFact{Path: "/work/scratch/.abcd/config/oracle-routing.json"},
		MachineConfig:  ports.FileFact{Path: "/home/ada/.abcd/config.json"},
		MachineRouting: ports.FileFact{Path: "/home/ada/.abcd/oracle-routing.json"},
		Records:        map[string]int{},
	}
	factsNotInitialized = ports.RepoFacts{
		Root:           "/work/repo",
		Git:            true,
		RepoConfig:     ports.FileFact{Path: "/work/repo/.abcd/config.json"},
		RepoRouting:    ports.FileFact{Path: "/work/repo/.abcd/config/oracle-routing.json"},
		MachineConfig:  ports.FileFact{Path: "/home/ada/.abcd/config.json"},
		MachineRouting: ports.FileFact{Path: "/home/ada/.abcd/oracle-routing.json"},
		Records:        map[string]int{},
	}
	factsInitialized = ports.RepoFacts{
		Root:           "/work/repo",
		Git:            true,
		Initialized:    true,
		RepoConfig:     ports.FileFact{Path: "/work/repo/.abcd/config.json", Present: true},
		RepoRouting:    ports.FileFact{Path: "/work/repo/.abcd/config/oracle-routing.json"},
		MachineConfig:  ports.FileFact{Path: "/home/ada/.abcd/config.json", Present: true},
		MachineRouting: ports.FileFact{Path: "/home/ada/.abcd/oracle-routing.json", Present: true},
		Records: map[string]int{
			".abcd/development/intents/drafts": 2,
			".abcd/development/specs/open":     1,
			".abcd/work/issues/open":           3,
			".abcd/development/decisions":      1,
		},
	}
)

// newApp is the core over fakes: facts for status, the small index for schema.
func newApp(facts ports.RepoFacts) *app.App {
	recs, runs := seededRecords(), seededRuns()
	return &app.App{
		Inspector:   fake.Inspector{Facts: facts},
		Schemas:     fake.Schemas{Idx: testIndex(), Files: testSchemaFiles()},
		Build:       testBuild,
		Config:      fake.Config{Files: configFiles(facts)},
		Roster:      fake.Roster{R: testRoster()},
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

// configFiles are the files the facts say are present, with contents that disagree across layers.
func configFiles(facts ports.RepoFacts) ports.ConfigFiles {
	file := func(f ports.FileFact, data string) ports.ConfigFile {
		if !f.Present {
			return ports.ConfigFile{Path: f.Path}
		}
		return ports.ConfigFile{Path: f.Path, Present: true, Data: []byte(data)}
	}
	return ports.ConfigFiles{
		RepoConfig:     file(facts.RepoConfig, `{"schema_version":1,"build":{"dod":"make test"},"oracle":{"review":"rp"}}`),
		MachineConfig:  file(facts.MachineConfig, `{"schema_version":1,"oracle":{"review":"host"}}`),
		RepoRouting:    file(facts.RepoRouting, `{"schema_version":1,"agents":{"ruthless-reviewer":{"tier":"local"}}}`),
		MachineRouting: file(facts.MachineRouting, `{"schema_version":1,"agents":{"security-reviewer":{"tier":"economy"},"ruthless-reviewer":{"tier":"economy"}}}`),
	}
}

// testRoster is the three shipped agents by name.
func testRoster() roster.Roster {
	var agents []roster.Agent
	for _, n := range []string{"intent-auditor", "ruthless-reviewer", "security-reviewer"} {
		agents = append(agents, roster.Agent{FrontMatter: roster.FrontMatter{Name: n}})
	}
	r, err := roster.New(agents)
	if err != nil {
		panic(err)
	}
	return r
}

// decodeOne asserts stdout is exactly one JSON document ending in one newline, and decodes it into v
// refusing fields v does not declare.
func decodeOne(t *testing.T, stdout string, v any) {
	t.Helper()
	assert.Assert(t, strings.HasSuffix(stdout, "\n"), "stdout does not end in a newline: %q", stdout)
	assert.Assert(t, !strings.HasSuffix(stdout, "\n\n"), "stdout ends in more than one newline: %q", stdout)
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	assert.NilError(t, dec.Decode(v), "stdout: %q", stdout)
	_, err := dec.Token()
	assert.Check(t, is.Equal(err, io.EOF), "stdout holds more than one JSON document: %q", stdout)
}

// TestEveryVerbHasACommand holds the CLI to the verb table: a verb declared without a command, or
// with a command at another path, fails here.
func TestEveryVerbHasACommand(t *testing.T) {
	root := NewRoot(newApp(factsInitialized), &IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	commands := VerbCommands(root)

	verbs := app.Table()
	assert.Assert(t, len(verbs) > 0)
	for _, v := range verbs {
		want := "abcd " + strings.Join(v.Path, " ")
		got, ok := commands[v.Name]
		if !assert.Check(t, ok, "verb %q is declared in app.Table() but has no CLI command", v.Name) {
			continue
		}
		assert.Check(t, is.Equal(got, want), "verb %q", v.Name)

		// The path resolves to that very command, so typing it runs the verb.
		found, rest, err := root.Find(v.Path)
		assert.Check(t, err)
		assert.Check(t, is.Len(rest, 0), "verb %q", v.Name)
		assert.Check(t, is.Equal(found.Annotations["verb"], v.Name), "verb %q: %q resolves to %q", v.Name, want, found.CommandPath())
	}
	// And no command claims a verb the table does not declare.
	assert.Check(t, is.Len(commands, len(verbs)))
}

// TestExecuteNilArgsRunsBareAbcd: Execute runs the tree "with args"; nil args are no args. Cobra
// reads os.Args[1:] when handed nil, so without a guard a host calling Execute with nil (a parity
// test, a server) runs whatever its own process was started with instead of bare abcd.
func TestExecuteNilArgsRunsBareAbcd(t *testing.T) {
	saved := os.Args
	os.Args = []string{"some-host", "frobnicate"}
	t.Cleanup(func() { os.Args = saved })

	var out, errOut bytes.Buffer
	s := &IO{In: strings.NewReader(""), Out: &out, Err: &errOut}
	code := Execute(context.Background(), NewRoot(newApp(factsNotGit), s), s, nil)
	assert.Check(t, is.Equal(code, 0), "stderr: %s", errOut.String())
	assert.Check(t, is.Contains(out.String(), "repository: /work/scratch"))
}
