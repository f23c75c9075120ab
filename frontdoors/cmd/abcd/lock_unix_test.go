//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
)

// holdFolderLock takes the lock abcd takes on a folder (an flock on the folder itself), as another
// abcd in the middle of a write holds it; release gives it back.
func holdFolderLock(t *testing.T, dir string) (release func()) {
	f, err := os.Open(dir)
	assert.NilError(t, err)
	t.Cleanup(func() { assert.Check(t, f.Close()) })
	assert.NilError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	return func() { assert.NilError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)) }
}
