package loop

import (
	"context"
	"fmt"
	"slices"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/verb"
)

// ReviewInput asks for a review of the current branch's changes from base.
type ReviewInput struct {
	Role   review.Reviewer    `json:"role,omitempty"`
	Base   loop.Revision      `json:"base,omitempty"`
	Routes []oracle.RouteText `json:"routes,omitempty" jsonschema:"maxItems=8"`
	// New starts another review of a head whose review has ended (else that review is reported).
	New bool `json:"new,omitempty"`
}

// IntentAuditInput asks the intent-auditor to audit delivered changes against an intent.
type IntentAuditInput struct {
	Intent record.Ref         `json:"intent"`
	Base   loop.Revision      `json:"base,omitempty"`
	Routes []oracle.RouteText `json:"routes,omitempty" jsonschema:"maxItems=8"`
}

func ReviewVerbs() []verb.Verb {
	return []verb.Verb{
		verb.Declare(verb.Verb{Name: "review", Path: []string{"review"}, Example: "abcd review\nabcd review --role security-reviewer\nabcd review --new",
			Summary:   "Review the current branch's changes now: fresh ruthless and security reviewers through the validator routing",
			OpenWorld: true, Dispatches: []string{loop.RoleRuthless, loop.RoleSecurity}},
			settlingFirst("review", reviewNow)),
		verb.Declare(verb.Verb{Name: "intent_audit", Path: []string{"intent", "audit"}, Example: "abcd intent audit cold-start\nabcd intent audit cold-start --base main",
			Summary:   "Hand the intent-auditor an intent and the delivered changes; its per-criterion verdict goes into the intent's Audit Notes",
			OpenWorld: true, Dispatches: []string{loop.RoleAuditor}}, settlingFirst("intent_audit", intentAudit)),
	}
}

// reviewNow reviews the checked-out branch's changes from base with both reviewers, or one.
func reviewNow(ctx context.Context, a *Deps, in *ReviewInput) (StepResult, error) {
	validators := []string{loop.RoleRuthless, loop.RoleSecurity}
	if in.Role != "" {
		validators = []string{string(in.Role)}
	}
	if _, err := a.routesFor(ctx, "review", validators, in.Routes); err != nil {
		return StepResult{}, err
	}
	return a.oneLaneRun(ctx, loop.KindReview, "review", in.Base, "", validators, in.Routes, !in.New)
}

// intentAudit hands the intent-auditor the checked-out branch's changes from base; its verdict goes
// into the intent's Audit Notes.
func intentAudit(ctx context.Context, a *Deps, in *IntentAuditInput) (StepResult, error) {
	if _, err := a.Routes(ctx, "intent_audit", in.Routes); err != nil {
		return StepResult{}, err
	}
	_, it, err := a.Record.Intent(ctx, "intent_audit", "intent", in.Intent)
	if err != nil {
		return StepResult{}, err
	}
	if len(it.Criteria) == 0 {
		return StepResult{}, refusal.New(refusal.CodeIntentNoCriteria, it.Front.ID, "has no acceptance criteria to audit against",
			"write its ## Acceptance Criteria first")
	}
	return a.oneLaneRun(ctx, loop.KindAudit, "intent_audit", in.Base, it.Front.ID, []string{loop.RoleAuditor}, in.Routes, false)
}

// oneLaneRun has the engine create a review or audit run over the checked-out branch's head. With
// ended, a run of the same head that has ended is reported instead: the gate's answer stands until
// the branch changes or another is asked for.
func (a *Deps) oneLaneRun(ctx context.Context, kind loop.Kind, verb string, base loop.Revision, intentID string, validators []string, routes []oracle.RouteText, ended bool) (StepResult, error) {
	if err := a.Initialized(verb); err != nil {
		return StepResult{}, err
	}
	head, err := a.Git.Resolve(ctx, "HEAD")
	if err != nil {
		return StepResult{}, err
	}
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return StepResult{}, err
	}
	baseName, baseSHA, err := a.baseOf(ctx, verb, base, stack)
	if err != nil {
		return StepResult{}, err
	}
	if baseSHA == head {
		return StepResult{}, refusal.New(refusal.CodeNothingToReview, "", fmt.Sprintf("HEAD is %s itself, so there are no changes", baseName),
			"commit the changes first, or give the commit they start from with ", refusal.Field(verb, "base")).On(verb, "")
	}
	branch, err := a.Git.CurrentBranch(ctx)
	if err != nil {
		return StepResult{}, err
	}
	var criteria []string
	if intentID != "" {
		_, it, err := a.Record.Intent(ctx, verb, "intent", record.Ref(intentID))
		if err != nil {
			return StepResult{}, err
		}
		for _, c := range it.Criteria {
			criteria = append(criteria, c.ID)
		}
	}
	// What opening an await reads is checked before anything is written, so a refusal leaves no run.
	if _, err := a.readStepConfig(ctx); err != nil {
		return StepResult{}, err
	}
	// The same review (or audit) run again while one is unfinished, after a kill or a timeout in the
	// harness, goes on with that run rather than starting a second.
	if run, ok, err := a.unfinishedLike(ctx, kind, baseSHA, head, intentID, validators); err != nil {
		return StepResult{}, err
	} else if ok && run.Finished() && ended {
		return a.endedReview(run, verb, baseSHA, head), nil
	} else if ok && !run.Finished() {
		return a.drive(ctx, verb, run.Run, func(ctx context.Context, st *step) (StepResult, bool, error) {
			did, err := st.advance(ctx, nil)
			did = append([]string{fmt.Sprintf("%s of %s..%s is run %s, still unfinished: going on with it", kind, loop.Short(baseSHA), loop.Short(head), run.Run)}, did...)
			return StepResult{Did: did}, len(did) > 1, err
		})
	}
	n := newRun{kind: kind, routes: routes,
		opts: loop.Options{Intent: intentID, Base: baseSHA, BaseRef: baseName, Criteria: criteria, Validators: validators},
		lanes: func(string) []loop.LaneSpec {
			return []loop.LaneSpec{{Step: 0, Text: "", Branch: branch, Head: head}}
		}}
	w := &routeWorker{}
	defer w.done()
	made, err := recorduc.Locked(ctx, a.Record, verb, func(ctx context.Context, rec *recorduc.RecordLock) (createdRun, error) {
		res, jobs, err := a.createRun(ctx, rec, n, w)
		return createdRun{res, jobs}, err
	})
	if err != nil {
		return StepResult{}, err
	}
	// The routes beside the host are called now, outside every lock.
	return a.callAndPlace(ctx, verb, made.res.Run.Run, w, made.res, made.jobs)
}

// createdRun is a run created under the record lock and the routes its first awaits queued.
type createdRun struct {
	res  StepResult
	jobs queued
}

// unfinishedLike finds the newest run of kind over the same base and head, for the same intent and
// validators: an unfinished one first, else the newest that ended.
func (a *Deps) unfinishedLike(ctx context.Context, kind loop.Kind, base, head, intent string, validators []string) (loop.State, bool, error) {
	ids, err := a.Runs.Runs(ctx)
	if err != nil {
		return loop.State{}, false, err
	}
	var ended loop.State
	for i := len(ids) - 1; i >= 0; i-- {
		s, err := a.LoadRun(ctx, ids[i])
		if err != nil || s.Kind != kind || s.Base != base || s.Intent != intent || len(s.Lanes) != 1 || s.Lanes[0].Head != head || !slices.Equal(s.Validators, validators) {
			continue
		}
		if !s.Finished() {
			return s, true, nil
		}
		if ended.Run == "" {
			ended = s
		}
	}
	return ended, ended.Run != "", nil
}

// endedReview reports a review of the same head that has ended: its run as it ended and the command
// that starts another. abcd review exits 1 on it when a reviewer failed the change.
func (a *Deps) endedReview(s loop.State, verb, base, head string) StepResult {
	how := "passed"
	for _, l := range s.Lanes {
		if l.Stage == loop.StageHandedBack {
			how = "ended failed (" + oneLine(l.Findings) + ")"
		}
	}
	return StepResult{Run: a.runView(s),
		Did: []string{fmt.Sprintf("the review of %s..%s is run %s, which %s; nothing new was started", loop.Short(base), loop.Short(head), s.Run, how)},
		Next: []hint.Next{hint.Say("the branch's head is the one reviewed: commit the fixes to have them reviewed, or review the same head again: ",
			hint.Do(verb, hint.Flag("new")))}}
}
