//go:build windows

package runner_test

import "testing"

// mkfifo: Windows has no FIFOs in the file system, and the runner route does not run there.
func mkfifo(t *testing.T, _ string) { t.Skip("the runner route does not run on Windows") }
