package cli

import (
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// TestLongArgumentsAreNotEchoedWhole: a 100,000-byte flag value, flag name or word is refused with
// the usual code, and the refusal quotes at most a clip of it, in text and under --json.
func TestLongArgumentsAreNotEchoedWhole(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	quoted := strings.Repeat("\"\n", 50_000) // a value Go's %q writes longer than it is
	goQuoted := strconv.Quote(quoted)
	for _, tc := range []struct {
		name   string
		args   []string
		echoes bool // the refusal quotes the argument
	}{
		{"a boolean flag's value", []string{"--json=" + long}, true},
		{"a boolean flag's value on a verb", []string{"version", "--json=" + long}, true},
		{"an unknown flag", []string{"--" + long}, true},
		{"an unknown flag with a value", []string{"version", "--" + long + "=" + long}, true},
		{"an unknown shorthand flag", []string{"-" + long}, true},
		{"an unknown command", []string{long}, true},
		{"an argument to a verb that takes none", []string{"version", long}, false},
		{"a value that quotes longer", []string{"--json=" + quoted}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, newApp(factsInitialized), tc.args...)
			assert.Check(t, is.Equal(res.code, 2))
			assert.Check(t, len(res.stderr) < 2_000, "text refusal of %d bytes: %.300s", len(res.stderr), res.stderr)
			for _, whole := range []string{long[:200], quoted[:200], goQuoted[1:201]} {
				assert.Check(t, !strings.Contains(res.stderr+res.stdout, whole), "an argument echoed whole: %.300s", res.stderr)
			}

			res = run(t, newApp(factsInitialized), append(tc.args, "--json")...)
			doc := checkDocument(t, res, refusal.Refused, 2)
			assert.Check(t, is.Equal(doc.Code, refusal.CodeUsage))
			assert.Check(t, len(res.stdout) < 2_000, "JSON refusal of %d bytes: %.300s", len(res.stdout), res.stdout)
			for _, whole := range []string{long[:200], quoted[:200], goQuoted[1:201]} {
				assert.Check(t, !strings.Contains(res.stdout, whole), "an argument echoed whole: %.300s", res.stdout)
			}
			if tc.echoes {
				assert.Check(t, strings.Contains(doc.What+doc.Why, "…"), "the echo is marked as clipped: %+v", doc)
			}
		})
	}
}

func TestEchoFormsLongestFirst(t *testing.T) {
	v := strings.Repeat("v", 90)
	forms := echoForms([]string{"short", "--flag=" + v, "--flag=" + v})
	assert.DeepEqual(t, forms, []string{"--flag=" + v, "flag=" + v, v})
	doc := clipEchoes(refusal.Document{What: "abcd --flag=" + v, Why: `invalid argument "` + v + `"`}, []string{"--flag=" + v})
	assert.Check(t, is.Equal(doc.What, "abcd "+text80("--flag="+v)))
	assert.Check(t, is.Equal(doc.Why, `invalid argument "`+text80(v)+`"`))
}

func text80(s string) string { return s[:80] + "…" }

// A path is echoed whole, so the refusal's line can be copied; one longer than any path is clipped.
func TestAPathIsEchoedWholeUpToThePathBound(t *testing.T) {
	path := "/home/ada/repo/.abcd/.work.local/run/run-2611300000000001/lane-1/validate/round-1/ruthless-reviewer/return.md"
	doc := clipEchoes(refusal.Document{What: strconv.Quote(path)}, []string{path})
	assert.Check(t, is.Equal(doc.What, strconv.Quote(path)))
	huge := "/" + strings.Repeat("d/", text.PathBytes)
	doc = clipEchoes(refusal.Document{What: huge}, []string{huge})
	assert.Check(t, is.Equal(doc.What, huge[:text.PathBytes]+"…"))
}
