// Command runner measures what the runner route adds to a step. First the adapter: the same CLI, with
// the same arguments, environment and prompt, started directly (read to EOF and waited for) and
// through adapters/runner (the preflight-free Step: preparing the private folder and files, the
// process group, the bounded reader, parsing, the ledger, scrubbing, ending the group), alternately in
// one run, one step at a time and 8 at once. The real CLIs from tools/harness (make harness-deps)
// answer from loopback stand-ins of their vendors' APIs; without them, a recorded Claude Code stream
// is replayed by this driver (after abcd's start-up hook, as Claude Code runs it), which measures the
// adapter against the smallest CLI there can be. Then the loop: `abcd implement run` driving a spec
// whose every step a runner takes, against the same work done without abcd (loop.go). With -md it writes its section of docs/performance.md and its targets.
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
	"slices"
	"strings"
	"sync"
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
	// The loop's runner is this binary playing a scripted Claude Code: abcd starts it with the
	// script's variable set, and FakeMain then acts as the CLI and exits.
	runnertest.FakeMain()
	n := flag.Int("n", 10, "single steps of each kind per real CLI (ten times as many for the replayed stream)")
	batches := flag.Int("batches", 10, "batches of 8 steps at once of each kind, for the replayed stream")
	realBatches := flag.Int("real-batches", 3, "batches of 8 steps at once of each kind, per real CLI")
	loops := flag.Int("loops", 5, "runs of abcd implement run and of its reference, per spec")
	replayOnly := flag.Bool("replay", false, "replay a recorded stream even when the harness CLIs are installed")
	clis := flag.String("clis", "claude,codex,gemini", "the real CLIs to measure when they are installed (a comma list)")
	md := flag.String("md", "", "write this driver's section of docs/performance.md here")
	keep := flag.Bool("keep", false, "keep the loop's folder (the built abcd, its machine, the templates) and print how to run implement run there by hand, to profile it")
	flag.Parse()
	if err := run(config{n: *n, batches: *batches, realBatches: *realBatches, loops: *loops, replayOnly: *replayOnly, clis: strings.Split(*clis, ","), keep: *keep}, *md); err != nil {
		fmt.Fprintln(os.Stderr, "runner bench:", err)
		os.Exit(1)
	}
}

type config struct {
	n, batches, realBatches, loops int // loops 0 leaves the loop out
	replayOnly, keep               bool
	clis                           []string
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

// report is everything the run measured, for the page.
type report struct {
	cfg    config
	real   bool // the real CLIs were measured
	single []stepFigure
	batch  []stepFigure
	loop   []loopFigure
}

func run(cfg config, md string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	r, err := replay(root)
	if err != nil {
		return err
	}
	rep := &report{cfg: cfg}
	fmt.Printf("runner step overhead: the same CLI and arguments started directly and through the adapter, alternately (target: at most 5%% or 50 ms)\n")
	fmt.Printf("a recorded Claude Code stream replayed by this driver (after abcd's start-up hook), %d steps each (the adapter's own cost):\n", 10*cfg.n)
	f, err := measure(r, 10*cfg.n)
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	rep.single = append(rep.single, f)
	bin := filepath.Join(root, "tools", "harness", "node_modules", ".bin")
	var reals []subject
	if _, err := os.Stat(filepath.Join(bin, "claude")); err != nil || cfg.replayOnly {
		fmt.Println("the real CLIs are not measured: make harness-deps installs them")
	} else {
		for _, s := range realCLIs(bin) {
			if slices.Contains(cfg.clis, s.name) {
				reals = append(reals, s)
			}
		}
		rep.real = len(reals) > 0
		fmt.Printf("the real CLIs against loopback stand-ins of their vendors' APIs, %d steps each:\n", cfg.n)
		for _, s := range reals {
			f, err := measure(s, cfg.n)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			rep.single = append(rep.single, f)
		}
	}
	fmt.Printf("8 steps at once, each in its own folder: 8 of the CLI's processes started directly at once, against 8 steps through the adapter (concurrency 8), alternately; the wall of the batch:\n")
	f, err = measureBatch(r, cfg.batches)
	if err != nil {
		return fmt.Errorf("%s, 8 at once: %w", r.name, err)
	}
	rep.batch = append(rep.batch, f)
	for _, s := range reals {
		f, err := measureBatch(s, cfg.realBatches)
		if err != nil {
			// The page says why, beside the figures that were made; the driver does not stop.
			f = stepFigure{name: s.name, failed: err.Error()}
			fmt.Printf("  %-7s 8 at once not measured: %s\n", s.name+":", err)
		}
		rep.batch = append(rep.batch, f)
	}
	if err := rep.measureLoops(); err != nil {
		return err
	}
	if err := benchkit.WriteSection(md, rep.markdown()); err != nil {
		return err
	}
	return benchkit.WriteTargets(md, rep.targets())
}

// measureLoops times implement run against its reference for a spec of one lane and one of 8.
func (rep *report) measureLoops() (err error) {
	if rep.cfg.loops == 0 {
		return nil
	}
	top, err := os.MkdirTemp("", "abcd-runner-loop-")
	if err != nil {
		return err
	}
	w, err := newLoopWorld(top)
	if err != nil {
		return errors.Join(err, os.RemoveAll(top))
	}
	if rep.cfg.keep {
		defer fmt.Printf("the loop's folder is kept: cp -a %s/template-N a copy, then in it: env -i %s %s implement run %s --json\n", top, shellWords(w.env), w.abcd, loopSpec)
	} else {
		defer func() { err = errors.Join(err, os.RemoveAll(top)) }()
	}
	fmt.Printf("the loop: abcd implement run driving a spec on a runner (this binary replaying Claude Code; build.dod true) against the same CLI invocations, parallelism and git work without abcd, alternately, %d runs each:\n", rep.cfg.loops)
	for _, n := range []int{1, lanes} {
		f, err := measureLoop(w, n, rep.cfg.loops)
		if err != nil {
			return fmt.Errorf("the loop, %d lanes: %w", n, err)
		}
		fmt.Printf("  %-7s %2d steps: reference median %7.1f ms (p90 %7.1f)   implement run median %7.1f ms (p90 %7.1f)   added %+6.1f ms a step (%+.0f%%): %s\n",
			laneWords(f.lanes)+",", f.steps, benchkit.MS(f.ref), benchkit.MS(f.refP90), benchkit.MS(f.abcd), benchkit.MS(f.abcdP90), benchkit.MS(f.perStep), 100*f.ratio, verdict(f.met))
		rep.loop = append(rep.loop, f)
	}
	return nil
}

func realCLIs(bin string) []subject {
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
			// The base URL passed makes abcd name a model provider of its own in the home it gives Codex.
			env: func(home, url string) ([]string, []string, []string, error) {
				return []string{"OPENAI_API_KEY=" + key, "OPENAI_BASE_URL=" + url + "/v1"}, []string{"OPENAI_API_KEY"}, []string{"OPENAI_BASE_URL"}, nil
			}},
		{name: "gemini", dialect: gemini.Dialect{}, kind: domain.Gemini, exe: resolve("gemini"), model: "gemini-2.5-pro", api: runnertest.Gemini,
			env: func(home, url string) ([]string, []string, []string, error) {
				return []string{"GEMINI_API_KEY=" + key, "GOOGLE_GEMINI_BASE_URL=" + url}, []string{"GEMINI_API_KEY"}, []string{"GOOGLE_GEMINI_BASE_URL"}, nil
			}},
	}
}

// replay is this driver playing a recorded Claude Code stream (runnertest.FakeMain), after running
// abcd's start-up hook from the settings it is given as Claude Code does: the smallest CLI there can
// be, so what it measures is the adapter's own cost.
func replay(root string) (subject, error) {
	data, err := os.ReadFile(filepath.Join(root, "adapters", "runner", "claude", "testdata", "2.1.332", "review.jsonl"))
	if err != nil {
		return subject{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return subject{}, err
	}
	dir, err := os.MkdirTemp("", "abcd-runner-bench-")
	if err != nil {
		return subject{}, err
	}
	script, err := runnertest.Script(dir, append([]runnertest.Directive{{SessionStart: "claude"}},
		runnertest.Lines(strings.Split(strings.TrimRight(string(data), "\n"), "\n")...)...)...)
	if err != nil {
		return subject{}, err
	}
	return subject{name: "replay", dialect: claude.Dialect{}, kind: domain.Claude, exe: self,
		env: func(string, string) ([]string, []string, []string, error) {
			return []string{runnertest.ScriptVar + "=" + script}, nil, []string{runnertest.ScriptVar}, nil
		},
		api: runnertest.Anthropic}, nil
}

// rig is one CLI ready to measure: its stand-in, the adapter, a step's request and the folder
// everything lives in.
type rig struct {
	api  *runnertest.API
	a    *runner.Adapter
	req  ports.RunnerStep
	top  string
	work string
}

func (r *rig) close() error {
	r.api.Close()
	return os.RemoveAll(r.top)
}

// newRig prepares a CLI's world: a home, a work folder, the prompt, the environment pointing the CLI
// at its stand-in, and an adapter whose runner takes concurrency steps at once.
func newRig(s subject, concurrency int) (*rig, error) {
	api := s.api(runnertest.Reply{Text: "OK"})
	cache, err := os.UserCacheDir()
	if err == nil {
		err = os.MkdirAll(cache, 0o700)
	}
	if err != nil {
		api.Close()
		return nil, err
	}
	top, err := os.MkdirTemp(cache, "abcd-runner-bench-")
	if err != nil {
		api.Close()
		return nil, err
	}
	g := &rig{api: api, top: top, work: filepath.Join(top, "work")}
	home := filepath.Join(top, "home")
	for _, d := range []string{home, g.work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, errors.Join(err, g.close())
		}
	}
	prompt := filepath.Join(top, "prompt.md")
	if err := os.WriteFile(prompt, []byte("Reply with OK.\n"), 0o600); err != nil {
		return nil, errors.Join(err, g.close())
	}
	extra, creds, pass, err := s.env(home, api.URL)
	if err != nil {
		return nil, errors.Join(err, g.close())
	}
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, extra...)
	g.a = runner.New(runner.Options{Dialects: []runner.Dialect{s.dialect}, Environ: func() []string { return environ }, TempDir: filepath.Join(top, "runner")})
	r := domain.Runner{Name: "bench", CLI: s.kind, Executable: s.exe, CredentialEnv: creds, PassEnv: pass, Concurrency: concurrency,
		Limits: domain.Limits{WallClock: 5 * time.Minute, FirstEvent: 3 * time.Minute, Silence: 3 * time.Minute, Turns: 10, APIRetries: 0}}
	g.req = ports.RunnerStep{Runner: r, Dir: g.work, PromptFile: prompt, Policy: domain.PolicyRead, Model: s.model, Limits: r.Limits}
	return g, nil
}

// stepFigure is one CLI's single-step or batch measurement.
type stepFigure struct {
	name            string
	direct, adapter time.Duration // medians
	directP90       time.Duration
	adapterP90      time.Duration
	over            time.Duration
	ratio           float64
	met             bool
	failed          string // why the measurement could not be made
	// the CPU time a batch's processes used (user and system, medians; 0 where not reported)
	directCPU, adapterCPU time.Duration
}

func figure(name string, direct, adapter []time.Duration) stepFigure {
	f := stepFigure{name: name, direct: benchkit.Median(direct), adapter: benchkit.Median(adapter), directP90: benchkit.P90(direct), adapterP90: benchkit.P90(adapter)}
	f.over = f.adapter - f.direct
	f.ratio = float64(f.over) / float64(f.direct)
	f.met = f.over <= 50*time.Millisecond || f.ratio <= 0.05
	return f
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "missed"
}

// measure times n single steps each way, alternately, after one warm-up pair.
func measure(s subject, n int) (_ stepFigure, err error) {
	g, err := newRig(s, 1)
	if err != nil {
		return stepFigure{}, err
	}
	defer func() { err = errors.Join(err, g.close()) }()
	var direct, adapter []time.Duration
	for i := 0; i < n+1; i++ { // the first pair warms the caches and is not counted
		d, err := runDirect(g.a, g.req)
		if err != nil {
			return stepFigure{}, err
		}
		begun := time.Now()
		o, err := g.a.Step(context.Background(), g.req)
		took := time.Since(begun)
		if err != nil {
			return stepFigure{}, err
		}
		if o.Failure != nil {
			return stepFigure{}, fmt.Errorf("the step failed: %s", o.Failure.Error())
		}
		if i > 0 {
			direct, adapter = append(direct, d), append(adapter, took)
		}
	}
	f := figure(s.name, direct, adapter)
	fmt.Printf("  %-7s direct median %7.1f ms (p90 %7.1f)   adapter median %7.1f ms (p90 %7.1f)   overhead %+6.1f ms (%+.1f%%): %s\n",
		s.name+":", benchkit.MS(f.direct), benchkit.MS(f.directP90), benchkit.MS(f.adapter), benchkit.MS(f.adapterP90), benchkit.MS(f.over), 100*f.ratio, verdict(f.met))
	return f, nil
}

// lanes is how many steps run at once in the batch measurement.
const lanes = 8

// measureBatch times rounds batches of 8 steps at once each way, alternately (the order swapped each
// round), after one warm-up pair: 8 of the CLI's processes started directly at once, each in its own
// folder, against 8 steps through the adapter at once, its runner's concurrency 8. A batch's wall is
// from the first start to the last end.
func measureBatch(s subject, rounds int) (_ stepFigure, err error) {
	g, err := newRig(s, lanes)
	if err != nil {
		return stepFigure{}, err
	}
	defer func() { err = errors.Join(err, g.close()) }()
	reqs := make([]ports.RunnerStep, lanes)
	for i := range reqs {
		reqs[i] = g.req
		reqs[i].Dir = filepath.Join(g.top, fmt.Sprintf("lane-%d", i+1))
		if err := os.MkdirAll(reqs[i].Dir, 0o700); err != nil {
			return stepFigure{}, err
		}
	}
	var direct, adapter, directCPU, adapterCPU []time.Duration
	for i := 0; i < rounds+1; i++ {
		var d, a batchTime
		if i%2 == 0 {
			if d, err = directBatch(g.a, reqs); err == nil {
				a, err = adapterBatch(g.a, reqs)
			}
		} else {
			if a, err = adapterBatch(g.a, reqs); err == nil {
				d, err = directBatch(g.a, reqs)
			}
		}
		if err != nil {
			return stepFigure{}, err
		}
		if i > 0 {
			direct, adapter = append(direct, d.wall), append(adapter, a.wall)
			directCPU, adapterCPU = append(directCPU, d.cpu), append(adapterCPU, a.cpu)
		}
	}
	f := figure(s.name, direct, adapter)
	f.directCPU, f.adapterCPU = benchkit.Median(directCPU), benchkit.Median(adapterCPU)
	fmt.Printf("  %-7s 8 direct median %7.1f ms (p90 %7.1f, CPU %7.1f ms)   8 through the adapter median %7.1f ms (p90 %7.1f, CPU %7.1f ms)   added %+6.1f ms (%+.1f%%): %s\n",
		s.name+":", benchkit.MS(f.direct), benchkit.MS(f.directP90), benchkit.MS(f.directCPU), benchkit.MS(f.adapter), benchkit.MS(f.adapterP90), benchkit.MS(f.adapterCPU),
		benchkit.MS(f.over), 100*f.ratio, verdict(f.met))
	return f, nil
}

// batchTime is a batch's wall, and the CPU time its processes used.
type batchTime struct{ wall, cpu time.Duration }

// timeBatch runs batch and measures it.
func timeBatch(batch func() error) (batchTime, error) {
	cpu0, err := childCPU()
	if err != nil {
		return batchTime{}, err
	}
	begun := time.Now()
	err = batch()
	wall := time.Since(begun)
	cpu1, cerr := childCPU()
	return batchTime{wall, cpu1 - cpu0}, errors.Join(err, cerr)
}

// directBatch prepares every step (untimed, as runDirect does), then starts them all at once.
func directBatch(a *runner.Adapter, reqs []ports.RunnerStep) (_ batchTime, err error) {
	ps := make([]*runner.Prepared, 0, len(reqs))
	defer func() {
		for _, p := range ps {
			err = errors.Join(err, p.Close())
		}
	}()
	for _, req := range reqs {
		p, f, err := a.Prepare(req)
		if err != nil {
			return batchTime{}, err
		}
		if f != nil {
			return batchTime{}, errors.New(f.Error())
		}
		ps = append(ps, p)
	}
	return timeBatch(func() error {
		errs := make([]error, len(ps))
		var wg sync.WaitGroup
		for i, p := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = startPrepared(p)
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
}

// adapterBatch runs every step through the adapter at once.
func adapterBatch(a *runner.Adapter, reqs []ports.RunnerStep) (batchTime, error) {
	return timeBatch(func() error {
		errs := make([]error, len(reqs))
		var wg sync.WaitGroup
		for i, req := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o, err := a.Step(context.Background(), req)
				if err == nil && o.Failure != nil {
					err = fmt.Errorf("the step in %s failed: %s", req.Dir, o.Failure.Error())
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
}

// runDirect starts the command the adapter would start, with the same arguments, environment, folder
// and prompt, reads its stdout to EOF and waits for it.
func runDirect(a *runner.Adapter, req ports.RunnerStep) (_ time.Duration, err error) {
	p, f, err := a.Prepare(req)
	if err != nil {
		return 0, err
	}
	if f != nil {
		return 0, errors.New(f.Error())
	}
	defer func() { err = errors.Join(err, p.Close()) }()
	begun := time.Now()
	err = startPrepared(p)
	return time.Since(begun), err
}

// startPrepared starts a prepared command, reads its stdout to EOF and waits for it; its exit code is
// not the step's outcome, so a non-zero exit is not an error here.
func startPrepared(p *runner.Prepared) error {
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Dir, cmd.Env, cmd.Stdin = p.Dir, p.Env, p.Prompt
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, out); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return err
		}
	}
	return nil
}
