package loop

import (
	"context"
	"fmt"
	"github.com/abcd-dev/abcd/domain/text"
	"path"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/rules"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// maxDiffBytes bounds the diff a reviewer's brief carries.
const maxDiffBytes = 512 << 10

// maxRequestBytes bounds a request.md: the brief (whose diff is already bounded), the record it was
// rendered from and the implementer's reports.
const maxRequestBytes = 2 << 20

// renderBrief gathers what a brief needs, so it is whole: the agent's definition, the spec and the
// intent's criteria, the verdict words, and the diff, with every path absolute.
func (st *step) renderBrief(ctx context.Context, lane loop.Lane, p loop.Plan, ret, tier string) (string, error) {
	s := st.state
	c := loop.BriefContext{State: s, Lane: lane, Plan: p, Root: st.root, Return: st.abs(ret), LaneDir: st.abs(loop.LaneDir(s.Run, lane.ID)), Tier: tier}
	if lane.Worktree != "" {
		c.Worktree = st.abs(lane.Worktree)
	}
	if p.Role != loop.RoleImplementer {
		if err := st.validatorContext(ctx, &c); err != nil {
			return "", err
		}
	}
	if err := st.recordContext(ctx, &c); err != nil {
		return "", err
	}
	if p.Kind == loop.AwaitReview || p.Kind == loop.AwaitAudit {
		// A step lane is reviewed on its own changes, from where it started, and so is the code an
		// integration's fix rounds added (from the merge they started on); the integration's audit
		// and a review or audit run are on everything from the base.
		from := lane.Start
		if from == "" || lane.Integration && p.Kind == loop.AwaitAudit || s.Kind != loop.KindSpec {
			from = s.Base
		}
		c.DiffFrom = from
		diff, cut, err := st.diff(ctx, from, lane.Head)
		if err != nil {
			return "", err
		}
		c.Diff = string(diff)
		if cut {
			c.Diff += fmt.Sprintf("\n[the diff is longer than %d bytes and was cut here; read the rest with git diff %s %s]", maxDiffBytes, loop.Short(from), loop.Short(lane.Head))
		}
	}
	if err := st.conventionsContext(ctx, &c); err != nil {
		return "", err
	}
	return loop.Brief(c), nil
}

// conventionsContext is what the repository's rules say to this step: the rules its step's text and
// the files the lane touches (the diff's, for a reviewer; the lane's changes so far, for a fix)
// call for, within the rules' budget, as the prompt hook would hand them. Rules that cannot be read
// are said in the brief, never left out silently; they stop no step.
func (st *step) conventionsContext(ctx context.Context, c *loop.BriefContext) error {
	if st.Rules.Rules == nil {
		return nil
	}
	set, _, err := st.Rules.LoadRules(ctx)
	if err != nil {
		if _, ok := refusal.As(err); !ok {
			return err
		}
		c.Unread = core.ErrText(err)
		return nil
	}
	diff := c.Diff
	lane := c.Lane
	if diff == "" && lane.Start != "" && lane.Head != "" && lane.Head != lane.Start {
		if d, _, err := st.diff(ctx, lane.Start, lane.Head); err == nil {
			diff = string(d)
		}
	}
	prompt := lane.Text + "\n" + strings.Join(loop.DiffFiles(diff), "\n")
	inj := set.Handed(set.Match(prompt))
	c.Conventions = strings.TrimPrefix(inj.Text, rules.InjectionHeader)
	return nil
}

// validatorContext is what a validator's brief adds: the agent's definition, the verdict words, and
// the implementer's report of every round.
func (st *step) validatorContext(ctx context.Context, c *loop.BriefContext) error {
	ros, err := st.Roster.Roster()
	if err != nil {
		return err
	}
	if ag, ok := ros.Get(c.Plan.Role); ok {
		c.AgentName, c.AgentDescription, c.AgentPrompt = ag.Name, ag.Description, ag.Body
	}
	c.Pass, c.Fail = review.Words(review.Role(c.Plan.Role))
	for _, im := range c.Lane.Implementations {
		if rel := st.reportRel(ctx, c.Lane, im); rel != "" {
			if report, err := st.readReport(ctx, rel); err == nil && len(report) > 0 {
				c.Reports = append(c.Reports, loop.Report{Round: im.Round, Path: st.abs(rel), Text: string(report), Uncommitted: im.Uncommitted})
			}
		}
	}
	return nil
}

// readReport reads a report the step may have staged itself (kept with the receipt being recorded).
func (st *step) readReport(ctx context.Context, rel string) ([]byte, error) {
	if data, ok := st.staged(rel); ok {
		return data, nil
	}
	return st.Runs.Read(ctx, rel, maxReportBytes)
}

// recordContext is what a brief takes from the record: the intent and its criteria, and the spec's
// file.
func (st *step) recordContext(ctx context.Context, c *loop.BriefContext) error {
	s := st.state
	verb := entryVerb(s.Kind)
	if s.Intent != "" {
		l, it, err := st.Record.Intent(ctx, verb, "", record.Ref(s.Intent))
		if err != nil {
			return err
		}
		c.IntentID, c.IntentTitle, c.IntentPath = it.Front.ID, it.Front.Title, st.abs(l.File.Path)
		c.Criteria = record.CriteriaLines(s.Criteria, it.Criteria)
	}
	if s.Spec != "" {
		if l, err := st.Record.Resolve(ctx, record.Specs, verb, "", record.Ref(s.Spec)); err == nil {
			c.SpecPath = st.abs(l.File.Path)
		}
	}
	return nil
}

// reportRel is the implementer's report file of one round (repository-relative), as its receipt
// names it; "" when it names none the loop can read.
func (st *step) reportRel(ctx context.Context, lane loop.Lane, im loop.Implementation) string {
	if im.Report != "" {
		return im.Report // abcd's copy, as it was handed in
	}
	data, err := st.Runs.Read(ctx, im.Receipt, review.MaxReceiptBytes)
	if err != nil {
		return ""
	}
	rc, err := review.DecodeImplementerReceipt(data)
	if err != nil || !review.LanePathOK(rc.Report) {
		return ""
	}
	return loop.LaneDir(st.state.Run, lane.ID) + "/" + rc.Report
}

// composeRequest writes request.md beside the await's brief and returns the request a route is
// handed: whole, since a route reads no file of the checkout. It holds the brief (the agent's
// definition, the step, the criteria, the earlier rounds' findings, the implementer's report of every
// round, and the lane's diff from where the lane started, bounded) and the record it was rendered
// from.
func (st *step) composeRequest(ctx context.Context, lane loop.Lane, p loop.Plan, aw loop.Await, brief string, route oracle.Route) (ports.ReviewRequest, error) {
	s := st.state
	text, err := st.requestText(ctx, brief)
	if err != nil {
		return ports.ReviewRequest{}, err
	}
	if err := st.Runs.Write(ctx, path.Dir(aw.Brief)+"/request.md", []byte(text)); err != nil {
		return ports.ReviewRequest{}, err
	}
	req := ports.ReviewRequest{Run: s.Run, Lane: lane.ID, Role: p.Role, Round: p.Round, Request: []byte(text), Tier: string(route.Row.Tier)}
	if ros, err := st.Roster.Roster(); err == nil {
		if ag, ok := ros.Get(p.Role); ok {
			req.Agent = ag.Body
		}
	}
	reply := "review_reply"
	if p.Kind == loop.AwaitAudit {
		reply = "audit_return"
	}
	if st.Schemas != nil {
		if data, ok, err := st.Schemas.Schema(reply); err == nil && ok {
			req.Reply = data
		}
	}
	if len(route.Settings) > 0 {
		req.Settings = map[string]string{}
		for k, v := range route.Settings {
			req.Settings[k] = string(v)
		}
	}
	return req, nil
}

// requestText is the brief and the record it was rendered from (the spec and the intent, each
// fenced), bounded.
func (st *step) requestText(ctx context.Context, brief string) (string, error) {
	s := st.state
	var b strings.Builder
	b.WriteString(brief)
	for _, ref := range []struct {
		fam record.Family
		id  string
	}{{record.Specs, s.Spec}, {record.Intents, s.Intent}} {
		if ref.id == "" {
			continue
		}
		l, err := st.Record.Resolve(ctx, ref.fam, entryVerb(s.Kind), "", record.Ref(ref.id))
		if err != nil {
			return "", err
		}
		data, err := st.Record.ReadFull(ctx, l.File.Path)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n## The record: %s (%s)\n\n%s\n", ref.id, l.File.Path, text.Fenced(string(data)))
	}
	text := b.String()
	if len(text) > maxRequestBytes {
		text = text[:maxRequestBytes] + fmt.Sprintf("\n\n[the request is longer than %d bytes and was cut here]\n", maxRequestBytes)
	}
	return text, nil
}

// diff is git's diff between two commits, at most maxDiffBytes, asked once a step: the briefs of a
// lane's reviewers show the same diff. Two commit ids name the same trees for good, so the diff read
// once stands for the step; anything else (a name that could move) is asked each time.
func (st *step) diff(ctx context.Context, from, to string) ([]byte, bool, error) {
	if !loop.CommitID(from) || !loop.CommitID(to) {
		return st.Git.Diff(ctx, from, to, maxDiffBytes)
	}
	key := [2]string{from, to}
	if d, ok := st.diffs[key]; ok {
		return d.data, d.cut, nil
	}
	data, cut, err := st.Git.Diff(ctx, from, to, maxDiffBytes)
	if err != nil {
		return nil, false, err
	}
	if st.diffs == nil {
		st.diffs = map[[2]string]stepDiff{}
	}
	st.diffs[key] = stepDiff{data, cut}
	return data, cut, nil
}

type stepDiff struct {
	data []byte
	cut  bool
}
