// Package abcdtest gives end-to-end tests the abcd binaries. A test package that linked its own
// with go build paid about a second of CPU for each binary on every run, however little had changed;
// Build takes them from the go command's cache of executables (the one go run keeps), so a run after
// no change links nothing, and packages that ask for the same build share one link.
package abcdtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build puts the binaries of the main packages pkgs (import paths, or paths relative to the test's
// folder such as ../cmd/abcd) side by side in dir, each named as the go command names it, and
// returns their paths in the order of pkgs. They are built as make build ships them (CGO_ENABLED=0),
// with ldflags (such as -X main.version=...) when it is not empty.
func Build(dir, ldflags string, pkgs ...string) ([]string, error) {
	var paths []string
	for _, pkg := range pkgs {
		exe, err := cached(ldflags, pkg)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(dir, filepath.Base(exe))
		if err := place(exe, dst); err != nil {
			return nil, fmt.Errorf("placing %s: %w", pkg, err)
		}
		paths = append(paths, dst)
	}
	return paths, nil
}

// cached is pkg's executable in the go command's cache. `go run -exec echo` prints where the binary
// it would run lies: in the cache when it was there already; otherwise in a scratch folder the go
// command removes as it exits, once it has put the binary in its cache, where asking again finds it.
func cached(ldflags, pkg string) (string, error) {
	args := []string{"run", "-exec", "echo"}
	if ldflags != "" {
		args = append(args, "-ldflags", ldflags)
	}
	args = append(args, pkg)
	for range 2 {
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("building %s: %w\n%s", pkg, err, stderr.String())
		}
		exe := strings.TrimSpace(string(out))
		if _, err := os.Stat(exe); err == nil {
			return exe, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("building %s: the go command kept no binary of it in its cache (GOCACHE %q)", pkg, os.Getenv("GOCACHE"))
}

// place links the cached binary into dst, or copies it where a link cannot be made (another file
// system), so a trim of the cache never takes it from under a test.
func place(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}
