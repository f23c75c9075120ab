// Command acp measures what an ACP step costs against the same agent's native runner: the same
// vendor's CLI answering the same prompt from the same loopback stand-in of its API, one step through
// its native dialect (its headless stream read) and one through the acp dialect (abcd as its ACP
// client: initialize, session/new, session/prompt, its session/update read), alternately in one run.
// The ratio is the ACP step's median over the native step's; what it adds is the difference. No
// catalog and no sandbox on either side, so the figure is the protocol's and its adapter's price.
// With -md it writes its section of docs/performance.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/acp"
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
	n := flag.Int("n", 6, "steps each way per agent, after one warm-up pair")
	agents := flag.String("agents", "claude,codex,gemini", "the agents to measure (a comma list)")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	flag.Parse()
	if err := run(*n, strings.Split(*agents, ","), *md); err != nil {
		fmt.Fprintln(os.Stderr, "acp bench:", err)
		os.Exit(1)
	}
}

// side is one way of driving an agent: its dialect, executable and arguments (given the stand-in's
// URL).
type side struct {
	dialect runner.Dialect
	kind    domain.Kind
	exe     string
	args    func(url string) []string
}

// pair is one vendor's agent, native and over ACP, with its stand-in and the variables pointing
// both at it.
type pair struct {
	name, native, acp string // the names measured
	model             string
	api               func(...runnertest.Reply) *runnertest.API
	env               func(url string) (env, creds, pass []string)
	sides             [2]side
}

func pairs(bin string) []pair {
	resolve := func(name string) string {
		p, err := filepath.EvalSymlinks(filepath.Join(bin, name))
		if err != nil {
			return filepath.Join(bin, name)
		}
		return p
	}
	none := func(string) []string { return nil }
	return []pair{
		{name: "claude", native: "Claude Code", acp: "@zed-industries/claude-agent-acp", model: "claude-sonnet-4-5", api: runnertest.Anthropic,
			env: func(url string) ([]string, []string, []string) {
				return []string{"ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + url}, []string{"ANTHROPIC_API_KEY"}, []string{"ANTHROPIC_BASE_URL"}
			},
			sides: [2]side{{dialect: claude.Dialect{}, kind: domain.Claude, exe: resolve("claude"), args: none},
				{dialect: acp.Dialect{}, kind: domain.ACP, exe: resolve("claude-agent-acp"), args: none}}},
		{name: "codex", native: "Codex CLI", acp: "@zed-industries/codex-acp", model: "gpt-5-codex", api: runnertest.OpenAI,
			env: func(url string) ([]string, []string, []string) {
				return []string{"OPENAI_API_KEY=" + key, "OPENAI_BASE_URL=" + url + "/v1"}, []string{"OPENAI_API_KEY"}, []string{"OPENAI_BASE_URL"}
			},
			// The native dialect names a provider of abcd's own for OPENAI_BASE_URL; codex-acp is
			// given the same one through its -c overrides, as docs/adapters.md says a person does.
			sides: [2]side{{dialect: codex.Dialect{}, kind: domain.Codex, exe: resolve("codex"), args: none},
				{dialect: acp.Dialect{}, kind: domain.ACP, exe: resolve("codex-acp"), args: func(url string) []string {
					return []string{"-c", `model_provider="standin"`, "-c", `model_providers.standin.name="stand-in"`,
						"-c", `model_providers.standin.base_url="` + url + `/v1"`, "-c", `model_providers.standin.wire_api="responses"`,
						"-c", `model_providers.standin.env_key="OPENAI_API_KEY"`}
				}}}},
		{name: "gemini", native: "Gemini CLI", acp: "Gemini CLI --acp", model: "gemini-2.5-pro", api: runnertest.Gemini,
			env: func(url string) ([]string, []string, []string) {
				return []string{"GEMINI_API_KEY=" + key, "GOOGLE_GEMINI_BASE_URL=" + url}, []string{"GEMINI_API_KEY"}, []string{"GOOGLE_GEMINI_BASE_URL"}
			},
			sides: [2]side{{dialect: gemini.Dialect{}, kind: domain.Gemini, exe: resolve("gemini"), args: none},
				{dialect: acp.Dialect{}, kind: domain.ACP, exe: resolve("gemini"), args: func(string) []string { return []string{"--acp", "--model", "gemini-2.5-pro"} }}}},
	}
}

// figure is one agent's measurement.
type figure struct {
	p                     pair
	native, acp           time.Duration // medians
	nativeP90, acpP90     time.Duration
	added                 time.Duration
	ratio                 float64 // the ACP step's median over the native one's
	failed                string
	nativeCalls, acpCalls int // the stand-in's requests a step, to show both did the same work
}

func run(n int, agents []string, md string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	bin := filepath.Join(root, "tools", "harness", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "claude-agent-acp")); err != nil {
		return errors.New("the ACP agents are not installed: make harness-deps installs them")
	}
	fmt.Printf("ACP step against the same agent's native runner, the same stand-in and prompt, alternately, %d steps each:\n", n)
	var figs []figure
	for _, p := range pairs(bin) {
		if !slices.Contains(agents, p.name) {
			continue
		}
		f, err := measure(p, n)
		if err != nil {
			// The page says why, beside the figures that were made; the driver does not stop.
			f = figure{p: p, failed: err.Error()}
			fmt.Printf("  %-7s not measured: %s\n", p.name+":", err)
		} else {
			fmt.Printf("  %-7s native median %7.1f ms (p90 %7.1f)   ACP median %7.1f ms (p90 %7.1f)   added %+7.1f ms a step, ratio %.2f\n",
				p.name+":", benchkit.MS(f.native), benchkit.MS(f.nativeP90), benchkit.MS(f.acp), benchkit.MS(f.acpP90), benchkit.MS(f.added), f.ratio)
		}
		figs = append(figs, f)
	}
	return benchkit.WriteSection(md, markdown(n, figs))
}

// rig is one side ready to step: its stand-in, adapter and request.
type rig struct {
	api *runnertest.API
	a   *runner.Adapter
	req ports.RunnerStep
	top string
}

func (r *rig) close() error {
	r.api.Close()
	return os.RemoveAll(r.top)
}

func newRig(p pair, s side) (*rig, error) {
	api := p.api(runnertest.Reply{Text: "OK"})
	cache, err := os.UserCacheDir()
	if err == nil {
		err = os.MkdirAll(cache, 0o700)
	}
	if err != nil {
		api.Close()
		return nil, err
	}
	// Under the cache, not /tmp: an unfenced Codex's own sandbox mounts a new /tmp (docs/adapters.md).
	top, err := os.MkdirTemp(cache, "abcd-acp-bench-")
	if err != nil {
		api.Close()
		return nil, err
	}
	g := &rig{api: api, top: top}
	home, work := filepath.Join(top, "home"), filepath.Join(top, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, errors.Join(err, g.close())
		}
	}
	prompt := filepath.Join(top, "prompt.md")
	if err := os.WriteFile(prompt, []byte("Reply with OK.\n"), 0o600); err != nil {
		return nil, errors.Join(err, g.close())
	}
	extra, creds, pass := p.env(api.URL)
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, extra...)
	g.a = runner.New(runner.Options{Dialects: []runner.Dialect{s.dialect}, Environ: func() []string { return environ }, TempDir: filepath.Join(top, "runner")})
	r := domain.Runner{Name: "bench", CLI: s.kind, Executable: s.exe, Args: s.args(api.URL), CredentialEnv: creds, PassEnv: pass, Concurrency: 1,
		Limits: domain.Limits{WallClock: 5 * time.Minute, FirstEvent: 3 * time.Minute, Silence: 3 * time.Minute, Turns: 10}}
	g.req = ports.RunnerStep{Runner: r, Dir: work, PromptFile: prompt, Policy: domain.PolicyRead, Model: p.model, Limits: r.Limits}
	return g, nil
}

// step takes one step and times it; a step that does not complete is an error.
func (r *rig) step() (time.Duration, error) {
	begun := time.Now()
	o, err := r.a.Step(context.Background(), r.req)
	took := time.Since(begun)
	if err != nil {
		return 0, err
	}
	if o.Failure != nil {
		return 0, fmt.Errorf("the step failed: %s", o.Failure.Error())
	}
	if strings.TrimSpace(o.Final) != "OK" {
		return 0, fmt.Errorf("the step answered %q, not OK", o.Final)
	}
	return took, nil
}

// measure times n steps each way, alternately (the order swapped each pair), after one warm-up pair.
func measure(p pair, n int) (_ figure, err error) {
	var rigs [2]*rig
	defer func() {
		for _, r := range rigs {
			if r != nil {
				err = errors.Join(err, r.close())
			}
		}
	}()
	for i, s := range p.sides {
		if rigs[i], err = newRig(p, s); err != nil {
			return figure{}, err
		}
	}
	var times [2][]time.Duration
	for i := 0; i < n+1; i++ {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, k := range order {
			d, err := rigs[k].step()
			if err != nil {
				return figure{}, fmt.Errorf("%s: %w", map[int]string{0: p.native, 1: p.acp}[k], err)
			}
			if i > 0 {
				times[k] = append(times[k], d)
			}
		}
	}
	f := figure{p: p, native: benchkit.Median(times[0]), acp: benchkit.Median(times[1]), nativeP90: benchkit.P90(times[0]), acpP90: benchkit.P90(times[1]),
		nativeCalls: rigs[0].api.Count() / (n + 1), acpCalls: rigs[1].api.Count() / (n + 1)}
	f.added = f.acp - f.native
	f.ratio = float64(f.acp) / float64(f.native)
	return f, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", benchkit.MS(d)) }

// markdown is the driver's section of docs/performance.md.
func markdown(n int, figs []figure) string {
	var b strings.Builder
	b.WriteString("## ACP steps against native ones\n\n")
	b.WriteString("What a step costs over the Agent Client Protocol (`--cli acp`) against the same vendor's agent on\n")
	b.WriteString("its native runner: the same prompt answered \"OK\" by the same loopback stand-in of its API, one step\n")
	fmt.Fprintf(&b, "each way in turn, %d steps each after a warm-up pair (`go run ./tools/bench/acp`). No catalog and no\n", n)
	b.WriteString("sandbox on either side. The ratio is the ACP step's median over the native step's; the last column\n")
	b.WriteString("shows both sides asked the stand-in the same. Where an ACP step's time goes is in docs/adapters.md\n")
	b.WriteString("(ACP runners, real peers).\n\n")
	b.WriteString("| agent | native (median, p90) | over ACP (median, p90) | added a step | ratio | model requests a step (native, ACP) |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, f := range figs {
		if f.failed != "" {
			fmt.Fprintf(&b, "| %s, %s | not measured: %s | | | | |\n", f.p.native, f.p.acp, strings.ReplaceAll(f.failed, "|", "/"))
			continue
		}
		fmt.Fprintf(&b, "| %s, %s | %s, %s | %s, %s | %+.1f ms | %.2f | %d, %d |\n", f.p.native, f.p.acp, ms(f.native), ms(f.nativeP90), ms(f.acp), ms(f.acpP90),
			benchkit.MS(f.added), f.ratio, f.nativeCalls, f.acpCalls)
	}
	b.WriteString("\n")
	return b.String()
}
