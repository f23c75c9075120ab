package files

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func TestUpdateMachineFileIsLockedAtomicAndOwnerOnly(t *testing.T) {
	home := filepath.Join(t.TempDir(), "abcd-home")
	s := Setup{Dir: t.TempDir(), Home: home}
	ctx := context.Background()

	// Absent: created 0600 in a new 0700 folder.
	assert.NilError(t, s.UpdateMachineFile(ctx, "config.json", time.Second, func(old []byte, present bool) ([]byte, error) {
		assert.Check(t, !present && old == nil)
		return []byte(`{"schema_version":1}`), nil
	}))
	st, err := os.Stat(filepath.Join(home, "config.json"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(st.Mode().Perm(), os.FileMode(0o600)))
	hst, _ := os.Stat(home)
	assert.Check(t, is.Equal(hst.Mode().Perm(), os.FileMode(0o700)))

	// Present: handed over, replaced.
	assert.NilError(t, s.UpdateMachineFile(ctx, "config.json", time.Second, func(old []byte, present bool) ([]byte, error) {
		assert.Check(t, present)
		assert.Check(t, is.Equal(string(old), `{"schema_version":1}`))
		return []byte(`{"schema_version":1,"x":2}`), nil
	}))
	// An error from update writes nothing; nil data writes nothing.
	boom := errors.New("no")
	assert.Check(t, is.ErrorIs(s.UpdateMachineFile(ctx, "config.json", time.Second, func([]byte, bool) ([]byte, error) { return []byte("junk"), boom }), boom))
	assert.NilError(t, s.UpdateMachineFile(ctx, "config.json", time.Second, func([]byte, bool) ([]byte, error) { return nil, nil }))
	data, _ := os.ReadFile(filepath.Join(home, "config.json"))
	assert.Check(t, is.Equal(string(data), `{"schema_version":1,"x":2}`))
	entries, _ := os.ReadDir(home)
	assert.Check(t, is.Len(entries, 1), "no temporary file is left behind")

	// Held by another writer: contention after the wait.
	f := held(t, home)
	unlock, err := f.lock(ctx, 0)
	assert.NilError(t, err)
	short, cancel := context.WithCancel(ctx)
	cancel()
	err = s.UpdateMachineFile(short, "config.json", time.Second, func([]byte, bool) ([]byte, error) { return []byte("x"), nil })
	assert.Check(t, err != nil, "a cancelled wait gives up")
	unlock()

	// A file another user could write is refused before update runs.
	assert.NilError(t, os.Chmod(filepath.Join(home, "config.json"), 0o666))
	err = s.UpdateMachineFile(ctx, "config.json", time.Second, func([]byte, bool) ([]byte, error) {
		t.Error("update ran over a file others may write")
		return nil, nil
	})
	_, ok := refusal.As(err)
	assert.Check(t, ok, "%v", err)
	// A link is refused.
	assert.NilError(t, os.Remove(filepath.Join(home, "config.json")))
	assert.NilError(t, os.Symlink("/etc/hostname", filepath.Join(home, "config.json")))
	err = s.UpdateMachineFile(ctx, "config.json", time.Second, func([]byte, bool) ([]byte, error) { return []byte("x"), nil })
	assert.Check(t, err != nil && strings.Contains(err.Error(), "symbolic link"), "%v", err)
}

func TestUpdateMachineFileReportsContention(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	s := Setup{Dir: t.TempDir(), Home: home}
	assert.NilError(t, s.UpdateMachineFile(context.Background(), "config.json", 50*time.Millisecond, func([]byte, bool) ([]byte, error) { return []byte("{}"), nil }))
	unlock, err := held(t, home).lock(context.Background(), 0)
	assert.NilError(t, err)
	defer unlock()
	err = s.UpdateMachineFile(context.Background(), "config.json", 50*time.Millisecond, func([]byte, bool) ([]byte, error) { return []byte("x"), nil })
	r, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Check(t, is.Equal(r.Kind, refusal.Contention))
	assert.Check(t, is.Equal(r.Code, refusal.CodeMachineLocked))
}

func TestReadSecretHoldsTheKeyFileToItsOwner(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		assert.NilError(t, os.WriteFile(p, []byte(body), mode))
		assert.NilError(t, os.Chmod(p, mode))
		return p
	}
	key, err := ReadSecret(write("ok.key", "  sk-canary-123\n", 0o600))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(key), "sk-canary-123"))
	for _, c := range []struct {
		path, want string
	}{
		{write("open.key", "sk-canary-123", 0o644), "readable or writable by group or others"},
		{write("empty.key", " \n", 0o600), "is empty"},
		{write("big.key", strings.Repeat("k", MaxSecretBytes+1), 0o600), "too large to be a key"},
		{filepath.Join(dir, "missing.key"), "does not exist"},
		{"relative.key", "not an absolute path"},
	} {
		_, err := ReadSecret(c.path)
		assert.Check(t, err != nil && strings.Contains(err.Error(), c.want), "%s: %v", c.path, err)
		assert.Check(t, err == nil || !strings.Contains(err.Error(), "sk-canary"), "a refusal quotes the key")
	}
	link := filepath.Join(dir, "link.key")
	assert.NilError(t, os.Symlink(filepath.Join(dir, "ok.key"), link))
	_, err = ReadSecret(link)
	assert.Check(t, err != nil && strings.Contains(err.Error(), "symbolic link"), "%v", err)
}
