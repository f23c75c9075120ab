package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
)

// recordCommands are the record's verbs: intent, spec, issue, decision, capture and lint.
func recordCommands(a *app.App, s *IO, opts *options) []*cobra.Command {
	intent := group("intent", "Intents: what should exist, why, for whom, and what good looks like")
	intent.AddCommand(
		titleCmd(a, s, opts, "intent_new", "new TITLE"),
		listCmd(a, s, opts, "intent_list", true),
		refCmd(a, s, opts, "intent_show", "show REF", renderIntentShow),
		refCmd(a, s, opts, "intent_ready", "ready REF", renderReady),
		refCmd(a, s, opts, "intent_plan", "plan REF", renderPlan),
		refCmd(a, s, opts, "intent_ship", "ship REF", renderMove),
		intentAuditCmd(a, s, opts),
	)
	spec := group("spec", "Specs: how an intent is built, step by step")
	specNew := command("spec_new", "new --intent REF TITLE")
	specIn := &app.SpecNewInput{}
	specNew.Flags().StringVar(&specIn.Intent, "intent", "", "the intent this spec implements (id, unique id prefix or slug fragment)")
	specNew.Args = exactArgs(1)
	specNew.RunE = func(cmd *cobra.Command, args []string) error {
		if specIn.Intent == "" {
			return usageRefusal(cmd, "needs --intent naming the intent the spec implements")
		}
		specIn.Title = args[0]
		return runAndEmit(cmd, a, s, opts, "spec_new", specIn, renderCreated)
	}
	spec.AddCommand(specNew,
		listCmd(a, s, opts, "spec_list", true),
		refCmd(a, s, opts, "spec_show", "show REF", renderSpecShow),
		refCmd(a, s, opts, "spec_close", "close REF", renderMove),
	)

	capture := command("capture", "capture TEXT")
	capIn := &app.CaptureInput{}
	capture.Flags().StringVar(&capIn.Severity, "severity", "minor", "critical, major, minor or trivial")
	capture.Flags().StringVar(&capIn.Source, "source", "", "who or what noticed it (default: abcd capture)")
	capture.Flags().StringArrayVar(&capIn.Related, "related", nil, "a related record (repeatable)")
	capture.Args = exactArgs(1)
	capture.RunE = func(cmd *cobra.Command, args []string) error {
		capIn.Text = args[0]
		return runAndEmit(cmd, a, s, opts, "capture", capIn, renderCreated)
	}

	issue := group("issue", "Issues: things noticed")
	issueClose := command("issue_close", "close REF --why TEXT")
	closeIn := &app.IssueCloseInput{}
	issueClose.Flags().StringVar(&closeIn.Why, "why", "", "why it is closed (required)")
	issueClose.Args = exactArgs(1)
	issueClose.RunE = func(cmd *cobra.Command, args []string) error {
		if closeIn.Why == "" {
			return usageRefusal(cmd, `needs --why saying why the issue is closed`)
		}
		closeIn.Ref = args[0]
		return runAndEmit(cmd, a, s, opts, "issue_close", closeIn, renderMove)
	}
	issue.AddCommand(listCmd(a, s, opts, "issue_list", true), refCmd(a, s, opts, "issue_show", "show REF", renderRecordShow), issueClose)

	decision := group("decision", "Decisions: rulings with their reasons and what they supersede")
	decNew := command("decision_new", "new TITLE")
	decIn := &app.DecisionNewInput{}
	decNew.Flags().StringArrayVar(&decIn.Supersedes, "supersedes", nil, "a decision this one supersedes (repeatable)")
	decNew.Args = exactArgs(1)
	decNew.RunE = func(cmd *cobra.Command, args []string) error {
		decIn.Title = args[0]
		return runAndEmit(cmd, a, s, opts, "decision_new", decIn, renderCreated)
	}
	decision.AddCommand(decNew, listCmd(a, s, opts, "decision_list", false), refCmd(a, s, opts, "decision_show", "show REF", renderRecordShow))

	lint := command("lint", "lint")
	lint.RunE = func(cmd *cobra.Command, _ []string) error {
		res, err := a.Run(cmd.Context(), "lint", &app.EmptyInput{})
		if err != nil {
			return err
		}
		r := res.(app.LintResult)
		if err := emit(s, opts, r, func() string { return renderLint(r) }); err != nil {
			return err
		}
		if r.Errors > 0 {
			return exitCode(1)
		}
		return nil
	}
	return []*cobra.Command{intent, spec, capture, issue, decision, lint}
}

func runAndEmit[R any](cmd *cobra.Command, a *app.App, s *IO, opts *options, verb string, in any, render func(*IO, R) string) error {
	res, err := a.Run(cmd.Context(), verb, in)
	if err != nil {
		return err
	}
	r := res.(R)
	return emit(s, opts, r, func() string { return render(s, r) })
}

func titleCmd(a *app.App, s *IO, opts *options, verb, use string) *cobra.Command {
	cmd := command(verb, use)
	cmd.Args = exactArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runAndEmit(cmd, a, s, opts, verb, &app.TitleInput{Title: args[0]}, renderCreated)
	}
	return cmd
}

func listCmd(a *app.App, s *IO, opts *options, verb string, lifecycle bool) *cobra.Command {
	cmd := command(verb, "list")
	if !lifecycle {
		cmd.RunE = func(cmd *cobra.Command, _ []string) error {
			return runAndEmit(cmd, a, s, opts, verb, &app.EmptyInput{}, renderList)
		}
		return cmd
	}
	in := &app.LifecycleInput{}
	cmd.Flags().StringVar(&in.Lifecycle, "lifecycle", "", "only this lifecycle folder")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runAndEmit(cmd, a, s, opts, verb, in, renderList)
	}
	return cmd
}

func refCmd[R any](a *app.App, s *IO, opts *options, verb, use string, render func(*IO, R) string) *cobra.Command {
	cmd := command(verb, use)
	cmd.Args = exactArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runAndEmit(cmd, a, s, opts, verb, &app.RefInput{Ref: args[0]}, render)
	}
	return cmd
}

func renderCreated(s *IO, r app.RecordCreated) string {
	return fmt.Sprintf("%s %s %q\n  %s\nnext: %s\n", s.bold("created"), r.Record.ID, r.Record.Title, r.Record.Path, r.Next)
}

func renderList(s *IO, r app.RecordListResult) string {
	var b strings.Builder
	if len(r.Records) == 0 {
		b.WriteString("none\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "ID\tLIFECYCLE\tTITLE\n")
		for _, rec := range r.Records {
			lc := rec.Lifecycle
			if lc == "" {
				lc = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", rec.ID, lc, rec.Title)
		}
		_ = tw.Flush()
		header, rest, _ := strings.Cut(b.String(), "\n")
		b.Reset()
		b.WriteString(s.bold(header) + "\n" + rest)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "problem: %s: %s\n", p.Path, p.Problem)
	}
	return b.String()
}

func renderSections(b *strings.Builder, ss []app.SectionView) {
	for _, sec := range ss {
		fmt.Fprintf(b, "\n## %s\n", sec.Heading)
		if body := strings.TrimSpace(sec.Body); body != "" {
			fmt.Fprintf(b, "%s\n", body)
		}
	}
}

func renderIntentShow(s *IO, r app.IntentShowResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q (%s, %s, %s)\n  %s\n", s.bold("intent"), r.Intent.ID, r.Intent.Title, r.Intent.Lifecycle, r.Kind, r.Intent.Severity, r.Intent.Path)
	for _, sp := range r.Specs {
		fmt.Fprintf(&b, "  spec %s %q (%s)\n", sp.ID, sp.Title, sp.Lifecycle)
	}
	renderSections(&b, r.Sections)
	return b.String()
}

func renderSpecShow(s *IO, r app.SpecShowResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q (%s, implements %s)\n  %s\n", s.bold("spec"), r.Spec.ID, r.Spec.Title, r.Spec.Lifecycle, r.Spec.Implements, r.Spec.Path)
	fmt.Fprintf(&b, "steps: %d\n", len(r.Steps))
	renderSections(&b, r.Sections)
	return b.String()
}

func renderRecordShow(s *IO, r app.RecordShowResult) string {
	var b strings.Builder
	lc := r.Record.Lifecycle
	if lc == "" {
		lc = r.Record.Date
	}
	fmt.Fprintf(&b, "%s %q (%s)\n  %s\n", s.bold(r.Record.ID), r.Record.Title, lc, r.Record.Path)
	if len(r.Related) > 0 {
		fmt.Fprintf(&b, "  related: %s\n", strings.Join(r.Related, ", "))
	}
	renderSections(&b, r.Sections)
	return b.String()
}

func renderReady(s *IO, r app.IntentReadyResult) string {
	var b strings.Builder
	verdict := "not ready"
	if r.Ready {
		verdict = "ready"
	}
	fmt.Fprintf(&b, "%s %s: %s\n", s.bold("intent"), r.Intent.ID, verdict)
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %-20s %s\n", mark, c.Name, c.Detail)
		if !c.OK && c.Remedy != "" {
			fmt.Fprintf(&b, "       remedy: %s\n", c.Remedy)
		}
	}
	return b.String()
}

func renderPlan(s *IO, r app.IntentPlanResult) string {
	return fmt.Sprintf("%s %s: %s -> %s\n%s %s %q\n  %s\n", s.bold("planned"), r.Intent.ID, r.From, r.To, s.bold("created spec"), r.Spec.ID, r.Spec.Title, r.Spec.Path)
}

func renderMove(s *IO, r app.MoveResult) string {
	return fmt.Sprintf("%s %s is %s\n  %s -> %s\n", s.bold("moved"), r.Record.ID, r.Record.Lifecycle, r.From, r.To)
}

func renderLint(r app.LintResult) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s:%d: %s: %s [%s]\n", f.File, f.Line, f.Level, f.Message, f.Code)
		if f.Remedy != "" {
			fmt.Fprintf(&b, "    remedy: %s\n", f.Remedy)
		}
	}
	fmt.Fprintf(&b, "%d records checked: %d errors, %d warnings\n", r.Checked, r.Errors, r.Warnings)
	return b.String()
}
