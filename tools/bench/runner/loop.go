package main

// The loop's overhead: `abcd implement run` (the built binary) drives a spec whose every step a runner
// takes, against a reference that does the same work with no abcd: the same CLI started directly the
// same number of times with the same parallelism, and the same git work (a branch and worktree per
// lane, the implementer's commit, the lanes merged into an integration branch). The CLI is this
// driver's own binary playing a scripted Claude Code (runnertest.FakeMain): the implementer writes a
// file in its worktree, each reviewer and the auditor answers in its schema. What is left between the
// two is what abcd adds: its preflight of the CLI, the run's state and locks, the briefs, checking the
// work and committing it, build.dod (`true`: a runner's implementer needs one), placing each answer,
// the receipts.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

const (
	loopIntent = "itd-2612010000000001"
	loopSpec   = "spc-2612010000000002"
	// the texts the fake matches to know which role it plays: the implementer's brief, a validator's
	// request
	implMarker   = "You run headless, as runner bench"
	answerMarker = "You run headless: how you answer"
)

// loopFigure is one spec's measurement.
type loopFigure struct {
	lanes, steps, commits int
	abcd, ref             time.Duration // medians
	abcdP90, refP90       time.Duration
	perStep               time.Duration // (abcd - ref) / steps
	ratio                 float64       // (abcd - ref) / ref
	met                   bool
}

// loopWorld is what both sides start from: the built abcd, a template repository holding the spec, a
// machine whose runner takes every role, and the fake's script.
type loopWorld struct {
	top, abcd, home, script, cli string
	env                          []string
}

func newLoopWorld(top string) (*loopWorld, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	w := &loopWorld{top: top, abcd: filepath.Join(top, "abcd"), home: filepath.Join(top, "home"), cli: exe}
	if err := benchkit.Build(w.abcd, "./frontdoors/cmd/abcd"); err != nil {
		return nil, err
	}
	if w.script, err = writeScript(top); err != nil {
		return nil, err
	}
	help := "Usage: claude [options]\n  " + strings.Join(claude.Dialect{}.Flags(), " <x>\n  ")
	w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "ABCD_HOME=" + filepath.Join(w.home, ".abcd"), "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@abcd.invalid", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@abcd.invalid",
		runnertest.ScriptVar + "=" + w.script, "FAKE_CLI_HELP=" + help}
	if err := os.MkdirAll(filepath.Join(w.home, ".abcd"), 0o700); err != nil {
		return nil, err
	}
	roles := map[string]any{}
	for _, r := range []string{"implementer", "ruthless-reviewer", "security-reviewer", "intent-auditor"} {
		roles[r] = map[string]any{"runner": "bench"}
	}
	machine, err := json.Marshal(map[string]any{"schema_version": 1, "oracle": map[string]any{"roles": roles, "runner": map[string]any{"bench": map[string]any{
		"cli": "claude", "executable": exe, "version": "2.1.332", "pass_env": []string{runnertest.ScriptVar, "FAKE_CLI_HELP"}, "concurrency": 8,
		"limits": map[string]any{"wall_clock_s": 120, "first_event_s": 60, "silence_s": 60}}}}})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(w.home, ".abcd", "config.json"), machine, 0o600); err != nil {
		return nil, err
	}
	return w, nil
}

// writeScript writes the fake's part in every role into dir and returns the script's path: the
// implementer writes a file named after its lane's worktree (so the lanes merge without conflict)
// and ends with its summary; each validator passes.
func writeScript(dir string) (string, error) {
	result := func(final string, structured any) (string, error) {
		ev := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": final, "num_turns": 1,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 20}, "permission_denials": []any{}, "session_id": "sess-1"}
		if structured != nil {
			ev["structured_output"] = structured
		}
		b, err := json.Marshal(ev)
		return string(b), err
	}
	impl, err := result("Do the part\n\nWrote the lane's file.", nil)
	if err != nil {
		return "", err
	}
	review, err := result("", map[string]any{"summary": "Read the change.", "verdict": "SHIP", "findings": []any{}})
	if err != nil {
		return "", err
	}
	security, err := result("", map[string]any{"summary": "Nothing to fear.", "verdict": "APPROVE", "findings": []any{}})
	if err != nil {
		return "", err
	}
	audit, err := result("", map[string]any{"schema_version": 1, "intent": loopIntent, "summary": "The criterion is met.",
		"verdicts": []any{map[string]any{"criterion": "ac-1", "verdict": "MET", "evidence": "Each lane's file stands.", "concerns": ""}}})
	if err != nil {
		return "", err
	}
	return runnertest.Script(dir,
		// Claude Code runs abcd's start-up hook from the settings it is given, which proves it loaded them.
		runnertest.Directive{SessionStart: "claude"},
		runnertest.Directive{Out: `{"type":"system","subtype":"init","cwd":"/w","session_id":"sess-1","tools":["Read","Edit","Bash"],"model":"claude-x","permissionMode":"dontAsk","claude_code_version":"2.1.332"}`},
		runnertest.Directive{When: []string{implMarker}, Run: []string{"sh", "-c", `echo work > "$(basename "$PWD").txt"`}},
		runnertest.Directive{When: []string{implMarker}, Out: impl},
		runnertest.Directive{When: []string{answerMarker, "# ruthless-reviewer:"}, Out: review},
		runnertest.Directive{When: []string{answerMarker, "# security-reviewer:"}, Out: security},
		runnertest.Directive{When: []string{answerMarker, "# intent-auditor:"}, Out: audit},
	)
}

// template makes a repository holding a planned intent and an open spec of lanes independent steps,
// committed, with build.dod `true`.
func (w *loopWorld) template(lanes int) (string, error) {
	repo := filepath.Join(w.top, fmt.Sprintf("template-%d", lanes))
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return "", err
	}
	for _, c := range [][]string{{"git", "init", "-q", "-b", "main"}, {"git", "commit", "-q", "--allow-empty", "-m", "base"}, {w.abcd, "ahoy", "install", "--yes"}} {
		if err := w.sh(repo, c...); err != nil {
			return "", err
		}
	}
	steps := make([]string, lanes)
	for i := range steps {
		steps[i] = fmt.Sprintf("%d. Part L%d of the work.", i+1, i+1)
	}
	files := map[string]string{
		".abcd/config.json": `{"schema_version":1,"setup_version":1,"build":{"dod":"true"}}` + "\n",
		".abcd/development/intents/planned/" + loopIntent + "-bench.md": "---\nid: " + loopIntent + "\ntype: intent\ntitle: \"Bench\"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-12-01\n---\n\n## Press Release\n\nFast.\n\n## Acceptance Criteria\n\n- ac-1: Given a spec, when runners take it, then each lane's file stands.\n\n## Open Questions\n\nNone.\n",
		".abcd/development/specs/open/" + loopSpec + "-bench.md":        "---\nid: " + loopSpec + "\ntype: spec\ntitle: \"Bench\"\nlifecycle: open\nimplements: " + loopIntent + "\ncreated: 2026-12-01\n---\n\n## Steps\n\n" + strings.Join(steps, "\n") + "\n",
	}
	for rel, body := range files {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	for _, c := range [][]string{{"git", "add", "-A"}, {"git", "commit", "-q", "-m", "the record"}} {
		if err := w.sh(repo, c...); err != nil {
			return "", err
		}
	}
	return repo, nil
}

func (w *loopWorld) sh(dir string, args ...string) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, w.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// fresh copies the template to a new folder, outside any timing.
func (w *loopWorld) fresh(template, name string) (string, error) {
	dir := filepath.Join(w.top, name)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying the template: %w\n%s", err, out)
	}
	return dir, nil
}

// runResult is what the bench reads of implement run's result.
type runResult struct {
	Ended    string `json:"ended"`
	Routed   int    `json:"routed"`
	FellBack int    `json:"fell_back"`
}

// abcdRun times `abcd implement run` on a fresh copy and checks that it finished with every step on
// the runner.
func (w *loopWorld) abcdRun(template string) (time.Duration, runResult, error) {
	repo, err := w.fresh(template, "abcd-run")
	if err != nil {
		return 0, runResult{}, err
	}
	cmd := exec.Command(w.abcd, "implement", "run", loopSpec, "--json")
	var out, errs bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = repo, w.env, &out, &errs
	begun := time.Now()
	err = cmd.Run()
	took := time.Since(begun)
	if err != nil {
		return 0, runResult{}, fmt.Errorf("abcd implement run: %w\n%s", err, errs.String())
	}
	var res runResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return 0, runResult{}, fmt.Errorf("abcd implement run's result: %w", err)
	}
	if res.Ended != "finished" || res.FellBack != 0 {
		return 0, res, fmt.Errorf("abcd implement run ended %s with %d fallbacks, not finished on the runner:\n%s", res.Ended, res.FellBack, errs.String())
	}
	return took, res, nil
}

// refStep is one CLI invocation of the reference, prepared before the timing starts.
type refStep struct {
	p   *runner.Prepared
	dir string
}

// reference does the run's work without abcd on a fresh copy: a branch and worktree per lane; per
// lane, the implementer's CLI then its commit, then the two reviewers' CLIs; at most 8 CLIs at once
// (the runner's concurrency); then an integration branch with every lane merged, and the auditor's
// CLI. The CLIs are started with the command lines the adapter builds (prepared untimed), read to EOF
// and waited for.
func (w *loopWorld) reference(template string, lanes int) (_ time.Duration, _ int, err error) {
	repo, err := w.fresh(template, "ref-run")
	if err != nil {
		return 0, 0, err
	}
	a := runner.New(runner.Options{Dialects: []runner.Dialect{claude.Dialect{}}, Guard: []string{w.abcd, "guard", "hook"},
		Environ: func() []string { return w.env }, TempDir: filepath.Join(w.top, "ref-private")})
	r := domain.Runner{Name: "bench", CLI: domain.Claude, Executable: w.cli, PassEnv: []string{runnertest.ScriptVar, "FAKE_CLI_HELP"}, Concurrency: 8,
		Limits: domain.Limits{WallClock: 2 * time.Minute, FirstEvent: time.Minute, Silence: time.Minute, Turns: 10}}
	prompts := filepath.Join(w.top, "ref-prompts")
	if err := os.MkdirAll(prompts, 0o700); err != nil {
		return 0, 0, err
	}
	prompt := func(name, text string) (string, error) {
		p := filepath.Join(prompts, name)
		return p, os.WriteFile(p, []byte(text), 0o600)
	}
	prepare := func(dir, promptFile string, policy domain.Policy) (refStep, error) {
		p, f, err := a.Prepare(ports.RunnerStep{Runner: r, Dir: dir, PromptFile: promptFile, Policy: policy, Limits: r.Limits})
		if err != nil {
			return refStep{}, err
		}
		if f != nil {
			return refStep{}, fmt.Errorf("preparing the reference's step: %s", f.Error())
		}
		return refStep{p, dir}, nil
	}
	wt := func(name string) string { return filepath.Join(repo, ".wt", name) }
	implP, err := prompt("impl.md", "# implementer\n\n"+implMarker+".\n")
	if err != nil {
		return 0, 0, err
	}
	var rP [2]string
	for i, role := range []string{"ruthless-reviewer", "security-reviewer"} {
		if rP[i], err = prompt(role+".md", answerMarker+".\n\n# "+role+": review the change\n"); err != nil {
			return 0, 0, err
		}
	}
	auditP, err := prompt("audit.md", answerMarker+".\n\n# intent-auditor: audit the integration\n")
	if err != nil {
		return 0, 0, err
	}
	// Every CLI's command line, prepared before the clock starts (the adapter's cost, not the work's).
	type laneSteps struct {
		impl    refStep
		reviews [2]refStep
	}
	steps := make([]laneSteps, lanes)
	var all []refStep
	for i := range steps {
		dir := wt(fmt.Sprintf("lane-%d", i+1))
		if steps[i].impl, err = prepare(dir, implP, domain.PolicyImplement); err != nil {
			return 0, 0, err
		}
		all = append(all, steps[i].impl)
		for j := range rP {
			if steps[i].reviews[j], err = prepare(dir, rP[j], domain.PolicyRead); err != nil {
				return 0, 0, err
			}
			all = append(all, steps[i].reviews[j])
		}
	}
	audit, err := prepare(wt("integration"), auditP, domain.PolicyRead)
	if err != nil {
		return 0, 0, err
	}
	all = append(all, audit)
	defer func() {
		for _, s := range all {
			err = errors.Join(err, s.p.Close())
		}
	}()

	begun := time.Now()
	git := func(dir string, args ...string) error { return w.sh(dir, append([]string{"git"}, args...)...) }
	for i := range steps {
		if err := git(repo, "worktree", "add", "-q", "-b", fmt.Sprintf("ref/lane-%d", i+1), wt(fmt.Sprintf("lane-%d", i+1))); err != nil {
			return 0, 0, err
		}
	}
	slots := make(chan struct{}, 8)
	cli := func(s refStep) error {
		slots <- struct{}{}
		defer func() { <-slots }()
		return startDirect(s.p, s.dir)
	}
	errs := make(chan error, lanes*4)
	var wg sync.WaitGroup
	for i := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cli(steps[i].impl); err != nil {
				errs <- err
				return
			}
			dir := steps[i].impl.dir
			if err := git(dir, "add", "-A"); err != nil {
				errs <- err
				return
			}
			if err := git(dir, "commit", "-q", "-m", "Do the part\n\nWrote the lane's file."); err != nil {
				errs <- err
				return
			}
			var rw sync.WaitGroup
			for j := range steps[i].reviews {
				rw.Add(1)
				go func() {
					defer rw.Done()
					if err := cli(steps[i].reviews[j]); err != nil {
						errs <- err
					}
				}()
			}
			rw.Wait()
		}()
	}
	wg.Wait()
	close(errs)
	var failed []error
	for err := range errs {
		failed = append(failed, err)
	}
	if err := errors.Join(failed...); err != nil {
		return 0, 0, err
	}
	if err := git(repo, "worktree", "add", "-q", "-b", "ref/integration", wt("integration")); err != nil {
		return 0, 0, err
	}
	for i := range steps {
		if err := git(wt("integration"), "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge lane-%d", i+1), fmt.Sprintf("ref/lane-%d", i+1)); err != nil {
			return 0, 0, err
		}
	}
	if err := cli(audit); err != nil {
		return 0, 0, err
	}
	return time.Since(begun), len(all), nil
}

// startDirect starts a prepared command in dir, reads its stdout to EOF and waits for it.
func startDirect(p *runner.Prepared, dir string) error {
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, p.Env, p.Prompt
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the reference's CLI in %s: %w", dir, err)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"type":"result"`)) {
		return fmt.Errorf("the reference's CLI in %s printed no result: %s", dir, out.String())
	}
	return nil
}

// measureLoop times implement run and its reference alternately, runs times each after one warm-up
// pair, for a spec of lanes independent lanes.
func measureLoop(w *loopWorld, lanes, runs int) (loopFigure, error) {
	template, err := w.template(lanes)
	if err != nil {
		return loopFigure{}, err
	}
	var abcd, ref []time.Duration
	fig := loopFigure{lanes: lanes, commits: lanes}
	for i := 0; i < runs+1; i++ {
		a, res, err := w.abcdRun(template)
		if err != nil {
			return fig, err
		}
		r, n, err := w.reference(template, lanes)
		if err != nil {
			return fig, err
		}
		if res.Routed != n {
			return fig, fmt.Errorf("implement run took %d runner steps and the reference %d CLI invocations: the reference no longer does the run's work", res.Routed, n)
		}
		fig.steps = n
		if i > 0 {
			abcd, ref = append(abcd, a), append(ref, r)
		}
	}
	fig.abcd, fig.ref = benchkit.Median(abcd), benchkit.Median(ref)
	fig.abcdP90, fig.refP90 = benchkit.P90(abcd), benchkit.P90(ref)
	added := fig.abcd - fig.ref
	fig.perStep = added / time.Duration(fig.steps)
	fig.ratio = float64(added) / float64(fig.ref)
	fig.met = fig.perStep <= 50*time.Millisecond || fig.ratio <= 0.05
	return fig, nil
}

// shellWords quotes each of env's entries for a shell.
func shellWords(env []string) string {
	q := make([]string, len(env))
	for i, e := range env {
		q[i] = "'" + strings.ReplaceAll(e, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
