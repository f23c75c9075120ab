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
// writable, the folder beside it not), before its command line is ever read.
func TestAbcdIsItsFencesHelper(t *testing.T) {
	dir := t.TempDir()
	work, tmp := filepath.Join(dir, "work"), filepath.Join(dir, "tmp")
	assert.NilError(t, os.Mkdir(work, 0o700))
	assert.NilError(t, os.Mkdir(tmp, 0o700))
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", `echo inside > ok.txt && echo wrote; echo outside > ../no.txt || echo refused`)
	cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.Env = work, &out, &out, []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	r, err := osfence.New(osfence.Options{Helper: binary}).Start(cmd, ports.SandboxPolicy{Role: ports.SandboxRoleImplementer, Write: []string{work}, Temp: tmp})
	assert.NilError(t, err)
	defer r.Close()
	assert.NilError(t, cmd.Wait(), out.String())
	assert.Check(t, is.Contains(out.String(), "wrote\n"))
	assert.Check(t, is.Contains(out.String(), "refused\n"))
	_, err = os.Stat(filepath.Join(dir, "no.txt"))
	assert.Check(t, os.IsNotExist(err))
	assert.Check(t, r.Receipt().LandlockABI >= osfence.DefaultMinABI)
}
