package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/adapters/sandbox"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// The fence around a step (adapters/sandbox): the loop's policy, made whole for the step's own files,
// applied where the CLI is started. A step asked for no policy starts as it did before the fence.

// fencing is the fence one start is given; nil starts the process unconfined.
type fencing struct {
	fence  *sandbox.Fence
	policy ports.SandboxPolicy
}

// fence is the adapter's fence (Options.Sandbox, else one whose helper is the running executable).
func (a *Adapter) fence() *sandbox.Fence {
	if a.sandbox != nil {
		return a.sandbox
	}
	return sandbox.New(sandbox.Options{})
}

// fencing completes the step's policy: a private temporary folder made for the step when the loop
// gave none (removed by the cleanup), the runner's own endpoints when the policy names none (nil), the
// CLI's state folders under the settings home abcd gives it (the only state a step writes: the loop
// names none), the person's credential folders hidden (the fence hides those under the CLI's HOME,
// which is now abcd's home, not the person's), and shown, for reading, what the CLI needs wherever
// the policy hides it: its working folder, its executable, the step's private folder (abcd's
// settings, MCP configuration and schema for it, and the settings home) and abcd's guard hook. nil
// when the step asked for no fence or the person turned it off.
func (a *Adapter) fencing(req ports.RunnerStep, prep *Prepared) (*fencing, func(), error) {
	if req.Sandbox == nil || req.Sandbox.Off {
		return nil, func() {}, nil
	}
	p := *req.Sandbox
	if p.Endpoints == nil {
		p.Endpoints = Endpoints(req.Runner.CLI, prep.Env, req.Runner.Endpoints)
	}
	p.State = append(slices.Clone(p.State), req.Runner.CLI.StateFolders(prep.Home)...)
	p.Hide = append(slices.Clone(p.Hide), runner.CredentialFolders(envMap(a.environ())["HOME"])...)
	p.Show = append(slices.Clone(p.Show), req.Runner.Executable, prep.private)
	if req.Dir != "" {
		// A step with no folder of its own (a review of the checked-out branch) works where abcd
		// runs, which the fence does not hide.
		p.Show = append(p.Show, req.Dir)
		// The lane's worktree is git's only through the repository's git folder: shown (read-only) so
		// git works in the step wherever the repository sits (under /tmp, which the fence hides).
		if common := gitCommonDir(req.Dir); common != "" {
			p.Show = append(p.Show, common)
		}
	}
	if len(a.guard) > 0 {
		p.Show = append(p.Show, a.guard[0])
	}
	cleanup := func() {}
	if p.Temp == "" {
		if err := a.tempDir(); err != nil {
			return nil, nil, err
		}
		tmp, err := os.MkdirTemp(a.tempRoot(), "abcd-tmp-")
		if err != nil {
			return nil, nil, fmt.Errorf("making the step's temporary folder: %w", err)
		}
		// The step's private temporary folder, under abcd's own: removed best effort once the step
		// is over (the next step's folder is a new one, never this one).
		p.Temp, cleanup = tmp, func() { _ = os.RemoveAll(tmp) }
	}
	return &fencing{fence: a.fence(), policy: p}, cleanup, nil
}

// gitCommonDir is the git folder a linked worktree's .git file leads to (its commondir), "" when dir
// is no linked worktree or what its files say is not a clean absolute folder. abcd made the worktree,
// and a fenced step cannot write its .git (the policy keeps it read-only).
func gitCommonDir(dir string) string {
	link, err := readSmall(filepath.Join(dir, ".git"))
	own, ok := strings.CutPrefix(link, "gitdir: ")
	if err != nil || !ok || !filepath.IsAbs(own) {
		return ""
	}
	common, err := readSmall(filepath.Join(own, "commondir"))
	if err != nil || common == "" {
		return ""
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(own, common)
	}
	common = filepath.Clean(common)
	if st, err := os.Stat(common); err != nil || !st.IsDir() {
		return ""
	}
	return common
}

// readSmall reads a regular file of git's of at most 4 KiB, its text trimmed.
func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Size() > 4<<10 {
		return "", fmt.Errorf("%s is not a small file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, 4<<10))
	return strings.TrimSpace(string(data)), err
}

func (a *Adapter) tempRoot() string {
	if a.temp != "" {
		return a.temp
	}
	return os.TempDir()
}

// Endpoints are a runner's own endpoints: those its block names (declared, a base URL its CLI's own
// configuration sets) and the base URLs it is passed in its environment (each variable named
// *_BASE_URL holding an http or https URL: ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL,
// OPENAI_BASE_URL), else its vendor's API. A policy that names no endpoints (nil) is given these; one
// that names an empty list is given none.
func Endpoints(k runner.Kind, env []string, declared []runner.Endpoint) []runner.Endpoint {
	out := slices.Clone(declared)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasSuffix(name, "_BASE_URL") {
			continue
		}
		if e, err := runner.EndpointOf(value); err == nil && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		out = k.VendorEndpoints()
	}
	return out
}

// startFailure is why a fenced CLI could not start: a fence this machine cannot build is its own
// cause, naming what is missing (the step never runs unconfined in its place); a policy the fence
// refuses is the loop's fault, returned as an error.
func startFailure(err error) (*runner.Failure, error) {
	if u, ok := sandbox.IsUnavailable(err); ok {
		return runner.Failf(runner.CauseSandboxUnavailable, "%s", u.Error()), nil
	}
	var pe *sandbox.PolicyError
	if errors.As(err, &pe) {
		return nil, err
	}
	return runner.Failf(runner.CauseSpawn, "the CLI could not be started: %s", pathless(err)), nil
}

// sandboxReceipt is what the step's receipt records of its fence: the running fence's, or off.
func sandboxReceipt(req ports.RunnerStep, p *process) *runner.Sandbox {
	switch {
	case req.Sandbox == nil:
		return nil
	case req.Sandbox.Off:
		off := sandbox.Off()
		return &off
	case p != nil && p.fenced != nil:
		rc := p.fenced.Receipt()
		return &rc
	}
	return nil
}
