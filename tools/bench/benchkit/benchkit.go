// Package benchkit holds what the benchmark drivers share: building binaries the way make build
// does, timing a command, and order statistics.
package benchkit

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
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

// BuildProfiling compiles pkg like Build, with the abcdprofile tag: the binary writes a CPU profile
// of its run to $ABCD_CPUPROFILE (frontdoors/cmd/abcd/profile.go).
func BuildProfiling(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-tags", "abcdprofile", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s for profiling: %w", pkg, err)
	}
	return nil
}

// Share is one part of a profile: a name and the fraction of all samples spent in it (cumulative).
type Share struct {
	Name  string
	Share float64
}

// Profile is what a merged CPU profile says.
type Profile struct {
	Samples time.Duration // total sampled CPU time
	Parts   []Share       // each named part's cumulative share, largest first
	TopFlat Share         // the function with the most samples of its own
}

// ProfileRuns runs bin n times in dir with a CPU profile of each, merges them and measures the share
// of each part: parts maps a name to the function-name prefixes whose cumulative samples it counts
// (the largest prefix match of any of them).
func ProfileRuns(env []string, dir, bin string, n int, parts map[string][]string, args ...string) (_ Profile, err error) {
	tmp, err := os.MkdirTemp("", "abcd-profile-")
	if err != nil {
		return Profile{}, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(tmp)) }()
	var files []string
	for i := range n {
		p := fmt.Sprintf("%s/run-%d.pprof", tmp, i)
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = append(append([]string{}, env...), "ABCD_CPUPROFILE="+p), dir
		if err := cmd.Run(); err != nil {
			return Profile{}, fmt.Errorf("%s %v: %w", bin, args, err)
		}
		files = append(files, p)
	}
	return ReadProfiles(bin, files, parts)
}

// ReadProfiles merges CPU profiles of bin and measures each part's share (see ProfileRuns).
func ReadProfiles(bin string, files []string, parts map[string][]string) (Profile, error) {
	args := append([]string{"tool", "pprof", "-top", "-cum", "-nodecount=100000"}, bin)
	out, err := exec.Command("go", append(args, files...)...).Output()
	if err != nil {
		return Profile{}, fmt.Errorf("go tool pprof: %w", err)
	}
	return parseTop(string(out), parts)
}

// parseTop reads `go tool pprof -top -cum` output.
func parseTop(out string, parts map[string][]string) (Profile, error) {
	var p Profile
	cum := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "Total samples = ") {
			_, after, _ := strings.Cut(line, "Total samples = ")
			total, _, _ := strings.Cut(after, " ")
			d, err := time.ParseDuration(total)
			if err != nil {
				return p, fmt.Errorf("pprof total %q: %w", total, err)
			}
			p.Samples = d
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasSuffix(f[1], "%") || !strings.HasSuffix(f[4], "%") {
			continue
		}
		flat, err1 := strconv.ParseFloat(strings.TrimSuffix(f[1], "%"), 64)
		c, err2 := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
		if err1 != nil || err2 != nil {
			continue
		}
		name := strings.Join(f[5:], " ")
		if flat/100 > p.TopFlat.Share {
			p.TopFlat = Share{Name: name, Share: flat / 100}
		}
		cum[name] = c / 100
	}
	if p.Samples == 0 {
		return p, fmt.Errorf("the profile holds no samples")
	}
	for part, prefixes := range parts {
		best := 0.0
		for name, c := range cum {
			for _, pre := range prefixes {
				if strings.HasPrefix(name, pre) && c > best {
					best = c
				}
			}
		}
		p.Parts = append(p.Parts, Share{Name: part, Share: best})
	}
	slices.SortFunc(p.Parts, func(a, b Share) int {
		if a.Share != b.Share {
			return cmp.Compare(b.Share, a.Share)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return p, nil
}

// Machine describes the machine class a figure was measured on: processor, cores, memory, system
// and Go.
func Machine() string {
	model, cores := "unknown processor", runtime.NumCPU()
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(data)); len(f) > 1 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
				mem = fmt.Sprintf(", %.1f GB memory", kb/1024/1024)
			}
		}
	}
	return fmt.Sprintf("%d cores (%s)%s, %s/%s, %s", cores, model, mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// RSS is a process's current and peak resident set size in MB, from /proc.
func RSS(pid int) (cur, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			cur = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return cur, peak
}

// WriteSection writes one driver's part of docs/performance.md to path (skipped when path is "").
func WriteSection(path, markdown string) error {
	if path == "" {
		return nil
	}
	return os.WriteFile(path, []byte(markdown), 0o644)
}

// Pct is a share as a percentage.
func Pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// Target is one of the targets as a driver measured it, for the page's summary.
type Target struct {
	What   string // the target, in words
	Figure string // what was measured
	Met    bool
}

// WriteTargets writes a driver's targets beside its section (mdPath + ".targets"), one row each.
func WriteTargets(mdPath string, targets []Target) error {
	if mdPath == "" {
		return nil
	}
	var b strings.Builder
	for _, t := range targets {
		verdict := "met"
		if !t.Met {
			verdict = "**not met**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", t.What, t.Figure, verdict)
	}
	return os.WriteFile(mdPath+".targets", []byte(b.String()), 0o644)
}

// TimeCPU runs bin once in dir and returns its wall time and the CPU time it used (user and
// system, all its threads); a non-zero exit is an error. CPU time says what a run costs whatever
// else the machine is doing; wall time is what a person waits.
func TimeCPU(env []string, dir, bin string, args ...string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}
