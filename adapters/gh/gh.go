// Package gh implements ports.Forge with the person's own GitHub CLI and its login: abcd holds no
// token of its own, and runs gh as the person would, never prompting, bounded in time.
package gh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/ports"
)

// Timeout bounds each gh call: a login check or a pull request crosses the network.
const Timeout = 2 * time.Minute

// GH runs gh in Dir (the repository).
type GH struct {
	Dir string
	// Exe is gh's path; "" looks it up on PATH when called.
	Exe string
}

var _ ports.Forge = GH{}

func (g GH) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	exe := g.Exe
	if exe == "" {
		if exe, err = exec.LookPath("gh"); err != nil {
			return "", "", fmt.Errorf("%w: %w", ports.ErrForgeMissing, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = g.Dir
	// Never a prompt nobody can answer, a pager, colour or an update check in what abcd reads.
	cmd.Env = append(cmd.Environ(), "GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "GH_SPINNER_DISABLED=1",
		"GH_PAGER=cat", "PAGER=cat", "NO_COLOR=1", "CLICOLOR=0", "GIT_TERMINAL_PROMPT=0")
	cmd.WaitDelay = 5 * time.Second
	out, errOut := bounded{max: 64 << 10}, bounded{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	stdout, stderr = scrubTokens(out.String()), scrubTokens(strings.TrimSpace(errOut.String()))
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return stdout, stderr, fmt.Errorf("%w: gh %s took longer than %s", ports.ErrForgeFailed, args[0], Timeout)
	case errors.Is(err, exec.ErrNotFound):
		return "", "", fmt.Errorf("%w: %w", ports.ErrForgeMissing, err)
	}
	return stdout, stderr, err
}

// Check asks gh whether it is logged in to host: gh auth status --hostname host.
func (g GH) Check(ctx context.Context, host string) error {
	stdout, stderr, err := g.run(ctx, "auth", "status", "--hostname", host)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%w to %s: %s", ports.ErrForgeLoggedOut, host, said(stdout, stderr))
	}
	return err
}

// OpenPR runs gh pr create with the repository, both branches, the title and the body's file, so gh
// neither pushes nor asks anything.
func (g GH) OpenPR(ctx context.Context, pr ports.PullRequest) (printed string, err error) {
	// The body goes in a file of abcd's own (0600, removed after), never on the command line.
	dir, err := os.MkdirTemp("", "abcd-pr-")
	if err != nil {
		return "", err
	}
	defer func() {
		if rmErr := os.RemoveAll(dir); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	body := filepath.Join(dir, "body.md")
	if err := os.WriteFile(body, []byte(pr.Body), 0o600); err != nil {
		return "", err
	}
	stdout, stderr, err := g.run(ctx, "pr", "create", "--repo", pr.Repo, "--head", pr.Head, "--base", pr.Base,
		"--title", pr.Title, "--body-file", body)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout, fmt.Errorf("%w (exit %d): %s", ports.ErrForgeFailed, ee.ExitCode(), said(stdout, stderr))
	}
	return stdout, err
}

// tokenVars are the variables gh takes a token from: whatever gh says, their values never reach
// abcd's output.
var tokenVars = []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}

func scrubTokens(s string) string {
	for _, name := range tokenVars {
		if v := strings.TrimSpace(os.Getenv(name)); len(v) >= 4 {
			s = strings.ReplaceAll(s, v, "[key]")
		}
	}
	return s
}

// said is what gh said, on one line: its error first.
func said(stdout, stderr string) string {
	s := strings.TrimSpace(stderr + "\n" + stdout)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 600 {
		cut := 600
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// bounded keeps at most max bytes, and drops the rest without failing gh's write.
type bounded struct {
	buf bytes.Buffer
	max int
}

func (b *bounded) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (b *bounded) String() string { return b.buf.String() }
