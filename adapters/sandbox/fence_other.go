//go:build !linux

package sandbox

import (
	"os/exec"
	"runtime"

	"github.com/abcd-dev/abcd/ports"
)

// Helper returns: there is no helper off Linux.
func Helper() {}

// Start refuses: abcd builds its fence on Linux only. On macOS the design is Seatbelt
// (docs/security.md), not built yet; Windows has no runner route at all.
func (f *Fence) Start(cmd *exec.Cmd, p ports.SandboxPolicy) (*Running, error) {
	return nil, &Unavailable{Missing: "an OS sandbox abcd builds on " + runtime.GOOS + " (abcd builds its fence on Linux only; on macOS it is designed, not built: docs/security.md)"}
}
