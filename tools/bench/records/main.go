// Command records measures how bare `abcd --json` (status), `abcd intent list --json` and
// `abcd lint --json` grow with the record. It builds repositories of 1,000, 10,000 and 50,000
// records and, in each, times the three commands alternating with two references built the same way
// (tools/bench/plainread: reading every record file whole, and only looking at each), so all see the
// same machine. It prints medians, the ratios to the references and the growth from 10,000 to
// 50,000 records (linear is 5), then profiles each command once at 10,000 records and names its top
// cost. With -md it writes its section of docs/performance.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
	"github.com/abcd-dev/abcd/tools/bench/recordgen"
)

func main() {
	runs := flag.Int("runs", 15, "timed runs of each command at each size")
	profiles := flag.Int("profiles", 10, "profiled runs of each command at 10,000 records")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	makeRepo := flag.String("make", "", "only make a repository of -n records at this path (to profile by hand)")
	n := flag.Int("n", 10000, "records for -make")
	flag.Parse()
	var err error
	if *makeRepo != "" {
		err = makeOnly(*makeRepo, *n)
	} else {
		err = run(*runs, *profiles, *md)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "records:", err)
		os.Exit(1)
	}
}

// command is one timed command line; ref marks a reference.
type command struct {
	label string
	args  []string
	ref   bool
}

var (
	status = command{label: "`abcd --json` (status)", args: []string{"--json"}}
	list   = command{label: "`abcd intent list --json`", args: []string{"intent", "list", "--json"}}
	lint   = command{label: "`abcd lint --json`", args: []string{"lint", "--json"}}
	read   = command{label: "reference: read every record file (plainread)", ref: true}
	look   = command{label: "reference: lstat every record file (plainread -stat)", args: []string{"-stat"}, ref: true}
)

var sizes = []int{1000, 10000, 50000}

// targets are the issue's: at 10,000 records, status within 100 ms and intent list within 60 ms;
// from 10,000 to 50,000 records, growth within 5.5.
var targets = map[string]time.Duration{status.label: 100 * time.Millisecond, list.label: 60 * time.Millisecond}

const maxGrowth = 5.5

// lintSlack is how far lint's growth may exceed the plain reader's and still count as linear.
const lintSlack = 1.1

func run(runs, profiles int, md string) (err error) {
	dir, err := os.MkdirTemp("", "abcd-records-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	abcd, plain, prof := filepath.Join(dir, "abcd"), filepath.Join(dir, "plainread"), filepath.Join(dir, "abcd-profiling")
	if err := benchkit.Build(abcd, "./frontdoors/cmd/abcd"); err != nil {
		return err
	}
	if err := benchkit.Build(plain, "./tools/bench/plainread"); err != nil {
		return err
	}
	if err := benchkit.BuildProfiling(prof, "./frontdoors/cmd/abcd"); err != nil {
		return err
	}
	commands := []command{status, list, lint, read, look}
	medians, cpus := map[string]map[int]time.Duration{}, map[string]map[int]time.Duration{}
	for _, c := range commands {
		medians[c.label], cpus[c.label] = map[int]time.Duration{}, map[int]time.Duration{}
	}
	envs, repos := map[int][]string{}, map[int]string{}
	for _, n := range sizes {
		repo, home := filepath.Join(dir, fmt.Sprintf("repo-%d", n)), filepath.Join(dir, fmt.Sprintf("home-%d", n))
		env := append(os.Environ(), "ABCD_HOME="+home, "NO_COLOR=1")
		if err := recordgen.Generate(repo, env, abcd, n); err != nil {
			return err
		}
		envs[n], repos[n] = env, repo
	}
	// Every round runs every command at every size, so the sizes, like the commands and their
	// references, see the same machine: a burst of other work slows a round, not one size.
	type key struct {
		label string
		n     int
	}
	samples, cpuSamples := map[key][]time.Duration{}, map[key][]time.Duration{}
	for i := 0; i < runs+2; i++ { // the first two rounds warm the page cache
		for _, n := range sizes {
			for _, c := range commands {
				bin := abcd
				if c.ref {
					bin = plain
				}
				d, cpu, err := benchkit.TimeCPU(envs[n], repos[n], bin, c.args...)
				if err != nil {
					return err
				}
				if i >= 2 {
					samples[key{c.label, n}] = append(samples[key{c.label, n}], d)
					cpuSamples[key{c.label, n}] = append(cpuSamples[key{c.label, n}], cpu)
				}
			}
		}
	}
	for _, n := range sizes {
		fmt.Printf("%6d records (median of %d):", n, runs)
		for _, c := range commands {
			medians[c.label][n] = benchkit.Median(samples[key{c.label, n}])
			cpus[c.label][n] = benchkit.Median(cpuSamples[key{c.label, n}])
			fmt.Printf("  %s %.1f ms", strings.Trim(strings.Fields(c.label)[0], "`:"), benchkit.MS(medians[c.label][n]))
		}
		fmt.Println()
	}
	growth := func(c command) float64 { return float64(medians[c.label][50000]) / float64(medians[c.label][10000]) }
	cpuGrowth := func(c command) float64 { return float64(cpus[c.label][50000]) / float64(cpus[c.label][10000]) }
	lintLinear := func() string {
		return fmt.Sprintf("CPU growth %.2f against the reader's %.2f (%s), wall %.2f against %.2f", cpuGrowth(lint), cpuGrowth(read),
			verdict(cpuGrowth(lint) <= lintSlack*cpuGrowth(read)), growth(lint), growth(read))
	}
	for _, c := range []command{status, list, lint} {
		fmt.Printf("%-28s at 10,000: %6.1f ms, %4.2fx reading every file; growth 10,000 -> 50,000: %.2f (linear is 5; target <= %.1f)\n",
			c.label, benchkit.MS(medians[c.label][10000]), ratio(medians[c.label][10000], medians[read.label][10000]), growth(c), maxGrowth)
	}

	// One profile of each command at 10,000 records, merged over several runs.
	parts := map[string][]string{
		"reading the record files (open, fstat, read, close)": {"github.com/abcd-dev/abcd/adapters/files.Records.List"},
		"listing the folders (getdents)":                      {"github.com/abcd-dev/abcd/adapters/files.direntsOf"},
		"parsing front matter":                                {"github.com/abcd-dev/abcd/domain/record.ParseHeader"},
		"parsing records whole":                               {"github.com/abcd-dev/abcd/domain/record.parseRecord"},
		"the readiness gate":                                  {"github.com/abcd-dev/abcd/domain/record.Readiness"},
		"lint's checks":                                       {"github.com/abcd-dev/abcd/domain/record.Lint"},
		"encoding the result (encoding/json)":                 {"github.com/abcd-dev/abcd/ports/verb.Encode"},
		"garbage collection":                                  {"runtime.gcBgMarkWorker"},
		"the oracle board (configuration)":                    {"github.com/abcd-dev/abcd/ports/loop.(*Deps).OracleBoard"},
	}
	type profiled struct {
		c command
		p benchkit.Profile
	}
	var profs []profiled
	for _, c := range []command{status, list, lint} {
		p, err := benchkit.ProfileRuns(envs[10000], repos[10000], prof, profiles, parts, c.args...)
		if err != nil {
			return err
		}
		profs = append(profs, profiled{c, p})
		fmt.Printf("profile of %s at 10,000 records (%d runs, %s sampled): top cost %s (%s of samples); busiest function %s (%s)\n",
			c.label, profiles, p.Samples, p.Parts[0].Name, benchkit.Pct(p.Parts[0].Share), p.TopFlat.Name, benchkit.Pct(p.TopFlat.Share))
	}

	var b strings.Builder
	fmt.Fprintf(&b, "## The record at scale: status, intent list and lint\n\n")
	fmt.Fprintf(&b, "Generated repositories of 1,000, 10,000 and 50,000 valid records (60%% intents across the three\n")
	fmt.Fprintf(&b, "lifecycles, 20%% open specs, 15%% issues, 5%% decisions); %d rounds after two warm-up rounds, each\n", runs)
	fmt.Fprintf(&b, "round running every command and reference at every size, so all see the same machine; each figure is the median wall\n")
	fmt.Fprintf(&b, "time of the whole process (at 10,000 and 50,000 records also the CPU time it used, all threads: abcd reads and\n")
	fmt.Fprintf(&b, "parses on every processor, so on an idle machine its wall time is below its CPU time; under load,\n")
	fmt.Fprintf(&b, "not). The references are built the same way (`tools/bench/plainread`): a plain\n")
	fmt.Fprintf(&b, "program that reads every record file whole, one after another, and one that only looks at each\n")
	fmt.Fprintf(&b, "(lstat).\n\n")
	fmt.Fprintf(&b, "| command | 1,000 | 10,000 | 50,000 | growth 10k to 50k | ratio to reading every file, at 10k | target at 10k |\n")
	fmt.Fprintf(&b, "| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "| %s | %s | %s (CPU %s) | %s (CPU %s) | %.2f (CPU %.2f) |", c.label, ms(medians[c.label][1000]), ms(medians[c.label][10000]),
			ms(cpus[c.label][10000]), ms(medians[c.label][50000]), ms(cpus[c.label][50000]), growth(c), float64(cpus[c.label][50000])/float64(cpus[c.label][10000]))
		if c.ref {
			fmt.Fprintf(&b, " %.2f | |\n", ratio(medians[c.label][10000], medians[read.label][10000]))
			continue
		}
		target := "linear"
		if t, ok := targets[c.label]; ok {
			target = fmt.Sprintf("%s, %s", ms(t), verdict(medians[c.label][10000] <= t))
		}
		fmt.Fprintf(&b, " %.2f | %s |\n", ratio(medians[c.label][10000], medians[read.label][10000]), target)
	}
	fmt.Fprintf(&b, "\nGrowth from 10,000 to 50,000 records is linear at 5 (target at most %.1f): ", maxGrowth)
	var gs []string
	for _, c := range []command{status, list} {
		gs = append(gs, fmt.Sprintf("%s %.2f (%s)", c.label, growth(c), verdict(growth(c) <= maxGrowth)))
	}
	fmt.Fprintf(&b, "%s. Lint is held to the plain reader, which reads the same files and is linear by\n", strings.Join(gs, ", "))
	fmt.Fprintf(&b, "construction, so what the machine itself does at 50,000 files (a larger page cache, more memory)\n")
	fmt.Fprintf(&b, "is not counted against it: %s.\n\n", lintLinear())
	fmt.Fprintf(&b, "### Where the time goes at 10,000 records\n\n")
	fmt.Fprintf(&b, "Each command profiled once: %d runs of a binary built with `-tags abcdprofile` (which writes a\n", profiles)
	fmt.Fprintf(&b, "CPU profile of its own run), merged with `go tool pprof`. Shares are cumulative, so parts overlap\n")
	fmt.Fprintf(&b, "(a part's samples on other goroutines count too).\n\n")
	fmt.Fprintf(&b, "| command | sampled | top cost | then | busiest function | inherent? |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, pr := range profs {
		fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s (%s) | `%s` (%s) | %s |\n", pr.c.label, pr.p.Samples,
			pr.p.Parts[0].Name, benchkit.Pct(pr.p.Parts[0].Share), pr.p.Parts[1].Name, benchkit.Pct(pr.p.Parts[1].Share),
			shortName(pr.p.TopFlat.Name), benchkit.Pct(pr.p.TopFlat.Share), inherent(pr.p.Parts[0].Name))
	}
	fmt.Fprintf(&b, "\nA cache of parsed headers, keyed on what the file system says of each file (name, size, mtime,\n")
	fmt.Fprintf(&b, "inode, ctime) so it could never show a stale record, would still have to look at every file on\n")
	fmt.Fprintf(&b, "every run: the lstat reference above is that floor (%s at 10,000 records, %s of status's %s),\n",
		ms(medians[look.label][10000]), benchkit.Pct(float64(medians[look.label][10000])/float64(medians[status.label][10000])), ms(medians[status.label][10000]))
	fmt.Fprintf(&b, "before reading and checking the cache itself, and a timestamp's granularity means a file changed\n")
	fmt.Fprintf(&b, "twice within one tick keeps its key unless recently changed files are always re-read. ")
	met := medians[status.label][10000] <= targets[status.label] && medians[list.label][10000] <= targets[list.label]
	if met {
		fmt.Fprintf(&b, "With the\ntargets met without one, abcd keeps no cache: every listing reads the files themselves.\n\n")
	} else {
		fmt.Fprintf(&b, "abcd keeps\nno cache: every listing reads the files themselves. In this run a target was not met; at most a\n")
		fmt.Fprintf(&b, "cache could take status down to about the lstat floor plus what it does besides reading files.\n\n")
	}
	fmt.Fprintf(&b, "Reproduce: `go run ./tools/bench/records` (`-runs`, `-profiles`); `go run ./tools/bench/records\n")
	fmt.Fprintf(&b, "-make /tmp/r10k -n 10000` makes one repository to profile by hand (`go build -tags abcdprofile\n")
	fmt.Fprintf(&b, "-o /tmp/abcdp ./frontdoors/cmd/abcd`, then `ABCD_CPUPROFILE=/tmp/s.pprof /tmp/abcdp --json` inside it).\n\n")
	var ts []benchkit.Target
	for _, c := range []command{status, list} {
		m := medians[c.label][10000]
		ts = append(ts, benchkit.Target{What: fmt.Sprintf("%s at 10,000 records within %s", c.label, ms(targets[c.label])),
			Figure: fmt.Sprintf("%s (CPU %s)", ms(m), ms(cpus[c.label][10000])), Met: m <= targets[c.label]})
	}
	for _, c := range []command{status, list} {
		ts = append(ts, benchkit.Target{What: fmt.Sprintf("%s growth from 10,000 to 50,000 records at most %.1f", c.label, maxGrowth),
			Figure: fmt.Sprintf("%.2f (%s to %s; CPU %.2f)", growth(c), ms(medians[c.label][10000]), ms(medians[c.label][50000]), cpuGrowth(c)), Met: growth(c) <= maxGrowth})
	}
	ts = append(ts, benchkit.Target{What: fmt.Sprintf("%s linear: its CPU growth from 10,000 to 50,000 records within %.0f%% of reading every file's", lint.label, 100*(lintSlack-1)),
		Figure: fmt.Sprintf("CPU %.2f against %.2f; wall %.2f against %.2f (%s at 10,000)", cpuGrowth(lint), cpuGrowth(read), growth(lint), growth(read), ms(medians[lint.label][10000])),
		Met:    cpuGrowth(lint) <= lintSlack*cpuGrowth(read)})
	if err := benchkit.WriteTargets(md, ts); err != nil {
		return err
	}
	return benchkit.WriteSection(md, b.String())
}

// inherent says whether a top cost is inherent to the command.
func inherent(part string) string {
	switch {
	case strings.HasPrefix(part, "reading the record files"):
		return "yes: every record file is opened, looked at, read and closed once (four system calls, the fewest that read a file without following a link)"
	case strings.HasPrefix(part, "parsing records whole"):
		return "yes for lint (it checks every record whole); for status, only drafts and the intents of open specs are parsed whole"
	case strings.HasPrefix(part, "parsing front matter"):
		return "yes: a listing shows each record's front matter, checked strictly"
	case strings.HasPrefix(part, "encoding"):
		return "mostly: the result is one JSON document of every record"
	case strings.HasPrefix(part, "garbage"):
		return "no: allocation while parsing; the heap stays small, so the collector runs a few times"
	}
	return "see the profile"
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", benchkit.MS(d)) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

// shortName drops a function's module path.
func shortName(fn string) string {
	fn = strings.TrimPrefix(fn, "github.com/abcd-dev/abcd/")
	if len(fn) > 60 {
		fn = fn[:60] + "…"
	}
	return fn
}

// makeOnly builds abcd and a repository of n records at repo, with its machine folder beside it.
func makeOnly(repo string, n int) (err error) {
	dir, err := os.MkdirTemp("", "abcd-records-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	abcd := filepath.Join(dir, "abcd")
	if err := benchkit.Build(abcd, "./frontdoors/cmd/abcd"); err != nil {
		return err
	}
	env := append(os.Environ(), "ABCD_HOME="+repo+".home", "NO_COLOR=1")
	return recordgen.Generate(repo, env, abcd, n)
}
