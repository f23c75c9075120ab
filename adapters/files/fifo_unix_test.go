//go:build unix

package files

import (
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
)

func mkfifo(t *testing.T, path string) { assert.NilError(t, syscall.Mkfifo(path, 0o600)) }
