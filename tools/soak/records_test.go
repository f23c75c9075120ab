//go:build unix

package soak

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abcd-dev/abcd/domain/layout"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestASymlinkedRecordIsRefusedAsALink: a record file that is a symbolic link is refused as a link
// (record_symlink, with the remedy to replace it) by show and close, which write nothing, and lint
// names it the same way.
func TestASymlinkedRecordIsRefusedAsALink(t *testing.T) {
	r := newRepo(t)
	elsewhere := filepath.Join(t.TempDir(), "issue.md")
	assert.NilError(t, os.WriteFile(elsewhere, []byte("---\nid: iss-2611300000000007\ntype: issue\ntitle: \"x\"\nlifecycle: open\nseverity: minor\n---\n"), 0o644))
	link := ".abcd/work/issues/open/iss-2611300000000007-linked.md"
	assert.NilError(t, os.Symlink(elsewhere, r.path(link)))
	for _, args := range [][]string{{"issue", "show", "iss-2611300000000007"}, {"issue", "close", "iss-2611300000000007", "--why", "done"}} {
		res := r.run(args...)
		code, kind := res.refusal()
		assert.Check(t, res.code == 2 && kind == "refused" && code == "record_symlink", "abcd %s: exit %d: %s", strings.Join(args, " "), res.code, res.raw)
		assert.Check(t, is.Contains(fmt.Sprint(res.doc["remedy"]), "replace the link"), "%s", res.raw)
	}
	st, err := os.Lstat(r.path(link))
	assert.NilError(t, err)
	assert.Check(t, st.Mode()&os.ModeSymlink != 0, "the link stays as it was")
	lint := r.run("lint")
	assert.Check(t, is.Equal(lint.code, 1), "%s", lint.raw)
	assert.Check(t, is.Contains(string(lint.raw), `"code":"record_symlink"`), "%s", lint.raw)
}

// TestKilledCapturesLeaveNothingGitSees: `abcd capture` killed with SIGKILL at random points leaves
// no temporary file where git sees it; the next capture removes what the killed ones left in abcd's
// git-ignored temporary folder, and lint is clean. Before that, lint reports them as warnings.
func TestKilledCapturesLeaveNothingGitSees(t *testing.T) {
	kills := 40
	if *soakFor > 0 {
		kills = 400
	}
	r := newRepo(t)
	staged, seen := 0, 0
	for i := range kills {
		cmd := exec.Command(binary, "capture", fmt.Sprintf("killed capture %d", i), "--json")
		cmd.Dir, cmd.Env = r.root, r.env
		assert.NilError(t, cmd.Start())
		time.Sleep(time.Duration(rand.IntN(12_000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		staged = 0
		_ = filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".abcd-tmp-") {
				rel, _ := filepath.Rel(r.root, p)
				assert.Check(t, strings.HasPrefix(filepath.ToSlash(rel), layout.Staging+"/"), "a temp git sees: %s", rel)
				staged++
			}
			return nil
		})
		if staged > 0 {
			seen++
		}
	}
	if staged > 0 {
		lint := r.ok("lint")
		assert.Check(t, is.Contains(fmt.Sprint(lint["findings"]), "stray_temp"), "%v", lint["findings"])
	}
	for id, issue := range r.issues() {
		assert.Check(t, issue != "", "%s is whole, with its id", id)
	}
	r.ok("capture", "the next one")
	r.noStrays()
	lint := r.ok("lint")
	assert.Check(t, is.Equal(lint["warnings"], float64(0)), "%v", lint["findings"])
	t.Logf("%d captures killed at random: %d whole issues written, temps found in the staging folder after %d kills, none anywhere else; the next capture removed them",
		kills, len(r.issues())-1, seen)
}
