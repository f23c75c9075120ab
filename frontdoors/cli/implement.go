package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	dloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/loop/prune"
)

// implementCommands are the build loop's verbs: implement start|step|receipt|status|record, and review.
func implementCommands(a *app.App, s *IO, opts *options) []*cobra.Command {
	impl := group("implement", "The build loop: a spec's steps as lanes, implemented and reviewed by fresh agents")
	impl.AddCommand(
		verbCommand(a, s, opts, "implement_start", "start SPEC", renderStep, arg("spec"),
			textFlag("base", "the commit lanes start from (default: build.base, else the repository's default branch)"),
			boolFlag("again", "", "start a run even though the spec has an unfinished one")),
		verbCommand(a, s, opts, "implement_step", "step", renderStep,
			textFlag("run", "the run (default: the newest unfinished one)"), routeFlag()),
		verbCommand(a, s, opts, "implement_receipt", "receipt PATH", renderStep, arg("path"),
			textFlag("run", "the run (default: the one the path is under)")),
		verbCommand(a, s, opts, "implement_status", "status", renderImplementStatus, textFlag("run", "only this run"),
			boolFlag("open", "", "only the runs not finished")),
		withOut(s, verbCommand(a, s, opts, "implement_record", "record", renderRecord, textFlag("run", "the run (default: the newest)"),
			boolFlag("markdown", "", "the story as markdown for a pull request or an issue, the lane graph as a Mermaid block"),
			boolFlag("html", "", "the story as one self-contained HTML page (no script, nothing fetched), the lane graph drawn as SVG"))),
		verbCommand(a, s, opts, "implement_abandon", "abandon", renderStep, textFlag("run", "the run (default: the one unfinished run)"),
			boolFlag("delete_branches", "", "delete the run's lane and integration branches too")),
		verbCommand(a, s, opts, "implement_prune", "prune", renderPrune, textFlag("run", "only this run (default: every run)"),
			boolFlag("unfinished", "", "abandon each unfinished run no invocation holds, then prune it too"),
			boolFlag("dry_run", "", "say what would be removed, and remove nothing")),
		verbCommandExit(a, s, opts, "implement_run", "run [SPEC]", renderRun, runExit, optArg("spec"),
			textFlag("run", "the run to go on with (default: the spec's unfinished run, else the one unfinished run)"),
			textFlag("base", "the commit a new run's lanes start from (default: build.base, else the repository's default branch)"), routeFlag(),
			textFlag("budget_usd", "US dollars the run may spend in all (default: build.budget.usd, else no bound)"),
			textFlag("budget_tokens", "input and output tokens the run may spend in all (default: build.budget.tokens)"),
			textFlag("budget_minutes", "minutes of its steps' wall time the run may spend in all (default: build.budget.minutes)"),
			textFlag("finish", "how the run ends once its audit passed: branch, merge (fast-forward) or pr (push, and a pull request with your gh) (default: build.finish, else branch)")),
	)
	rev := verbCommandExit(a, s, opts, "review", "review", renderStep, reviewExit,
		textFlag("role", "only this reviewer: ruthless-reviewer or security-reviewer (default: both)"),
		textFlag("base", "the commit the changes start from (default: build.base, else the repository's default branch)"), routeFlag(),
		boolFlag("new", "", "review the head again even though its review has ended (without it, that review is reported)"))
	return []*cobra.Command{impl, rev}
}

// reviewExit ends abcd review with 1 when the review it returns is finished and failed (a reviewer
// said FIX FIRST, BLOCK or NEEDS-INPUT, so the lane was handed back), so a script or CI gates on it;
// an unfinished review (awaits open for the harness) exits 0.
func reviewExit(r loop.StepResult) error {
	if !r.Run.Finished {
		return nil
	}
	for _, l := range r.Run.Lanes {
		if l.Stage == "handed-back" {
			return exitCode(1)
		}
	}
	return nil
}

func renderRunLine(b *strings.Builder, s *IO, r loop.RunView) {
	state := "in progress"
	if r.Finished {
		state = "finished"
		back := 0
		for _, l := range r.Lanes {
			if l.Stage == "handed-back" {
				back++
			}
		}
		if back > 0 {
			state += ", " + text.Count(back, "lane", "lanes") + " handed back"
		}
	}
	fmt.Fprintf(b, "%s %s (%s, %s)", s.bold("run"), r.Run, r.Kind, state)
	if r.Spec != "" {
		fmt.Fprintf(b, " spec %s", r.Spec)
	}
	if r.Intent != "" {
		fmt.Fprintf(b, " intent %s", r.Intent)
	}
	b.WriteString("\n")
	if r.Spend.Run.Steps > 0 {
		fmt.Fprintf(b, "  spent: %s\n", spendWords(r.Spend.Run))
	}
	for _, l := range r.Lanes {
		fmt.Fprintf(b, "  %-11s  %-11s round %d", l.ID, l.Stage, l.Round)
		if l.Failed > 0 {
			fmt.Fprintf(b, ", %d failed", l.Failed)
		}
		if l.Text != "" {
			fmt.Fprintf(b, "  %s", l.Text)
		}
		if l.KeptFrom != "" {
			fmt.Fprintf(b, "  (kept from %s)", l.KeptFrom)
		}
		b.WriteString("\n")
		if l.Stage == "handed-back" || l.Stage == "waiting" && l.Findings != "" {
			// Why it was handed back, or the merge by hand it waits for, where the person looks first.
			for _, line := range strings.Split(strings.TrimSpace(l.Findings), "\n") {
				if line = strings.TrimSpace(line); line != "" {
					fmt.Fprintf(b, "      %s\n", line)
				}
			}
		}
	}
	if f := r.Finish; f != nil && f.As == dloop.FinishPR {
		fmt.Fprintf(b, "  pull request: %s (%s pushed to %s at %s)\n", f.URL, f.Branch, f.Remote, dloop.Short(f.Head))
	} else if f != nil {
		fmt.Fprintf(b, "  fast-forwarded: %s to the integration's head %s\n", f.Branch, dloop.Short(f.Head))
	}
	for _, u := range r.Unfenced {
		fmt.Fprintf(b, "  sandbox off: %s ran unconfined\n", u)
	}
}

func renderStep(s *IO, r loop.StepResult) string {
	var b strings.Builder
	renderRunLine(&b, s, r.Run)
	if r.Recorded != nil {
		fmt.Fprintf(&b, "recorded: %s %s %s (%s)\n", r.Recorded.Lane, r.Recorded.Role, r.Recorded.Word, r.Recorded.Route)
	}
	for _, d := range r.Did {
		fmt.Fprintf(&b, "did: %s\n", d)
	}
	for _, n := range r.Next {
		fmt.Fprintf(&b, "next: %s\n", n.Text)
	}
	return b.String()
}

func renderImplementStatus(s *IO, r loop.ImplementStatusResult) string {
	var b strings.Builder
	if len(r.Runs) == 0 {
		b.WriteString("no runs\n")
	}
	for _, run := range r.Runs {
		renderRunLine(&b, s, run)
		for _, aw := range run.Awaits {
			fmt.Fprintf(&b, "  awaiting %s (%s, round %d): %s\n", aw.Role, aw.Lane, aw.Round, aw.Return)
		}
	}
	return b.String()
}

func renderRecord(s *IO, r loop.ImplementRecordResult) string {
	if r.Markdown != "" {
		return r.Markdown
	}
	if r.HTML != "" {
		return r.HTML
	}
	var b strings.Builder
	renderRunLine(&b, s, r.Run)
	for _, im := range r.Implementations {
		fmt.Fprintf(&b, "  %s round %d: %s to %s by %s\n", im.Lane, im.Round, text.Count(len(im.Commits), "commit", "commits"), short(im.Head), im.Model)
		renderStepSessions(&b, im.Sessions)
	}
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, "  %s round %d %s: %s (tier %s, asked %s, ran %s)\n", v.Lane, v.Round, v.Role, v.Word, v.Tier, v.Route, v.Ran)
		if f := strings.TrimSpace(v.Findings); f != "" {
			for _, line := range strings.Split(f, "\n") {
				fmt.Fprintf(&b, "      %s\n", line)
			}
		} else if v.Return != "" {
			fmt.Fprintf(&b, "      (no findings; the whole return: %s)\n", v.Return)
		}
		renderStepSessions(&b, v.Sessions)
	}
	for _, f := range r.Fallbacks {
		fmt.Fprintf(&b, "  fallback %s round %d %s: asked %s, %s (%s), ran %s\n", f.Lane, f.Round, f.Role, f.Asked, f.Reason, f.Detail, f.Ran)
	}
	for _, c := range r.ByRoute {
		fmt.Fprintf(&b, "  route %s: %s, %d passed, %d failed\n", c.Name, text.Count(c.Total, "verdict", "verdicts"), c.Passed, c.Failed)
	}
	for _, c := range r.ByRole {
		fmt.Fprintf(&b, "  role %s: %s, %d passed, %d failed\n", c.Name, text.Count(c.Total, "verdict", "verdicts"), c.Passed, c.Failed)
	}
	for _, group := range []struct {
		what string
		rows []dloop.NamedSpend
	}{{"lane", r.Run.Spend.Lanes}, {"role", r.Run.Spend.Roles}, {"route", r.Run.Spend.Routes}} {
		for _, n := range group.rows {
			fmt.Fprintf(&b, "  spent by %s %s: %s\n", group.what, n.Name, spendWords(n.Spend))
		}
	}
	for _, h := range r.History.Sessions {
		step := "no step named"
		if h.Lineage.Lane != "" {
			step = h.Lineage.Lane + " " + h.Lineage.Step
		}
		fmt.Fprintf(&b, "  session %s (%s, %s): %s\n", h.Key, step, h.Started, h.Title)
	}
	if r.History.Note != "" {
		fmt.Fprintf(&b, "  history: %s\n", r.History.Note)
	}
	return b.String()
}

// spendWords says what steps cost: the dollars known, the steps whose cost is not, the tokens and the
// runners' wall time.
func spendWords(sp dloop.Spend) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%.2f USD over %s", sp.USD, text.Count(sp.Steps, "step", "steps"))
	if sp.Unknown > 0 || sp.Unmetered > 0 {
		var not []string
		if sp.Unknown > 0 {
			not = append(not, fmt.Sprintf("%d of unknown cost", sp.Unknown))
		}
		if sp.Unmetered > 0 {
			not = append(not, fmt.Sprintf("%d unmetered", sp.Unmetered))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(not, ", "))
	}
	fmt.Fprintf(&b, "; %d input and %d output tokens, %d cache read, %d cache written; %s of runners' time",
		sp.Input, sp.Output, sp.CacheRead, sp.CacheWrite, time.Duration(sp.WallMS)*time.Millisecond)
	return b.String()
}

// renderStepSessions names the captured sessions that served a step; abcd history show reads each.
func renderStepSessions(b *strings.Builder, keys []string) {
	if len(keys) > 0 {
		fmt.Fprintf(b, "      sessions (abcd history show KEY): %s\n", strings.Join(keys, ", "))
	}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func renderRun(s *IO, r loop.ImplementRunResult) string {
	var b strings.Builder
	renderRunLine(&b, s, r.Run)
	fmt.Fprintf(&b, "ended: %s (%s beside the host, %d fell back)\n", r.Ended, text.Count(r.Routed, "step taken", "steps taken"), r.FellBack)
	if r.Budget.Left != "" {
		fmt.Fprintf(&b, "budget: spent %.2f USD and %d tokens; left %s\n", r.Run.Spend.Run.USD, r.Run.Spend.Run.Tokens(), r.Budget.Left)
	}
	if r.Budget.Stopped != "" {
		fmt.Fprintf(&b, "stopped by the budget: %s\n", r.Budget.Stopped)
	}
	for _, n := range r.Next {
		fmt.Fprintf(&b, "next: %s\n", n.Text)
	}
	return b.String()
}

// runExit: an interrupted run exits 3, as a pause does (the same command goes on with it).
func runExit(r loop.ImplementRunResult) error {
	if r.Ended == loop.EndedInterrupted {
		return exitCode(3)
	}
	return nil
}

func renderPrune(s *IO, r prune.Result) string {
	var b strings.Builder
	if len(r.Runs) == 0 {
		b.WriteString("no runs\n")
	}
	removed, would := "removed", ""
	if r.DryRun {
		removed, would = "would remove", " (dry run: nothing was removed)"
	}
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "%s %s (%s)\n", s.bold("run"), run.Run, run.Standing)
		if run.Left != "" {
			fmt.Fprintf(&b, "  left whole: %s\n", run.Left)
			continue
		}
		if run.Abandoned {
			fmt.Fprintf(&b, "  %s\n", map[bool]string{true: "would abandon it first", false: "abandoned it first"}[r.DryRun])
		}
		for _, what := range run.Removed {
			fmt.Fprintf(&b, "  %s: %s\n", removed, what)
		}
		for _, why := range run.Kept {
			fmt.Fprintf(&b, "  kept: %s\n", why)
		}
		if len(run.Removed)+len(run.Kept) == 0 {
			b.WriteString("  nothing left to remove; its record stays\n")
		} else {
			b.WriteString("  its record stays (abcd implement record --run " + run.Run + ")\n")
		}
	}
	b.WriteString(would)
	if would != "" {
		b.WriteString("\n")
	}
	return b.String()
}
