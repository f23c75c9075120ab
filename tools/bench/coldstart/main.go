// Command coldstart measures the cold-start wall time of `abcd version`, and of bare `abcd --json`
// (status with the routing board) in a set-up repository, against a hello-world Go binary built the
// same way, alternating runs in one invocation so all see the same machine, and prints the ratios of
// medians. It then names what abcd's start costs before main runs: each package's init, from
// GODEBUG=inittrace=1 over repeated runs. With -md it writes its section of docs/performance.md.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

func main() {
	runs := flag.Int("runs", 300, "runs of each binary")
	traces := flag.Int("traces", 50, "runs of abcd version with GODEBUG=inittrace=1")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	flag.Parse()
	if err := run(*runs, *traces, *md); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(runs, traces int, md string) (err error) {
	dir, err := os.MkdirTemp("", "abcd-coldstart-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	abcd, hello, hellonet := filepath.Join(dir, "abcd"), filepath.Join(dir, "hello"), filepath.Join(dir, "hellonet")
	for _, b := range []struct{ out, pkg string }{{abcd, "./frontdoors/cmd/abcd"}, {hello, "./tools/bench/hello"}, {hellonet, "./tools/bench/hellonet"}} {
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
	var tv, ts, th, tn []time.Duration
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
		nt, err := benchkit.Time(env, repo, hellonet)
		if err != nil {
			return err
		}
		if i >= 10 { // the first runs warm the page cache for all of them
			tv, ts, th, tn = append(tv, v), append(ts, s), append(th, h), append(tn, nt)
		}
	}
	mh, mv, ms, mn := benchkit.Median(th), benchkit.Median(tv), benchkit.Median(ts), benchkit.Median(tn)
	rv := float64(mv) / float64(mh)
	fmt.Printf("cold start, %d alternating runs each (median, p90, ratio of medians to hello-world):\n", runs)
	fmt.Printf("  hello-world      %8.3f ms  %8.3f ms\n", benchkit.MS(mh), benchkit.MS(benchkit.P90(th)))
	fmt.Printf("  hello + net/http %8.3f ms  %8.3f ms  %5.2f  (linked, not run)\n", benchkit.MS(mn), benchkit.MS(benchkit.P90(tn)), float64(mn)/float64(mh))
	fmt.Printf("  abcd version     %8.3f ms  %8.3f ms  %5.2f  (the guard hook's reference)\n", benchkit.MS(mv), benchkit.MS(benchkit.P90(tv)), rv)
	fmt.Printf("  abcd --json      %8.3f ms  %8.3f ms  %5.2f  (status and the routing board, set-up repository)\n", benchkit.MS(ms), benchkit.MS(benchkit.P90(ts)), float64(ms)/float64(mh))

	inits, toMain, err := initCosts(env, repo, abcd, traces, "version")
	if err != nil {
		return err
	}
	_, helloToMain, err := initCosts(env, repo, hello, traces)
	if err != nil {
		return err
	}
	var total float64
	for _, in := range inits {
		total += in.clock
	}
	fmt.Printf("  before main (inittrace, median of %d): abcd %.3f ms of which %d package inits %.3f ms; hello-world %.3f ms\n",
		traces, toMain, len(inits), total, helloToMain)
	for _, in := range inits[:min(10, len(inits))] {
		fmt.Printf("    %-50s %.3f ms  %6d bytes  %4d allocs\n", in.pkg, in.clock, in.bytes, in.allocs)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "## Cold start\n\n")
	fmt.Fprintf(&b, "`abcd version` and bare `abcd --json` in a set-up repository, against a hello-world Go binary\n")
	fmt.Fprintf(&b, "(`tools/bench/hello`) built the same way (static, stripped), %d alternating runs of each after ten\n", runs)
	fmt.Fprintf(&b, "warm-up rounds; each figure is the median wall time from start to exit. A second hello-world\n")
	fmt.Fprintf(&b, "links what abcd's transports need and runs none of it, to tell linking from starting.\n\n")
	fmt.Fprintf(&b, "| binary | median | p90 | ratio to hello-world |\n| --- | --- | --- | --- |\n")
	fmt.Fprintf(&b, "| hello-world (reference) | %.3f ms | %.3f ms | 1.00 |\n", benchkit.MS(mh), benchkit.MS(benchkit.P90(th)))
	fmt.Fprintf(&b, "| hello-world linking net/http and crypto/tls, running neither (`tools/bench/hellonet`) | %.3f ms | %.3f ms | %.2f |\n",
		benchkit.MS(mn), benchkit.MS(benchkit.P90(tn)), float64(mn)/float64(mh))
	fmt.Fprintf(&b, "| `abcd version` | %.3f ms | %.3f ms | %.2f |\n", benchkit.MS(mv), benchkit.MS(benchkit.P90(tv)), rv)
	fmt.Fprintf(&b, "| `abcd --json` (status, routing board) | %.3f ms | %.3f ms | %.2f |\n\n", benchkit.MS(ms), benchkit.MS(benchkit.P90(ts)), float64(ms)/float64(mh))
	fmt.Fprintf(&b, "The start-up target of 1.5x a hello-world is retired: linking the network stack alone costs %.2fx, and a\n", float64(mn)/float64(mh))
	fmt.Fprintf(&b, "second executable for the hook is not worth about a millisecond. What is held to a target is the path\n")
	fmt.Fprintf(&b, "that runs on every tool call: the guard hook, at most 2x `abcd version` (see The guard hook).\n\n")
	fmt.Fprintf(&b, "### What the start costs before main\n\n")
	fmt.Fprintf(&b, "`GODEBUG=inittrace=1`, median of %d runs of `abcd version`: main starts %.3f ms after the runtime\n", traces, toMain)
	fmt.Fprintf(&b, "does (the hello-world's %.3f ms; both include writing the trace itself), %.3f ms of it in the\n", helloToMain, total)
	fmt.Fprintf(&b, "%d package inits below. The rest before main is the runtime's own start over a larger binary (it\n", len(inits))
	fmt.Fprintf(&b, "checks its function and interface tables, touching their pages); after it, main builds the command\n")
	fmt.Fprintf(&b, "tree of every verb (`frontdoors/cli.NewRoot`) and runs the one asked for.\n\n")
	fmt.Fprintf(&b, "| package | init | bytes | allocations | why it is there |\n| --- | --- | --- | --- | --- |\n")
	shown := 0.0
	for _, in := range inits[:min(15, len(inits))] {
		fmt.Fprintf(&b, "| `%s` | %.3f ms | %d | %d | %s |\n", in.pkg, in.clock, in.bytes, in.allocs, why(in.pkg))
		shown += in.clock
	}
	if len(inits) > 15 {
		fmt.Fprintf(&b, "| the other %d packages | %.3f ms | | | |\n", len(inits)-15, total-shown)
	}
	fmt.Fprintf(&b, "\nGo runs every linked package's init at every start, whichever verb runs, so what a verb does not\n")
	fmt.Fprintf(&b, "need costs only by being linked: net/http, crypto/tls and their dependencies come with the MCP\n")
	fmt.Fprintf(&b, "server's HTTP transport, the RepoPrompt client and the provider adapter, and none of them builds\n")
	fmt.Fprintf(&b, "anything at start beyond what the standard library's own inits do. abcd's own packages compile\n")
	fmt.Fprintf(&b, "their patterns on first use and build the verb table and schema index on first use.\n\n")
	fmt.Fprintf(&b, "Reproduce: `go run ./tools/bench/coldstart` (`-runs`, `-traces`); by hand,\n")
	fmt.Fprintf(&b, "`GODEBUG=inittrace=1 bin/abcd version` after `make build`.\n\n")
	return benchkit.WriteSection(md, b.String())
}

// initCost is one package's init, medians over runs.
type initCost struct {
	pkg           string
	clock         float64 // ms
	bytes, allocs int
}

// initCosts runs bin n times with GODEBUG=inittrace=1 and returns each package's median init cost,
// costliest first, and the median time from the runtime's start to the end of the last init.
func initCosts(env []string, dir, bin string, n int, args ...string) ([]initCost, float64, error) {
	clocks, bytes, allocs := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	var ends []float64
	for range n {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = append(append([]string{}, env...), "GODEBUG=inittrace=1"), dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return nil, 0, fmt.Errorf("%s %v: %w", bin, args, err)
		}
		end := 0.0
		for _, t := range parseInitTrace(stderr.String()) {
			clocks[t.pkg] = append(clocks[t.pkg], t.clock)
			bytes[t.pkg] = append(bytes[t.pkg], float64(t.bytes))
			allocs[t.pkg] = append(allocs[t.pkg], float64(t.allocs))
			end = max(end, t.at+t.clock)
		}
		ends = append(ends, end)
	}
	var out []initCost
	for pkg, c := range clocks {
		out = append(out, initCost{pkg: pkg, clock: median(c), bytes: int(median(bytes[pkg])), allocs: int(median(allocs[pkg]))})
	}
	slices.SortFunc(out, func(a, b initCost) int {
		if a.clock != b.clock {
			if a.clock > b.clock {
				return -1
			}
			return 1
		}
		return strings.Compare(a.pkg, b.pkg)
	})
	return out, median(ends), nil
}

type initTrace struct {
	pkg           string
	at, clock     float64
	bytes, allocs int
}

// parseInitTrace reads lines of the form
// "init net/http @1.6 ms, 0.026 ms clock, 4712 bytes, 49 allocs".
func parseInitTrace(s string) []initTrace {
	var out []initTrace
	sc := bufio.NewScanner(bytes.NewReader([]byte(s)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || !strings.HasPrefix(f[2], "@") {
			continue
		}
		at, err1 := strconv.ParseFloat(strings.TrimPrefix(f[2], "@"), 64)
		clock, err2 := strconv.ParseFloat(f[4], 64)
		b, err3 := strconv.Atoi(f[7])
		a, err4 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		out = append(out, initTrace{pkg: f[1], at: at, clock: clock, bytes: b, allocs: a})
	}
	return out
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// why says what brings a package's init into abcd.
func why(pkg string) string {
	switch {
	case strings.HasPrefix(pkg, "mvdan.cc/sh"):
		return "the guard's shell parser (abcd guard); compiles its patterns at init"
	case pkg == "net/http" || strings.HasPrefix(pkg, "vendor/golang.org/x/net") || strings.HasPrefix(pkg, "net"):
		return "the MCP server's HTTP transport, the RepoPrompt client and the provider adapter"
	case strings.HasPrefix(pkg, "crypto") || strings.HasPrefix(pkg, "vendor/golang.org/x/crypto"):
		return "TLS, for a provider over https"
	case pkg == "vendor/golang.org/x/sys/cpu":
		return "the standard library's processor feature detection, for its cryptography"
	case pkg == "internal/godebug" || pkg == "runtime" || pkg == "os" || pkg == "syscall":
		return "the standard library itself (every Go program)"
	case pkg == "hash/crc32" || pkg == "compress/flate":
		return "gzip, through net/http"
	case pkg == "unicode":
		return "the standard library's Unicode tables"
	case strings.HasPrefix(pkg, "github.com/abcd-dev/abcd/"):
		return "abcd's own package-level values"
	case strings.HasPrefix(pkg, "github.com/spf13/"):
		return "the CLI's command library"
	case strings.HasPrefix(pkg, "go.opentelemetry.io/") || pkg == "log/slog" || strings.HasPrefix(pkg, "github.com/go-logr/"):
		// The SDK alone: adapters/otel's exporter is its own (OTLP/JSON), and tools/arch keeps
		// protobuf and gRPC out of abcd.
		return "the OpenTelemetry SDK (adapters/otel), linked for traces, built only when a run is traced"
	}
	return "the standard library"
}
