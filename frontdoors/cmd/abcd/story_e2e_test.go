//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/ports/loop"
)

// The page of a three-lane run on runners, through the binary: --html --out writes it whole, 0644,
// with the three lanes, their edges and the verdicts; a path that is a link, a folder, or in a folder
// that does not stand is refused with exit 2 and nothing written; asking for markdown and HTML at
// once is refused.
func TestImplementRecordWritesTheRunsPage(t *testing.T) {
	w := newRunnerWorld(t, "1. Part one of the work.\n2. Part two of the work.\n3. (after 1, 2) Part three of the work.")
	w.play(t, w.agents(t)...)
	var out loop.ImplementRunResult
	res := w.abcd(t, "implement", "run", w.spec, "--json")
	res.Assert(t, icmd.Success)
	decodeOne(t, res.Stdout(), &out)

	dir := t.TempDir()
	page := filepath.Join(dir, "run.html")
	w.abcd(t, "implement", "record", "--run", out.Run.Run, "--html", "--out", page).Assert(t, icmd.Expected{ExitCode: 0, Out: ""})
	info, err := os.Stat(page)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(info.Mode().Perm(), os.FileMode(0o644)))
	data, err := os.ReadFile(page)
	assert.NilError(t, err)
	html := string(data)
	for _, want := range []string{`data-lane="lane-1"`, `data-lane="lane-2"`, `data-lane="lane-3"`, `data-lane="integration"`,
		`<path class="edge" data-from="lane-1" data-to="lane-3"`, `<path class="edge" data-from="lane-2" data-to="lane-3"`,
		`<path class="edge merged" data-from="lane-3" data-to="integration"`, `data-role="intent-auditor" data-verdict="pass"`,
		`data-criterion="ac-1" data-verdict="MET"`} {
		assert.Check(t, is.Contains(html, want))
	}
	assert.Check(t, is.Equal(strings.Count(html, `data-verdict="pass"`), 7), "six reviews and the audit")
	// Printed on stdout without --out: the same page.
	printed := w.abcd(t, "implement", "record", "--run", out.Run.Run, "--html")
	printed.Assert(t, icmd.Success)
	assert.Check(t, is.Equal(printed.Stdout(), html))

	// Refused, nothing written: a link (even to a file of ours), a folder, a folder that does not stand.
	target := filepath.Join(dir, "mine.txt")
	assert.NilError(t, os.WriteFile(target, []byte("mine\n"), 0o600))
	assert.NilError(t, os.Symlink(target, filepath.Join(dir, "link.html")))
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "folder"), 0o755))
	before := fs.ManifestFromDir(t, dir)
	for _, bad := range []string{filepath.Join(dir, "link.html"), filepath.Join(dir, "folder"), filepath.Join(dir, "nope", "run.html"), ""} {
		r := w.abcd(t, "implement", "record", "--run", out.Run.Run, "--html", "--out", bad)
		r.Assert(t, icmd.Expected{ExitCode: 2})
		assert.Check(t, is.Contains(r.Stderr(), "abcd: refused: "), bad)
		assert.Check(t, is.Equal(r.Stdout(), ""), bad)
	}
	assert.Assert(t, fs.Equal(dir, before))
	both := w.abcd(t, "implement", "record", "--run", out.Run.Run, "--html", "--markdown", "--json")
	both.Assert(t, icmd.Expected{ExitCode: 2})
	assert.Check(t, is.Contains(both.Stdout(), `"code":"input_invalid"`))
}
