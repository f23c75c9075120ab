package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
)

// MaxGuardInput bounds what guard check reads on stdin and what guard hook reads as the hook's
// payload. A longer command is read only up to here, and the guard blocks it as too large.
const MaxGuardInput = 1 << 20

// newGuardCmd is abcd guard: check, and the Claude Code PreToolUse hook over the same verb.
func newGuardCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	g := group("guard", "Check the commands an agent is about to run")
	g.AddCommand(newGuardCheckCmd(a, s, opts), newGuardHookCmd(a, s))
	return g
}

func newGuardCheckCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	var line, cwd string
	cmd := command("guard_check", "check [--command LINE] [--cwd DIR]")
	cmd.Long = "Check one command line before an agent runs it. The line comes from --command, or from stdin.\n" +
		"Exit 0: allow or warn; 1: block; 2: the input was refused, so nothing was checked."
	cmd.Flags().StringVar(&line, "command", "", "the command line to check (default: read from stdin)")
	cmd.Flags().StringVar(&cwd, "cwd", "", "the absolute folder the line runs in (default: the current folder)")
	// How the command spells its verb's fields, for a remedy that names the command to run.
	cmd.Annotations["flags"] = "command=command,cwd=cwd"
	cmd.RunE = func(c *cobra.Command, _ []string) error {
		if !c.Flags().Changed("command") {
			if s.InTTY {
				return usageRefusal(c, "needs the command line in --command or on stdin")
			}
			data, err := readBounded(s.In, MaxGuardInput)
			if err != nil {
				return refusal.New("guard_input_unreadable", "guard check", "could not read stdin: "+text.Clip(err.Error()), "pass the line with --command")
			}
			line = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		}
		v, err := guardRun(c, a, line, cwd)
		if err != nil {
			return err
		}
		if err := emit(s, opts, v, func() string { return renderGuard(v) }); err != nil {
			return err
		}
		if v.Decision == "block" {
			return exitCode(1)
		}
		return nil
	}
	return cmd
}

// guardRun runs the verb with the cwd defaulting to the process's own folder.
func guardRun(c *cobra.Command, a *app.App, line, cwd string) (app.GuardVerdict, error) {
	if cwd == "" {
		if wd, err := os.Getwd(); err == nil {
			cwd = wd
		}
	} else if !filepath.IsAbs(cwd) {
		if abs, err := filepath.Abs(cwd); err == nil {
			cwd = abs
		}
	}
	res, err := a.Run(c.Context(), "guard_check", &app.GuardCheckInput{Command: guard.CommandLine(line), Cwd: guard.Folder(cwd)})
	if err != nil {
		return app.GuardVerdict{}, err
	}
	return res.(app.GuardVerdict), nil
}

// readBounded reads at most max+1 bytes, so a caller sees that there was more without reading it all.
func readBounded(r io.Reader, max int) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	return io.ReadAll(io.LimitReader(r, int64(max)+1))
}

func renderGuard(v app.GuardVerdict) string {
	var b strings.Builder
	if v.Decision == "allow" {
		b.WriteString("allow\n")
	} else {
		fmt.Fprintf(&b, "%s: %s\n", v.Decision, v.Command)
		certain := "certain"
		if !v.Certain {
			certain = "rests on a value not known until it runs"
		}
		fmt.Fprintf(&b, "  rule:  %s (%s)\n  why:   %s\n  safer: %s\n", v.Rule, certain, v.Why, v.Safer)
		if len(v.Via) > 0 {
			fmt.Fprintf(&b, "  via:   %s\n", strings.Join(v.Via, " › "))
		}
		for _, f := range v.Findings[1:min(len(v.Findings), 8)] {
			if f.Rule != v.Rule || f.Command != v.Command {
				fmt.Fprintf(&b, "  also:  %s %s: %s\n", f.Tier, f.Rule, f.Command)
			}
		}
	}
	for _, n := range v.Notices {
		fmt.Fprintf(&b, "  note:  %s\n", n)
	}
	return b.String()
}

// hookPayload is what Claude Code writes on a PreToolUse hook's stdin; fields it adds are ignored.
type hookPayload struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Cwd           string          `json:"cwd"`
}

// hookOutput is the hook's answer: a PreToolUse decision Claude Code reads from stdout on exit 0.
type hookOutput struct {
	SystemMessage      string         `json:"systemMessage,omitempty"`
	HookSpecificOutput hookSpecificPT `json:"hookSpecificOutput"`
}

type hookSpecificPT struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// newGuardHookCmd speaks Claude Code's PreToolUse hook protocol: block is a deny with the reason the
// agent reads, warn lets the command run with the warning as context, allow prints nothing. A payload
// it cannot read exits 2, which Claude Code takes as a block with stderr as the reason; a tool it
// does not check runs, and stderr says it was not checked.
func newGuardHookCmd(a *app.App, s *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "hook",
		Short: "The Claude Code PreToolUse hook: read the hook's JSON on stdin, answer in its decision format",
		Long: "The Claude Code PreToolUse hook for the Bash tool. It reads the hook's JSON payload on stdin (at most 1 MiB)\n" +
			"and answers in the hook's own JSON: a deny with the reason for a blocked command, the warning as context\n" +
			"for a warned one, nothing for an allowed one (exit 0). A payload it cannot read exits 2 with the reason\n" +
			"on stderr, which Claude Code treats as a block. See docs/guard.md for Codex and Gemini CLI.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runHook(c, a, s)
		},
	}
}

func runHook(c *cobra.Command, a *app.App, s *IO) error {
	fail := func(why string) error {
		fmt.Fprintf(s.Err, "abcd guard: blocked: %s\n", why)
		return exitCode(2)
	}
	data, err := readBounded(s.In, MaxGuardInput)
	if err != nil {
		return fail("could not read the hook payload: " + text.Clip(err.Error()))
	}
	if len(data) > MaxGuardInput {
		return fail(fmt.Sprintf("the hook payload is larger than %d bytes, so the command was not checked", MaxGuardInput))
	}
	var p hookPayload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return fail("the hook payload is not a JSON object: " + text.Clip(err.Error()))
	}
	if dec.More() {
		return fail("the hook payload has content after its JSON object")
	}
	// Claude Code and Codex send PreToolUse for their Bash tool; Gemini CLI sends BeforeTool for
	// run_shell_command and reads its own answer (decision and reason).
	gemini := p.HookEventName == "BeforeTool"
	if p.HookEventName != "" && p.HookEventName != "PreToolUse" && !gemini {
		fmt.Fprintf(s.Err, "abcd guard: not checked: the %s event is not a hook before a tool runs\n", text.Clip(p.HookEventName))
		return geminiAllow(s, gemini)
	}
	if (!gemini && p.ToolName != "Bash") || (gemini && p.ToolName != "run_shell_command") {
		fmt.Fprintf(s.Err, "abcd guard: not checked: tool %q is not a shell command\n", text.Clip(p.ToolName))
		return geminiAllow(s, gemini)
	}
	var input struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(p.ToolInput, &input); err != nil || input.Command == nil {
		return fail("the Bash tool input has no command string")
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return fail(fmt.Sprintf("the hook's cwd %q is not an absolute path", text.Clip(p.Cwd)))
	}
	if strings.TrimSpace(*input.Command) == "" {
		return geminiAllow(s, gemini) // nothing runs
	}
	v, err := guardRun(c, a, *input.Command, p.Cwd)
	if err != nil {
		doc := refusal.DocumentOf(err)
		return fail(doc.What + ": " + doc.Why)
	}
	if gemini {
		return geminiAnswer(s, v)
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = "PreToolUse"
	switch v.Decision {
	case "block":
		out.HookSpecificOutput.PermissionDecision = "deny"
		out.HookSpecificOutput.PermissionDecisionReason = fmt.Sprintf("abcd guard blocked this command (rule %s): %s. Safer: %s", v.Rule, v.Why, v.Safer)
	case "warn":
		out.SystemMessage = fmt.Sprintf("abcd guard warns (rule %s): %s", v.Rule, v.Why)
		out.HookSpecificOutput.AdditionalContext = fmt.Sprintf("abcd guard warns about this command (rule %s): %s. Safer: %s", v.Rule, v.Why, v.Safer)
	default:
		return nil
	}
	enc, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = s.Out.Write(append(enc, '\n'))
	return err
}

// geminiAllow answers Gemini CLI, which reads JSON from stdout on exit 0, with an empty decision.
func geminiAllow(s *IO, gemini bool) error {
	if !gemini {
		return nil
	}
	_, err := fmt.Fprintln(s.Out, "{}")
	return err
}

// geminiAnswer is Gemini CLI's BeforeTool answer: decision deny with the reason for a block, a
// system message for a warning.
func geminiAnswer(s *IO, v app.GuardVerdict) error {
	out := map[string]string{}
	switch v.Decision {
	case "block":
		out["decision"] = "deny"
		out["reason"] = fmt.Sprintf("abcd guard blocked this command (rule %s): %s. Safer: %s", v.Rule, v.Why, v.Safer)
	case "warn":
		out["systemMessage"] = fmt.Sprintf("abcd guard warns (rule %s): %s. Safer: %s", v.Rule, v.Why, v.Safer)
	}
	enc, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = s.Out.Write(append(enc, '\n'))
	return err
}
