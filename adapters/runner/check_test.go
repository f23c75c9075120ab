package runner_test

import (
	"context"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/adapters/runner/claude"
	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

func TestThePreflightChecksTheVersionAndEveryFlag(t *testing.T) {
	w := newWorld(t)
	w.script(lines(initLine, `{"type":"assistant","message":{"id":"m","model":"claude-probe","content":[{"type":"text","text":"OK"}]}}`,
		strings.Replace(success, "All done.", "OK", 1))...)
	help := "Usage: claude [options]\n" + strings.Join(claude.Dialect{}.Flags(), " <x>\n  ")
	w.setEnv("FAKE_CLI_HELP", help)
	rep, err := w.a.Check(context.Background(), ports.RunnerCheck{Runner: w.r})
	assert.NilError(t, err)
	assert.Check(t, rep.Failure == nil, "%+v", rep.Failure)
	assert.Check(t, is.Equal(rep.Version, "2.1.332"))
	assert.Check(t, is.DeepEqual(rep.Flags, claude.Dialect{}.Flags()))
	assert.Check(t, is.Equal(rep.ModelReported, ""), "no call without Prove")

	rep, err = w.a.Check(context.Background(), ports.RunnerCheck{Runner: w.r, Prove: true})
	assert.NilError(t, err)
	assert.Check(t, rep.Failure == nil, "%+v", rep.Failure)
	assert.Check(t, is.Equal(rep.ModelReported, "claude-x"))

	w.setEnv("FAKE_CLI_HELP", strings.ReplaceAll(help, "--permission-prompts", "--permission-prompt-tool"))
	rep, err = w.a.Check(context.Background(), ports.RunnerCheck{Runner: w.r})
	assert.NilError(t, err)
	assert.Assert(t, rep.Failure != nil)
	assert.Check(t, is.Equal(rep.Failure.Cause, domain.CauseFlags))
	assert.Check(t, is.Contains(rep.Failure.Detail, "does not offer --permission-prompts, which abcd passes"))

	w.setEnv("FAKE_CLI_HELP", help)
	w.setEnv("FAKE_CLI_VERSION", "2.3.0 (Claude Code)")
	rep, err = w.a.Check(context.Background(), ports.RunnerCheck{Runner: w.r})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(rep.Failure.Cause, domain.CauseVersion))
	assert.Check(t, is.Contains(rep.Failure.Detail, "Claude Code is 2.3.0, outside the versions abcd knows (>= 2.1.328, < 2.2.0)"))
	assert.Check(t, is.Equal(rep.Version, "2.3.0"))

	w.setEnv("FAKE_CLI_VERSION", "2.1.332 (Claude Code)")
	w.script(lines(initLine, result("success", true, 401, "api_error"))...)
	rep, err = w.a.Check(context.Background(), ports.RunnerCheck{Runner: w.r, Prove: true})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(rep.Failure.Cause, domain.CauseAuth), "the proving call's own cause")

	r := w.r
	r.CLI = domain.OpenCode
	rep, err = w.a.Check(context.Background(), ports.RunnerCheck{Runner: r})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(rep.Failure.Cause, domain.CauseUnsupported))
	r = w.r
	r.Executable = "/nonexistent/claude"
	rep, err = w.a.Check(context.Background(), ports.RunnerCheck{Runner: r})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(rep.Failure.Cause, domain.CauseExecutable))
}

func TestMissingFlagsAreWholeWords(t *testing.T) {
	help := "  --tools <tools...>  x\n  --allowedTools, --allowed-tools <tools...>\n  -p, --print  y\n  --model-x"
	assert.Check(t, is.Len(runner.MissingFlags(help, []string{"--tools", "--allowedTools", "--print"}), 0))
	assert.Check(t, is.DeepEqual(runner.MissingFlags(help, []string{"--model", "--allowed", "--tool"}), []string{"--model", "--allowed", "--tool"}))
}
