//go:build windows

package runner

import (
	"errors"
	"os"
	"time"

	"github.com/abcd-dev/abcd/adapters/sandbox"
)

// errNoGroups is why the runner route does not run on Windows: a step must own the CLI's whole
// process tree (a Unix process group it can end at once), and abcd makes none on Windows. The step
// fails with this reason before anything starts, and the harness takes it with the same brief.
var errNoGroups = errors.New("the runner route needs a process group abcd can end as one, which it makes only on Linux and macOS: on Windows the harness takes the step")

// process is never made on Windows; it is declared so the step compiles the same everywhere.
type process struct {
	pgid   int
	exited chan struct{}
	fenced *sandbox.Running
}

func start(string, []string, []string, string, *os.File, *os.File, *os.File, *fencing) (*process, error) {
	return nil, errNoGroups
}

func (p *process) end(time.Duration) []string { return nil }

func (p *process) exit() (int, string) { return -1, "" }

// openNoFollow opens path read-only; on Windows a symbolic link is refused by the caller's check
// that the file opened is regular (Lstat first), since there is no O_NOFOLLOW.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, errors.New("is a symbolic link")
	}
	return os.Open(path)
}
