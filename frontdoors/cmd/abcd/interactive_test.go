package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
)

// TestAhoyInstallAsksOnARealTerminal runs install under a pseudo-terminal (util-linux script), so the
// prompts, their order and the consent they gate are what a person meets.
func TestAhoyInstallAsksOnARealTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("util-linux script is not installed")
	}
	repo := fs.NewDir(t, "interactive")
	home := filepath.Join(fs.NewDir(t, "home").Path(), ".abcd")
	git := exec.Command("git", "init", "-q", repo.Path())
	assert.NilError(t, git.Run())

	cmd := exec.Command(script, "-q", "-e", "-c", binary+" ahoy install", "/dev/null")
	cmd.Dir = repo.Path()
	cmd.Env = append(os.Environ(), "ABCD_HOME="+home, "NO_COLOR=1", "TERM=dumb")
	cmd.Stdin = strings.NewReader("y\ny\ny\nn\n")
	out, err := cmd.CombinedOutput()
	assert.NilError(t, err, string(out))
	text := string(out)

	questions := []string{"Create abcd's record folders", "Keep abcd's local run state", "AGENT", "Accept this routing table for your machine", "Also commit it"}
	last := -1
	for _, q := range questions {
		at := strings.Index(text, q)
		assert.Assert(t, at > last, "%q is not asked after the one before it:\n%s", q, text)
		last = at
	}
	assert.Check(t, is.Contains(text, "oracle-routing-repository  declined"))

	st, err := os.Stat(filepath.Join(home, "oracle-routing.json"))
	assert.NilError(t, err, "the machine routing file is written on yes")
	assert.Equal(t, st.Mode().Perm(), os.FileMode(0o600))
	_, err = os.Stat(repo.Join(".abcd", "config", "oracle-routing.json"))
	assert.Assert(t, os.IsNotExist(err), "the repository routing file is not written on no")
}
