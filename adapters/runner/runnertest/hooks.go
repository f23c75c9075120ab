package runnertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The fake CLI loads abcd's settings as the CLI it plays does, and runs abcd's start-up hook from
// them as that CLI does when a session starts: Claude Code's from the file --settings names (its
// answer written in the stream as hook events before what follows), Gemini CLI's from the user
// settings of its home (GEMINI_CLI_HOME; its answer heads the next user message), Codex's from the
// hooks its --config flag sets (its answer goes nowhere: the hook writes its marker itself). A script
// without the SessionStart directive plays a CLI that ignored abcd's settings.

// GuardFailVar makes the fake's guard hook refuse every payload (exit 2), as a guard that cannot run
// where the CLI runs its hooks would.
const GuardFailVar = "FAKE_GUARD_FAIL"

// GuardBlockVar holds words, separated by |, for which the fake's guard hook answers a deny (a
// payload holding one), as abcd's guard denies a force push: the real guard is proven through the
// built binary.
const GuardBlockVar = "FAKE_GUARD_BLOCK"

// FakeGuard acts as abcd's guard hook when the test binary is started as one (its arguments guard
// hook): it reads the payload and allows it. It reports whether it acted.
func fakeGuard() (int, bool) {
	if len(os.Args) != 3 || os.Args[1] != "guard" || os.Args[2] != "hook" {
		return 0, false
	}
	payload, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake guard:", err)
		return 2, true
	}
	if os.Getenv(GuardFailVar) != "" {
		fmt.Fprintln(os.Stderr, "fake guard: refused")
		return 2, true
	}
	for _, word := range strings.Split(os.Getenv(GuardBlockVar), "|") {
		if word != "" && strings.Contains(string(payload), word) {
			fmt.Println(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"fake guard blocks ` + word + `"}}`)
			return 0, true
		}
	}
	return 0, true
}

// hookRun is one start-up hook the fake ran: what it printed and how it exited.
type hookRun struct {
	stdout string
	code   int
}

// startHooks runs the session-start hooks of the settings the CLI named by cli was given.
func startHooks(cli string) ([]hookRun, error) {
	cmds, err := startCommands(cli)
	if err != nil {
		return nil, err
	}
	wd, _ := os.Getwd()
	payload, _ := json.Marshal(map[string]string{"hook_event_name": "SessionStart", "session_id": "sess-1", "source": "startup", "cwd": wd})
	var runs []hookRun
	for _, c := range cmds {
		cmd := exec.Command("/bin/sh", "-c", c)
		cmd.Stdin = bytes.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		code := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				return nil, err
			}
			code = ee.ExitCode()
		}
		runs = append(runs, hookRun{stdout: out.String(), code: code})
	}
	return runs, nil
}

// settingsHooks is the hooks member of Claude Code's and Gemini CLI's settings.
type settingsHooks struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// codexCommand is a hook's command in Codex's --config TOML: a basic string, JSON's escapes.
var codexCommand = regexp.MustCompile(`command=("(?:[^"\\]|\\.)*")`)

// startCommands are the session-start hook commands the CLI's settings hold, as that CLI finds them.
func startCommands(cli string) ([]string, error) {
	var file string
	switch cli {
	case "claude":
		for _, a := range os.Args[1:] {
			if v, ok := strings.CutPrefix(a, "--settings="); ok {
				file = v
			}
		}
	case "gemini":
		file = filepath.Join(os.Getenv("GEMINI_CLI_HOME"), ".gemini", "settings.json")
	case "codex":
		var out []string
		for _, a := range os.Args[1:] {
			if v, ok := strings.CutPrefix(a, "--config=hooks="); ok {
				_, start, found := strings.Cut(v, "SessionStart=[")
				if !found {
					continue
				}
				for _, m := range codexCommand.FindAllStringSubmatch(start, 1) {
					var c string
					if err := json.Unmarshal([]byte(m[1]), &c); err != nil {
						return nil, err
					}
					out = append(out, c)
				}
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("no CLI %q whose settings the fake knows", cli)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var s settingsHooks
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	var out []string
	for _, group := range s.Hooks["SessionStart"] {
		for _, h := range group.Hooks {
			out = append(out, h.Command)
		}
	}
	return out, nil
}

// startLines are the lines the CLI writes for its start-up hooks: Claude Code's hook events, or the
// context Gemini CLI puts before the prompt (read from each hook's answer), as given to withPrompt.
func startLines(cli string, runs []hookRun) (lines []string, context string) {
	for _, r := range runs {
		switch cli {
		case "claude":
			outcome := "success"
			if r.code != 0 {
				outcome = "error"
			}
			started, _ := json.Marshal(map[string]any{"type": "system", "subtype": "hook_started", "hook_event": "SessionStart",
				"hook_name": "SessionStart:startup", "session_id": "sess-1"})
			resp, _ := json.Marshal(map[string]any{"type": "system", "subtype": "hook_response", "hook_event": "SessionStart",
				"hook_name": "SessionStart:startup", "stdout": r.stdout, "output": r.stdout, "stderr": "", "exit_code": r.code, "outcome": outcome,
				"session_id": "sess-1"})
			lines = append(lines, string(started), string(resp))
		case "gemini":
			var a struct {
				HookSpecificOutput struct {
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if r.code == 0 && json.Unmarshal([]byte(r.stdout), &a) == nil && a.HookSpecificOutput.AdditionalContext != "" {
				context += a.HookSpecificOutput.AdditionalContext
			}
		}
	}
	return lines, context
}

// userMessage is Gemini CLI's first user message: the hooks' context, then the prompt.
func userMessage(context, prompt string) string {
	content := prompt
	if context != "" {
		content = "<hook_context>" + context + "</hook_context>\n\n" + prompt
	}
	b, _ := json.Marshal(map[string]string{"type": "message", "role": "user", "content": content})
	return string(b)
}
