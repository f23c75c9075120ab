package cli

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/ports/fake"
)

const bold, reset = "\x1b[1m", "\x1b[0m"

func TestStatusHeadingsAreBoldWithColor(t *testing.T) {
	res := runColor(t, newApp(factsNotInitialized), true)
	assert.Equal(t, res.code, 0)
	for _, heading := range []string{"repository:", "record:", "config:", "next:"} {
		assert.Check(t, is.Contains(res.stdout, bold+heading+reset))
	}
}

// TestNoEscapeWithoutColor: with Color false (NO_COLOR, TERM=dumb, a pipe) no byte 0x1b reaches
// either stream, whatever the verb or outcome.
func TestNoEscapeWithoutColor(t *testing.T) {
	faulty := newApp(factsInitialized)
	faulty.Inspector = fake.Inspector{Err: errors.New("disk on fire")}
	for _, tc := range []struct {
		name string
		res  result
	}{
		{"status not git", run(t, newApp(factsNotGit))},
		{"status not initialized", run(t, newApp(factsNotInitialized))},
		{"status initialized", run(t, newApp(factsInitialized))},
		{"version", run(t, newApp(factsInitialized), "version")},
		{"schema list", run(t, newApp(factsInitialized), "schema", "list")},
		{"schema show", run(t, newApp(factsInitialized), "schema", "show", "refusal")},
		{"refusal", run(t, newApp(factsInitialized), "frobnicate")},
		{"fault", run(t, faulty)},
		{"help", run(t, newApp(factsInitialized), "--help")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Check(t, !strings.ContainsRune(tc.res.stdout, 0x1b), "stdout: %q", tc.res.stdout)
			assert.Check(t, !strings.ContainsRune(tc.res.stderr, 0x1b), "stderr: %q", tc.res.stderr)
		})
	}
}

var escapes = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestColorOnlyAddsEscapes: colour changes the look, never the layout. Stripping the escapes from
// the coloured output gives the plain output byte for byte, so columns stay aligned on a terminal.
func TestColorOnlyAddsEscapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"status", nil},
		{"version", []string{"version"}},
		{"schema list", []string{"schema", "list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := run(t, newApp(factsInitialized), tc.args...)
			colored := runColor(t, newApp(factsInitialized), true, tc.args...)
			assert.Equal(t, colored.code, 0)
			assert.Check(t, is.Equal(escapes.ReplaceAllString(colored.stdout, ""), plain.stdout))
		})
	}
}

func TestColorWanted(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{"terminal, no env", true, nil, true},
		{"terminal, TERM=xterm", true, map[string]string{"TERM": "xterm-256color"}, true},
		{"terminal, NO_COLOR=1", true, map[string]string{"NO_COLOR": "1"}, false},
		{"terminal, NO_COLOR=0 still means no colour", true, map[string]string{"NO_COLOR": "0"}, false},
		{"terminal, NO_COLOR empty is unset", true, map[string]string{"NO_COLOR": ""}, true},
		{"terminal, TERM=dumb", true, map[string]string{"TERM": "dumb"}, false},
		{"not a terminal", false, nil, false},
		{"not a terminal, TERM=xterm", false, map[string]string{"TERM": "xterm"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			assert.Check(t, is.Equal(ColorWanted(tc.terminal, getenv), tc.want))
		})
	}
}
