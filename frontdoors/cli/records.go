package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/record"
)

// readyExit ends abcd intent ready with 1 when the intent does not pass the gate, so a script or CI
// gates on it as on lint; the document is its result, not a refusal.
func readyExit(r record.IntentReadyResult) error {
	if !r.Ready {
		return exitCode(1)
	}
	return nil
}

// recordCommands are the record's verbs: intent, spec, issue, decision, capture and lint.
func recordCommands(a *app.App, s *IO, opts *options) []*cobra.Command {
	intent := group("intent", "Intents: what should exist, why, for whom, and what good looks like")
	intent.AddCommand(
		verbCommand(a, s, opts, "intent_new", "new TITLE", renderCreated, arg("title")),
		verbCommand(a, s, opts, "intent_list", "list", renderList, lifecycleFlag()),
		verbCommand(a, s, opts, "intent_show", "show REF", renderIntentShow, arg("ref")),
		verbCommandExit(a, s, opts, "intent_ready", "ready REF", renderReady, readyExit, arg("ref")),
		verbCommand(a, s, opts, "intent_plan", "plan REF", renderPlan, arg("ref")),
		verbCommand(a, s, opts, "intent_ship", "ship REF [--merged]", renderMove, arg("ref"), mergedFlag()),
		verbCommand(a, s, opts, "intent_audit", "audit REF", renderStep, arg("intent"),
			textFlag("base", "the commit the delivered changes start from (default: build.base, else the repository's default branch)"), routeFlag()),
	)
	spec := group("spec", "Specs: how an intent is built, step by step")
	spec.AddCommand(
		verbCommand(a, s, opts, "spec_new", "new --intent REF TITLE", renderCreated, arg("title"),
			textFlag("intent", "the intent this spec implements (id, unique id prefix or slug fragment)")),
		verbCommand(a, s, opts, "spec_list", "list", renderList, lifecycleFlag()),
		verbCommand(a, s, opts, "spec_show", "show REF", renderSpecShow, arg("ref")),
		verbCommand(a, s, opts, "spec_close", "close REF [--merged]", renderMove, arg("ref"), mergedFlag()),
	)
	capture := verbCommand(a, s, opts, "capture", "capture TEXT", renderCreated, arg("text"),
		textFlag("severity", "critical, major, minor or trivial").withDefault("minor"),
		textFlag("source", "who or what noticed it (default: abcd capture)"),
		listFlag("related", "related", "a related record (repeatable)"))

	issue := group("issue", "Issues: things noticed")
	issue.AddCommand(
		verbCommand(a, s, opts, "issue_list", "list", renderList, lifecycleFlag()),
		verbCommand(a, s, opts, "issue_show", "show REF", renderRecordShow, arg("ref")),
		verbCommand(a, s, opts, "issue_close", "close REF --why TEXT", renderMove, arg("ref"), textFlag("why", "why it is closed (required)")),
	)
	decision := group("decision", "Decisions: rulings with their reasons and what they supersede")
	decision.AddCommand(
		verbCommand(a, s, opts, "decision_new", "new TITLE", renderCreated, arg("title"),
			listFlag("supersedes", "supersedes", "a decision this one supersedes (repeatable)")),
		verbCommand(a, s, opts, "decision_list", "list", renderList),
		verbCommand(a, s, opts, "decision_show", "show REF", renderRecordShow, arg("ref")),
	)

	lint := verbCommandExit(a, s, opts, "lint", "lint [--changed REV | --staged]", func(_ *IO, r record.LintResult) string { return renderLint(r) },
		func(r record.LintResult) error {
			if r.Errors > 0 {
				return exitCode(1)
			}
			return nil
		},
		textFlag("changed", "check only the record files that differ from this commit (with files git does not track yet): for CI, e.g. --changed origin/main"),
		boolFlag("staged", "", "check only the record files staged for the next commit: for a pre-commit or pre-merge-commit hook"))
	return []*cobra.Command{intent, spec, capture, issue, decision, lint, recordGroup(a, s, opts)}
}

func lifecycleFlag() field { return textFlag("lifecycle", "only this lifecycle folder") }

func renderCreated(s *IO, r record.RecordCreated) string {
	return fmt.Sprintf("%s %s %q\n  %s\nnext: %s\n", s.bold("created"), r.Record.ID, r.Record.Title, r.Record.Path, r.Next.Text)
}

func renderList(s *IO, r record.RecordListResult) string {
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

func renderSections(b *strings.Builder, ss []record.SectionView) {
	for _, sec := range ss {
		fmt.Fprintf(b, "\n## %s\n", sec.Heading)
		if body := strings.TrimSpace(sec.Body); body != "" {
			fmt.Fprintf(b, "%s\n", body)
		}
	}
}

func renderIntentShow(s *IO, r record.IntentShowResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q (%s, %s, %s)\n  %s\n", s.bold("intent"), r.Intent.ID, r.Intent.Title, r.Intent.Lifecycle, r.Kind, r.Intent.Severity, r.Intent.Path)
	for _, sp := range r.Specs {
		fmt.Fprintf(&b, "  spec %s %q (%s)\n", sp.ID, sp.Title, sp.Lifecycle)
	}
	renderSections(&b, r.Sections)
	return b.String()
}

func renderSpecShow(s *IO, r record.SpecShowResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q (%s, implements %s)\n  %s\n", s.bold("spec"), r.Spec.ID, r.Spec.Title, r.Spec.Lifecycle, r.Spec.Implements, r.Spec.Path)
	fmt.Fprintf(&b, "%s\n", text.Count(len(r.Steps), "step", "steps"))
	renderSections(&b, r.Sections)
	return b.String()
}

func renderRecordShow(s *IO, r record.RecordShowResult) string {
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

func renderReady(s *IO, r record.IntentReadyResult) string {
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

func renderPlan(s *IO, r record.IntentPlanResult) string {
	return fmt.Sprintf("%s %s: %s -> %s\n%s %s %q\n  %s\nnext: %s\n", s.bold("planned"), r.Intent.ID, r.From, r.To, s.bold("created spec"), r.Spec.ID, r.Spec.Title, r.Spec.Path, r.Next.Text)
}

func renderMove(s *IO, r record.MoveResult) string {
	return fmt.Sprintf("%s %s is %s\n  %s -> %s\n", s.bold("moved"), r.Record.ID, r.Record.Lifecycle, r.From, r.To)
}

func renderLint(r record.LintResult) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s:%d: %s: %s [%s]\n", f.File, f.Line, f.Level, f.Message, f.Code)
		if f.Remedy != "" {
			fmt.Fprintf(&b, "    remedy: %s\n", f.Remedy)
		}
	}
	fmt.Fprintf(&b, "%s checked: %s, %s\n", text.Count(r.Checked, "record", "records"), text.Count(r.Errors, "error", "errors"), text.Count(r.Warnings, "warning", "warnings"))
	return b.String()
}

// recordGroup holds the verbs that mend the record as a whole after a team's merges.
func recordGroup(a *app.App, s *IO, opts *options) *cobra.Command {
	g := group("record", "Mend the record after branches merged: a move to finish, an id to renumber")
	g.AddCommand(
		verbCommand(a, s, opts, "record_finish_move", "finish-move ID", renderFinishMove, arg("ref")),
		verbCommand(a, s, opts, "record_renumber", "renumber FILE", renderRenumber, arg("file")),
		verbCommand(a, s, opts, "record_finish_merge", "finish-merge", renderFinishMerge),
	)
	return g
}

func renderFinishMove(s *IO, r record.RecordFinishMoveResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s is %s\n  kept %s\n", s.bold("finished the move:"), r.Record.ID, r.Record.Lifecycle, r.Record.Path)
	for _, p := range r.Removed {
		fmt.Fprintf(&b, "  removed %s\n", p)
	}
	return b.String()
}

func renderRenumber(s *IO, r record.RecordRenumberResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s is now %s\n  %s -> %s\n", s.bold("renumbered"), r.OldID, r.Record.ID, r.From, r.Record.Path)
	for _, p := range r.Rewritten {
		fmt.Fprintf(&b, "  rewrote its id in %s\n", p)
	}
	for _, p := range r.Unsure {
		fmt.Fprintf(&b, "  check %s: it names %s, and git cannot tell which of the two records it means\n", p, r.OldID)
	}
	return b.String()
}

func renderFinishMerge(s *IO, r record.RecordFinishMergeResult) string {
	var b strings.Builder
	if len(r.Settled)+len(r.Carried)+len(r.Left) == 0 {
		return "nothing to settle: git holds no unmerged record file\n"
	}
	for _, c := range r.Carried {
		fmt.Fprintf(&b, "carried %s's change from %s into %s\n", c.ID, c.From, c.To)
	}
	for _, p := range r.Settled {
		fmt.Fprintf(&b, "settled %s\n", p)
	}
	for _, p := range r.Left {
		fmt.Fprintf(&b, "%s %s\n", s.bold("left:"), p)
	}
	if len(r.Left) == 0 {
		b.WriteString("next: git commit to finish the merge, then abcd lint\n")
	}
	return b.String()
}

// mergedFlag is spec close's and intent ship's: the run's integration reached this branch another way.
func mergedFlag() field {
	return boolFlag("merged", "", "the run's integration reached this branch another way (a squash or a rebase), where git's history cannot show it")
}
