package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	historyuc "github.com/abcd-dev/abcd/ports/history"
)

// MaxHistoryHookInput bounds the end-of-session and sub-agent-stop hooks' payload.
const MaxHistoryHookInput = 1 << 20

// newHistoryCmd is abcd history: capture, list, show, search, and the hook that captures.
func newHistoryCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	g := group("history", "The agents' sessions, kept on this machine, redacted, searchable")
	capture := verbCommand(a, s, opts, "history_capture", "capture [TRANSCRIPT] [--harness NAME] [--all]", renderCaptured, optArg("transcript"),
		textFlag("harness", "the harness that wrote the file: claude, codex or gemini (default: read from where it lies)"),
		boolFlag("all", "", "capture every session file on this machine whose session ran in this repository"))
	capture.Long = "Keep a harness session's transcript on this machine ($ABCD_HOME/history/<root commit>/), redacted of secrets,\n" +
		"the credentials abcd holds and your home path, then scanned again: a transcript in which anything survives is\n" +
		"refused and nothing of it is kept. The same transcript again changes nothing; a longer one of the same session\n" +
		"replaces the shorter. See docs/history.md."
	g.AddCommand(capture,
		verbCommand(a, s, opts, "history_list", "list [--run RUN] [--session ID] [--harness NAME] [--since DAY] [--until DAY] [--limit N]", renderHistoryList,
			textFlag("run", "only the sessions that served this run"), textFlag("session", "only this session (its id or key, or an id prefix) and its sub-agents"),
			textFlag("harness", "only this harness's sessions"),
			textFlag("since", "only sessions that started on or after this day (YYYY-MM-DD, UTC) or moment (RFC 3339)"),
			textFlag("until", "only sessions that started on or before this day (the whole day, UTC) or moment (RFC 3339)"),
			intFlag("limit", "at most this many (default 50, at most 500)")),
		verbCommand(a, s, opts, "history_show", "show SESSION [--raw]", renderHistoryShow, arg("session"),
			boolFlag("raw", "", "print the kept transcript (redacted JSON) instead of its messages")),
		verbCommand(a, s, opts, "history_search", "search QUERY [--limit N]", renderHistorySearch, arg("query"),
			intFlag("limit", "at most this many matches (default 50, at most 500)")),
		newHistoryHookCmd(a, s))
	return g
}

func renderCaptured(s *IO, r historyuc.HistoryCaptureResult) string {
	var b strings.Builder
	if len(r.Captured) == 0 {
		b.WriteString("no session file of this repository's sessions was found\n")
	}
	for _, c := range r.Captured {
		fmt.Fprintf(&b, "%s %s\n", s.bold(c.Outcome), c.Source)
		if c.Key != "" {
			fmt.Fprintf(&b, "  session %s, %d messages", c.Key, c.Messages)
			if len(c.Redactions) > 0 {
				fmt.Fprintf(&b, ", redacted: %s", countsText(c.Redactions))
			}
			b.WriteString("\n")
		}
		if c.Parent != "" {
			fmt.Fprintf(&b, "  a sub-agent of session %s\n", c.Parent)
		}
		if c.Lineage.Run != "" {
			fmt.Fprintf(&b, "  served %s, lane %s, %s%s\n", c.Lineage.Run, c.Lineage.Lane, c.Lineage.Step, awaitText(c.Lineage.Await))
		}
		if c.Why != "" {
			fmt.Fprintf(&b, "  %s\n", c.Why)
		}
	}
	for _, p := range r.Pruned {
		fmt.Fprintf(&b, "removed %s: history.max_mb reached\n", p)
	}
	return b.String()
}

func awaitText(id string) string {
	if id == "" {
		return ""
	}
	return " (await " + id + ")"
}

func countsText(c map[string]int) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

func renderHistoryList(s *IO, r historyuc.HistoryListResult) string {
	if len(r.Sessions) == 0 {
		return "no captured session\n"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "KEY\tSTARTED\tMESSAGES\tTITLE\n")
	for _, x := range r.Sessions {
		title := x.Title
		if x.Agent != "" {
			title = "↳ " + title
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", x.Key, x.Started, x.Messages, text.Clip(title))
	}
	_ = tw.Flush()
	header, rest, _ := strings.Cut(b.String(), "\n")
	return s.bold(header) + "\n" + rest
}

func renderHistoryShow(s *IO, r historyuc.HistoryShowResult) string {
	if r.Raw != "" {
		return r.Raw
	}
	var b strings.Builder
	x := r.Session
	fmt.Fprintf(&b, "%s  %s\n", s.bold(x.Key), x.Title)
	fmt.Fprintf(&b, "  %s, %s to %s, in %s, %d messages\n", x.Harness, x.Started, x.Ended, x.Cwd, x.Messages)
	if x.Parent != "" {
		fmt.Fprintf(&b, "  a sub-agent (%s) of session %s\n", x.AgentType, x.Parent)
	}
	if x.Lineage.Run != "" {
		fmt.Fprintf(&b, "  served %s, lane %s, %s%s\n", x.Lineage.Run, x.Lineage.Lane, x.Lineage.Step, awaitText(x.Lineage.Await))
	}
	if len(x.Redactions) > 0 {
		fmt.Fprintf(&b, "  redacted: %s\n", countsText(x.Redactions))
	}
	for _, k := range r.SubAgents {
		fmt.Fprintf(&b, "  sub-agent: %s\n", k)
	}
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "\n%s %s\n%s\n", s.bold(m.Role), m.At, m.Text)
	}
	return b.String()
}

func renderHistorySearch(s *IO, r historyuc.HistorySearchResult) string {
	if len(r.Hits) == 0 {
		return "nothing found\n"
	}
	var b strings.Builder
	for _, h := range r.Hits {
		fmt.Fprintf(&b, "%s #%d %s %s  %s\n  %s\n", s.bold(h.Key), h.Seq, h.Role, h.At, text.Clip(h.Title), strings.ReplaceAll(h.Snippet, "\n", " "))
	}
	return b.String()
}

// historyHookPayload is what the end-of-session and sub-agent-stop hooks write on stdin: Claude
// Code's SessionEnd and SubagentStop (agent_transcript_path), Codex's Stop, Gemini CLI's SessionEnd.
type historyHookPayload struct {
	HookEventName       string `json:"hook_event_name"`
	TranscriptPath      string `json:"transcript_path"`
	AgentTranscriptPath string `json:"agent_transcript_path"`
	Cwd                 string `json:"cwd"`
}

// newHistoryHookCmd hands the session file the hook names to a capture of its own, started apart
// from the harness, and returns at once: a harness does not wait long for these hooks (Gemini CLI
// not at all), and a long transcript takes longer to redact than they allow.
func newHistoryHookCmd(a *app.App, s *IO) *cobra.Command {
	var harness string
	var wait bool
	cmd := &cobra.Command{
		Use:   "hook --harness NAME",
		Short: "The end-of-session and sub-agent-stop hook: capture the session file the hook names, handed off so the harness never waits",
		Long: "The hook Claude Code runs on SessionEnd and SubagentStop, Codex on Stop and Gemini CLI on SessionEnd. It reads\n" +
			"the hook's JSON payload on stdin, and starts `abcd history capture` on the session file it names (the sub-agent's\n" +
			"own for SubagentStop) in the payload's folder, detached, and exits 0 at once. The capture writes what it did to\n" +
			"$ABCD_HOME/history/hook.log. See docs/history.md.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runHistoryHook(c, a, s, harness, wait)
		},
	}
	cmd.Flags().StringVar(&harness, "harness", "", "the harness running the hook: claude, codex or gemini")
	cmd.Flags().BoolVar(&wait, "wait", false, "capture in this process instead of handing off (for scripts and tests)")
	return cmd
}

func runHistoryHook(c *cobra.Command, a *app.App, s *IO, harness string, wait bool) error {
	gemini := harness == string(history.Gemini)
	fail := func(why string) error {
		fmt.Fprintf(s.Err, "abcd history: not captured: %s\n", why)
		return exitCode(1) // a non-blocking hook error: the harness goes on
	}
	if _, err := history.ParseHarness(harness); err != nil {
		return usageRefusal(c, "needs --harness claude, codex or gemini")
	}
	data, err := readBounded(c.Context(), s.In, MaxHistoryHookInput)
	if c.Context().Err() != nil {
		return fail("the hook was ended (" + c.Context().Err().Error() + ") before its payload was read")
	}
	if err != nil || len(data) > MaxHistoryHookInput {
		return fail("the hook payload could not be read within its bound")
	}
	var p historyHookPayload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return fail("the hook payload is not a JSON object: " + text.Clip(err.Error()))
	}
	path := p.TranscriptPath
	if p.AgentTranscriptPath != "" {
		path = p.AgentTranscriptPath // SubagentStop: the sub-agent's own transcript
	}
	switch {
	case path == "" || !filepath.IsAbs(path):
		return fail("the hook payload names no absolute transcript_path")
	case p.Cwd != "" && !filepath.IsAbs(p.Cwd):
		return fail("the hook's cwd is not an absolute path")
	}
	if wait {
		core := a
		if p.Cwd != "" && a.Reroot != nil {
			core = a.Reroot(filepath.Clean(p.Cwd))
		}
		_, err := core.Run(c.Context(), "history_capture", &historyuc.HistoryCaptureInput{Transcript: history.TranscriptPath(path), Harness: history.HarnessName(harness)})
		if err != nil {
			return err
		}
		return hookDone(s, gemini)
	}
	if err := handOff(path, harness, p.Cwd, a.Setup.MachinePath("history")); err != nil {
		return fail("the capture could not be started: " + text.Clip(err.Error()))
	}
	return hookDone(s, gemini)
}

// hookDone answers the harness: Gemini CLI reads JSON from stdout on exit 0.
func hookDone(s *IO, gemini bool) error {
	if gemini {
		_, err := fmt.Fprintln(s.Out, "{}")
		return err
	}
	return nil
}

// handOff starts `abcd history capture PATH --harness H` in dir, in a session of its own (so the
// harness's end does not end it), its output appended to hook.log in logDir ($ABCD_HOME/history),
// and does not wait for it.
func handOff(path, harness, dir, logDir string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "history", "capture", path, "--harness", harness)
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Stdin = nil
	log, err := hookLog(logDir)
	if err == nil {
		defer log.Close()
		cmd.Stdout, cmd.Stderr = log, log
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// hookLog is hook.log in dir, opened to append (never through a link), 0600 in a 0700 folder.
func hookLog(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return appendNoFollow(filepath.Join(dir, "hook.log"))
}
