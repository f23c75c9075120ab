package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	osfence "github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/ports"
)

// The built abcd is its own fence's helper: started as one, it fences a command (its worktree
// writable, the system not), before its command line is ever read.
func TestAbcdIsItsFencesHelper(t *testing.T) {
	dir := t.TempDir()
	work, tmp := filepath.Join(dir, "work"), filepath.Join(dir, "tmp")
	assert.NilError(t, os.Mkdir(work, 0o700))
	assert.NilError(t, os.Mkdir(tmp, 0o700))
	var out bytes.Buffer
	probe := filepath.Join("/etc", "abcd-fence-probe-"+filepath.Base(dir))
	cmd := exec.Command("/bin/sh", "-c", `echo inside > ok.txt && echo wrote; echo outside > "$1" || echo refused`, "sh", probe)
	cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.Env = work, &out, &out, []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	r, err := osfence.New(osfence.Options{Helper: binary}).Start(cmd, ports.SandboxPolicy{Role: ports.SandboxRoleImplementer, Write: []string{work}, Temp: tmp})
	assert.NilError(t, err)
	defer r.Close()
	assert.NilError(t, cmd.Wait(), out.String())
	assert.Check(t, is.Contains(out.String(), "wrote\n"))
	assert.Check(t, is.Contains(out.String(), "refused\n"))
	_, err = os.Stat(probe)
	assert.Check(t, os.IsNotExist(err), "the fenced command wrote %s", probe)
	data, err := os.ReadFile(filepath.Join(work, "ok.txt"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(data), "inside\n"))
	assert.Check(t, r.Receipt().LandlockABI >= osfence.DefaultMinABI)
}
