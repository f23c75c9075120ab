// Command runner measures what the runner route's adapter adds to a step: the same CLI, with the same
// arguments, environment and prompt, started directly (read to EOF and waited for) and through
// adapters/runner (the preflight-free Step: preparing the private folder and files, the process
// group, the bounded reader, parsing, the ledger, scrubbing, ending the group), alternately in one run.
// The real CLIs from tools/harness (make harness-deps) answer from loopback stand-ins of their
// vendors' APIs; without them, a recorded Claude Code stream is replayed by a script, which measures
// the adapter against the smallest CLI there can be.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/codex"
	"github.com/abcd-dev/abcd/adapters/runner/gemini"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

const key = "sk-bench-dummy-0123456789"

func main() {
	n := flag.Int("n", 10, "steps of each kind per CLI")
	replayOnly := flag.Bool("replay", false, "replay a recorded stream even when the harness CLIs are installed")
	flag.Parse()
	if err := run(*n, *replayOnly); err != nil {
		fmt.Fprintln(os.Stderr, "runner bench:", err)
		os.Exit(1)
	}
}

// subject is one CLI to measure: its dialect, executable, the stand-in it answers from, and the
// variables that point it there.
type subject struct {
	name    string
	dialect runner.Dialect
	kind    domain.Kind
	exe     string
	model   string
	env     func(home, url string) (env, creds, pass []string, err error)
	api     func(...runnertest.Reply) *runnertest.API
}

func run(n int, replayOnly bool) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	r, err := replay(root)
	if err != nil {
		return err
	}
	fmt.Printf("runner step overhead: the same CLI and arguments started directly and through the adapter, alternately (target: at most 5%% or 50 ms)\n")
	fmt.Printf("a recorded Claude Code stream replayed by a script, %d steps each (the adapter's own cost):\n", 10*n)
	if err := measure(r, 10*n); err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	bin := filepath.Join(root, "tools", "harness", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "claude")); err != nil || replayOnly {
		fmt.Println("the real CLIs are not measured: make harness-deps installs them")
		return nil
	}
	fmt.Printf("the real CLIs against loopback stand-ins of their vendors' APIs, %d steps each:\n", n)
	for _, s := range real(bin) {
		if err := measure(s, n); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func real(bin string) []subject {
	resolve := func(name string) string {
		p, err := filepath.EvalSymlinks(filepath.Join(bin, name))
		if err != nil {
			return filepath.Join(bin, name)
		}
		return p
	}
	return []subject{
		{name: "claude", dialect: claude.Dialect{}, kind: domain.Claude, exe: resolve("claude"), model: "claude-sonnet-4-5", api: runnertest.Anthropic,
			env: func(home, url string) ([]string, []string, []string, error) {
				return []string{"ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + url}, []string{"ANTHROPIC_API_KEY"}, []string{"ANTHROPIC_BASE_URL"}, nil
			}},
		{name: "codex", dialect: codex.Dialect{}, kind: domain.Codex, exe: resolve("codex"), model: "gpt-5-codex", api: runnertest.OpenAI,
			env: func(home, url string) ([]string, []string, []string, error) {
				dir := filepath.Join(home, ".codex")
				conf := fmt.Sprintf("model_provider = \"standin\"\n[model_providers.standin]\nname = \"stand-in\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\n", url+"/v1")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					return nil, nil, nil, err
				}
				err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(conf), 0o600)
				return []string{"OPENAI_API_KEY=" + key, "CODEX_HOME=" + dir}, []string{"OPENAI_API_KEY"}, []string{"CODEX_HOME"}, err
			}},
		{name: "gemini", dialect: gemini.Dialect{}, kind: domain.Gemini, exe: resolve("gemini"), model: "gemini-2.5-pro", api: runnertest.Gemini,
			env: func(home, url string) ([]string, []string, []string, error) {
				dir := filepath.Join(home, ".gemini")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					return nil, nil, nil, err
				}
				err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o600)
				return []string{"GEMINI_API_KEY=" + key, "GOOGLE_GEMINI_BASE_URL=" + url}, []string{"GEMINI_API_KEY"}, []string{"GOOGLE_GEMINI_BASE_URL"}, err
			}},
	}
}

// replay is a script that prints a recorded Claude Code stream: the smallest CLI there can be, so
// what it measures is the adapter's own cost.
func replay(root string) (subject, error) {
	fixture := filepath.Join(root, "adapters", "runner", "claude", "testdata", "2.1.332", "review.jsonl")
	if _, err := os.Stat(fixture); err != nil {
		return subject{}, err
	}
	dir, err := os.MkdirTemp("", "abcd-runner-bench-")
	if err != nil {
		return subject{}, err
	}
	script := filepath.Join(dir, "claude")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec cat "+fixture+"\n"), 0o700); err != nil {
		return subject{}, err
	}
	return subject{name: "replay", dialect: claude.Dialect{}, kind: domain.Claude, exe: script,
		env: func(string, string) ([]string, []string, []string, error) { return nil, nil, nil, nil },
		api: runnertest.Anthropic}, nil
}

func measure(s subject, n int) error {
	api := s.api(runnertest.Reply{Text: "OK"})
	defer api.Close()
	cache, err := os.UserCacheDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return err
	}
	top, err := os.MkdirTemp(cache, "abcd-runner-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(top)
	home, work := filepath.Join(top, "home"), filepath.Join(top, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	prompt := filepath.Join(top, "prompt.md")
	if err := os.WriteFile(prompt, []byte("Reply with OK.\n"), 0o600); err != nil {
		return err
	}
	extra, creds, pass, err := s.env(home, api.URL)
	if err != nil {
		return err
	}
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, extra...)
	a := runner.New(runner.Options{Dialects: []runner.Dialect{s.dialect}, Environ: func() []string { return environ }, TempDir: filepath.Join(top, "runner")})
	r := domain.Runner{Name: "bench", CLI: s.kind, Executable: s.exe, CredentialEnv: creds, PassEnv: pass, Concurrency: 1,
		Limits: domain.Limits{WallClock: 5 * time.Minute, FirstEvent: 3 * time.Minute, Silence: 3 * time.Minute, Turns: 10, APIRetries: 0}}
	req := ports.RunnerStep{Runner: r, Dir: work, PromptFile: prompt, Policy: domain.PolicyRead, Model: s.model, Limits: r.Limits}
	var direct, adapter []time.Duration
	for i := 0; i < n+1; i++ { // the first pair warms the caches and is not counted
		d, err := runDirect(a, req)
		if err != nil {
			return err
		}
		begun := time.Now()
		o, err := a.Step(context.Background(), req)
		took := time.Since(begun)
		if err != nil {
			return err
		}
		if o.Failure != nil {
			return fmt.Errorf("the step failed: %s", o.Failure.Error())
		}
		if i > 0 {
			direct, adapter = append(direct, d), append(adapter, took)
		}
	}
	dm, am := benchkit.Median(direct), benchkit.Median(adapter)
	over := am - dm
	ratio := float64(over) / float64(dm)
	verdict := "met"
	if over > 50*time.Millisecond && ratio > 0.05 {
		verdict = "missed"
	}
	fmt.Printf("  %-7s direct median %7.1f ms (p90 %7.1f)   adapter median %7.1f ms (p90 %7.1f)   overhead %+6.1f ms (%+.1f%%): %s\n",
		s.name+":", benchkit.MS(dm), benchkit.MS(benchkit.P90(direct)), benchkit.MS(am), benchkit.MS(benchkit.P90(adapter)), benchkit.MS(over), 100*ratio, verdict)
	return nil
}

// runDirect starts the command the adapter would start, with the same arguments, environment, folder
// and prompt, reads its stdout to EOF and waits for it.
func runDirect(a *runner.Adapter, req ports.RunnerStep) (time.Duration, error) {
	p, f, err := a.Prepare(req)
	if err != nil {
		return 0, err
	}
	if f != nil {
		return 0, errors.New(f.Error())
	}
	defer p.Close()
	begun := time.Now()
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Dir, cmd.Env, cmd.Stdin = p.Dir, p.Env, p.Prompt
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	if _, err := io.Copy(io.Discard, out); err != nil {
		return 0, err
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return 0, err
		}
	}
	return time.Since(begun), nil
}
