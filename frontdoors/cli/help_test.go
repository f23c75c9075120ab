package cli

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
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
