// Command loop measures the build loop's two verbs a harness calls most, on a run of 20 lanes:
// `abcd implement step` (which re-tells every open await) and `abcd implement receipt` (verify a
// receipt against git, record it, open the lane's reviewers), and apart from them the step that
// starts the 20 lanes (a branch and a worktree each), beside `abcd version` as the reference
// measured in the same invocation.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

const lanes = 20

func main() {
	runs := flag.Int("runs", 15, "timed runs of step and of version")
	flag.Parse()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "loop:", err)
		os.Exit(1)
	}
}

func run(runs int) (err error) {
	dir, err := os.MkdirTemp("", "abcd-loop-bench-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	abcd := filepath.Join(dir, "abcd")
	if err := benchkit.Build(abcd, "./frontdoors/cmd/abcd"); err != nil {
		return err
	}
	repo, home := filepath.Join(dir, "repo"), filepath.Join(dir, "home")
	env := append(os.Environ(), "ABCD_HOME="+home, "NO_COLOR=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	sh := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%s %v: %w\n%s", name, args, err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	steps := make([]string, lanes)
	for i := range steps {
		steps[i] = fmt.Sprintf("%d. Step number %d.", i+1, i+1)
	}
	write := func(rel, body string) error {
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(body), 0o644)
	}
	for _, c := range [][]string{{"git", "init", "-q", "-b", "main"}, {"git", "commit", "-q", "--allow-empty", "-m", "base"}, {abcd, "ahoy", "install", "--yes"}} {
		if _, err := sh(c[0], c[1:]...); err != nil {
			return err
		}
	}
	if err := write(".abcd/config.json", `{"schema_version":1,"setup_version":1,"build":{"dod":"true"}}`); err != nil {
		return err
	}
	if err := write(".abcd/development/intents/planned/itd-2611300000000001-bench.md", "---\nid: itd-2611300000000001\ntype: intent\ntitle: \"Bench\"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-11-30\n---\n\n## Press Release\n\nFast.\n\n## Acceptance Criteria\n\n- ac-1: Given a run, when it steps, then it is quick.\n\n## Open Questions\n\nNone.\n"); err != nil {
		return err
	}
	if err := write(".abcd/development/specs/open/spc-2611300000000002-bench.md", "---\nid: spc-2611300000000002\ntype: spec\ntitle: \"Bench\"\nlifecycle: open\nimplements: itd-2611300000000001\ncreated: 2026-11-30\n---\n\n## Steps\n\n"+strings.Join(steps, "\n")+"\n"); err != nil {
		return err
	}
	// implement start refuses a record its base does not hold as it stands.
	for _, c := range [][]string{{"git", "add", "-A"}, {"git", "commit", "-q", "-m", "the record"}} {
		if _, err := sh(c[0], c[1:]...); err != nil {
			return err
		}
	}
	if _, err := sh(abcd, "implement", "start", "bench"); err != nil {
		return err
	}
	runDir := filepath.Join(repo, filepath.FromSlash(layout.Runs))
	entries, err := os.ReadDir(runDir)
	if err != nil || len(entries) != 1 {
		return fmt.Errorf("expected one run in %s: %w", runDir, err)
	}
	runID := entries[0].Name()
	if _, err := sh(abcd, "implement", "step", "--run", runID); err != nil {
		return err
	}
	// Every lane's implementer commits on its branch, in the lane's own worktree, and writes its
	// receipt, ready to hand in.
	receipts := make([]string, lanes)
	for i := 1; i <= lanes; i++ {
		branch := fmt.Sprintf("abcd/%s/lane-%d", runID, i)
		wt := filepath.Join(repo, filepath.FromSlash(layout.LanesDir(runID)), fmt.Sprintf("lane-%d", i))
		if err := os.WriteFile(filepath.Join(wt, fmt.Sprintf("lane-%d.txt", i)), []byte("work\n"), 0o644); err != nil {
			return err
		}
		if _, err := sh("git", "-C", wt, "add", "-A", fmt.Sprintf("lane-%d.txt", i)); err != nil {
			return err
		}
		if _, err := sh("git", "-C", wt, "commit", "-q", "-m", "work"); err != nil {
			return err
		}
		sha, err := sh("git", "-C", wt, "rev-parse", "HEAD")
		if err != nil {
			return err
		}
		lane := fmt.Sprintf("%s/lane-%d", layout.RunDir(runID), i)
		for rel, body := range map[string]string{lane + "/dod.txt": "ok\n", lane + "/report.md": "done\n"} {
			if err := write(rel, body); err != nil {
				return err
			}
		}
		receipts[i-1] = lane + "/implement/receipt.json"
		if err := write(receipts[i-1], fmt.Sprintf(`{"schema_version":1,"run":%q,"lane":"lane-%d","branch":%q,"commits":[%q],"dod":{"command":"true","exit_code":0,"output":"dod.txt"},"report":"report.md","model":"bench"}`, runID, i, branch, sha)); err != nil {
			return err
		}
	}
	var tStep, tVersion, tReceipt []time.Duration
	for i := 0; i < runs; i++ {
		s, err := benchkit.Time(env, repo, abcd, "implement", "step", "--run", runID)
		if err != nil {
			return err
		}
		v, err := benchkit.Time(env, repo, abcd, "version")
		if err != nil {
			return err
		}
		tStep, tVersion = append(tStep, s), append(tVersion, v)
	}
	for _, r := range receipts {
		d, err := benchkit.Time(env, repo, abcd, "implement", "receipt", r)
		if err != nil {
			return err
		}
		tReceipt = append(tReceipt, d)
	}
	// Starting lanes: a step that makes every lane's branch and worktree, on runs started beside the
	// first (--again), each once.
	var tStart []time.Duration
	for i := 0; i < 3; i++ {
		before, err := os.ReadDir(runDir)
		if err != nil {
			return err
		}
		if _, err := sh(abcd, "implement", "start", "bench", "--again"); err != nil {
			return err
		}
		after, err := os.ReadDir(runDir)
		if err != nil {
			return err
		}
		fresh := after[len(after)-1].Name()
		if len(after) != len(before)+1 {
			return fmt.Errorf("expected one new run in %s", runDir)
		}
		d, err := benchkit.Time(env, repo, abcd, "implement", "step", "--run", fresh)
		if err != nil {
			return err
		}
		tStart = append(tStart, d)
	}
	mv := benchkit.Median(tVersion)
	fmt.Printf("build loop, a run of %d lanes (median, p90, ratio to abcd version):\n", lanes)
	fmt.Printf("  abcd version            %8.2f ms  %8.2f ms\n", benchkit.MS(mv), benchkit.MS(benchkit.P90(tVersion)))
	fmt.Printf("  implement step          %8.2f ms  %8.2f ms  %5.1fx  (re-tells %d open awaits)\n", benchkit.MS(benchkit.Median(tStep)), benchkit.MS(benchkit.P90(tStep)), float64(benchkit.Median(tStep))/float64(mv), lanes)
	fmt.Printf("  implement receipt       %8.2f ms  %8.2f ms  %5.1fx  (verify, record, open 2 reviewers; %d receipts)\n", benchkit.MS(benchkit.Median(tReceipt)), benchkit.MS(benchkit.P90(tReceipt)), float64(benchkit.Median(tReceipt))/float64(mv), lanes)
	fmt.Printf("  implement step, starting %8.2f ms  %8.2f ms  %5.1fx  (%d lanes: a branch and a worktree each; %d runs)\n", benchkit.MS(benchkit.Median(tStart)), benchkit.MS(benchkit.P90(tStart)), float64(benchkit.Median(tStart))/float64(mv), lanes, len(tStart))
	return nil
}
