package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func assertRefused(t *testing.T, err error, path, why, remedy string) {
	t.Helper()
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "want a refusal, got %v", err)
	assert.Equal(t, r.Kind, refusal.Refused)
	assert.Equal(t, r.What, path)
	assert.Assert(t, is.Contains(r.Why, why))
	assert.Assert(t, is.Contains(fmt.Sprint(r.Remedy), remedy))
}

func TestReadGuarded(t *testing.T) {
	dir := fs.NewDir(t, "guarded",
		fs.WithFile("ok.json", `{"schema_version":1}`, fs.WithMode(0o600)),
		fs.WithFile("shared.json", `{}`, fs.WithMode(0o664)),
		fs.WithFile("otherw.json", `{}`, fs.WithMode(0o602)),
		fs.WithFile("big.json", strings.Repeat(" ", MaxConfigBytes+1), fs.WithMode(0o600)),
		fs.WithFile("exact.json", strings.Repeat(" ", MaxConfigBytes), fs.WithMode(0o600)),
		fs.WithDir("folder.json"),
		fs.WithSymlink("link.json", "ok.json"),
	)
	p := dir.Join

	data, present, err := ReadGuarded(p("ok.json"), true)
	assert.NilError(t, err)
	assert.Assert(t, present)
	assert.Equal(t, string(data), `{"schema_version":1}`)

	data, present, err = ReadGuarded(p("absent.json"), true)
	assert.NilError(t, err)
	assert.Assert(t, !present && data == nil)

	_, _, err = ReadGuarded(p("link.json"), false)
	assertRefused(t, err, p("link.json"), "symbolic link", "replace the link with the file itself")
	_, _, err = ReadGuarded(p("folder.json"), false)
	assertRefused(t, err, p("folder.json"), "not a regular file", "replace it")
	_, _, err = ReadGuarded(p("big.json"), false)
	assertRefused(t, err, p("big.json"), "larger than 1048576 bytes", "shorten it")
	_, present, err = ReadGuarded(p("exact.json"), false)
	assert.NilError(t, err)
	assert.Assert(t, present)

	// A repository file's mode is git's business; a machine file's is the person's safety.
	_, _, err = ReadGuarded(p("shared.json"), false)
	assert.NilError(t, err)
	_, _, err = ReadGuarded(p("shared.json"), true)
	assertRefused(t, err, p("shared.json"), "writable by group or others (mode 0664)", "chmod 600 "+p("shared.json"))
	_, _, err = ReadGuarded(p("otherw.json"), true)
	assertRefused(t, err, p("otherw.json"), "writable by group or others", "chmod 600")
}

func TestReadGuardedRefusesADevice(t *testing.T) {
	_, _, err := ReadGuarded("/dev/null", false)
	assertRefused(t, err, "/dev/null", "not a regular file", "regular file")
}

func TestReadGuardedRefusesAForeignOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	dir := fs.NewDir(t, "owner", fs.WithFile("config.json", `{}`, fs.WithMode(0o600)))
	assert.NilError(t, os.Chown(dir.Join("config.json"), 4242, 4242))
	_, _, err := ReadGuarded(dir.Join("config.json"), true)
	assertRefused(t, err, dir.Join("config.json"), "owned by another user", "chown")
}

func TestReadGuardedRefusesAFIFOWithoutHanging(t *testing.T) {
	dir := fs.NewDir(t, "fifo")
	mkfifo(t, dir.Join("config.json"))
	_, _, err := ReadGuarded(dir.Join("config.json"), true)
	assertRefused(t, err, dir.Join("config.json"), "not a regular file", "regular file")
}

func TestConfigSourceReadsAllFour(t *testing.T) {
	repo := fs.NewDir(t, "repo",
		fs.WithDir(".git"),
		fs.WithDir(".abcd", fs.WithFile("config.json", `{"schema_version":1}`),
			fs.WithDir("config", fs.WithFile("oracle-routing.json", `{"schema_version":1,"agents":{}}`))),
		fs.WithDir("sub"))
	home := fs.NewDir(t, "home", fs.WithMode(0o700), fs.WithFile("config.json", `{"schema_version":1}`, fs.WithMode(0o600)))
	files, err := ConfigSource{Dir: repo.Join("sub"), Home: home.Path()}.ReadConfig(context.Background())
	assert.NilError(t, err)
	assert.Assert(t, files.RepoConfig.Present && files.RepoRouting.Present && files.MachineConfig.Present)
	assert.Assert(t, !files.MachineRouting.Present)
	assert.Equal(t, files.RepoConfig.Path, filepath.Join(repo.Path(), ".abcd", "config.json"))
	assert.Equal(t, files.MachineRouting.Path, filepath.Join(home.Path(), "oracle-routing.json"))
}
