package runner

import (
	"os"
	"path/filepath"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/text"
)

// checkExecutable refuses a path that is not an absolute, regular, executable file.
func checkExecutable(path string) *runner.Failure {
	if !filepath.IsAbs(path) {
		return runner.Failf(runner.CauseExecutable, "the runner's executable is not an absolute path")
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return runner.Failf(runner.CauseExecutable, "the runner's executable %s: %s", text.Clip(path), pathless(err))
	case !fi.Mode().IsRegular():
		return runner.Failf(runner.CauseExecutable, "the runner's executable %s is not a regular file", text.Clip(path))
	case fi.Mode().Perm()&0o111 == 0:
		return runner.Failf(runner.CauseExecutable, "the runner's executable %s is not executable", text.Clip(path))
	}
	return nil
}

// openPrompt opens the prompt file read-only: a regular file within MaxPromptBytes, never a pipe, a
// terminal or a symbolic link (opened without following one, without blocking on a FIFO, and checked
// after it is open).
func openPrompt(path string) (*os.File, *runner.Failure) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, runner.Failf(runner.CausePrompt, "the step's prompt file: %s", pathless(err))
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		_ = f.Close() // opened for reading
		return nil, runner.Failf(runner.CausePrompt, "the step's prompt file: %s", pathless(err))
	case !fi.Mode().IsRegular():
		_ = f.Close() // opened for reading
		return nil, runner.Failf(runner.CausePrompt, "the step's prompt is not a regular file (a pipe or a device is never handed to a CLI)")
	case fi.Size() > runner.MaxPromptBytes:
		_ = f.Close() // opened for reading
		return nil, runner.Failf(runner.CausePrompt, "the step's prompt is %d bytes, over the bound of %d", fi.Size(), runner.MaxPromptBytes)
	}
	return f, nil
}
