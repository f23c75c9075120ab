//go:build windows

package files

import "testing"

// mkfifo: Windows has no FIFOs in the file system.
func mkfifo(t *testing.T, _ string) { t.Skip("no FIFOs on Windows") }
