package cli

import (
	"io"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports/app"
)

func TestHelpAndCompletionKeepTheExitCodeContract(t *testing.T) {
	a := newApp(factsInitialized)
	for _, args := range [][]string{{"help", "nope"}, {"completion", "nope"}, {"completion"}, {"--json", "--help"}, {"help", "--json"}, {"version", "-h", "--json"}} {
		res := run(t, a, args...)
		assert.Check(t, is.Equal(res.code, 2), "%v: stdout %q stderr %q", args, res.stdout, res.stderr)
	}
	for _, shell := range shells {
		res := run(t, a, "completion", shell)
		assert.Check(t, is.Equal(res.code, 0), shell)
		assert.Check(t, strings.Contains(res.stdout, "abcd"), shell)
	}
	res := run(t, a, "help", "version")
	assert.Check(t, is.Equal(res.code, 0))
	assert.Check(t, is.Contains(res.stdout, "Print abcd's version"))
}

// TestEveryVerbsHelpShowsExamples: each verb's declaration carries examples, and its help prints them
// under Examples:, each naming the command it is the help of. A verb declared without one fails.
func TestEveryVerbsHelpShowsExamples(t *testing.T) {
	a := newApp(factsInitialized)
	verbs := app.Table()
	assert.Assert(t, len(verbs) > 0)
	for _, v := range verbs {
		path := "abcd " + strings.Join(v.Path, " ")
		if !assert.Check(t, strings.TrimSpace(v.Example) != "", "verb %q is declared without an Example", v.Name) {
			continue
		}
		res := run(t, a, append(append([]string{}, v.Path...), "--help")...)
		assert.Check(t, is.Equal(res.code, 0), "%s --help: stderr %q", path, res.stderr)
		_, examples, found := strings.Cut(res.stdout, "\nExamples:\n")
		if !assert.Check(t, found, "%s --help shows no Examples:\n%s", path, res.stdout) {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(v.Example), "\n") {
			assert.Check(t, strings.Contains(line, path+" ") || strings.HasSuffix(line, path), "verb %q: example %q does not run %s", v.Name, line, path)
			assert.Check(t, is.Contains(examples, "  "+line+"\n"), "%s --help", path)
			checkExampleParses(t, v.Name, line)
		}
	}
}

// checkExampleParses holds an example to its command: the words after abcd (after a pipe into
// abcd, when stdin feeds it) reach the verb's own command, whose flags and argument count take the
// rest. Quoting is the double quotes the examples use.
func checkExampleParses(t *testing.T, name, line string) {
	t.Helper()
	if _, after, piped := strings.Cut(line, "| "); piped {
		line = after
	}
	var words []string
	for i, part := range strings.Split(line, `"`) {
		if i%2 == 1 {
			words = append(words, part)
			continue
		}
		words = append(words, strings.Fields(part)...)
	}
	assert.Assert(t, len(words) > 0 && words[0] == "abcd", "verb %q: example %q", name, line)
	root := NewRoot(newApp(factsInitialized), &IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	cmd, rest, err := root.Find(words[1:])
	assert.NilError(t, err, "verb %q: example %q", name, line)
	assert.Check(t, is.Equal(cmd.Annotations["verb"], name), "verb %q: example %q", name, line)
	if !assert.Check(t, cmd.ParseFlags(rest), "verb %q: example %q", name, line) {
		return
	}
	assert.Check(t, cmd.ValidateArgs(cmd.Flags().Args()), "verb %q: example %q", name, line)
}
