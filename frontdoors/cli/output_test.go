package cli

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/abcd-dev/abcd/ports"
)

// Rendered output is held by golden files under testdata/; refresh them with
// `go test ./frontdoors/cli -update` and read the diff before committing it.

func TestStatusText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		facts  ports.RepoFacts
		golden string
	}{
		{"not a git repository", factsNotGit, "status-not-git.golden"},
		{"git repository not initialized", factsNotInitialized, "status-not-initialized.golden"},
		{"initialized with records", factsInitialized, "status-initialized.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, newApp(tc.facts))
			assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
			assert.Check(t, is.Equal(res.stderr, ""))
			golden.Assert(t, res.stdout, tc.golden)
		})
	}
}

// TestStatusVerbIsBareAbcd: `abcd status` and bare abcd are the same verb and print the same bytes.
func TestStatusVerbIsBareAbcd(t *testing.T) {
	a := newApp(factsInitialized)
	bare, verb := run(t, a), run(t, a, "status")
	assert.Equal(t, verb.code, 0)
	assert.Check(t, is.Equal(verb.stdout, bare.stdout))

	bareJSON, verbJSON := run(t, a, "--json"), run(t, a, "status", "--json")
	assert.Equal(t, verbJSON.code, 0)
	assert.Check(t, is.Equal(verbJSON.stdout, bareJSON.stdout))
}

func TestStatusJSON(t *testing.T) {
	res := run(t, newApp(factsInitialized), "--json")
	assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
	assert.Check(t, is.Equal(res.stderr, ""))
	golden.Assert(t, res.stdout, "status-initialized.json.golden")
}

func TestVersionText(t *testing.T) {
	res := run(t, newApp(factsNotGit), "version")
	assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
	assert.Check(t, is.Equal(res.stderr, ""))
	golden.Assert(t, res.stdout, "version.golden")
}

func TestVersionJSON(t *testing.T) {
	res := run(t, newApp(factsNotGit), "version", "--json")
	assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
	assert.Check(t, is.Equal(res.stderr, ""))
	golden.Assert(t, res.stdout, "version.json.golden")
}

func TestSchemaListText(t *testing.T) {
	res := run(t, newApp(factsNotGit), "schema", "list")
	assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
	assert.Check(t, is.Equal(res.stderr, ""))
	golden.Assert(t, res.stdout, "schema-list.golden")
}

// TestSchemaShowText prints the schema's bytes exactly as the catalog holds them.
func TestSchemaShowText(t *testing.T) {
	for _, name := range []string{"refusal", "refusal.schema.json", "https://schemas.abcd.dev/v1/refusal.schema.json"} {
		t.Run(name, func(t *testing.T) {
			res := run(t, newApp(factsNotGit), "schema", "show", name)
			assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
			assert.Check(t, is.Equal(res.stdout, string(testSchemaFiles()["refusal"])))
		})
	}
}

func TestUnknownCommandText(t *testing.T) {
	res := run(t, newApp(factsNotGit), "frobnicate")
	assert.Equal(t, res.code, 2)
	assert.Check(t, is.Equal(res.stdout, ""))
	golden.Assert(t, res.stderr, "unknown-command.stderr.golden")
}
