package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports/app"
)

func TestCompletionBash(t *testing.T) {
	res := run(t, newApp(factsInitialized), "completion", "bash")
	assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
	assert.Check(t, strings.HasPrefix(res.stdout, "# bash completion V2 for abcd"), "stdout starts %q", firstLine(res.stdout))
	assert.Check(t, is.Contains(res.stdout, "__start_abcd()"))
	assert.Check(t, is.Contains(res.stdout, "complete -o default -F __start_abcd abcd"))
}

// completions runs cobra's hidden __complete command and returns the candidates and the directive
// line it ends with.
func completions(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	res := run(t, newApp(factsInitialized), append([]string{cobra.ShellCompRequestCmd}, args...)...)
	assert.Equal(t, res.code, 0, "stderr: %s", res.stderr)
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	assert.Assert(t, len(lines) > 0)
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestCompleteSchemaShowListsIndexNames(t *testing.T) {
	got, directive := completions(t, "schema", "show", "")
	var want []string
	for _, e := range testIndex().Schemas {
		want = append(want, e.Name)
	}
	assert.Check(t, is.DeepEqual(got, want))
	assert.Check(t, is.Equal(directive, fmt.Sprintf(":%d", cobra.ShellCompDirectiveNoFileComp)))
}

// TestCompleteSchemaShowTakesOneName: after the one NAME nothing more is offered, not even files.
func TestCompleteSchemaShowTakesOneName(t *testing.T) {
	got, directive := completions(t, "schema", "show", "refusal", "")
	assert.Check(t, is.Len(got, 0))
	assert.Check(t, is.Equal(directive, fmt.Sprintf(":%d", cobra.ShellCompDirectiveNoFileComp)))
}

// TestCompleteTopLevelOffersEveryVerb: every verb's first command word is offered at the top.
func TestCompleteTopLevelOffersEveryVerb(t *testing.T) {
	got, _ := completions(t, "")
	offered := map[string]bool{}
	for _, line := range got {
		word, _, _ := strings.Cut(line, "\t") // a candidate may carry its description after a tab
		offered[word] = true
	}
	for _, v := range app.Table() {
		assert.Check(t, offered[v.Path[0]], "verb %q: %q is not offered; got %q", v.Name, v.Path[0], got)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
