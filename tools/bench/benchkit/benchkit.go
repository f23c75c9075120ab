// Package benchkit holds what the benchmark drivers share: building binaries the way make build
// does, timing a command, and order statistics.
package benchkit

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"
)

// Build compiles pkg (a workspace package path such as ./frontdoors/cmd/abcd) into out, static
// and stripped, as `make build` builds abcd.
func Build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %w", pkg, err)
	}
	return nil
}

// Time runs bin once in dir and returns its wall time; a non-zero exit is an error.
func Time(env []string, dir, bin string, args ...string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	return time.Since(start), nil
}

// Median and P90 of a sample.
func Median(d []time.Duration) time.Duration { return pct(d, 50) }
func P90(d []time.Duration) time.Duration    { return pct(d, 90) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*p/100]
}

// MS is a duration in milliseconds.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
