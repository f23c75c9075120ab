package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// runnerCall is one step a runner takes, decided under the run's lock and run outside it.
type runnerCall struct {
	run, lane, role, await string
	round                  int
	kind                   loop.AwaitKind
	runner                 runner.Runner
	model                  string
	// prompt is the prompt file (absolute); dir where the CLI works (absolute; "" for an empty
	// folder of the step's own).
	prompt, dir string
	schema      []byte
	// The implementer's: the worktree (repository-relative), its branch, the run's definition of done,
	// the folder the step's files go in and the lane's folder (repository-relative), the lane's step.
	worktree, branch, dod string
	// dodEnv names the variables the definition of done is given beside a runner's allowlist.
	dodEnv            []string
	awaitDir, laneDir string
	step              int
}

// runnerJob queues a step for the runner named: the failure when it cannot be sent at all.
func (st *step) runnerJob(ctx context.Context, cfg stepConfig, lane loop.Lane, aw loop.Await, brief string, route oracle.Route, name string) (dispatch, *runner.Failure, error) {
	s := st.state
	r, ok := cfg.runners.Runner(name)
	if !ok {
		return dispatch{}, runner.Failf(runner.CauseExecutable, "runner %s is not configured on this machine", text.Clip(name)), nil
	}
	if st.Runners == nil {
		return dispatch{}, runner.Failf(runner.CauseUnsupported, "this build of abcd drives no runner"), nil
	}
	agentModel := ""
	if sent, ok := cfg.runners.Sent(aw.Role); ok && sent.Runner == name {
		agentModel = sent.Model
	}
	c := runnerCall{run: s.Run, lane: lane.ID, role: aw.Role, await: aw.ID, round: aw.Round, kind: aw.Kind, runner: r,
		model: r.ModelFor(agentModel, route.Row.Tier), step: lane.Step}
	dir := path.Dir(aw.Brief)
	prompt := dir + "/runner-prompt.md"
	c.prompt = st.abs(prompt)
	if lane.Worktree != "" {
		c.dir = st.abs(lane.Worktree)
	}
	d := dispatch{await: aw.ID, Lane: lane.ID, role: aw.Role, round: aw.Round, ret: aw.Return, route: name, caps: runnerCaps(r)}
	a := st.Deps
	var body string
	if aw.Role == loop.RoleImplementer {
		if lane.Worktree == "" {
			return dispatch{}, nil, fmt.Errorf("%s has no worktree for its implementer", lane.ID)
		}
		if s.DoD == "" {
			return dispatch{}, runner.Failf(runner.CauseDoDFailed, "the run keeps no build.dod, so nothing could prove a runner's work done: set build.dod in .abcd/config.json for the next run"), nil
		}
		c.worktree, c.branch, c.dod, c.awaitDir, c.laneDir = lane.Worktree, lane.Branch, s.DoD, dir, loop.LaneDir(s.Run, lane.ID)
		c.dodEnv = s.DoDEnv
		body = brief + implementerHeadless(c)
		d.call = func(ctx context.Context) (ports.ReviewOutcome, error) { return a.implementOnRunner(ctx, c) }
	} else {
		p := loop.Plan{Kind: aw.Kind, Role: aw.Role, Round: aw.Round}
		for i, ln := range s.Lanes {
			if ln.ID == lane.ID {
				p.Lane = i
			}
		}
		req, err := st.composeRequest(ctx, lane, p, aw, brief, route)
		if err != nil {
			return dispatch{}, runner.Failf(runner.CausePrompt, "the request could not be composed: %s", refusalWhy(err)), nil
		}
		if len(req.Reply) == 0 {
			return dispatch{}, runner.Failf(runner.CausePrompt, "this build of abcd holds no schema for the %s's reply", aw.Role), nil
		}
		c.schema, d.req = req.Reply, req
		body = string(req.Request) + validatorHeadless(aw, req.Reply)
		d.call = func(ctx context.Context) (ports.ReviewOutcome, error) { return a.validateOnRunner(ctx, c) }
	}
	if err := st.Runs.Write(ctx, prompt, []byte(body)); err != nil {
		return dispatch{}, nil, err
	}
	return d, nil, nil
}

// implementerHeadless is what a runner's implementer is told beside its brief: it runs headless,
// and abcd commits, runs the definition of done and writes the receipt for it.
func implementerHeadless(c runnerCall) string {
	return fmt.Sprintf(`

## You run headless, as runner %s

This supersedes the brief where they differ. Nobody will answer a question: decide, and say in
your summary what you decided. Work in %s and nowhere else.

- Do not commit, and do not move HEAD or any branch: abcd commits what you leave in the worktree,
  with your final message as the commit message, once you end.
- Do not write the receipt or the report, and do not change anything under .git: abcd writes the
  receipt and runs the definition of done (%s) itself on your work.
- You may run the definition of done yourself as you work, to see that it passes.
- End with a summary of what you did: its first line is the commit's subject (at most 72
  characters), the rest its body.
`, c.runner.Name, c.dir, "`"+c.dod+"`")
}

// validatorHeadless is what a runner's reviewer or auditor is told beside its request: its final
// answer is one JSON object in its reply's published schema, which abcd places at the return path.
func validatorHeadless(aw loop.Await, schema []byte) string {
	name := "review_reply"
	if aw.Kind == loop.AwaitAudit {
		name = "audit_return"
	}
	return fmt.Sprintf("\n\n## You run headless: how you answer\n\nThis supersedes the brief's return instructions. Do not write any file: your final answer is "+
		"your return, and abcd places it at the return path for you. Answer with exactly one JSON object in the published %s shape, "+
		"and nothing else (no prose around it). Its schema:\n\n%s\n", name, text.Fenced(strings.TrimSpace(string(schema))))
}

// validateOnRunner runs a reviewer's or the auditor's step: read-only, in the lane's worktree (or an
// empty folder of its own), held to its reply's schema; the answer is rendered into the return the
// host's agent would have written.
func (a *Deps) validateOnRunner(ctx context.Context, c runnerCall) (ports.ReviewOutcome, error) {
	o, err := a.Runners.Step(ctx, a.runnerStep(ctx, c, runner.PolicyRead))
	if err != nil {
		return ports.ReviewOutcome{}, err
	}
	if o.Failure == nil {
		ret, f := renderReply(review.Role(c.role), o.Structured)
		if f == nil {
			return runnerAnswer(c, o, ret), nil
		}
		o.Fail(f)
	}
	return runnerFallback(c, o, ""), nil
}

// renderReply checks a runner's structured answer against its role's reply and renders the return
// the host's agent would write; a reply that breaks its schema is the cause schema.
func renderReply(role review.Role, answer json.RawMessage) ([]byte, *runner.Failure) {
	var ret []byte
	var err error
	if role == review.Auditor {
		var r review.AuditReturn
		if r, err = review.DecodeAuditReply(answer); err == nil {
			ret, err = review.RenderAuditReply(r)
		}
	} else {
		var r review.ReviewReply
		if r, err = review.DecodeReviewReply(role, answer); err == nil {
			ret, err = review.RenderReviewReply(role, r)
		}
	}
	if err == nil {
		return ret, nil
	}
	detail := "the answer does not fit its schema"
	var re *review.ReturnError
	if errors.As(err, &re) && len(re.Problems) > 0 {
		detail = fmt.Sprintf("the answer broke %d of its schema's rules; the first: %s", len(re.Problems), re.Problems[0])
	}
	return nil, runner.Failf(runner.CauseSchema, "%s", detail)
}

// runnerStep is the step a call hands the runner adapter.
func (a *Deps) runnerStep(ctx context.Context, c runnerCall, policy runner.Policy) ports.RunnerStep {
	ev := func(kind, words string, pgid int) {
		a.event(ctx, ports.ProgressEvent{Run: c.run, Lane: c.lane, Role: c.role, Route: c.runner.Name, Kind: kind, PGID: pgid,
			Text: fmt.Sprintf("%s %s: %s", c.lane, c.role, words)})
	}
	return ports.RunnerStep{Runner: c.runner, Dir: c.dir, PromptFile: c.prompt, Policy: policy, Model: c.model, Limits: c.runner.Limits,
		Schema: c.schema, Scrub: a.HeldCredentials(ctx), Sandbox: a.FenceFor(c.runner, c.role, c.dir),
		Waiting: func() {
			ev("waiting", fmt.Sprintf("waiting for one of runner %s's %s", c.runner.Name, text.Count(max(c.runner.Concurrency, 1), "slot", "slots")), 0)
		},
		Started: func(pgid int) {
			ev("running", fmt.Sprintf("runner %s is running (process group %d)", c.runner.Name, pgid), pgid)
		},
		Doing: func(line string) { ev("doing", c.runner.Name+": "+line, 0) }}
}

// runnerAnswer is a completed step's answer: the return, and what the runner reported.
func runnerAnswer(c runnerCall, o runner.Outcome, ret []byte) ports.ReviewOutcome {
	r := o.Receipt
	out := ports.ReviewOutcome{Return: ret, ModelAsked: c.model, SchemaEnforced: r.SchemaEnforced, Runner: &r}
	if len(r.ModelsReported) > 0 {
		out.ModelReported = r.ModelsReported[0]
	}
	if r.Usage.Reported {
		out.Usage = ports.TokenUsage{Prompt: int(r.Usage.Input), Completion: int(r.Usage.Output), Total: int(r.Usage.Input + r.Usage.Output)}
	}
	return out
}

// runnerFallback is a failed step as the fallback it is: its reason, abcd's words with the cause,
// and the runner's receipt.
func runnerFallback(c runnerCall, o runner.Outcome, kept string) ports.ReviewOutcome {
	r := o.Receipt
	f := o.Failure
	detail := fmt.Sprintf("runner %s (%s): %s", c.runner.Name, f.Cause, f.Detail)
	if kept != "" {
		detail += "; what it did is kept " + kept
	}
	out := ports.ReviewOutcome{FallbackReason: string(f.Cause.Reason()), FallbackDetail: detail, ModelAsked: c.model, Runner: &r}
	if len(r.ModelsReported) > 0 {
		out.ModelReported = r.ModelsReported[0]
	}
	return out
}

// implementOnRunner runs an implementer's step in the lane's worktree, then has abcd take the work:
// the checks, the commit, the definition of done, the receipt.
func (a *Deps) implementOnRunner(ctx context.Context, c runnerCall) (ports.ReviewOutcome, error) {
	if a.DoD == nil {
		o := runner.Outcome{Receipt: runner.Receipt{Runner: c.runner.Name, CLI: c.runner.CLI, ModelAsked: c.model, ModelsReported: []string{}, Commits: []string{}, ExitCode: -1}}
		o.Fail(runner.Failf(runner.CauseUnsupported, "this build of abcd runs no definition of done, so no runner's work could be proven"))
		return runnerFallback(c, o, ""), nil
	}
	// A kill after abcd committed this step's work and before the step was recorded: the commit is
	// the step's, and it is proven and recorded, never taken again.
	if note, sha, err := a.committedWork(ctx, c.awaitDir, c.await, c.branch); err != nil {
		return ports.ReviewOutcome{}, err
	} else if note != nil {
		a.event(ctx, ports.ProgressEvent{Run: c.run, Lane: c.lane, Role: c.role, Route: c.runner.Name, Kind: "did",
			Text: fmt.Sprintf("%s: abcd's commit %s of runner %s's work on this step stands; running the definition of done", c.lane, loop.Short(sha), c.runner.Name)})
		return a.proveCommitted(ctx, c, runner.Outcome{Receipt: note.Receipt, Final: note.Final}, sha, note.Parent)
	}
	// What follows the CLI (the checks, putting the lane back) runs even when the person interrupted
	// the step: each git call is bounded by its own timeout.
	bg := context.WithoutCancel(ctx)
	laneRef := "refs/heads/" + c.branch
	before, err := a.Git.Snapshot(ctx, c.worktree)
	if err != nil {
		return ports.ReviewOutcome{}, err
	}
	if before.HeadRef != laneRef {
		return ports.ReviewOutcome{}, fmt.Errorf("%s's worktree has %s checked out, not %s", c.lane, refOrDetached(before.HeadRef), c.branch)
	}
	// What an earlier implementer left uncommitted is not this step's work: it is kept aside, and the
	// step starts from the lane's head.
	// Nothing has run in the worktree since the snapshot, so it stands for what is there now.
	if kept, err := a.keepFrom(bg, c, before, before.Head, before.HeadRef, "left"); err != nil {
		return ports.ReviewOutcome{}, err
	} else if kept != "" {
		a.event(ctx, ports.ProgressEvent{Run: c.run, Lane: c.lane, Role: c.role, Route: c.runner.Name, Kind: "did",
			Text: fmt.Sprintf("%s: the worktree held uncommitted changes before the step; they are kept %s", c.lane, kept)})
	}
	// The guard's rules in force while the step runs (those its hook checks each command by) are the
	// ones its changes are checked by when it ends.
	writes, err := a.Guard.WriteGuard(ctx)
	if err != nil {
		return ports.ReviewOutcome{}, err
	}
	o, err := a.Runners.Step(ctx, a.runnerStep(ctx, c, runner.PolicyImplement))
	if err != nil {
		_, kerr := a.keepAttempt(bg, c, before.Head, laneRef, "attempt")
		return ports.ReviewOutcome{}, errors.Join(err, kerr)
	}
	if o.Failure != nil {
		return a.failImplement(bg, c, o, before.Head, laneRef)
	}
	if f, headRef, err := a.checkWork(bg, c, before, writes.Guarded); err != nil {
		return ports.ReviewOutcome{}, err
	} else if f != nil {
		o.Fail(f)
		return a.failImplement(bg, c, o, before.Head, headRef)
	}
	// The note first, then the commit naming the await: a kill between the commit and its record
	// leaves what a resumed step needs to record the commit rather than take the step again.
	note, err := runner.EncodeCommitting(runner.Committing{Await: c.await, Parent: before.Head, Receipt: o.Receipt, Final: o.Final})
	if err != nil {
		return ports.ReviewOutcome{}, err
	}
	if err := a.Runs.Write(bg, committingPath(c.awaitDir), note); err != nil {
		_, kerr := a.keepAttempt(bg, c, before.Head, laneRef, "attempt")
		return ports.ReviewOutcome{}, errors.Join(err, kerr)
	}
	msg := runner.CommitMessage(o.Final, fmt.Sprintf("abcd %s: %s, step %d", c.run, c.lane, c.step),
		fmt.Sprintf("Abcd-Run: %s %s round %d\nAbcd-Runner: %s (%s %s)\n%s: %s", c.run, c.lane, c.round, c.runner.Name, c.runner.CLI, o.Receipt.CLIVersion, runner.AwaitTrailer, c.await))
	sha, err := a.Git.CommitAll(bg, c.worktree, msg)
	if err != nil {
		_, kerr := a.keepAttempt(bg, c, before.Head, laneRef, "attempt")
		return ports.ReviewOutcome{}, errors.Join(err, kerr)
	}
	a.event(ctx, ports.ProgressEvent{Run: c.run, Lane: c.lane, Role: c.role, Route: c.runner.Name, Kind: "did",
		Text: fmt.Sprintf("%s: abcd committed the runner's work as %s; running the definition of done", c.lane, loop.Short(sha))})
	return a.proveCommitted(ctx, c, o, sha, before.Head)
}

// checkWork is what abcd verifies of a runner's work before it commits it: what the step must not
// change (runner.CheckWork, the guard's write rules: guarded), then the change itself, scanned for
// every credential abcd holds (runner.ScanChange). It returns the failure, if any, and where HEAD
// stands.
func (a *Deps) checkWork(ctx context.Context, c runnerCall, before runner.Snapshot,
	guarded func(dir string, changes []runner.Entry) ([]runner.GuardedWrite, error)) (*runner.Failure, string, error) {
	after, err := a.Git.Snapshot(ctx, c.worktree)
	if err != nil {
		return nil, "", err
	}
	entries, err := a.Git.Entries(ctx, c.worktree, runner.MaxEntries)
	if err != nil {
		return nil, "", err
	}
	blocked, err := guarded(c.dir, entries)
	if err != nil {
		return nil, "", err
	}
	if f := runner.CheckWork(before, after, "refs/heads/"+c.branch, entries, blocked); f != nil {
		return f, after.HeadRef, nil
	}
	sc := secret.NewScrubber(a.HeldCredentials(ctx)...)
	change, err := a.Git.WorkChange(ctx, c.worktree, before.Head, runner.MaxChangeBytes)
	if err != nil {
		return nil, "", err
	}
	if scan := runner.ScanChange(change, sc); !scan.Clean() {
		return scan.Failure(sc), after.HeadRef, nil
	}
	return nil, after.HeadRef, nil
}

// proveCommitted runs the definition of done on abcd's commit sha of a runner's work (made on start)
// and writes the implementer's receipt: the step's answer, or its fallback with the lane put back.
func (a *Deps) proveCommitted(ctx context.Context, c runnerCall, o runner.Outcome, sha, start string) (ports.ReviewOutcome, error) {
	bg := context.WithoutCancel(ctx)
	laneRef := "refs/heads/" + c.branch
	o.Receipt.Commits = []string{sha}
	res, err := a.DoD.RunFenced(ctx, ports.DoDRun{Dir: c.dir, Command: c.dod, Timeout: dodTimeout, Env: c.dodEnv,
		Sandbox: a.FenceFor(c.runner, ports.SandboxRoleDoD, c.dir)})
	if err != nil && ctx.Err() == nil {
		_, kerr := a.keepAttempt(bg, c, start, laneRef, "attempt")
		return ports.ReviewOutcome{}, errors.Join(err, kerr)
	}
	sc := secret.NewScrubber(a.HeldCredentials(bg)...)
	res.Tail, res.Problem = sc.Scrub(res.Tail), sc.Scrub(res.Problem)
	outRel := c.awaitDir + "/runner-dod-output.txt"
	if err := a.Runs.Write(bg, outRel, []byte(res.Tail)); err != nil {
		return ports.ReviewOutcome{}, err
	}
	switch {
	case err != nil:
		o.Fail(runner.Failf(runner.CauseInterrupted, "the step was interrupted while the definition of done ran"))
	case res.Unavailable:
		o.Fail(runner.Failf(runner.CauseSandboxUnavailable, "the definition of done was not run: %s", res.Problem))
	case res.Problem != "":
		// The output's path first: the detail is bounded, and what it cuts is the command's end.
		o.Fail(runner.Failf(runner.CauseDoDFailed, "the definition of done did not run to its end on the runner's work (%s); its last lines are in %s; it ran `%s`", text.Clip(res.Problem), outRel, c.dod))
	case res.ExitCode != 0:
		o.Fail(runner.Failf(runner.CauseDoDFailed, "the definition of done exited %d on the runner's work; its last lines are in %s; it ran `%s`", res.ExitCode, outRel, c.dod))
	}
	if o.Failure != nil {
		return a.failImplement(bg, c, o, start, laneRef)
	}
	report := c.awaitDir + "/runner-report.md"
	if err := a.Runs.Write(bg, report, []byte(runnerReport(c, o, sha, res))); err != nil {
		return ports.ReviewOutcome{}, err
	}
	model := fmt.Sprintf("%s (its default model)", c.runner.CLI.Name())
	switch {
	case len(o.Receipt.ModelsReported) > 0:
		model = o.Receipt.ModelsReported[0]
	case c.model != "":
		model = c.model
	}
	rc := review.ImplementerReceipt{SchemaVersion: review.ReturnVersion, Run: c.run, Lane: c.lane, Branch: c.branch, Commits: []string{sha},
		DoD:    review.DoD{Command: c.dod, ExitCode: 0, Output: strings.TrimPrefix(outRel, c.laneDir+"/")},
		Report: strings.TrimPrefix(report, c.laneDir+"/"), Model: text.ClipAt(model, 200)}
	data, err := json.MarshalIndent(rc, "", "  ")
	if err != nil {
		return ports.ReviewOutcome{}, err
	}
	out := runnerAnswer(c, o, append(data, '\n'))
	out.DoD = &res
	return out, nil
}

// FenceFor is the sandbox a runner's process runs in, for role (an agent, or the definition of done
// on the implementer's work) in dir: the implementer and the definition of done may write the lane's
// worktree and nothing else (its .git read-only: abcd commits); reviewers and the auditor write
// nothing and read their lane's worktree. Every one of them is kept from abcd's local state (every
// run's state and briefs; the lanes' folder, the other lanes' worktrees) and from $ABCD_HOME but for
// the files abcd's guard hook reads there. A runner whose block says "sandbox": "off" runs unconfined.
func (a *Deps) FenceFor(r runner.Runner, role, dir string) *ports.SandboxPolicy {
	if r.SandboxOff {
		return &ports.SandboxPolicy{Off: true}
	}
	home := filepath.Dir(a.Setup.MachinePath("config.json"))
	p := &ports.SandboxPolicy{Role: role, Hide: []string{a.Abs(layout.Local), a.Abs(layout.Lanes), home},
		Show: []string{filepath.Join(home, "config.json"), filepath.Join(home, guard.AllowFileName)}}
	if dir == "" {
		return p
	}
	if role == loop.RoleImplementer || role == ports.SandboxRoleDoD {
		p.Write = []string{dir}
		p.Protect = []string{filepath.Join(dir, ".git")}
	} else {
		p.Show = append(p.Show, dir)
	}
	return p
}

// committingPath is where abcd notes the commit it is about to make of a runner step's work, in the
// step's folder (awaitDir).
func committingPath(awaitDir string) string { return awaitDir + "/runner-commit.json" }

// committedWork is abcd's own commit of the step's work when a kill came after it and before the
// step was recorded: the lane's branch head names the await in abcd's trailer and stands on the
// commit the note says the work was made on. nil when there is none (the step is taken afresh).
func (a *Deps) committedWork(ctx context.Context, awaitDir, await, branch string) (*runner.Committing, string, error) {
	note := committingPath(awaitDir)
	data, err := a.Runs.Read(ctx, note, runner.MaxCommittingBytes)
	if r, ok := refusal.As(err); ok && r.Code == refusal.CodeReturnMissing {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	c, err := runner.DecodeCommitting(note, data)
	if err != nil {
		// Not abcd's note: it names no commit to take the step from, so the step is taken afresh.
		return nil, "", nil //nolint:nilerr // a note that does not decode is no commit of abcd's, not a fault
	}
	if c.Await != await {
		return nil, "", nil // not this step's note: the step is taken afresh
	}
	head, err := a.Git.Resolve(ctx, "refs/heads/"+branch)
	if err != nil {
		return nil, "", err
	}
	parents, message, err := a.Git.ReadCommit(ctx, head)
	if err != nil {
		return nil, "", err
	}
	if len(parents) != 1 || parents[0] != c.Parent || !runner.NamesAwait(message, await) {
		return nil, "", nil
	}
	return &c, head, nil
}

// failImplement falls a failed implementer step back to the host: what the runner did is kept
// (keepAttempt), and the lane is put back where the step started, so the host's agent starts from
// the same worktree the runner did.
func (a *Deps) failImplement(ctx context.Context, c runnerCall, o runner.Outcome, start, headRef string) (ports.ReviewOutcome, error) {
	kept, err := a.keepAttempt(ctx, c, start, headRef, "attempt")
	if err != nil {
		return ports.ReviewOutcome{}, err
	}
	return runnerFallback(c, o, kept), nil
}

// keepAttempt keeps what stands in the lane's worktree beyond start (the runner's commits, its
// uncommitted changes) on a branch of its own, abcd/<run>/attempts/<lane>-<await>-<what> (or, when it
// carries a credential abcd holds, as a scrubbed patch: keepScrubbed), and puts the lane back at
// start. HEAD left on another branch (a CLI that switched it) keeps nothing: that branch stands as the
// CLI left it. It returns where it is kept in words ("on branch ..."), "" when there was nothing to
// keep.
func (a *Deps) keepAttempt(ctx context.Context, c runnerCall, start, headRef, what string) (string, error) {
	now, err := a.Git.Snapshot(ctx, c.worktree)
	if err != nil {
		return "", err
	}
	return a.keepFrom(ctx, c, now, start, headRef, what)
}

// keepFrom is keepAttempt from a snapshot of the worktree taken with nothing run in it since.
func (a *Deps) keepFrom(ctx context.Context, c runnerCall, now runner.Snapshot, start, headRef, what string) (string, error) {
	entries, err := a.Git.Entries(ctx, c.worktree, runner.MaxEntries)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 && now.Head == start && now.HeadRef == "refs/heads/"+c.branch {
		return "", nil
	}
	kept := ""
	if now.HeadRef == "refs/heads/"+c.branch && headRef == now.HeadRef {
		// What carries a credential abcd holds is never committed, to a branch or anywhere: it is kept
		// as a patch with the credentials taken out, or (too large to scan whole) not at all.
		if where, unsafe, err := a.keepScrubbed(ctx, c, start, what); err != nil || unsafe {
			return where, errors.Join(err, a.Git.Restore(ctx, c.worktree, c.branch, start))
		}
		head := now.Head
		if len(entries) > 0 {
			if head, err = a.Git.CommitAll(ctx, c.worktree, fmt.Sprintf("abcd %s: what %s's %s step on runner %s left\n", c.run, c.lane, c.role, c.runner.Name)); err != nil {
				var r *refusal.Error
				if !errors.As(err, &r) {
					return "", err
				}
				head = now.Head // nothing git would stage (a nested repository): the lane is put back all the same
			}
		}
		if head != start {
			branch := fmt.Sprintf("abcd/%s/attempts/%s-%s-%s", c.run, c.lane, c.await, what)
			// A retried step's earlier attempt under this name gives way to this one (absent is fine).
			if err := a.Git.DeleteBranch(ctx, branch); err != nil {
				return "", err
			}
			if err := a.Git.CreateBranch(ctx, branch, head); err != nil {
				return "", err
			}
			kept = "on branch " + branch
		}
	}
	if err := a.Git.Restore(ctx, c.worktree, c.branch, start); err != nil {
		return "", err
	}
	return kept, nil
}

// keepScrubbed scans what the worktree holds beyond start for every credential abcd holds
// (runner.ScanChange). When it carries one, unsafe is true and it is kept as a patch in the step's
// folder with the credentials taken out (runner.ScrubbedPatch), or, too large to scan whole, kept
// nowhere; where says which. A change that cannot be read is unsafe too.
func (a *Deps) keepScrubbed(ctx context.Context, c runnerCall, start, what string) (where string, unsafe bool, err error) {
	change, err := a.Git.WorkChange(ctx, c.worktree, start, runner.MaxChangeBytes)
	if err != nil {
		return "", true, err
	}
	sc := secret.NewScrubber(a.HeldCredentials(ctx)...)
	switch scan := runner.ScanChange(change, sc); {
	case scan.Clean():
		return "", false, nil
	case scan.TooLarge:
		return fmt.Sprintf("nowhere: it is larger than the %d MiB abcd scans for the credentials it holds", runner.MaxChangeBytes>>20), true, nil
	}
	patch := fmt.Sprintf("%s/runner-%s.patch", c.awaitDir, what)
	if err := a.Runs.Write(ctx, patch, []byte(runner.ScrubbedPatch(change, sc))); err != nil {
		return "", true, err
	}
	return "as a patch with the credentials abcd holds taken out: " + patch, true, nil
}

func refOrDetached(ref string) string {
	if ref == "" {
		return "a detached HEAD"
	}
	return ref
}

// runnerReport is the report abcd writes for a runner's implementer step: the agent's summary, and
// what abcd did with it.
func runnerReport(c runnerCall, o runner.Outcome, sha string, res ports.DoDResult) string {
	r := o.Receipt
	var b strings.Builder
	fmt.Fprintf(&b, "# %s, round %d: implemented by runner %s\n\n", c.lane, c.round, c.runner.Name)
	fmt.Fprintf(&b, "%s %s, %s, in %s; %s, %s.\n\n", r.CLI.Name(), r.CLIVersion, modelWords(r, c.model), time.Duration(r.DurationMS)*time.Millisecond,
		text.Count(r.Turns, "turn", "turns"), text.Count(r.ToolCalls, "tool call", "tool calls"))
	fmt.Fprintf(&b, "abcd committed the work as %s and ran `%s`: exit 0 in %s.\n\n", sha, c.dod, res.Duration.Round(time.Millisecond))
	b.WriteString("## The agent's summary\n\n")
	if strings.TrimSpace(o.Final) == "" {
		b.WriteString("(the agent ended with no summary)\n")
	} else {
		b.WriteString(text.Fenced(text.Prefix(o.Final, 64<<10)) + "\n")
	}
	return b.String()
}

func modelWords(r runner.Receipt, asked string) string {
	switch {
	case len(r.ModelsReported) > 0:
		return "model " + strings.Join(r.ModelsReported, ", ")
	case asked != "":
		return "model " + asked + " (asked; the CLI names none)"
	}
	return "its default model"
}

// event tells whoever listens to the invocation's progress: the one its door put in ctx (an MCP
// call that asked for progress notifications), else the App's (the CLI's stderr).
func (a *Deps) event(ctx context.Context, ev ports.ProgressEvent) {
	if p := ports.ProgressOf(ctx); p != nil {
		p.Event(ev)
		return
	}
	if a.Progress != nil {
		a.Progress.Event(ev)
	}
}

// runnerCaps is what one step on r may spend at most: the dollars its CLI enforces (0: none), and
// the wall time abcd holds it to (its wall clock, then the drain after its last event and the grace
// before its process group is killed), which its receipt's duration never passes.
func runnerCaps(r runner.Runner) loop.Caps {
	lim := r.Limits.Or(runner.DefaultLimits())
	return loop.Caps{USD: lim.BudgetUSD, Wall: lim.WallClock + runner.Drain + runner.Grace}
}
