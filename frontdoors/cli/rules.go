package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/rules"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	rulesuc "github.com/abcd-dev/abcd/ports/rules"
)

// MaxRulesHookInput bounds the hook's payload: a prompt abcd reads (1 MiB) and the fields around it.
const MaxRulesHookInput = rules.MaxPromptInputBytes + 64<<10

// newRulesCmd is abcd rules [DOMAIN], with show, match and the prompt hook beneath it.
func newRulesCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	list := verbCommand(a, s, opts, "rules", "rules [DOMAIN]", renderRules, optArg("domain"))
	list.Long = "List the rule domains in force over the three layers (abcd's bundled domains, $ABCD_HOME/rules.json and\n" +
		"the repository's .abcd/rules.json): where each was defined, its recall words and aliases, and how many rules\n" +
		"it holds. See docs/rules.md."
	show := verbCommand(a, s, opts, "rules_show", "show [DOMAIN] [--prompt TEXT]", renderRulesShow, optArg("domain"),
		textFlag("prompt", "say why this prompt would or would not bring each domain"))
	match := verbCommand(a, s, opts, "rules_match", "match --prompt TEXT", renderRulesMatch,
		textFlag("prompt", "the prompt (default: read from stdin)"))
	match.Long = "Show the rules a prompt calls for: the domains it brings in and why, the context the prompt hook injects\n" +
		"within the budget, and what the budget left out. The prompt comes from --prompt, or from stdin."
	run := match.RunE
	match.RunE = func(c *cobra.Command, args []string) error {
		if !c.Flags().Changed("prompt") {
			if s.InTTY {
				return usageRefusal(c, "needs the prompt in --prompt or on stdin")
			}
			data, err := readBounded(c.Context(), s.In, rules.MaxPromptInputBytes)
			if c.Context().Err() != nil {
				return inputInterrupted("rules match", c.Context().Err())
			}
			if err != nil {
				return refusal.New(refusal.CodeRulesPromptUnreadable, "rules match", "could not read stdin: "+text.Clip(err.Error()), "pass the prompt with --prompt")
			}
			if err := c.Flags().Set("prompt", string(data)); err != nil {
				return err
			}
		}
		return run(c, args)
	}
	list.AddCommand(show, match, newRulesHookCmd(a, s))
	return list
}

func renderRules(s *IO, r rulesuc.RulesResult) string {
	var b strings.Builder
	renderRulesState(&b, r.RulesState)
	if len(r.Domains) == 0 {
		b.WriteString("no domains\n")
		return b.String()
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "DOMAIN\tRULES\tLAYER\tSTATE\tRECALLED BY\n")
	for _, d := range r.Domains {
		state := "active"
		if d.Dormant {
			state = "dormant (*" + d.Name + ")"
		}
		if d.Guardrail {
			state += ", guardrail"
		}
		words := append(append([]string{}, d.Recall...), d.Aliases...)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", d.Name, d.Rules, d.Layer, state, clipList(words, 60))
	}
	_ = tw.Flush()
	header, rest, _ := strings.Cut(table.String(), "\n")
	b.WriteString(s.bold(header) + "\n" + rest)
	fmt.Fprintf(&b, "%d rules in %d domains; abcd rules show DOMAIN prints a domain's rules with where each came from\n", r.Total, len(r.Domains))
	return b.String()
}

func renderRulesState(b *strings.Builder, st rulesuc.RulesState) {
	for _, f := range st.Files {
		present := "absent"
		if f.Present {
			present = "read"
		}
		fmt.Fprintf(b, "%-10s %s (%s)\n", f.Layer, f.Path, present)
	}
	if st.Inject.On {
		fmt.Fprintf(b, "injection  on; budget %d bytes and %d rules a prompt\n", st.Budget.Bytes, st.Budget.Rules)
	} else {
		fmt.Fprintf(b, "injection  off: %s sets inject false\n", st.Inject.Origin)
	}
	for _, n := range st.Notices {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	b.WriteString("\n")
}

// clipList joins words up to about max bytes, saying how many more there are.
func clipList(words []string, max int) string {
	var b strings.Builder
	for i, w := range words {
		if b.Len() > 0 && b.Len()+len(w) > max {
			fmt.Fprintf(&b, ", +%d", len(words)-i)
			break
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w)
	}
	return b.String()
}

func renderRulesShow(s *IO, r rulesuc.RulesShowResult) string {
	var b strings.Builder
	renderRulesState(&b, r.RulesState)
	for i, d := range r.Domains {
		if i > 0 {
			b.WriteString("\n")
		}
		kind := ""
		if d.Guardrail {
			kind = ", a bundled guardrail"
		}
		fmt.Fprintf(&b, "%s  (from %s%s)\n", s.bold(d.Name), d.Origin, kind)
		if d.Dormant {
			fmt.Fprintf(&b, "  dormant (set by %s): only *%s brings it in\n", d.DormantFrom.Origin, d.Name)
		}
		if d.Match != nil {
			verdict := "does not come"
			if d.Match.Comes {
				verdict = "comes"
			}
			fmt.Fprintf(&b, "  with this prompt: %s: %s\n", verdict, d.Match.Why)
		}
		var words []string
		for _, w := range d.Recall {
			words = append(words, w.Word)
		}
		if len(words) > 0 {
			fmt.Fprintf(&b, "  recalled by: %s\n", strings.Join(words, ", "))
		}
		words = words[:0]
		for _, w := range d.Aliases {
			words = append(words, w.Word)
		}
		if len(words) > 0 {
			fmt.Fprintf(&b, "  aliases: %s\n", strings.Join(words, ", "))
		}
		for _, rule := range d.Rules {
			from := rule.Layer
			if rule.Replaces != nil {
				from += ", replacing " + rule.Replaces.Layer + "'s"
			}
			mark := ""
			if d.Match != nil && contains(d.Match.Rules, rule.ID) {
				mark = " *"
			}
			fmt.Fprintf(&b, "  %s%s [%s]: %s\n", rule.ID, mark, from, rule.Text)
			if len(rule.Recall) > 0 {
				fmt.Fprintf(&b, "      only with: %s\n", strings.Join(rule.Recall, ", "))
			}
		}
		for _, rule := range d.Dropped {
			fmt.Fprintf(&b, "  %s [%s] dropped by %s: %s\n", rule.ID, rule.GivenBy.Layer, rule.DroppedBy.Origin, rule.Text)
		}
	}
	if len(r.Unknown) > 0 {
		fmt.Fprintf(&b, "\nno domain is named: %s\n", strings.Join(r.Unknown, ", "))
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func renderRulesMatch(s *IO, r rulesuc.RulesMatchResult) string {
	var b strings.Builder
	for _, n := range r.Notices {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if len(r.Matched) == 0 {
		b.WriteString("no domain comes with this prompt\n")
	}
	for _, m := range r.Matched {
		fmt.Fprintf(&b, "%s: %s\n", s.bold(m.Domain), m.Why)
		for _, rule := range m.Rules {
			mark := "  +"
			if !rule.Included {
				mark = "  -"
			}
			fmt.Fprintf(&b, "%s %s: %s\n", mark, rule.ID, rule.Text)
		}
	}
	for _, a := range r.Asleep {
		fmt.Fprintf(&b, "%s is dormant (its words %s are in the prompt): *%s brings it in\n", a.Domain, strings.Join(a.Words, ", "), a.Domain)
	}
	if len(r.Unknown) > 0 {
		fmt.Fprintf(&b, "no domain is named: %s\n", strings.Join(r.Unknown, ", "))
	}
	switch {
	case !r.Inject.On:
		fmt.Fprintf(&b, "\ninjection is off (%s sets inject false): the hook hands the prompt nothing\n", r.Inject.Origin)
	case r.Context != "":
		fmt.Fprintf(&b, "\nthe hook injects (%d bytes of %d, %d rules of %d; + injected, - left out):\n%s", len(r.Context), r.Budget.Bytes, len(r.Included), r.Budget.Rules, r.Context)
	}
	if r.Truncated {
		fmt.Fprintf(&b, "only the prompt's first %d bytes were read for words\n", rules.MaxPromptBytes)
	}
	return b.String()
}

// rulesHookPayload is what Claude Code (UserPromptSubmit) and Gemini CLI (BeforeAgent) write on the
// hook's stdin; the fields it does not read are ignored.
type rulesHookPayload struct {
	HookEventName string  `json:"hook_event_name"`
	Prompt        *string `json:"prompt"`
	Cwd           string  `json:"cwd"`
}

// rulesHookOutput is the hook's answer, the shape both harnesses read from stdout on exit 0.
type rulesHookOutput struct {
	SystemMessage      string               `json:"systemMessage,omitempty"`
	HookSpecificOutput *rulesHookSpecificUP `json:"hookSpecificOutput,omitempty"`
}

type rulesHookSpecificUP struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// newRulesHookCmd is the prompt hook: Claude Code's UserPromptSubmit and Gemini CLI's BeforeAgent.
// It never blocks a prompt: rules that cannot be read are said to the person (systemMessage) and to
// the agent (as context), and a payload it cannot read is a non-blocking hook error (exit 1).
func newRulesHookCmd(a *app.App, s *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "hook",
		Short: "The prompt hook (Claude Code UserPromptSubmit, Gemini CLI BeforeAgent): inject the rules a prompt calls for",
		Long: "The hook Claude Code runs on UserPromptSubmit and Gemini CLI on BeforeAgent. It reads the hook's JSON payload\n" +
			"on stdin (at most about 1 MiB), matches the prompt against the rules in force in the repository holding the\n" +
			"payload's cwd, and answers in the hook's JSON with the matched rules as additional context, within the budget.\n" +
			"It prints nothing when no rule matches or injection is off. It never blocks a prompt. See docs/rules.md.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runRulesHook(c, a, s) },
	}
}

func runRulesHook(c *cobra.Command, a *app.App, s *IO) error {
	// One short process per prompt, its memory bounded by the payload's bound and the files': a
	// collection would only cost the prompt time.
	debug.SetGCPercent(-1)
	fail := func(why string) error {
		fmt.Fprintf(s.Err, "abcd rules: no rules injected: %s\n", why)
		return exitCode(1) // a non-blocking hook error in both harnesses: the prompt goes on
	}
	data, err := readBounded(c.Context(), s.In, MaxRulesHookInput)
	if err != nil {
		return fail("could not read the hook payload: " + text.Clip(err.Error()))
	}
	if len(data) > MaxRulesHookInput {
		return fail(fmt.Sprintf("the hook payload is larger than %d bytes", MaxRulesHookInput))
	}
	var p rulesHookPayload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return fail("the hook payload is not a JSON object: " + text.Clip(err.Error()))
	}
	if dec.More() {
		return fail("the hook payload has content after its JSON object")
	}
	gemini := p.HookEventName == "BeforeAgent"
	event := p.HookEventName
	if event == "" {
		event = "UserPromptSubmit"
	}
	if event != "UserPromptSubmit" && !gemini {
		return fail(fmt.Sprintf("the %s event is not a prompt's", text.Clip(p.HookEventName)))
	}
	if p.Prompt == nil {
		return fail("the hook payload has no prompt")
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return fail(fmt.Sprintf("the hook's cwd %q is not an absolute path", text.Clip(p.Cwd)))
	}
	core := a
	if p.Cwd != "" && a.Reroot != nil {
		core = a.Reroot(filepath.Clean(p.Cwd))
	}
	prompt := plainPrompt(*p.Prompt)
	out := rulesHookOutput{}
	r, err := core.RulesHook(c.Context(), &rulesuc.RulesMatchInput{Prompt: rules.PromptText(prompt)})
	if err != nil {
		if _, ok := refusal.As(err); !ok {
			return err
		}
		doc := refusal.DocumentFor(err, newSpelling(c.Root()))
		msg := fmt.Sprintf("abcd rules were not read, so this prompt was handed none: %s: %s", doc.What, doc.Why)
		fmt.Fprintln(s.Err, msg)
		out.SystemMessage = msg + " (" + doc.Remedy + ")"
		out.HookSpecificOutput = &rulesHookSpecificUP{HookEventName: event,
			AdditionalContext: "abcd rules: this repository's rules could not be read (" + doc.What + "), so no conventions came with this prompt."}
		return writeHookJSON(s, out)
	}
	if len(r.Notices) > 0 {
		out.SystemMessage = "abcd rules: " + strings.Join(r.Notices, "; ")
	}
	if r.Context != "" {
		out.HookSpecificOutput = &rulesHookSpecificUP{HookEventName: event, AdditionalContext: r.Context}
	}
	if out.SystemMessage == "" && out.HookSpecificOutput == nil {
		if gemini {
			_, err := fmt.Fprintln(s.Out, "{}") // Gemini CLI reads JSON from stdout on exit 0
			return err
		}
		return nil
	}
	return writeHookJSON(s, out)
}

func writeHookJSON(s *IO, out rulesHookOutput) error {
	enc, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = s.Out.Write(append(enc, '\n'))
	return err
}

// plainPrompt is a harness's prompt as the rules read it: line breaks as \n, any other hidden
// character (a terminal escape, a bidirectional control) as a space, invalid bytes dropped, and no
// more than rules.MaxPromptInputBytes. A prompt is matched for its words, so nothing is lost.
func plainPrompt(s string) string {
	if len(s) > rules.MaxPromptInputBytes {
		s = s[:rules.MaxPromptInputBytes]
	}
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\r\n", "\n"), "")
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == 0x200d || text.Hidden(r) == "" {
			return r
		}
		return ' '
	}, s)
}
