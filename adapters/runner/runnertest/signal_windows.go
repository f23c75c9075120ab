//go:build windows

package runnertest

import (
	"fmt"
	"os"
	"os/exec"
)

// detach: Windows has no process groups to leave; the runner route does not run there.
func detach(*exec.Cmd) {}

// raise: Windows has no signals for a process to end itself by; the fake CLI exits as a process
// ended from outside does there (exit code 1), saying which signal it stands for.
func raise(name string) {
	fmt.Fprintln(os.Stderr, "fake: ended as by SIG"+name)
	os.Exit(1)
}
