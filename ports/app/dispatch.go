package app

// The routes beside the host: a step's route is called once the run's lock is released, and its
// answer placed under the lock again. While a review is out, implement status, other lanes'
// receipts and other steps go on; the host may take the same await meanwhile, and a return its
// agent wrote first stands.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports"
)

// dispatch is a step a route beside the host takes, queued while the run's lock is held and called
// once it is released.
type dispatch struct {
	await, lane, role string
	round             int
	ret               string // the await's return path, relative to the repository
	route             string // rp, or a connection's name
	v                 ports.Validator
	req               ports.ReviewRequest
}

// answered is a dispatch and what its route said.
type answered struct {
	dispatch
	out ports.ReviewOutcome
	err error
}

// placeTries bounds how often the answer's placement waits for a lock another invocation holds.
const placeTries = 5

// maxRequestBytes bounds a request.md: the brief (whose diff is already bounded), the record it was
// rendered from and the implementer's reports.
const maxRequestBytes = 2 << 20

// drive runs f on the run under its lock, then calls every route f queued, outside the lock, and
// places their answers under the lock again; an answer can make more awaits due (the next round,
// the integration), whose routes are called in turn. It returns the run as the last placement left it.
func (a *App) drive(ctx context.Context, verb, run string, f func(context.Context, *loop.State, *[]dispatch) (StepResult, bool, error)) (StepResult, error) {
	var jobs []dispatch
	res, err := a.withRun(ctx, verb, run, func(ctx context.Context, s *loop.State) (StepResult, bool, error) { return f(ctx, s, &jobs) })
	if err != nil {
		return res, err
	}
	return a.callAndPlace(ctx, verb, run, res, jobs)
}

// callAndPlace calls the routes jobs names, outside the run's lock, and places what they answer under
// it, round after round, adding to res what each placement did.
func (a *App) callAndPlace(ctx context.Context, verb, run string, res StepResult, jobs []dispatch) (StepResult, error) {
	for round := 0; len(jobs) > 0 && round < 16; round++ {
		outs := a.callRoutes(ctx, jobs)
		jobs = nil
		// Placing what came back must happen even when the person interrupted the step: the
		// fallback receipt says so, and the await stays the host's.
		placeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		more, err := a.withRunRetry(placeCtx, verb, run, func(placeCtx context.Context, s *loop.State) (StepResult, bool, error) {
			did := a.place(placeCtx, s, outs)
			var next []dispatch
			adv, err := a.advance(placeCtx, s, nil, &next)
			if ctx.Err() != nil {
				// Interrupted: the awaits this placement opened are the host's.
				for _, j := range next {
					if i, k, ok := s.FindID(j.await); ok {
						did = append(did, a.fallBack(s, s.Lanes[i].Awaits[k], j.lane, j.route, review.Interrupted, ""))
					}
				}
				next = nil
			}
			jobs = next
			return StepResult{Did: append(did, adv...)}, true, err
		})
		cancel()
		if err != nil {
			if kept := a.keepAllAside(context.WithoutCancel(ctx), outs); len(kept) > 0 {
				if r, ok := refusal.As(err); ok && r.Kind == refusal.Contention {
					r.Why += "; the routes' answers are kept aside at " + strings.Join(kept, ", ")
				}
			}
			return res, err
		}
		res.Did = append(res.Did, more.Did...)
		res.Run, res.Next = more.Run, more.Next
	}
	return res, nil
}

// callRoutes calls every queued route at once and waits for them all; each is bounded by its
// adapter and by ctx.
func (a *App) callRoutes(ctx context.Context, jobs []dispatch) []answered {
	outs := make([]answered, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := j.v.Review(ctx, j.req)
			if err == nil && out.FallbackReason == "" && ctx.Err() != nil {
				out = ports.ReviewOutcome{FallbackReason: string(review.Interrupted)}
			}
			outs[i] = answered{dispatch: j, out: out, err: err}
		}()
	}
	wg.Wait()
	return outs
}

// withRunRetry is withRun, waiting out another invocation's hold on the lock a few times more: an
// answer that came back must be placed or said, not lost to a busy lock.
func (a *App) withRunRetry(ctx context.Context, verb, run string, f func(context.Context, *loop.State) (StepResult, bool, error)) (StepResult, error) {
	var res StepResult
	var err error
	for try := 0; try < placeTries; try++ {
		res, err = a.withRun(ctx, verb, run, f)
		if r, ok := refusal.As(err); !ok || r.Kind != refusal.Contention {
			return res, err
		}
	}
	return res, err
}

// place records what each route said, under the run's lock. An answer goes to the return path the
// host's agent would write, only while the await still asks this route and nothing stands there;
// it is verified and recorded as a host return is, with the route's name and its digest in the same
// state write. A return the host's agent wrote first stands, and the answer is kept aside. Anything
// else the route said is a fallback receipt; the await stays the host's.
func (a *App) place(ctx context.Context, s *loop.State, outs []answered) []string {
	var did []string
	for _, o := range outs {
		lane, idx, ok := s.FindID(o.await)
		if !ok || s.Lanes[lane].Awaits[idx].Routing.Route != o.route {
			// The review stopped being the route's (recorded from the host, abandoned): an answer is
			// kept aside, recorded nowhere.
			if len(o.out.Return) > 0 {
				if kept, err := a.keepAside(ctx, o.ret, o.route, o.out.Return); err == nil {
					did = append(did, fmt.Sprintf("%s: %s answered %s's %s after it was settled; the answer is kept aside at %s", o.lane, o.route, o.role, kindOf(o.ret), a.abs(kept)))
				}
			}
			continue
		}
		aw := s.Lanes[lane].Awaits[idx]
		switch {
		case o.err != nil:
			did = append(did, a.fallBack(s, aw, o.lane, o.route, review.Failed, "the route failed: "+o.err.Error()))
			continue
		case o.out.FallbackReason != "":
			reason := review.FallbackReason(o.out.FallbackReason)
			if !reason.Valid() {
				reason = review.Failed
			}
			did = append(did, a.fallBack(s, aw, o.lane, o.route, reason, o.out.FallbackDetail))
			continue
		}
		dir := path.Dir(o.ret)
		if a.Runs.CheckFile(ctx, dir, o.ret) == "" {
			// The host's agent wrote the return first: it stands, and its receipt records it.
			kept, err := a.keepAside(ctx, o.ret, o.route, o.out.Return)
			if err == nil {
				did = append(did, fmt.Sprintf("%s: the host's return for %s stands; %s's answer is kept aside at %s", o.lane, o.role, o.route, a.abs(kept)))
			}
			continue
		}
		// The answer is written with the state that records it, as one change: a kill between never
		// leaves the route's answer standing as though the host's agent wrote it.
		edits, err := stepEditsOf(ctx)
		if err != nil {
			did = append(did, a.fallBack(s, aw, o.lane, o.route, review.Failed, "its answer could not be written: "+refusalWhy(err)))
			continue
		}
		edits.stage(o.ret, o.out.Return)
		sum := sha256.Sum256(o.out.Return)
		digest := hex.EncodeToString(sum[:])
		s.Lanes[lane].Awaits[idx].Answered = loop.Answer{Route: o.route, SHA256: digest, ModelAsked: o.out.ModelAsked,
			ModelReported: o.out.ModelReported, SchemaEnforced: o.out.SchemaEnforced, TokensIn: o.out.Usage.Prompt, TokensOut: o.out.Usage.Completion,
			Settings: o.req.Settings}
		if err := a.recordReturn(ctx, s, o.ret, o.route); err != nil {
			// The route's own answer is not written, so the host's agent writes there.
			edits.unstage(o.ret)
			if i, j, ok := s.FindID(o.await); ok {
				s.Lanes[i].Awaits[j].Answered = loop.Answer{}
				did = append(did, a.fallBack(s, s.Lanes[i].Awaits[j], o.lane, o.route, review.Invalid, refusalWhy(err)))
			}
			continue
		}
		word := ""
		if v, ok := lastVerdict(*s, lane, aw); ok {
			word = ": " + v.Word
		}
		did = append(did, fmt.Sprintf("%s: %s's %s (round %d) was answered by %s%s", o.lane, o.role, kindOf(o.ret), o.round, o.route, word))
	}
	return did
}

func kindOf(ret string) string {
	if strings.HasSuffix(ret, ".json") {
		return "audit"
	}
	return "review"
}

// keepAside writes a route's answer beside the return path, create-only, under the next free name
// (rp-return.md, rp-return-2.md, ...): a name the step reports never holds part of an answer.
func (a *App) keepAside(ctx context.Context, ret, route string, data []byte) (string, error) {
	ext := path.Ext(ret)
	dir := path.Dir(ret)
	for n := 1; n < 100; n++ {
		name := fmt.Sprintf("%s/%s-return%s", dir, route, ext)
		if n > 1 {
			name = fmt.Sprintf("%s/%s-return-%d%s", dir, route, n, ext)
		}
		if strings.HasSuffix(a.Runs.CheckFile(ctx, dir, name), "does not exist") {
			if err := a.Runs.Write(ctx, name, data); err != nil {
				return "", err
			}
			return name, nil
		}
	}
	return "", errors.New("no free name to keep the answer aside")
}

// keepAllAside keeps every answer of outs aside, for placements a busy lock stopped.
func (a *App) keepAllAside(ctx context.Context, outs []answered) []string {
	var kept []string
	for _, o := range outs {
		if o.err == nil && o.out.FallbackReason == "" && len(o.out.Return) > 0 {
			if p, err := a.keepAside(ctx, o.ret, o.route, o.out.Return); err == nil {
				kept = append(kept, a.abs(p))
			}
		}
	}
	return kept
}

// composeRequest writes request.md beside the await's brief and returns the request a route is
// handed: whole, since a route reads no file of the checkout. It holds the brief (the agent's
// definition, the step, the criteria, the earlier rounds' findings, the implementer's report of every
// round, and the lane's diff from where the lane started, bounded) and the record it was rendered
// from.
func (a *App) composeRequest(ctx context.Context, s loop.State, lane loop.Lane, p loop.Plan, aw loop.Await, brief string, route oracle.Route) (ports.ReviewRequest, error) {
	var b strings.Builder
	b.WriteString(brief)
	verb := entryVerb(s.Kind)
	for _, ref := range []struct {
		fam record.Family
		id  string
	}{{record.Specs, s.Spec}, {record.Intents, s.Intent}} {
		if ref.id == "" {
			continue
		}
		l, err := a.resolve(ctx, ref.fam, verb, "", record.Ref(ref.id))
		if err != nil {
			return ports.ReviewRequest{}, err
		}
		data, err := a.readFull(ctx, l.file.Path)
		if err != nil {
			return ports.ReviewRequest{}, err
		}
		fmt.Fprintf(&b, "\n## The record: %s (%s)\n\n%s\n", ref.id, l.file.Path, fence(string(data)))
	}
	text := b.String()
	if len(text) > maxRequestBytes {
		text = text[:maxRequestBytes] + fmt.Sprintf("\n\n[the request is longer than %d bytes and was cut here]\n", maxRequestBytes)
	}
	reqPath := path.Dir(aw.Brief) + "/request.md"
	if err := a.Runs.Write(ctx, reqPath, []byte(text)); err != nil {
		return ports.ReviewRequest{}, err
	}
	req := ports.ReviewRequest{Run: s.Run, Lane: lane.ID, Role: p.Role, Round: p.Round, Request: []byte(text), Tier: string(route.Row.Tier)}
	if ros, err := a.Roster.Roster(); err == nil {
		if ag, ok := ros.Get(p.Role); ok {
			req.Agent = ag.Body
		}
	}
	reply := "review_reply"
	if p.Kind == loop.AwaitAudit {
		reply = "audit_return"
	}
	if a.Schemas != nil {
		if data, ok, err := a.Schemas.Schema(reply); err == nil && ok {
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

// reportOf is an implementer's report, as its receipt named it, bounded; "" when it cannot be read.
func (a *App) reportOf(ctx context.Context, s loop.State, lane loop.Lane, im loop.Implementation) string {
	p := a.reportRel(ctx, s, lane, im)
	if p == "" {
		return ""
	}
	report, err := a.Runs.Read(ctx, p, 64<<10)
	if err != nil {
		return ""
	}
	return string(report)
}

// reportRel is the implementer's report file of one round (repository-relative), as its receipt
// names it; "" when it names none the loop can read.
func (a *App) reportRel(ctx context.Context, s loop.State, lane loop.Lane, im loop.Implementation) string {
	data, err := a.Runs.Read(ctx, im.Receipt, review.MaxReceiptBytes)
	if err != nil {
		return ""
	}
	rc, err := review.DecodeImplementerReceipt(data)
	if err != nil || !review.LanePathOK(rc.Report) {
		return ""
	}
	return loop.LaneDir(s.Run, lane.ID) + "/" + rc.Report
}

// reportPath is reportRel made absolute, for a brief.
func (a *App) reportPath(ctx context.Context, s loop.State, lane loop.Lane, im loop.Implementation) string {
	return a.abs(a.reportRel(ctx, s, lane, im))
}

// fence quotes text so no line of it can close the fence and read as the request's own.
func fence(text string) string {
	n := 3
	for run, i := 0, 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}
