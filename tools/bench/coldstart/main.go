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
	"time"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
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
		if err := benchkit.Build(b.out, b.pkg); err != nil {
			return err
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
		v, err := benchkit.Time(env, repo, abcd, "version")
		if err != nil {
			return err
		}
		s, err := benchkit.Time(env, repo, abcd, "--json")
		if err != nil {
			return err
		}
		h, err := benchkit.Time(env, repo, hello)
		if err != nil {
			return err
		}
		if i >= 10 { // the first runs warm the page cache for all three
			tv, ts, th = append(tv, v), append(ts, s), append(th, h)
		}
	}
	mh := benchkit.Median(th)
	fmt.Printf("cold start, %d alternating runs each (median, p90, ratio of medians to hello-world):\n", runs)
	fmt.Printf("  hello-world      %8.3f ms  %8.3f ms\n", benchkit.MS(mh), benchkit.MS(benchkit.P90(th)))
	fmt.Printf("  abcd version     %8.3f ms  %8.3f ms  %5.2f  (target <= 1.50)\n", benchkit.MS(benchkit.Median(tv)), benchkit.MS(benchkit.P90(tv)), float64(benchkit.Median(tv))/float64(mh))
	fmt.Printf("  abcd --json      %8.3f ms  %8.3f ms  %5.2f  (status and the routing board, set-up repository)\n", benchkit.MS(benchkit.Median(ts)), benchkit.MS(benchkit.P90(ts)), float64(benchkit.Median(ts))/float64(mh))
	return nil
}
