// Command coldstart measures the cold-start wall time of `abcd version`, and of bare `abcd --json`
// (status with the routing board) in a set-up repository, against a hello-world Go binary built the
// same way, alternating runs in one invocation so all see the same machine, and prints the ratios of
// medians.
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
	repo := filepath.Join(dir, "repo")
	env := append(os.Environ(), "ABCD_HOME="+home, "NO_COLOR=1")
	for _, step := range [][]string{{"git", "init", "-q", repo}, {abcd, "ahoy", "install", "--yes"}} {
		cmd := exec.Command(step[0], step[1:]...)
		cmd.Dir, cmd.Env = dir, env
		if step[0] == abcd {
			cmd.Dir = repo
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %w\n%s", step, err, out)
		}
	}
	routing := `{"schema_version":1,"agents":{"security-reviewer":{"tier":"economy"}}}`
	if err := os.WriteFile(filepath.Join(home, "oracle-routing.json"), []byte(routing), 0o600); err != nil {
		return err
	}
	var tv, ts, th []time.Duration
	for i := 0; i < runs+10; i++ {
		v, err := timeRun(env, repo, abcd, "version")
		if err != nil {
			return err
		}
		s, err := timeRun(env, repo, abcd, "--json")
		if err != nil {
			return err
		}
		h, err := timeRun(env, repo, hello)
		if err != nil {
			return err
		}
		if i >= 10 { // the first runs warm the page cache for all three
			tv, ts, th = append(tv, v), append(ts, s), append(th, h)
		}
	}
	mh := median(th)
	fmt.Printf("cold start, %d alternating runs each (median, p90, ratio of medians to hello-world):\n", runs)
	fmt.Printf("  hello-world      %8.3f ms  %8.3f ms\n", ms(mh), ms(p90(th)))
	fmt.Printf("  abcd version     %8.3f ms  %8.3f ms  %5.2f  (target <= 1.50)\n", ms(median(tv)), ms(p90(tv)), float64(median(tv))/float64(mh))
	fmt.Printf("  abcd --json      %8.3f ms  %8.3f ms  %5.2f  (status and the routing board, set-up repository)\n", ms(median(ts)), ms(p90(ts)), float64(median(ts))/float64(mh))
	return nil
}

func timeRun(env []string, dir, bin string, args ...string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
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
