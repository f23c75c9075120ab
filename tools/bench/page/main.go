// Command page writes docs/performance.md from what one `make bench` run measured: the sections the
// drivers wrote (-md) with their targets, and the other drivers' printed figures, under the machine
// class and how the run went.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

// sections are the drivers that write their part of the page, in the page's order.
var sections = []string{"coldstart", "guard", "records", "lintchanged", "mcp", "rules", "history", "runner", "acp", "sandbox", "otel"}

// printed are the drivers whose printed figures the page carries as they are.
var printed = []struct{ file, title, driver string }{
	{"rpbench.txt", "The RepoPrompt client", "go run ./tools/mcp/rpbench"},
	{"loop.txt", "The build loop", "go run ./tools/bench/loop"},
	{"openai.txt", "The provider route", "go run ./tools/bench/openai"},
	{"jsonschema.txt", "The JSON Schema validator", "cd frontdoors/internal/jsonschema/benchref && GOWORK=off go run ."},
	{"gotest.txt", "Go benchmarks", "go test -run '^$' -bench . -benchmem ./domain/... ./ports/... ./adapters/... ./frontdoors/... (every module)"},
}

func main() {
	in := flag.String("in", "bin/bench", "the folder the drivers wrote to")
	out := flag.String("out", "docs/performance.md", "the page to write")
	flag.Parse()
	if err := write(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "page:", err)
		os.Exit(1)
	}
}

func write(in, out string) error {
	var b strings.Builder
	b.WriteString("# Performance\n\n")
	b.WriteString("Written by `make bench` (`tools/bench/page`) from what that one run measured; a new run rewrites it,\n")
	b.WriteString("so edit the drivers under `tools/`, not this page.\n\n")
	fmt.Fprintf(&b, "**Machine class:** %s.\n\n", benchkit.Machine())
	started, took := runInfo(in)
	if started != "" {
		fmt.Fprintf(&b, "**Load:** the one-minute load average was %s when the run started and %s when it ended. The\n", started, loadNow())
		b.WriteString("machine is shared with other work; under load every absolute time grows, so each figure is read\n")
		b.WriteString("beside its reference, measured in the same run.\n\n")
	}
	b.WriteString("**Method:** every figure is the median of repeated runs; its reference (a hello-world, a plain\n")
	b.WriteString("program reading the same files, the official Go MCP SDK) is built the same way and run alternately\n")
	b.WriteString("with it in the same invocation, so both see the same machine; a ratio is of the two medians. Each hot\n")
	b.WriteString("path is profiled once (a binary built with `-tags abcdprofile` writes a CPU profile of its own run,\n")
	b.WriteString("read with `go tool pprof`), and its section names the top cost and whether it is inherent.\n\n")
	if took != "" {
		fmt.Fprintf(&b, "**Reproduce:** `make bench` (this run took %s); each section names its own driver.\n\n", took)
	} else {
		b.WriteString("**Reproduce:** `make bench`; each section names its own driver.\n\n")
	}

	var targets strings.Builder
	var body strings.Builder
	for _, name := range sections {
		sec, err := os.ReadFile(filepath.Join(in, name+".md"))
		if err != nil {
			return fmt.Errorf("the %s driver's section: %w", name, err)
		}
		body.Write(sec)
		if t, err := os.ReadFile(filepath.Join(in, name+".md.targets")); err == nil {
			targets.Write(t)
		}
	}
	if targets.Len() > 0 {
		b.WriteString("## Targets\n\n| target | this run | verdict |\n| --- | --- | --- |\n")
		b.WriteString(targets.String())
		b.WriteString("\n")
	}
	b.WriteString(body.String())

	var rest strings.Builder
	for _, p := range printed {
		data, err := os.ReadFile(filepath.Join(in, p.file))
		if err != nil {
			continue
		}
		text := strings.TrimSpace(string(data))
		if p.file == "gotest.txt" {
			text = benchLines(text)
		}
		if text == "" {
			continue
		}
		fmt.Fprintf(&rest, "### %s\n\n`%s`, as it printed:\n\n```text\n%s\n```\n\n", p.title, p.driver, text)
	}
	if rest.Len() > 0 {
		b.WriteString("## The other figures of the run\n\n")
		b.WriteString("What the other drivers printed in the same run, each with its own reference.\n\n")
		b.WriteString(rest.String())
	}
	return os.WriteFile(out, []byte(strings.TrimRight(b.String(), "\n")+"\n"), 0o644)
}

// runInfo reads what the Makefile noted when the run started (start: unix seconds and the load
// average) and says how long the run took.
func runInfo(in string) (load, took string) {
	data, err := os.ReadFile(filepath.Join(in, "start"))
	if err != nil {
		return "", ""
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return "", ""
	}
	if secs, err := strconv.ParseInt(f[0], 10, 64); err == nil {
		took = time.Since(time.Unix(secs, 0)).Round(time.Second).String()
	}
	return f[1], took
}

// loadNow is the one-minute load average now.
func loadNow() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// benchLines keeps the benchmark results of `go test -bench` output and the lines naming the
// machine and package, dropping the rest.
func benchLines(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "Benchmark") || strings.HasPrefix(line, "pkg: ") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
