package shell

import (
	"sort"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestEveryWrapperIsReadThrough puts rm -rf ~ behind each program of the maintained wrapper list,
// with the words it takes first, and the guard must still see the rm.
func TestEveryWrapperIsReadThrough(t *testing.T) {
	reg := registry(t)
	names := make([]string, 0, len(wrappers()))
	for name := range wrappers() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		wr := wrappers()[name]
		line := wrapped(name, wr)
		v := check(t, reg, line)
		assert.Check(t, v.Decision == "block" && v.Rule == "rm-recursive-home", "%q: %s %s", line, v.Decision, v.Rule)
		if len(wr.stop) > 0 {
			// an option that runs nothing stops the reading: the words after it are not a command
			stopped := name + " " + wr.stop[0] + " 42"
			assert.Check(t, check(t, reg, stopped).Decision == "allow", "%q", stopped)
		}
	}
	for name := range cmdStrings {
		line := name + " 'rm -rf ~'"
		assert.Check(t, check(t, reg, line).Decision == "block", "%q", line)
	}
}

// wrapped is a line running rm -rf ~ behind one wrapper: its subcommand, the words it skips, and
// the -- some take before the command.
func wrapped(name string, wr wrap) string {
	parts := []string{name}
	if len(wr.sub) > 0 {
		parts = append(parts, wr.sub[0])
	}
	if wr.noCmd {
		return strings.Join(append(parts, wr.str[0], "'rm -rf ~'"), " ")
	}
	for range wr.skip {
		parts = append(parts, "x")
	}
	if wr.untilDash {
		parts = append(parts, "svc", "--")
	}
	if wr.joined {
		return strings.Join(append(parts, "'rm -rf ~'"), " ")
	}
	if len(wr.after) > 0 {
		parts = append(parts, wr.after[0])
	}
	if wr.shell {
		return strings.Join(append(parts, "--", "-c", "'rm -rf ~'"), " ")
	}
	return strings.Join(append(parts, "rm", "-rf", "~"), " ")
}
