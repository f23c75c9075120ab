// Command rules measures the prompt hook, `abcd rules hook`, as a harness runs it (one process per
// prompt, Claude Code's UserPromptSubmit payload on stdin) in a repository whose .abcd/rules.json
// holds 200 domains, alternating with `abcd version` in the same invocation, and prints the ratio of
// the medians against the target (within 2x). With -md it writes its section of
// docs/performance.md.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

// target is the issue's: the hook's median within twice abcd version's.
const target = 2.0

func main() {
	runs := flag.Int("runs", 200, "runs of each")
	domains := flag.Int("domains", 200, "domains in the repository's rules file")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	flag.Parse()
	if err := run(*runs, *domains, *md); err != nil {
		fmt.Fprintln(os.Stderr, "bench rules:", err)
		os.Exit(1)
	}
}

// rulesFile is a repository's file of n domains, each with eight recall words, an alias and five
// rules of about 120 bytes, the size a real convention takes.
func rulesFile(n int) []byte {
	type rule struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	type domain struct {
		Name    string   `json:"name"`
		Recall  []string `json:"recall"`
		Aliases []string `json:"aliases"`
		Rules   []rule   `json:"rules"`
	}
	f := struct {
		SchemaVersion int      `json:"schema_version"`
		Domains       []domain `json:"domains"`
	}{SchemaVersion: 1}
	for i := 0; i < n; i++ {
		d := domain{Name: fmt.Sprintf("area-%d", i), Aliases: []string{fmt.Sprintf("a%d", i)}}
		for w := 0; w < 8; w++ {
			d.Recall = append(d.Recall, fmt.Sprintf("topic%dword%d", i, w))
		}
		d.Recall[7] = fmt.Sprintf("topic%dprefix*", i)
		for r := 0; r < 5; r++ {
			d.Rules = append(d.Rules, rule{ID: fmt.Sprintf("r%d", r),
				Text: fmt.Sprintf("In area %d, rule %d: keep the change small, name what it touches, and test it where it runs before handing it back.", i, r)})
		}
		f.Domains = append(f.Domains, d)
	}
	data, _ := json.Marshal(f)
	return data
}

func run(runs, domains int, md string) (err error) {
	dir, err := os.MkdirTemp("", "abcd-bench-rules-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	bin := filepath.Join(dir, "abcd")
	if err := benchkit.Build(bin, "./frontdoors/cmd/abcd"); err != nil {
		return err
	}
	repo := filepath.Join(dir, "repo")
	home := filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(repo, ".abcd"), home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %w: %s", err, out)
	}
	file := rulesFile(domains)
	if err := os.WriteFile(filepath.Join(repo, ".abcd", "rules.json"), file, 0o644); err != nil {
		return err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ABCD_HOME=" + filepath.Join(home, ".abcd"), "NO_COLOR=1"}
	// A prompt that recalls three of the 200 domains and two guardrails, with a forced one.
	prompt := "Refactor topic3word1 and topic150word4, then commit it, run the tests and check topic77prefixes; *area-9 too. " +
		strings.Repeat("Some more words of an ordinary prompt about the code. ", 20)
	payload, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": filepath.Join(home, "t.jsonl"), "cwd": repo,
		"permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt})

	hook := func() (time.Duration, int, error) {
		cmd := exec.Command(bin, "rules", "hook")
		cmd.Env, cmd.Dir = env, repo
		cmd.Stdin = bytes.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		if err != nil {
			return 0, 0, fmt.Errorf("abcd rules hook: %w", err)
		}
		return took, out.Len(), nil
	}
	var th, tv []time.Duration
	injected := 0
	for i := 0; i < runs+10; i++ {
		h, n, err := hook()
		if err != nil {
			return err
		}
		v, err := benchkit.Time(env, repo, bin, "version")
		if err != nil {
			return err
		}
		if i >= 10 {
			th, tv = append(th, h), append(tv, v)
			injected = n
		}
	}
	mh, mv := benchkit.Median(th), benchkit.Median(tv)
	ratio := float64(mh) / float64(mv)
	fmt.Printf("rules hook over %d domains (%d KB file), %d alternating runs each (median, p90):\n", domains, len(file)/1024, runs)
	fmt.Printf("  abcd version     %8.3f ms  %8.3f ms\n", benchkit.MS(mv), benchkit.MS(benchkit.P90(tv)))
	fmt.Printf("  abcd rules hook  %8.3f ms  %8.3f ms  %.2fx  (target <= %.1fx; %d bytes answered)\n", benchkit.MS(mh), benchkit.MS(benchkit.P90(th)), ratio, target, injected)

	var b strings.Builder
	fmt.Fprintf(&b, "## The rules hook\n\n")
	fmt.Fprintf(&b, "`abcd rules hook` as Claude Code runs it on every prompt (one process, the UserPromptSubmit payload on\n")
	fmt.Fprintf(&b, "stdin, no process of its own started) in a repository whose `.abcd/rules.json` holds %d domains\n", domains)
	fmt.Fprintf(&b, "(%d KB: eight recall words, an alias and five rules each), with the bundled guardrails and the shell\n", len(file)/1024)
	fmt.Fprintf(&b, "domain made from the guard's registry; the prompt recalls four domains and forces one. %d runs\n", runs)
	fmt.Fprintf(&b, "alternating with `abcd version` after ten warm-up rounds (`go run ./tools/bench/rules`).\n\n")
	fmt.Fprintf(&b, "| command | median | p90 | ratio to `abcd version` | target |\n| --- | --- | --- | --- | --- |\n")
	fmt.Fprintf(&b, "| `abcd version` (reference) | %.3f ms | %.3f ms | 1.00 | |\n", benchkit.MS(mv), benchkit.MS(benchkit.P90(tv)))
	fmt.Fprintf(&b, "| `abcd rules hook`, %d domains | %.3f ms | %.3f ms | %.2f | at most %.1f: %s |\n\n", domains, benchkit.MS(mh), benchkit.MS(benchkit.P90(th)),
		ratio, target, verdict(ratio <= target))
	if err := benchkit.WriteSection(md, b.String()); err != nil {
		return err
	}
	return benchkit.WriteTargets(md, []benchkit.Target{{What: fmt.Sprintf("`abcd rules hook` at %d domains within %.0fx `abcd version`", domains, target),
		Figure: fmt.Sprintf("%.2fx (%.3f ms against %.3f ms)", ratio, benchkit.MS(mh), benchkit.MS(mv)), Met: ratio <= target}})
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "**not met**"
}
