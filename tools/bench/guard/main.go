// Command guard runs abcd's guard hook and cc-safety-net's hook side by side over the guard's
// committed corpora (adapters/shell/testdata: the first corpus, the adversarial corpus, the ordinary
// commands and the later batches), each as Claude Code would run it: one process per tool call, the
// PreToolUse payload on stdin. It prints, per corpus, how many attacks each blocks and catches
// (blocks or warns about), how many ordinary commands each blocks, and the hook latency per call,
// median and p99, with `abcd version` timed beside every call as the reference: the target is a hook
// median at most 2x abcd version's. Calls alternate between the hooks, so all see the same machine.
// With -md it writes its section of docs/performance.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

// target is issue 21's: the hook's median at most twice abcd version's, measured in the same run.
const target = 2.0

// corpora are the committed corpora, in the order they are reported.
var corpora = []string{"corpus.jsonl", "attacks.jsonl", "ordinary.jsonl", "heldout.jsonl", "third.jsonl", "fourth.jsonl", "fifth.jsonl", "sixth.jsonl",
	"exfil.jsonl", "execs.jsonl", "gitdir.jsonl", "containers.jsonl", "casefold.jsonl", "self.jsonl", "seventh.jsonl"}

type corpusCase struct {
	Kind  string `json:"kind"`
	Class string `json:"class"`
	Line  string `json:"line"`
	Want  string `json:"want"`
}

// attack reports a line the guard must stop: destructive in the first corpus, any line of the
// adversarial corpus, an attack of the second batch.
func (c corpusCase) attack() bool {
	return c.Kind == "destructive" || c.Kind == "attack" || c.Class != "" && c.Kind == ""
}

// outcome is what one hook said about one line.
type outcome struct {
	decision string // deny, ask, warn, allow, error
	took     time.Duration
}

type hook struct {
	name string
	argv []string
	env  []string
}

func main() {
	dir := flag.String("corpora", "adapters/shell/testdata", "the folder holding the corpora")
	peer := flag.String("peer", "tools/node_modules/cc-safety-net/dist/bin/cc-safety-net.js", "cc-safety-net's hook entry point")
	list := flag.Bool("list", false, "list every line where the two disagree")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	noPeer := flag.Bool("no-peer", false, "time abcd's hook against abcd version only, without cc-safety-net (where npm's packages are not installed)")
	flag.Parse()
	if *noPeer {
		*peer = ""
	}
	if err := run(*dir, *peer, *list && !*noPeer, *md); err != nil {
		fmt.Fprintln(os.Stderr, "bench guard:", err)
		os.Exit(1)
	}
}

type loaded struct {
	name  string
	cases []corpusCase
}

func run(dir, peer string, list bool, md string) (err error) {
	var sets []loaded
	for _, name := range corpora {
		cases, err := load(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		sets = append(sets, loaded{name, cases})
	}
	if _, err := os.Stat(peer); peer != "" && err != nil {
		return fmt.Errorf("cc-safety-net is not installed (%w): run npm ci --prefix tools, or pass -no-peer", err)
	}
	tmp, err := os.MkdirTemp("", "abcd-bench-guard-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(tmp)) }()
	bin, err := abcdBinary(tmp)
	if err != nil {
		return err
	}
	if peer != "" {
		peer, _ = filepath.Abs(peer)
	}

	// The corpora are written for a home at /home/dev holding the repository proj; both hooks run in
	// a real repository at the same place under a temporary home.
	home := filepath.Join(tmp, "home", "dev")
	repo := filepath.Join(home, "proj")
	if err := gitRepo(repo, home); err != nil {
		return err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ABCD_HOME=" + filepath.Join(tmp, "abcd-home"), "NO_COLOR=1", "LANG=C.UTF-8"}
	hooks := []hook{{name: "abcd", argv: []string{bin, "guard", "hook"}, env: env}}
	if peer != "" {
		hooks = append(hooks, hook{name: "cc-safety-net", argv: []string{"node", peer, "--claude-code"}, env: env})
	}
	// One warm-up call each, so none pays for a cold disk cache in the figures.
	for _, h := range hooks {
		call(h, payload("true", repo), repo)
	}
	if _, err := benchkit.Time(env, repo, bin, "version"); err != nil {
		return err
	}

	results := make([][][]outcome, len(sets))
	var version []time.Duration
	i := 0
	for s, set := range sets {
		results[s] = make([][]outcome, len(hooks))
		for _, c := range set.cases {
			p := payload(strings.ReplaceAll(c.Line, "/home/dev", home), repo)
			for k := range hooks {
				h := (i + k) % len(hooks) // alternate which runs first
				results[s][h] = append(results[s][h], call(hooks[h], p, repo))
			}
			v, err := benchkit.Time(env, repo, bin, "version")
			if err != nil {
				return err
			}
			version = append(version, v)
			i++
		}
	}
	r := report(sets, hooks, results, version)
	fmt.Print(r.text)
	if list {
		listDisagreements(sets, results)
	}
	if err := benchkit.WriteTargets(md, []benchkit.Target{{
		What:   fmt.Sprintf("`abcd guard hook` median at most %.0fx `abcd version`, one process per call", target),
		Figure: fmt.Sprintf("%.2fx (%.3f ms against %.3f ms)", r.ratio, benchkit.MS(r.hookMedian), benchkit.MS(r.versionMedian)),
		Met:    r.ratio <= target,
	}}); err != nil {
		return err
	}
	return benchkit.WriteSection(md, r.markdown)
}

// abcdBinary is bin/abcd (or $ABCD_BIN) when built, else a build of it.
func abcdBinary(tmp string) (string, error) {
	bin := os.Getenv("ABCD_BIN")
	if bin == "" {
		bin = "bin/abcd"
	}
	if _, err := os.Stat(bin); err != nil {
		bin = filepath.Join(tmp, "abcd")
		if err := benchkit.Build(bin, "./frontdoors/cmd/abcd"); err != nil {
			return "", err
		}
	}
	return filepath.Abs(bin)
}

func gitRepo(repo, home string) error {
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	gitEnv := append(os.Environ(), "HOME="+home, "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
	for _, step := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", step...)
		cmd.Dir, cmd.Env = repo, gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w\n%s", step, err, out)
		}
	}
	return nil
}

type figures struct {
	text, markdown            string
	hookMedian, versionMedian time.Duration
	ratio                     float64
}

// report counts each hook's verdicts per corpus and its latency over every call.
func report(sets []loaded, hooks []hook, results [][][]outcome, version []time.Duration) figures {
	var text, md strings.Builder
	total := 0
	for _, s := range sets {
		total += len(s.cases)
	}
	fmt.Fprintf(&text, "guard: %d lines from %d corpora, one hook process per call, abcd version timed beside each\n", total, len(sets))
	fmt.Fprintf(&md, "## The guard hook\n\n`go run ./tools/bench/guard`: abcd's hook and cc-safety-net's hook (npm `cc-safety-net` 2.4.5) over the\n")
	fmt.Fprintf(&md, "guard's %d corpus lines, one process per call as Claude Code runs them, alternating, with `abcd version`\n", total)
	fmt.Fprintf(&md, "timed beside every call as the reference. An attack is caught when the hook blocks it or warns about it;\n")
	fmt.Fprintf(&md, "an ordinary command is falsely blocked when it is denied.\n\n")
	fmt.Fprintf(&md, "| corpus | hook | attacks blocked | attacks caught | ordinary blocked |\n| --- | --- | --- | --- | --- |\n")
	for s, set := range sets {
		attacks, ordinary := 0, 0
		for _, c := range set.cases {
			if c.attack() {
				attacks++
			} else {
				ordinary++
			}
		}
		for k, h := range hooks {
			blocked, caught, falseBlocks := 0, 0, 0
			for i, o := range results[s][k] {
				stopped := o.decision == "deny"
				warned := o.decision == "warn" || o.decision == "ask"
				switch {
				case set.cases[i].attack() && stopped:
					blocked++
					caught++
				case set.cases[i].attack() && warned:
					caught++
				case !set.cases[i].attack() && stopped:
					falseBlocks++
				}
			}
			fmt.Fprintf(&text, "  %-15s %-14s attacks blocked %4d / %-4d caught %4d / %-4d  ordinary blocked %3d / %d\n", set.name, h.name, blocked, attacks, caught, attacks, falseBlocks, ordinary)
			fmt.Fprintf(&md, "| %s | %s | %d / %d | %d / %d | %d / %d |\n", set.name, h.name, blocked, attacks, caught, attacks, falseBlocks, ordinary)
		}
	}
	meds := make([]time.Duration, len(hooks))
	p99s := make([]time.Duration, len(hooks))
	fmt.Fprintf(&md, "\n| hook | median per call | p99 per call | errors |\n| --- | --- | --- | --- |\n")
	for k, h := range hooks {
		var took []time.Duration
		errs := 0
		for s := range sets {
			for _, o := range results[s][k] {
				took = append(took, o.took)
				if o.decision == "error" {
					errs++
				}
			}
		}
		meds[k], p99s[k] = benchkit.Median(took), pct(took, 99)
		fmt.Fprintf(&text, "  %-14s median %.2f ms  p99 %.2f ms  errors %d\n", h.name, benchkit.MS(meds[k]), benchkit.MS(p99s[k]), errs)
		fmt.Fprintf(&md, "| `%s` | %.2f ms | %.2f ms | %d |\n", strings.Join(hookNames(h), " "), benchkit.MS(meds[k]), benchkit.MS(p99s[k]), errs)
	}
	vm := benchkit.Median(version)
	fmt.Fprintf(&md, "| `abcd version` (reference) | %.2f ms | %.2f ms | |\n\n", benchkit.MS(vm), benchkit.MS(pct(version, 99)))
	ratio := float64(meds[0]) / float64(vm)
	fmt.Fprintf(&text, "  abcd version   median %.2f ms  (the hook's median is %.2fx it; target <= %.1fx)\n", benchkit.MS(vm), ratio, target)
	if len(hooks) > 1 {
		fmt.Fprintf(&text, "  latency ratio (cc-safety-net / abcd): median %.1fx, p99 %.1fx\n", float64(meds[1])/float64(meds[0]), float64(p99s[1])/float64(p99s[0]))
		fmt.Fprintf(&md, "The hook's median is %.2fx `abcd version`'s (target: at most %.0fx), and %.1fx lower than cc-safety-net's\n", ratio, target, float64(meds[1])/float64(meds[0]))
		fmt.Fprintf(&md, "(p99 %.1fx). ", float64(p99s[1])/float64(p99s[0]))
	} else {
		fmt.Fprintf(&md, "The hook's median is %.2fx `abcd version`'s (target: at most %.0fx; cc-safety-net not run). ", ratio, target)
	}
	fmt.Fprintf(&md, "The hook starts no process: it reads its payload, the working tree's `.abcd/guard.json`\n")
	fmt.Fprintf(&md, "(and the machine's allow file only when that file weakens the rules), and evaluates in memory; the\n")
	fmt.Fprintf(&md, "built-in rules are compiled into the binary rather than decoded on each call. The corpora were written\n")
	fmt.Fprintf(&md, "alongside abcd's rules, so they favour them: read the detection figures as \"abcd catches what it claims\n")
	fmt.Fprintf(&md, "to\", not as a neutral comparison; `go run ./tools/bench/guard -list` prints every line where the two disagree.\n\n")
	return figures{text: text.String(), markdown: md.String(), hookMedian: meds[0], versionMedian: vm, ratio: ratio}
}

func hookNames(h hook) []string {
	if h.name == "abcd" {
		return []string{"abcd", "guard", "hook"}
	}
	return []string{"cc-safety-net", "--claude-code"}
}

func listDisagreements(sets []loaded, results [][][]outcome) {
	for s, set := range sets {
		for i, c := range set.cases {
			if a, b := results[s][0][i].decision, results[s][1][i].decision; a != b {
				fmt.Printf("  %s %-9s abcd=%-5s cc-safety-net=%-5s %q\n", set.name, c.Kind+c.Class, a, b, c.Line)
			}
		}
	}
}

func load(p string) ([]corpusCase, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// payload is Claude Code's PreToolUse input for the Bash tool.
func payload(command, cwd string) []byte {
	data, err := json.Marshal(map[string]any{
		"session_id": "bench", "transcript_path": filepath.Join(cwd, ".bench-transcript.jsonl"), "cwd": cwd,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command, "description": "bench"}, "tool_use_id": "toolu_bench",
	})
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return data
}

// call runs one hook process and reads its decision from the hook's JSON answer (exit 2 is a block
// too, as Claude Code reads it).
func call(h hook, stdin []byte, dir string) outcome {
	cmd := exec.Command(h.argv[0], h.argv[1:]...)
	cmd.Env, cmd.Dir = h.env, dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		return outcome{"deny", took}
	}
	if err != nil {
		return outcome{"error", took}
	}
	var ans struct {
		SystemMessage string `json:"systemMessage"`
		Specific      struct {
			Decision string `json:"permissionDecision"`
			Context  string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if strings.TrimSpace(out.String()) == "" {
		return outcome{"allow", took}
	}
	if json.Unmarshal(out.Bytes(), &ans) != nil {
		return outcome{"error", took}
	}
	switch {
	case ans.Specific.Decision != "":
		return outcome{ans.Specific.Decision, took}
	case ans.Specific.Context != "" || ans.SystemMessage != "":
		return outcome{"warn", took}
	}
	return outcome{"allow", took}
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := len(s) * p / 100
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}
