// Command coldstart measures the cold-start wall time of `abcd version` against a hello-world Go
// binary built the same way, alternating runs in one invocation so both see the same machine, and
// prints the ratio of medians.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	runs := flag.Int("runs", 300, "runs of each binary")
	flag.Parse()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(runs int) error {
	dir, err := os.MkdirTemp("", "abcd-coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	abcd := filepath.Join(dir, "abcd")
	hello := filepath.Join(dir, "hello")
	for _, b := range []struct{ out, pkg string }{{abcd, "./frontdoors/cmd/abcd"}, {hello, "./tools/bench/hello"}} {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", b.out, b.pkg)
		// Static, as `make build` builds abcd: no dynamic loader at start.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", b.pkg, err)
		}
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return err
	}
	env := append(os.Environ(), "ABCD_HOME="+home, "NO_COLOR=1")
	var ta, th []time.Duration
	for i := 0; i < runs+10; i++ {
		a, err := timeRun(env, abcd, "version")
		if err != nil {
			return err
		}
		h, err := timeRun(env, hello)
		if err != nil {
			return err
		}
		if i >= 10 { // the first runs warm the page cache for both
			ta, th = append(ta, a), append(th, h)
		}
	}
	ma, mh := median(ta), median(th)
	fmt.Printf("cold start, %d alternating runs each (median, p90):\n", runs)
	fmt.Printf("  hello-world      %8.3f ms  %8.3f ms\n", ms(mh), ms(p90(th)))
	fmt.Printf("  abcd version     %8.3f ms  %8.3f ms\n", ms(ma), ms(p90(ta)))
	fmt.Printf("  ratio abcd/hello %8.2f    (target <= 1.50)\n", float64(ma)/float64(mh))
	return nil
}

func timeRun(env []string, bin string, args ...string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w", bin, err)
	}
	return time.Since(start), nil
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }
func p90(d []time.Duration) time.Duration    { return pct(d, 90) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*p/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
