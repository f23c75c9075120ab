package loop

// The loop's words beside the briefs: the line a delivered lane leaves in the spec's Progress, the
// auditor's verdicts as the intent's Audit Notes hold them, how a finished run ended, and what to do
// next.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
)

// Short is a commit id as the loop's lines say it: its first 12 characters.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// ProgressLine is one delivered lane in the spec's Progress section: the step, its branch, its head
// and its commits, each said once; the integration's line says where every lane was integrated.
func ProgressLine(s State, ln Lane) string {
	if ln.Integration {
		return fmt.Sprintf("- Run %s integrated on `%s` at %s from %s.", s.Run, ln.Branch, Short(ln.Head), Short(s.Base))
	}
	var commits []string
	for _, im := range ln.Implementations {
		for _, c := range im.Commits {
			// A fix's receipt may list the lane's earlier commits again: each is said once.
			if !slices.Contains(commits, Short(c)) {
				commits = append(commits, Short(c))
			}
		}
	}
	return fmt.Sprintf("- Run %s, step %d (%s): delivered on `%s` at %s, commits %s.", s.Run, ln.Step, oneLine(ln.Text), ln.Branch, Short(ln.Head), strings.Join(commits, ", "))
}

// AuditNotes is the auditor's per-criterion verdicts as the intent's Audit Notes hold them: a
// heading with the day (YYYY-MM-DD), the run, what was audited and the verdict word, then one line
// per criterion and the summary, each on one line.
func AuditNotes(day string, s State, ln Lane, audit review.AuditReturn, word string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Audit %s (run %s, %s..%s): %s\n\n", day, s.Run, Short(s.Base), Short(ln.Head), word)
	for _, cv := range audit.Verdicts {
		fmt.Fprintf(&b, "- %s: %s. %s", cv.Criterion, cv.Verdict, oneLine(cv.Evidence))
		if cv.Concerns != "" {
			fmt.Fprintf(&b, " Concerns: %s", oneLine(cv.Concerns))
		}
		b.WriteString("\n")
	}
	if audit.Summary != "" {
		fmt.Fprintf(&b, "\n%s\n", oneLine(audit.Summary))
	}
	return b.String()
}

// Outcome says how a finished run ended: what passed, and each lane handed back with why.
func Outcome(s State) string {
	var back []string
	for _, ln := range s.Lanes {
		if ln.Stage == StageHandedBack {
			why := firstLine(ln.Findings)
			if why == "" {
				why = "no findings recorded"
			}
			back = append(back, fmt.Sprintf("%s (%s)", ln.ID, why))
		}
	}
	if len(back) > 0 {
		what := "the run ended"
		if s.Kind == KindReview {
			what = "the review failed"
		} else if s.Kind == KindAudit {
			what = "the audit failed"
		}
		return fmt.Sprintf("%s with %s handed back: %s", what, text.Count(len(back), "lane", "lanes"), strings.Join(back, "; "))
	}
	switch s.Kind {
	case KindReview:
		return "the review passed"
	case KindAudit:
		return "the audit passed; its verdicts are in the intent's Audit Notes"
	}
	into := s.BaseRef
	if into == "" {
		into = "your base branch"
	}
	for _, ln := range s.Lanes {
		if ln.Integration {
			return fmt.Sprintf("the run is finished: every step delivered, integrated on %s and audited; merge that branch into %s (`git merge %s`)",
				ln.Branch, into, ln.Branch)
		}
	}
	return "the run is finished: every step delivered"
}

// NextSteps says what the harness does next for a run: each open await's step, else how the run
// ended and where its whole story is, else the step that opens what is due. root makes every path
// absolute.
func NextSteps(s State, root string) []hint.Next {
	next := []hint.Next{}
	for _, aw := range s.OpenAwaits() {
		next = append(next, Next(aw.Under(root)))
	}
	next = append(next, MergesByHand(s, root)...)
	next = append(next, ChecksWaiting(s)...)
	run := hint.With("run", s.Run)
	switch {
	case len(next) > 0:
	case s.Finished():
		next = append(next, hint.Say(Outcome(s)+"; for its whole story, ", hint.Do("implement_record", run)))
	case fresh(s):
		next = append(next, hint.Say("to start the lanes and hand out the first briefs, ", hint.Do("implement_step", run)))
	default:
		next = append(next, hint.Say("to open what is due, ", hint.Do("implement_step", run)))
	}
	return next
}

// MergesByHand says, for each lane waiting for a merge a person makes by hand, where it is (the
// checkout and the branch), the merge to make there, and the one step that goes on with the same run:
// what was delivered stays delivered.
func MergesByHand(s State, root string) []hint.Next {
	var out []hint.Next
	for _, ln := range s.Lanes {
		c := ln.Conflict
		if c.With == "" {
			continue
		}
		what := ln.ID + " waits"
		if ln.Integration {
			what = "the integration waits"
		}
		out = append(out, hint.Say(fmt.Sprintf("%s for a merge by hand: merging %s (%s) into %s conflicted on %s. In its checkout %s (branch %s), run `git merge %s`, resolve the conflicts, and commit the merge; then go on with the same run (what was delivered stays delivered): ",
			what, c.With, Short(c.Head), ln.Branch, strings.Join(c.Files, ", "), Abs(root, ln.Worktree), ln.Branch, c.Head),
			hint.Do("implement_step", hint.With("run", s.Run))))
	}
	return out
}

// fresh reports a run none of whose lanes has started yet: a spec run just created.
func fresh(s State) bool {
	for _, ln := range s.Lanes {
		if ln.Stage != StageWaiting {
			return false
		}
	}
	return true
}

// FallbackText is why a step is not where its routing sent it: once the route beside the host gave it
// up, that route, the reason and who takes it now; else the routing table's own fallback (no
// connection serves the tier), or "".
func (r Routing) FallbackText() string {
	if r.FellBack == "" {
		return r.Fallback
	}
	return fmt.Sprintf("%s did not take the step (%s: %s); the host takes it", r.Route, r.FellBack, review.FallbackReason(r.FellBack).Sentence())
}

// Under is the await with its brief and return paths under root (absolute), for a line an agent in
// any folder follows literally.
func (a Await) Under(root string) Await {
	a.Brief, a.Return = Abs(root, a.Brief), Abs(root, a.Return)
	return a
}

// Abs is a repository-relative path under root, with forward slashes; a path already absolute, or
// no root, leaves it as it is.
func Abs(root, rel string) string {
	if root == "" || strings.HasPrefix(rel, "/") {
		return rel
	}
	return path.Join(root, rel)
}

// oneLine is a text's words on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstLine is a text's first non-empty line, trimmed.
func firstLine(t string) string {
	for _, line := range strings.Split(t, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}
