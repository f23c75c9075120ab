package runner_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
	domain "github.com/abcd-dev/abcd/domain/runner"
)

var sessionID = regexp.MustCompile(`session ID (\d+)`)

// TestHarnessCodexOffersNoInteractiveShell: Codex's interactive sessions (exec_command with a tty,
// then write_stdin typing into it) would run commands the guard's hook never sees. A model that asks
// for one gets no shell it can type into, and what it would have typed is never run.
func TestHarnessCodexOffersNoInteractiveShell(t *testing.T) {
	for _, c := range clis(t) {
		if c.kind != domain.Codex {
			continue
		}
		c.model = c.editModel
		for name, start := range map[string]map[string]any{
			"a tty":  {"cmd": "bash", "tty": true, "yield_time_ms": 500},
			"no tty": {"cmd": "bash", "yield_time_ms": 500},
			"a pipe": {"cmd": "sleep 1; bash -s", "yield_time_ms": 200},
			"python": {"cmd": "python3 -i", "tty": true, "yield_time_ms": 500},
			// a shell the guard lets start (exec replaces the command's own shell), so only the
			// missing terminal stops the typing
			"exec bash": {"cmd": "exec bash", "tty": true, "yield_time_ms": 500},
		} {
			t.Run(name, func(t *testing.T) { interactive(t, c, start) })
		}
	}
}

func interactive(t *testing.T, c cli, start map[string]any) {
	typed := "mkdir -p .abcd; printf '{}' > " + guardFile + "; echo DONE; exit\n"
	w := newHarness(t, c, func(string) []runnertest.Reply { return nil })
	w.api.Route(
		runnertest.Rule{When: []string{"call_02"}, Reply: runnertest.Reply{Text: "Done."}},
		runnertest.Rule{When: []string{"call_01"}, Make: func(body string) runnertest.Reply {
			id := "1000"
			if m := sessionID.FindStringSubmatch(body); m != nil {
				id = m[1]
			}
			return runnertest.Reply{Tools: []runnertest.ToolCall{{ID: "call_02", Name: "write_stdin", Input: map[string]any{"session_id": atoi(t, id), "chars": typed, "yield_time_ms": 1000}}}}
		}},
		runnertest.Rule{Reply: runnertest.Reply{Tools: []runnertest.ToolCall{{ID: "call_01", Name: "exec_command", Input: start}}}},
	)
	o := w.step(t, domain.PolicyImplement, nil)
	assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
	assert.Check(t, is.Equal(w.api.Count(), 3), "the model was answered for its shell and its typing")
	assert.Check(t, !strings.Contains(requestText(w.api, 2), `\nDONE`), "what the model typed ran: %s", requestText(w.api, 2))
	_, err := os.Stat(filepath.Join(w.work, guardFile))
	assert.Check(t, os.IsNotExist(err), "the guard file was written through an interactive shell")
}

func atoi(t *testing.T, id string) int {
	n, err := strconv.Atoi(id)
	assert.NilError(t, err)
	return n
}

// TestHarnessCodexPatchThroughItsShell: Codex applies a patch run through its shell tool itself
// (apply_patch with a heredoc, or after a cd), so the guard reads the command as the patch it is.
func TestHarnessCodexPatchThroughItsShell(t *testing.T) {
	for _, c := range clis(t) {
		if c.kind != domain.Codex {
			continue
		}
		c.model = c.editModel
		for name, cmd := range map[string]string{
			"heredoc":  "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: " + guardFile + "\n+{}\n*** End Patch\nEOF\n",
			"after cd": "mkdir -p .abcd && cd .abcd && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: guard.json\n+{}\n*** End Patch\nEOF\n",
			"indented": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ok.txt\n+x\n  *** Add File: " + guardFile + " \n+{}\n*** End Patch\nEOF\n",
		} {
			t.Run(name, func(t *testing.T) {
				w := newHarness(t, c, func(string) []runnertest.Reply {
					return []runnertest.Reply{{Tools: []runnertest.ToolCall{{ID: "call_01", Name: "exec_command", Input: map[string]any{"cmd": cmd}}}}, {Text: "Done."}}
				})
				o := w.step(t, domain.PolicyImplement, nil)
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
				assert.Check(t, is.Contains(requestText(w.api, 1), "(rule guard-file-write)"), "the guard's hook blocked the patch")
				_, err := os.Stat(filepath.Join(w.work, guardFile))
				assert.Check(t, os.IsNotExist(err), "the guard file was written by a patch run through the shell")
			})
		}
	}
}

// TestHarnessCodexCodeModeToolsPassTheGuard: a model of Codex's catalog gets its tools inside one
// JavaScript tool (exec, "code mode"); the tools that script calls pass the guard's hook as the
// same tools called directly do.
func TestHarnessCodexCodeModeToolsPassTheGuard(t *testing.T) {
	for _, c := range clis(t) {
		if c.kind != domain.Codex {
			continue
		}
		c.model = c.editModel
		for name, js := range map[string]string{
			"shell": "const r = await tools.exec_command({cmd: \"mkdir -p .abcd && printf '{}' > " + guardFile + "\"}); text(JSON.stringify(r));",
			"patch": "const r = await tools.exec_command({cmd: \"apply_patch <<'EOF'\\n*** Begin Patch\\n*** Add File: " + guardFile + "\\n+{}\\n*** End Patch\\nEOF\\n\"}); text(JSON.stringify(r));",
		} {
			t.Run(name, func(t *testing.T) {
				w := newHarness(t, c, func(string) []runnertest.Reply {
					return []runnertest.Reply{{Tools: []runnertest.ToolCall{{ID: "call_01", Name: "exec", Input: js}}}, {Text: "Done."}}
				})
				o := w.step(t, domain.PolicyImplement, nil)
				assert.Check(t, is.Equal(o.Receipt.Outcome, domain.Completed), "%+v", o.Failure)
				assert.Check(t, is.Contains(requestText(w.api, 1), "abcd guard blocked this command (rule guard-file-write)"))
				_, err := os.Stat(filepath.Join(w.work, guardFile))
				assert.Check(t, os.IsNotExist(err), "the guard file was written through code mode")
			})
		}
	}
}
