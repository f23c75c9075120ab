package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// Bounds of a preflight.
const (
	// checkTimeout bounds --version and --help each (a Node CLI on a busy machine takes seconds to print
	// either).
	checkTimeout = time.Minute
	// maxCheckOutput bounds what --version or --help may print.
	maxCheckOutput = 1 << 20
)

// proveLimits bound the proving call: one short reply.
var proveLimits = runner.Limits{WallClock: 3 * time.Minute, FirstEvent: 90 * time.Second, Silence: 90 * time.Second, Turns: 4, APIRetries: 0}

// provePrompt is all a proving call asks.
const provePrompt = "Reply with the single word OK, and nothing else. Use no tools.\n"

// Check is the preflight (ports.Runners): the executable, --version, --help, and with Prove one
// bounded call. A failure's words pass the one scrubber, as a step's do: what the CLI printed may
// carry a credential the runner holds, or a URL with its password.
func (a *Adapter) Check(ctx context.Context, req ports.RunnerCheck) (ports.RunnerReport, error) {
	rep, err := a.check(ctx, req)
	if rep.Failure != nil {
		_, creds, _ := runner.Environment(a.environ(), req.Runner, nil)
		f := *rep.Failure
		f.Detail = runner.Plain(secret.NewScrubber(creds...).Scrub(f.Detail))
		rep.Failure = &f
	}
	return rep, err
}

func (a *Adapter) check(ctx context.Context, req ports.RunnerCheck) (ports.RunnerReport, error) {
	rep, d := a.located(&req)
	if rep.Failure != nil {
		return rep, nil
	}
	if req.Runner.CLI.Conversational() {
		// An ACP agent has no --version or --help abcd reads: its initialize answer names its protocol,
		// which the proving call checks.
		return a.proveOnly(ctx, req, rep)
	}
	env, _, _ := runner.Environment(a.environ(), runner.Runner{PassEnv: req.Runner.PassEnv}, nil)
	// --help is asked beside --version, not after it: a CLI takes most of a second to start, and
	// what --help says is read only once the version is one abcd knows.
	type said struct {
		stdout, stderr string
		f              *runner.Failure
	}
	helped := make(chan said, 1)
	go func() {
		stdout, stderr, f := a.output(ctx, req.Runner.CLI, req.Runner.Executable, d.Help(), env, runner.CauseFlags)
		helped <- said{stdout, stderr, f}
	}()
	defer func() { <-helped }() // no check leaves a process of its own behind
	out, versionErr, f := a.output(ctx, req.Runner.CLI, req.Runner.Executable, []string{"--version"}, env, runner.CauseVersion)
	if f != nil {
		rep.Failure = f
		return rep, nil
	}
	if strings.TrimSpace(out) == "" {
		out = versionErr
	}
	v, why := req.Runner.CLI.CheckVersion(out)
	if v != (runner.Version{}) {
		rep.Version = v.String()
	}
	if why != "" {
		if v != (runner.Version{}) {
			why += ": a runner is refused outside them, since its flags or its events may have drifted"
		}
		rep.Failure = runner.Failf(runner.CauseVersion, "%s", why)
		return rep, nil
	}
	h := <-helped
	helped <- h // for the deferred wait
	stdout, stderr, f := h.stdout, h.stderr, h.f
	help := stdout + "\n" + stderr
	if f != nil {
		rep.Failure = f
		return rep, nil
	}
	if missing := MissingFlags(help, rep.Flags); len(missing) > 0 {
		rep.Failure = runner.Failf(runner.CauseFlags, "%s %s --help does not offer %s, which abcd passes: this version's flags drifted from what abcd knows",
			req.Runner.CLI.Name(), rep.Version, strings.Join(missing, ", "))
		return rep, nil
	}
	if !req.Prove {
		return rep, nil
	}
	outcome, err := a.prove(ctx, req)
	if err != nil {
		return rep, err
	}
	if len(outcome.Receipt.ModelsReported) > 0 {
		rep.ModelReported = outcome.Receipt.ModelsReported[0]
	}
	rep.Failure, rep.Sandbox = outcome.Failure, outcome.Receipt.Sandbox
	return rep, nil
}

// located is the preflight's first checks: a dialect for the CLI, and its executable (the one given,
// or its command on PATH) a regular, executable file, which req then names.
func (a *Adapter) located(req *ports.RunnerCheck) (ports.RunnerReport, Dialect) {
	rep := ports.RunnerReport{Flags: []string{}}
	d, f := a.dialect(req.Runner.CLI)
	if f != nil {
		rep.Failure = f
		return rep, nil
	}
	rep.Flags = d.Flags()
	if req.Runner.Executable == "" {
		found, f := a.find(req.Runner.CLI)
		if f != nil {
			rep.Failure = f
			return rep, nil
		}
		req.Runner.Executable = found
	}
	rep.Executable = req.Runner.Executable
	rep.Failure = checkExecutable(req.Runner.Executable)
	return rep, d
}

// proveOnly is a conversing agent's preflight past its executable: with Prove, one ACP session, whose
// handshake names the protocol version recorded.
func (a *Adapter) proveOnly(ctx context.Context, req ports.RunnerCheck, rep ports.RunnerReport) (ports.RunnerReport, error) {
	rep.Version = req.Runner.Version
	if !req.Prove {
		return rep, nil
	}
	outcome, err := a.prove(ctx, req)
	if err != nil {
		return rep, err
	}
	if v := outcome.Receipt.CLIVersion; v != "" {
		rep.Version = v
	}
	if len(outcome.Receipt.ModelsReported) > 0 {
		rep.ModelReported = outcome.Receipt.ModelsReported[0]
	}
	rep.Failure, rep.Sandbox = outcome.Failure, outcome.Receipt.Sandbox
	return rep, nil
}

// find is the CLI's command on the PATH abcd runs with, as an absolute path.
func (a *Adapter) find(k runner.Kind) (string, *runner.Failure) {
	var pathVar string
	for _, kv := range a.environ() {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if !filepath.IsAbs(dir) {
			continue // a relative PATH entry would name a different file from another folder
		}
		p := filepath.Join(dir, k.Command())
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", runner.Failf(runner.CauseExecutable, "no %s command is on the PATH abcd runs with: install %s, or give its absolute path", k.Command(), k.Name())
}

// withEnv is env with the variables of extra set over it, sorted.
func withEnv(env []string, extra map[string]string) []string {
	m := envMap(env)
	maps.Copy(m, extra)
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// MissingFlags lists the flags help does not name as a flag (a whole word starting with dashes).
func MissingFlags(help string, flags []string) []string {
	var missing []string
	for _, f := range flags {
		re := regexp.MustCompile(`(^|[\s,\[])` + regexp.QuoteMeta(f) + `($|[\s,=<\[\]])`)
		if !re.MatchString(help) {
			missing = append(missing, f)
		}
	}
	return missing
}

// prove makes the proving call: the step a reviewer would make, in an empty folder, with a one-word
// prompt and small bounds.
func (a *Adapter) prove(ctx context.Context, req ports.RunnerCheck) (_ runner.Outcome, err error) {
	if err := a.tempDir(); err != nil {
		return runner.Outcome{}, err
	}
	dir, err := os.MkdirTemp(a.temp, "abcd-prove-")
	if err != nil {
		return runner.Outcome{}, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }() // a folder left behind is said
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		return runner.Outcome{}, err
	}
	prompt := filepath.Join(dir, "prompt.txt")
	if err := os.WriteFile(prompt, []byte(provePrompt), 0o600); err != nil {
		return runner.Outcome{}, err
	}
	return a.Step(ctx, ports.RunnerStep{Runner: req.Runner, Dir: work, PromptFile: prompt, Policy: runner.PolicyRead, Model: req.Model, Limits: proveLimits,
		Sandbox: req.Sandbox})
}

// output runs the executable with args, bounded in time and size, in its own group, stdin from
// /dev/null, its home a folder of its own (a CLI that writes its state when asked its version writes
// none in the person's home), and returns what it printed on stdout and on stderr (a CLI may print
// warnings first). A run that does not end with exit 0 within its bounds is the failure cause given.
func (a *Adapter) output(ctx context.Context, k runner.Kind, exe string, args, env []string, cause runner.Cause) (stdout, stderr string, f *runner.Failure) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	name := filepath.Base(exe) + " " + strings.Join(args, " ")
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return "", "", runner.Failf(runner.CauseSpawn, "opening %s: %s", os.DevNull, pathless(err))
	}
	defer devnull.Close()
	// Closing a pipe's end loses nothing (its error would name a descriptor already gone): those
	// errors are dropped below.
	var pipes [2][2]*os.File // stdout, stderr: read end, write end
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			return "", "", runner.Failf(runner.CauseSpawn, "making a pipe: %s", pathless(err))
		}
		defer r.Close() //nolint:gocritic // deferInLoop: two pipes, both read to the check's end
		pipes[i] = [2]*os.File{r, w}
	}
	if err := a.tempDir(); err != nil {
		return "", "", runner.Failf(runner.CauseSpawn, "%s", pathless(err))
	}
	dir, err := os.MkdirTemp(a.temp, "abcd-check-")
	if err != nil {
		_ = pipes[0][1].Close()
		_ = pipes[1][1].Close()
		return "", "", runner.Failf(runner.CauseSpawn, "making a folder: %s", pathless(err))
	}
	// The check's empty working folder, under abcd's own private runner folder: best effort, as the
	// check's answer is what it printed, whatever is left of an empty folder.
	defer func() { _ = os.RemoveAll(dir) }()
	env = withEnv(env, k.HomeEnv(dir))
	p, err := start(exe, args, env, dir, devnull, pipes[0][1], pipes[1][1], nil)
	// The child holds its own copies of the write ends; closing ours loses nothing.
	_ = pipes[0][1].Close()
	_ = pipes[1][1].Close()
	if err != nil {
		return "", "", runner.Failf(runner.CauseSpawn, "the CLI could not be started: %s", pathless(err))
	}
	var bufs [2]bytes.Buffer
	f = readBoth(ctx, name, [2]*os.File{pipes[0][0], pipes[1][0]}, &bufs)
	if f == nil {
		select { // the output is closed: the CLI has exited, or is about to
		case <-p.exited:
		case <-ctx.Done():
		}
	}
	if left := p.end(a.grace); len(left) > 0 && f == nil {
		f = runner.Failf(runner.CauseSpawn, "%s left processes abcd could not end: %s", name, strings.Join(left, "; "))
	}
	_ = pipes[0][0].Close()
	_ = pipes[1][0].Close()
	if f != nil {
		return "", "", f
	}
	out, errOut := bufs[0].String(), bufs[1].String()
	if len(out) > maxCheckOutput || len(errOut) > maxCheckOutput {
		return "", "", runner.Failf(cause, "%s printed more than %d bytes", name, maxCheckOutput)
	}
	if code, sig := p.exit(); code != 0 {
		return "", "", runner.Failf(cause, "%s ended with %s: %s", name, exitWords(code, sig), text.Clip(lastLine(out+"\n"+errOut)))
	}
	return out, errOut, nil
}

// readBoth reads what a check's CLI prints on its two pipes, each up to one byte past the bound,
// until both close, the check's time runs out or it is interrupted.
func readBoth(ctx context.Context, name string, pipes [2]*os.File, bufs *[2]bytes.Buffer) *runner.Failure {
	read := make(chan error, 2)
	for i := range pipes {
		go func() {
			_, err := io.Copy(&bufs[i], io.LimitReader(pipes[i], maxCheckOutput+1))
			read <- err
		}()
	}
	for range 2 {
		select {
		case err := <-read:
			if err != nil {
				return runner.Failf(runner.CauseSpawn, "reading what %s printed: %s", name, pathless(err))
			}
		case <-ctx.Done():
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return runner.Failf(runner.CauseInterrupted, "the check was interrupted")
			}
			return runner.Failf(runner.CauseSpawn, "%s did not finish within %s", name, checkTimeout)
		}
	}
	return nil
}
