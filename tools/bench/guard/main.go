// Command guard runs abcd's guard hook and cc-safety-net's hook side by side over the guard's
// committed corpus (adapters/shell/testdata/corpus.jsonl), each as Claude Code would run it: one
// process per tool call, the PreToolUse payload on stdin. It prints how many destructive lines each
// blocks, how many everyday look-alikes each blocks (false blocks), and the hook latency per call,
// median and p99, with the ratio. Calls alternate between the two, so both see the same machine.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
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

type corpusCase struct {
	Kind string `json:"kind"`
	Line string `json:"line"`
	Want string `json:"want"`
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
	corpus := flag.String("corpus", "adapters/shell/testdata/corpus.jsonl", "the corpus, one JSON case a line")
	peer := flag.String("peer", "tools/node_modules/cc-safety-net/dist/bin/cc-safety-net.js", "cc-safety-net's hook entry point")
	list := flag.Bool("list", false, "list every line where the two disagree")
	flag.Parse()
	if err := run(*corpus, *peer, *list); err != nil {
		fmt.Fprintln(os.Stderr, "bench guard:", err)
		os.Exit(1)
	}
}

func run(corpusPath, peer string, list bool) error {
	cases, err := load(corpusPath)
	if err != nil {
		return err
	}
	if _, err := os.Stat(peer); err != nil {
		return fmt.Errorf("cc-safety-net is not installed (%v): run npm ci --prefix tools", err)
	}
	dir, err := os.MkdirTemp("", "abcd-bench-guard-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	bin := os.Getenv("ABCD_BIN")
	if bin == "" {
		bin = "bin/abcd"
	}
	if _, err := os.Stat(bin); err != nil {
		bin = filepath.Join(dir, "abcd")
		if err := benchkit.Build(bin, "./frontdoors/cmd/abcd"); err != nil {
			return err
		}
	}
	bin, _ = filepath.Abs(bin)
	peer, _ = filepath.Abs(peer)

	// The corpus is written for a home at /home/dev holding the repository proj; both hooks run in a
	// real repository at the same place under a temporary home.
	home := filepath.Join(dir, "home", "dev")
	repo := filepath.Join(home, "proj")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	gitEnv := append(os.Environ(), "HOME="+home, "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
	for _, step := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", step...)
		cmd.Dir, cmd.Env = repo, gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", step, err, out)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ABCD_HOME=" + filepath.Join(dir, "abcd-home"), "NO_COLOR=1", "LANG=C.UTF-8"}
	hooks := []hook{
		{name: "abcd", argv: []string{bin, "guard", "hook"}, env: env},
		{name: "cc-safety-net", argv: []string{"node", peer, "--claude-code"}, env: env},
	}
	// One warm-up call each, so neither pays for a cold disk cache in the figures.
	for _, h := range hooks {
		call(h, payload("true", repo), repo)
	}

	results := make([][]outcome, len(hooks))
	for i, c := range cases {
		line := strings.ReplaceAll(c.Line, "/home/dev", home)
		p := payload(line, repo)
		for k := range hooks {
			h := hooks[(i+k)%len(hooks)] // alternate which runs first
			results[(i+k)%len(hooks)] = append(results[(i+k)%len(hooks)], call(h, p, repo))
		}
	}

	fmt.Printf("guard: %d destructive and %d everyday lines from %s, one hook process per call\n", count(cases, "destructive"), count(cases, "everyday"), corpusPath)
	fmt.Printf("  %-14s %14s %14s %10s %12s %12s\n", "hook", "blocked (dest)", "false blocks", "errors", "median ms", "p99 ms")
	meds := make([]time.Duration, len(hooks))
	p99s := make([]time.Duration, len(hooks))
	for k, h := range hooks {
		caught, falseBlocks, errs := 0, 0, 0
		var took []time.Duration
		for i, o := range results[k] {
			took = append(took, o.took)
			switch {
			case o.decision == "error":
				errs++
			case cases[i].Kind == "destructive" && o.decision == "deny":
				caught++
			case cases[i].Kind == "everyday" && o.decision == "deny":
				falseBlocks++
			}
		}
		meds[k], p99s[k] = benchkit.Median(took), pct(took, 99)
		fmt.Printf("  %-14s %8d / %-3d %8d / %-3d %10d %12.2f %12.2f\n", h.name, caught, count(cases, "destructive"), falseBlocks, count(cases, "everyday"), errs,
			benchkit.MS(meds[k]), benchkit.MS(p99s[k]))
	}
	fmt.Printf("  latency ratio (cc-safety-net / abcd): median %.1fx, p99 %.1fx\n",
		float64(meds[1])/float64(meds[0]), float64(p99s[1])/float64(p99s[0]))
	if list {
		for i, c := range cases {
			if results[0][i].decision != results[1][i].decision {
				fmt.Printf("  %s %-5s abcd=%-5s cc-safety-net=%-5s %q\n", c.Kind, c.Want, results[0][i].decision, results[1][i].decision, c.Line)
			}
		}
	}
	return nil
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

func count(cases []corpusCase, kind string) int {
	n := 0
	for _, c := range cases {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

// payload is Claude Code's PreToolUse input for the Bash tool.
func payload(command, cwd string) []byte {
	data, _ := json.Marshal(map[string]any{
		"session_id": "bench", "transcript_path": filepath.Join(cwd, ".bench-transcript.jsonl"), "cwd": cwd,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command, "description": "bench"}, "tool_use_id": "toolu_bench",
	})
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
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
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
