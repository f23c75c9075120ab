package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/text"
)

// receive is the receipt's step: the await ret (repository-relative; given is the path as handed in)
// answers is found, its return verified and recorded (what was recorded goes to recorded), and the
// run advanced.
func (st *step) receive(ctx context.Context, ret, given string, recorded *RecordedView) (StepResult, bool, error) {
	s := &st.state
	lane, idx, ok := s.Find(ret)
	if !ok {
		return st.notAwaited(ret, given, recorded)
	}
	aw := s.Lanes[lane].Awaits[idx]
	if err := st.recordReturn(ctx, ret, "host"); err != nil {
		return StepResult{}, false, err
	}
	ln := s.Lanes[lane]
	*recorded = RecordedView{Await: aw.ID, Lane: ln.ID, Role: aw.Role, Kind: string(aw.Kind), Route: "host"}
	did := []string{}
	if v, ok := lastVerdict(*s, lane, aw); ok {
		recorded.Word, recorded.Pass, recorded.Route = v.Word, v.Pass, v.Routing.Ran
		did = append(did, fmt.Sprintf("%s: recorded the %s's return", ln.ID, aw.Role))
	} else {
		recorded.Word, recorded.Pass = "RECEIPT", true
		did = append(did, fmt.Sprintf("%s: recorded the %s's receipt", ln.ID, aw.Role))
		if im := ln.Implementations[len(ln.Implementations)-1]; im.Blocked != "" {
			recorded.Word, recorded.Pass = "BLOCKED", false
			did = append(did, fmt.Sprintf("%s: the implementer handed the step back (%s); the lane is handed back with that reason, with every lane that builds on it, and the run goes on with the others", ln.ID, oneLine(im.Blocked)))
		} else if len(im.Uncommitted) > 0 {
			warning := fmt.Sprintf("%s: the implementer left %s uncommitted in its checkout %s: %s. They are not part of the change, and the reviewers are told so; commit what the step needs in a fix round", ln.ID,
				text.Count(len(im.Uncommitted), "file", "files"), st.abs(ln.Worktree), strings.Join(im.Uncommitted, ", "))
			// Said once, in what the receipt did (the result both doors show), never again on stderr.
			did = append(did, warning)
		}
	}
	more, err := st.advance(ctx, nil)
	if err != nil {
		return StepResult{}, false, err
	}
	return StepResult{Did: append(did, more...)}, true, nil
}

// notAwaited answers a return path no open await names: one this same receipt recorded before a
// kill (its change is now finished), one recorded already, or one the run does not await at all.
func (st *step) notAwaited(ret, given string, recorded *RecordedView) (StepResult, bool, error) {
	s := st.state
	if was, at, found := recordedReturn(s, ret); found {
		if _, mine := st.finishedFor(s.Run); mine {
			// This same receipt, killed once its change was in the journal: taking the lock finished it.
			*recorded = was
			return StepResult{Did: []string{fmt.Sprintf("%s: the %s's return was recorded by the interrupted receipt, whose change is now finished", was.Lane, was.Role)}}, false, nil
		}
		return StepResult{}, false, refusal.New(refusal.CodeReceiptRecorded, fmt.Sprintf("%q", text.ClipPath(given)), fmt.Sprintf("was recorded already, at %s", at),
			"nothing to do: ", refusal.Run("implement_status", refusal.With("run", s.Run)), " shows what the run waits on now")
	}
	var open []string
	for _, aw := range s.OpenAwaits() {
		open = append(open, aw.Return)
	}
	remedy := refusal.Say("no await is open: ", refusal.Run("implement_step", refusal.With("run", s.Run)))
	if len(open) > 0 {
		remedy = refusal.Say("the open awaits' return paths: " + strings.Join(open, ", "))
	}
	return StepResult{}, false, &refusal.Error{Kind: refusal.Refused, Code: refusal.CodeReceiptNotAwaited, What: fmt.Sprintf("%q", text.ClipPath(given)),
		Why: "is not the return path of an open await of " + s.Run, Remedy: remedy}
}

// recordedReturn finds ret among the returns the run has recorded: what was recorded, and when.
func recordedReturn(s loop.State, ret string) (RecordedView, string, bool) {
	for _, ln := range s.Lanes {
		for _, im := range ln.Implementations {
			if im.Receipt == ret {
				kind := loop.AwaitImplement
				if im.Round > 1 {
					kind = loop.AwaitFix
				}
				return RecordedView{Lane: ln.ID, Role: loop.RoleImplementer, Kind: string(kind), Word: "RECEIPT", Pass: true, Route: "host"}, im.At, true
			}
		}
		for _, r := range ln.Rounds {
			for _, v := range r.Verdicts {
				if v.Return == ret {
					kind := loop.AwaitReview
					if v.Role == loop.RoleAuditor {
						kind = loop.AwaitAudit
					}
					return RecordedView{Lane: ln.ID, Role: v.Role, Kind: string(kind), Word: v.Word, Pass: v.Pass, Route: v.Routing.Ran}, v.At, true
				}
			}
		}
	}
	return RecordedView{}, "", false
}

func lastVerdict(s loop.State, lane int, aw loop.Await) (loop.Verdict, bool) {
	for _, r := range s.Lanes[lane].Rounds {
		if r.N != aw.Round {
			continue
		}
		for _, v := range r.Verdicts {
			if v.Role == aw.Role {
				return v, true
			}
		}
	}
	return loop.Verdict{}, false
}

// recordReturn verifies what stands at an await's return path and records it, as the route ran
// names it ("host", or the route whose answer the step placed there).
func (st *step) recordReturn(ctx context.Context, ret, ran string) error {
	lane, idx, ok := st.state.Find(ret)
	if !ok {
		return fmt.Errorf("no open await returns to %s", ret)
	}
	switch st.state.Lanes[lane].Awaits[idx].Kind {
	case loop.AwaitImplement, loop.AwaitFix:
		return st.recordReceipt(ctx, lane, idx, ret)
	case loop.AwaitReview:
		data, err := st.readReturn(ctx, ret, review.MaxReturnBytes)
		if err != nil {
			return err
		}
		v, err := review.ParseReviewerReturn(review.Role(st.state.Lanes[lane].Awaits[idx].Role), data)
		if err != nil {
			return returnRefused(ret, err)
		}
		return st.recordVerdict(lane, idx, v, ret, data, ran)
	}
	return st.recordAudit(ctx, lane, idx, ret, ran)
}

// returnRefused is the refusal of a return that does not verify, naming every problem.
func returnRefused(ret string, err error) error {
	var re *review.ReturnError
	if errors.As(err, &re) {
		return refusal.New(refusal.CodeReturnRefused, ret, strings.Join(re.Problems, "; "),
			"fix the return and ", refusal.Run("implement_receipt", refusal.With("path", ret)), " again; nothing was recorded")
	}
	return err
}

// recordReceipt verifies an implementer's receipt: every rule is checked before anything is
// refused, so every problem comes back at once: what the receipt says, and what git and the lane
// folder say of what could be read of it.
func (st *step) recordReceipt(ctx context.Context, lane, idx int, ret string) error {
	data, err := st.readReturn(ctx, ret, review.MaxReceiptBytes)
	if err != nil {
		return err
	}
	rc, decodeErr := review.DecodeImplementerReceipt(data)
	var re *review.ReturnError
	if decodeErr != nil && (!errors.As(decodeErr, &re) || rc.SchemaVersion == 0 && rc.Run == "" && len(rc.Commits) == 0) {
		return returnRefused(ret, decodeErr)
	}
	facts, head, err := st.receiptFacts(ctx, st.state.Lanes[lane], rc)
	if err != nil {
		return err
	}
	if err := review.JoinProblems(decodeErr, review.CheckReceiptFacts(rc, facts)); err != nil {
		return returnRefused(ret, err)
	}
	ln := st.state.Lanes[lane]
	impl := loop.Implementation{Commits: rc.Commits, Head: head, Model: rc.Model, Receipt: ret, At: st.Now(), Blocked: rc.Blocked,
		Report: st.keepReport(ctx, ln, ret, rc.Report)}
	if ans := ln.Awaits[idx].Answered; ans.Route != "" {
		// The receipt a route placed (a runner's, written by abcd): credited to it when these are its
		// bytes, whoever hands them in.
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) == ans.SHA256 {
			impl.Answered = &ans
		}
	}
	if ln.Worktree != "" {
		left, more, err := st.Git.Uncommitted(ctx, ln.Worktree, maxUncommitted)
		if err != nil {
			return err
		}
		if more {
			left = append(left, fmt.Sprintf("[and more: %d are listed]", maxUncommitted))
		}
		impl.Uncommitted = left
	}
	if rc.Blocked != "" {
		return st.state.RecordBlocked(lane, idx, impl)
	}
	return st.state.RecordImplementation(lane, idx, impl)
}

// maxUncommitted bounds the files left uncommitted a receipt's record names.
const maxUncommitted = 50

// keepReport keeps abcd's copy of the implementer's report, as it was handed in, in the await's own
// folder beside the receipt, written with the state that records it: a later round's report, even
// one an implementer writes over the same file, never replaces it. It returns the copy's path, or ""
// when the report cannot be read (larger than a brief quotes).
func (st *step) keepReport(ctx context.Context, ln loop.Lane, ret, report string) string {
	data, err := st.Runs.Read(ctx, loop.LaneDir(st.state.Run, ln.ID)+"/"+report, maxReportBytes)
	if err != nil {
		return ""
	}
	kept := path.Dir(ret) + "/kept-report.md"
	st.stage(kept, data)
	return kept
}

// maxReportBytes bounds an implementer's report a brief quotes.
const maxReportBytes = 64 << 10

// receiptFacts is what the lane folder and git say of a receipt, for the domain's check, and the
// lane branch's head.
func (st *step) receiptFacts(ctx context.Context, ln loop.Lane, rc review.ImplementerReceipt) (review.ReceiptFacts, string, error) {
	s := st.state
	laneDir := loop.LaneDir(s.Run, ln.ID)
	facts := review.ReceiptFacts{Run: s.Run, Lane: ln.ID, Branch: ln.Branch}
	if review.LanePathOK(rc.DoD.Output) {
		facts.OutputProblem = st.Runs.CheckFile(ctx, laneDir, laneDir+"/"+rc.DoD.Output)
	}
	if review.LanePathOK(rc.Report) {
		facts.ReportProblem = st.Runs.CheckFile(ctx, laneDir, laneDir+"/"+rc.Report)
	}
	head, err := st.Git.Resolve(ctx, ln.Branch)
	if err != nil {
		return facts, "", err
	}
	// A lane that builds on others starts from their heads: their commits are not the lane's.
	start := ln.Start
	if start == "" {
		start = s.Base
	}
	for _, c := range rc.Commits {
		if !review.ValidCommitID(c) {
			continue
		}
		if ok, err := st.Git.IsAncestor(ctx, c, head); err != nil {
			return facts, "", err
		} else if !ok {
			facts.Unreachable = append(facts.Unreachable, c)
		}
		if ok, err := st.Git.IsAncestor(ctx, c, start); err != nil {
			return facts, "", err
		} else if ok {
			facts.FromBase = append(facts.FromBase, c)
		}
	}
	return facts, head, nil
}

// recordAudit verifies the auditor's return. An audit run's verdicts, and a spec run's audit of its
// integration, go into the intent's Audit Notes: what was promised and what was delivered read side
// by side.
func (st *step) recordAudit(ctx context.Context, lane, idx int, ret, ran string) error {
	s := &st.state
	data, err := st.readReturn(ctx, ret, review.MaxReturnBytes)
	if err != nil {
		return err
	}
	audit, v, err := review.ParseAuditReturn(data, s.Intent, s.Criteria)
	if err != nil {
		return returnRefused(ret, err)
	}
	if ln := s.Lanes[lane]; s.Kind == loop.KindAudit || (s.Intent != "" && ln.Integration) {
		// The notes are committed: whoever wrote the return, no credential abcd holds goes in.
		notes := st.Scrubber(ctx).Scrub(loop.AuditNotes(st.Clock.Now().UTC().Format("2006-01-02"), *s, ln, audit, v.Word))
		if err := record.CheckBody(notes); err != nil {
			return refusal.New(refusal.CodeReturnRefused, ret, "the audit's text cannot go into the intent's Audit Notes: "+err.Error(),
				"write the evidence, concerns and summary as plain sentences (no headings or code fences) and hand the return in again; nothing was recorded")
		}
		// The notes go into the intent with the state that records the verdict, as one change: a
		// kill leaves both or neither, so a receipt handed in again never writes the notes twice.
		st.editRecord(record.Intents, s.Intent, func(p string, data []byte) ([]byte, error) {
			updated, err := record.AppendToSection(data, record.SectionAuditNotes, notes)
			if err != nil {
				return nil, refusal.New(refusal.CodeRecordMalformed, p, err.Error(), "fix the intent (", refusal.Run("lint"), " lists every problem), then hand the return in again")
			}
			return updated, nil
		})
	}
	return st.recordVerdict(lane, idx, v, ret, data, ran)
}

// recordVerdict records a validator's verdict, crediting the route whose answer the bytes are.
func (st *step) recordVerdict(lane, idx int, v review.Verdict, ret string, data []byte, ran string) error {
	s := &st.state
	sum := sha256.Sum256(data)
	aw := s.Lanes[lane].Awaits[idx]
	digest := hex.EncodeToString(sum[:])
	switch {
	case aw.Answered.Route != "" && aw.Answered.SHA256 == digest:
		// The bytes the route's answer was placed as: the route's, whoever hands them in.
		ran = aw.Answered.Route
	case ran == "host":
		s.Lanes[lane].Awaits[idx].Answered = loop.Answer{} // the host's agent wrote (or rewrote) it
	}
	routing := aw.Routing
	routing.Ran = ran
	s.Lanes[lane].Awaits[idx].Routing = routing
	return s.RecordVerdict(lane, idx, loop.Verdict{Word: v.Word, Pass: v.Pass, Findings: v.Findings, Return: ret,
		SHA256: digest, At: st.Now()})
}

// readReturn reads a return at ret as the step sees it: an answer the step placed there itself, else
// the file an agent wrote.
func (st *step) readReturn(ctx context.Context, ret string, max int) ([]byte, error) {
	if data, ok := st.staged(ret); ok {
		if len(data) > max {
			return nil, refusal.New(refusal.CodeReturnTooLarge, ret, fmt.Sprintf("is larger than %d bytes", max), "shorten it")
		}
		return data, nil
	}
	return st.Runs.Read(ctx, ret, max)
}
