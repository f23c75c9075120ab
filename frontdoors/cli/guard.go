package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	guarduc "github.com/abcd-dev/abcd/ports/guard"
)

// MaxGuardInput bounds what guard check reads on stdin and what guard hook reads as the hook's
// payload. A longer command is read only up to here, and the guard blocks it as too large.
const MaxGuardInput = 1 << 20

// newGuardCmd is abcd guard: check, and the Claude Code PreToolUse hook over the same verb.
func newGuardCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	g := group("guard", "Check the commands an agent is about to run")
	allow := verbCommand(a, s, opts, "guard_allow", "allow [--revoke]", renderAllow,
		boolFlag("revoke", "", "withdraw this machine's allow of the repository's guard file"))
	allow.Long = "Allow the repository's .abcd/guard.json to weaken abcd's guard on this machine: it shows what the file\n" +
		"weakens and asks you, at your terminal, then records exactly these bytes at this path in\n" +
		"$ABCD_HOME/guard-allowed.json. Any change to the file needs a new allow. It refuses where nobody is at a\n" +
		"terminal (an agent's shell, MCP), and the guard blocks it inside an agent session. --revoke withdraws the allow."
	g.AddCommand(newGuardCheckCmd(a, s, opts), newGuardHookCmd(a, s), allow)
	return g
}

func renderAllow(s *IO, r guarduc.GuardAllowResult) string {
	var b strings.Builder
	switch {
	case r.Allowed:
		fmt.Fprintf(&b, "%s %s (sha256 %s)\n", s.bold("allowed"), r.File, r.SHA256)
		for _, w := range r.Weakens {
			fmt.Fprintf(&b, "  weakens: %s\n", w)
		}
	case len(r.Weakens) == 0 && r.SHA256 != "":
		fmt.Fprintf(&b, "%s needs no allow\n", r.File)
	case r.Changed:
		fmt.Fprintf(&b, "%s the allow of %s\n", s.bold("withdrew"), r.File)
	default:
		fmt.Fprintf(&b, "%s was not allowed here; nothing changed\n", r.File)
	}
	fmt.Fprintf(&b, "next: %s\n", r.Next)
	return b.String()
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
			data, err := readBounded(c.Context(), s.In, MaxGuardInput)
			if c.Context().Err() != nil {
				return inputInterrupted("guard check", c.Context().Err())
			}
			if err != nil {
				return refusal.New(refusal.CodeGuardInputUnreadable, "guard check", "could not read stdin: "+text.Clip(err.Error()), "pass the line with --command")
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

// guardRun runs the verb with the cwd defaulting to the process's own folder; a relative one is
// refused by the folder's own type, as docs/guard.md says.
func guardRun(c *cobra.Command, a *app.App, line, cwd string) (guarduc.GuardVerdict, error) {
	res, err := a.Run(c.Context(), "guard_check", &guarduc.GuardCheckInput{Command: guard.CommandLine(line), Cwd: guard.Folder(hookCwd(cwd))})
	if err != nil {
		return guarduc.GuardVerdict{}, err
	}
	return res.(guarduc.GuardVerdict), nil
}

// hookCwd is the folder a check runs in: the one given, else the process's own.
func hookCwd(cwd string) string {
	if cwd == "" {
		if wd, err := os.Getwd(); err == nil {
			return wd
		}
	}
	return cwd
}

// readBounded reads at most max+1 bytes, so a caller sees that there was more without reading it all.
// It returns ctx's error as soon as ctx ends (Ctrl-C, SIGTERM): a writer that never closes stdin
// does not keep the process alive after it is told to stop. The read left waiting ends with the
// process.
func readBounded(ctx context.Context, r io.Reader, max int) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	type read struct {
		data []byte
		err  error
	}
	got := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
		got <- read{data, err}
	}()
	select {
	case x := <-got:
		return x.data, x.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// inputInterrupted is the refusal for a command ended while it waited for its input on stdin: the
// caller's doing, not a fault of the input.
func inputInterrupted(what string, err error) error {
	return refusal.Busy(refusal.CodeInterrupted, what, "was ended by its caller ("+err.Error()+") while it waited for its input on stdin; nothing was done",
		"run it again, and close stdin once the input is written")
}

func renderGuard(v guarduc.GuardVerdict) string {
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

// hookPayload is what the harness writes on a hook's stdin, read by its exact keys: a key that is
// one of these in another case (Command beside command) is refused, never read in its place.
type hookPayload struct {
	HookEventName string
	ToolName      string
	ToolInput     map[string]json.RawMessage
	Cwd           string
}

// hookKeys are the payload's keys the hook reads, and tool_input's.
var (
	hookKeys  = []string{"hook_event_name", "tool_name", "tool_input", "cwd"}
	inputKeys = []string{"command", "file_path", "notebook_path", "path", "chars"}
)

// MaxHookDepth bounds the payload's nesting.
const MaxHookDepth = 64

// parseHookPayload reads a payload strictly: one JSON object (no key twice at any depth, nothing
// after it, valid UTF-8), its known keys by their exact spelling and type.
func parseHookPayload(data []byte) (hookPayload, error) {
	var p hookPayload
	if err := strictjson.CheckObject(data, strictjson.Limits{MaxBytes: MaxGuardInput, MaxDepth: MaxHookDepth}); err != nil {
		return p, fmt.Errorf("the hook payload is not one JSON object: %s", strictjson.Describe(err))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return p, fmt.Errorf("the hook payload is not a JSON object: %s", text.Clip(err.Error()))
	}
	if err := exactKeys(top, hookKeys, "the hook payload"); err != nil {
		return p, err
	}
	for key, dst := range map[string]*string{"hook_event_name": &p.HookEventName, "tool_name": &p.ToolName, "cwd": &p.Cwd} {
		if raw, ok := top[key]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return p, fmt.Errorf("the hook payload's %s is not a string", key)
			}
		}
	}
	if raw, ok := top["tool_input"]; ok {
		if err := json.Unmarshal(raw, &p.ToolInput); err != nil || p.ToolInput == nil {
			return p, fmt.Errorf("the hook payload's tool_input is not an object")
		}
		if err := exactKeys(p.ToolInput, inputKeys, "the tool input"); err != nil {
			return p, err
		}
	}
	return p, nil
}

// exactKeys refuses a key that spells one of keys in another case: the harness reads the exact
// key, so the guard must read the same one.
func exactKeys(obj map[string]json.RawMessage, keys []string, what string) error {
	for k := range obj {
		for _, want := range keys {
			if k != want && strings.EqualFold(k, want) {
				return fmt.Errorf("%s has the key %q beside or instead of %q: keys are read exactly as the harness reads them", what, text.Clip(k), want)
			}
		}
	}
	return nil
}

// inputString is a tool input's string field; present is false when it is absent, and an error
// when it is not a string.
func (p hookPayload) inputString(key string) (string, bool, error) {
	raw, ok := p.ToolInput[key]
	if !ok {
		return "", false, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", true, fmt.Errorf("the tool input's %s is not a string", key)
	}
	return v, true, nil
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
		Long: "The Claude Code PreToolUse hook for the Bash tool and the file tools (Write, Edit, MultiEdit, NotebookEdit;\n" +
			"Codex's apply_patch, file by file; each path as written and as its links resolve). Codex's write_stdin is read as\n" +
			"a command line. It reads the hook's JSON payload on stdin (at most 1 MiB)\n" +
			"and answers in the hook's own JSON: a deny with the reason for a blocked command, the warning as context\n" +
			"for a warned one, nothing for an allowed one (exit 0). A payload it cannot read exits 2 with the reason\n" +
			"on stderr, which Claude Code treats as a block. See docs/guard.md for Codex and Gemini CLI.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runHook(c, a, s)
		},
	}
}

// fileTools are the harness tools that write one file, by the key naming it: the guard checks the
// write as it checks a shell redirection to that file.
var fileTools = map[string]string{"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path",
	"write_file": "file_path", "replace": "file_path", "edit": "file_path"}

func runHook(c *cobra.Command, a *app.App, s *IO) error {
	fail := func(why string) error {
		fmt.Fprintf(s.Err, "abcd guard: blocked: %s\n", why)
		return exitCode(2)
	}
	data, err := readBounded(c.Context(), s.In, MaxGuardInput)
	if err != nil {
		return fail("could not read the hook payload: " + text.Clip(err.Error()))
	}
	if len(data) > MaxGuardInput {
		return fail(fmt.Sprintf("the hook payload is larger than %d bytes, so the command was not checked", MaxGuardInput))
	}
	p, err := parseHookPayload(data)
	if err != nil {
		return fail(err.Error())
	}
	// Claude Code and Codex send PreToolUse for their Bash tool (Codex for apply_patch too); Gemini CLI
	// sends BeforeTool for run_shell_command and reads its own answer (decision and reason).
	gemini := p.HookEventName == "BeforeTool"
	if p.HookEventName != "" && p.HookEventName != "PreToolUse" && !gemini {
		fmt.Fprintf(s.Err, "abcd guard: not checked: the %s event is not a hook before a tool runs\n", text.Clip(p.HookEventName))
		return geminiAllow(s, gemini)
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return fail(fmt.Sprintf("the hook's cwd %q is not an absolute path", text.Clip(p.Cwd)))
	}
	line, writes, what, err := hookLine(p, gemini)
	if err != nil {
		return fail(err.Error())
	}
	if what == "" {
		fmt.Fprintf(s.Err, "abcd guard: not checked: tool %q is not a shell command or a file write\n", text.Clip(p.ToolName))
		return geminiAllow(s, gemini)
	}
	if writes == nil && strings.TrimSpace(line) == "" {
		return geminiAllow(s, gemini) // nothing runs
	}
	var v guarduc.GuardVerdict
	if writes != nil {
		v, err = a.GuardWrites(c.Context(), hookCwd(p.Cwd), writes)
	} else {
		v, err = guardRun(c, a, line, p.Cwd)
	}
	if err != nil {
		doc := refusal.DocumentOf(err)
		return fail(doc.What + ": " + doc.Why)
	}
	if gemini {
		return geminiAnswer(s, v, what)
	}
	return claudeAnswer(s, v, what)
}

// hookLine is what the hook checks: the shell tool's command line, or, for a tool that writes files,
// the writes it makes (the guard reads each as the line that makes it, links on the way followed).
// what is "command" or "write"; empty for a tool the guard does not check.
func hookLine(p hookPayload, gemini bool) (line string, writes []guard.Write, what string, err error) {
	shellTool := (!gemini && p.ToolName == "Bash") || (gemini && p.ToolName == "run_shell_command")
	if shellTool {
		cmd, present, err := p.inputString("command")
		if err != nil || !present {
			return "", nil, "", fmt.Errorf("the shell tool's input has no command string")
		}
		return cmd, nil, "command", nil
	}
	if !gemini && p.ToolName == "write_stdin" {
		// Codex typing into a command it started: what it types is run by whatever reads it, a shell
		// at worst, so it is checked as a command line.
		chars, present, err := p.inputString("chars")
		if err != nil || !present {
			return "", nil, "", fmt.Errorf("the write_stdin tool's input has no chars string")
		}
		return chars, nil, "command", nil
	}
	if !gemini && p.ToolName == "apply_patch" {
		patch, present, err := p.inputString("command")
		if err != nil || !present {
			return "", nil, "", fmt.Errorf("the apply_patch tool's input has no command string")
		}
		writes, err := patchWrites(patch)
		return "", writes, "write", err
	}
	key, ok := fileTools[p.ToolName]
	if !ok {
		return "", nil, "", nil
	}
	file, present, err := p.inputString(key)
	if err != nil || !present || file == "" {
		return "", nil, "", fmt.Errorf("the %s tool's input has no %s string", text.Clip(p.ToolName), key)
	}
	return "", []guard.Write{{Path: file}}, "write", nil
}

// patchWrites is what a Codex apply_patch does: each file the patch adds, updates or moves to is a
// write to it, each it deletes a removal, each path as Codex reads it and as written. A patch the
// guard cannot read (no file, a header it cannot parse) is refused, so it is blocked.
func patchWrites(patch string) ([]guard.Write, error) {
	files, err := guard.PatchFiles(patch)
	if err != nil {
		return nil, fmt.Errorf("the apply_patch tool's patch was not checked: %w", err)
	}
	writes := make([]guard.Write, 0, len(files))
	for _, f := range files {
		writes = append(writes, guard.Write{Path: f.Path, Remove: f.Remove})
	}
	return writes, nil
}

// claudeAnswer is the PreToolUse answer Claude Code and Codex read: a deny with the reason for a
// block, the warning as context for a warning, and the rules' notices as a message to the person.
func claudeAnswer(s *IO, v guarduc.GuardVerdict, what string) error {
	var out hookOutput
	out.HookSpecificOutput.HookEventName = "PreToolUse"
	switch v.Decision {
	case "block":
		out.HookSpecificOutput.PermissionDecision = "deny"
		out.HookSpecificOutput.PermissionDecisionReason = fmt.Sprintf("abcd guard blocked this %s (rule %s): %s. Safer: %s", what, v.Rule, v.Why, v.Safer)
	case "warn":
		out.SystemMessage = fmt.Sprintf("abcd guard warns (rule %s): %s", v.Rule, v.Why)
		out.HookSpecificOutput.AdditionalContext = fmt.Sprintf("abcd guard warns about this %s (rule %s): %s. Safer: %s", what, v.Rule, v.Why, v.Safer)
	}
	if len(v.Notices) > 0 {
		out.SystemMessage = strings.TrimSpace(out.SystemMessage + "\nabcd guard: " + strings.Join(v.Notices, "\nabcd guard: "))
	}
	if v.Decision == "allow" && len(v.Notices) == 0 {
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
// system message for a warning and for the rules' notices.
func geminiAnswer(s *IO, v guarduc.GuardVerdict, what string) error {
	out := map[string]string{}
	switch v.Decision {
	case "block":
		out["decision"] = "deny"
		out["reason"] = fmt.Sprintf("abcd guard blocked this %s (rule %s): %s. Safer: %s", what, v.Rule, v.Why, v.Safer)
	case "warn":
		out["systemMessage"] = fmt.Sprintf("abcd guard warns (rule %s): %s. Safer: %s", v.Rule, v.Why, v.Safer)
	}
	if len(v.Notices) > 0 {
		out["systemMessage"] = strings.TrimSpace(out["systemMessage"] + "\nabcd guard: " + strings.Join(v.Notices, "\nabcd guard: "))
	}
	enc, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = s.Out.Write(append(enc, '\n'))
	return err
}
