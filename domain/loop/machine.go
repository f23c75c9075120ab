package loop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/oracle"
)

// IntegrationLane is the id of a spec run's integration lane.
const IntegrationLane = "integration"

// LaneSpec is a lane to create: a spec step, or the one lane of a review or audit run.
type LaneSpec struct {
	Step   int
	Text   string
	Branch string
	// After lists the steps this one builds on, by number.
	After []int
	// Head is the commit a review or audit run validates; empty for a spec lane, whose head comes
	// from its implementer's receipt.
	Head string
	// Kept is set when the step was delivered by an earlier run of the spec and is taken over as it
	// stood: the lane starts done at its head (Carry).
	Kept *Kept
}

// Options are a new run's settings.
type Options struct {
	Run, Spec, Intent, Base, BaseRef, Created, DoD string
	Criteria                                       []string
	// DoDEnv is build.dod_env when the run starts.
	DoDEnv    []string
	FixRounds int
	// Validators review each round; an audit run has only the intent-auditor.
	Validators []string
	// IntegrationBranch is where a spec run merges its delivered lanes.
	IntegrationBranch string
}

// New starts a run. Spec lanes begin waiting (to start from the base, or from the lanes they build
// on), and a spec run has an integration lane after them; review and audit lanes begin at validate
// on their head, round 1.
func New(kind Kind, o Options, lanes []LaneSpec) State {
	if o.FixRounds <= 0 {
		o.FixRounds = DefaultFixRounds
	}
	s := State{SchemaVersion: SchemaVersion, Run: o.Run, Kind: kind, Spec: o.Spec, Intent: o.Intent,
		Criteria: o.Criteria, Base: o.Base, BaseRef: o.BaseRef, Created: o.Created, DoD: o.DoD, DoDEnv: o.DoDEnv, FixRounds: o.FixRounds,
		Validators: o.Validators}
	idOf := map[int]string{}
	for i, ls := range lanes {
		idOf[ls.Step] = fmt.Sprintf("lane-%d", i+1)
	}
	for i, ls := range lanes {
		l := Lane{ID: fmt.Sprintf("lane-%d", i+1), Step: ls.Step, Text: ls.Text, Branch: ls.Branch, Stage: StageWaiting}
		for _, n := range ls.After {
			if id, ok := idOf[n]; ok {
				l.After = append(l.After, id)
			}
		}
		if kind != KindSpec {
			l.Stage, l.Head, l.Round, l.Start = StageValidate, ls.Head, 1, o.Base
		} else if k := ls.Kept; k != nil {
			// Its Progress line is in the spec already, from the run that delivered it.
			l.Stage, l.Start, l.Head, l.Delivered, l.KeptFrom = StageDone, k.Start, k.Head, true, k.From()
		}
		s.Lanes = append(s.Lanes, l)
	}
	if kind == KindSpec {
		s.Lanes = append(s.Lanes, Lane{ID: IntegrationLane, Branch: o.IntegrationBranch, Stage: StageWaiting, Integration: true})
	}
	return s.normalised()
}

// integration is the index of the spec run's integration lane, or -1 (a version 1 run has none).
func (s State) integration() int {
	for i, l := range s.Lanes {
		if l.Integration {
			return i
		}
	}
	return -1
}

// legacy is a version 1 spec run: no integration lane, and the auditor joins the last lane.
func (s State) legacy() bool { return s.Kind == KindSpec && s.integration() < 0 }

// lane finds a lane by id.
func (s State) lane(id string) (int, bool) {
	for i, l := range s.Lanes {
		if l.ID == id {
			return i, true
		}
	}
	return -1, false
}

// ActionKind is a change to the repository a run needs before its next await can open.
type ActionKind string

const (
	// ActStart starts a waiting lane: its branch at From, with Merge merged in, in its worktree.
	ActStart ActionKind = "start"
	// ActIntegrate merges every delivered lane into the integration branch, from the base.
	ActIntegrate ActionKind = "integrate"
)

// Action is one change Due asks for. Merge names the commits to merge after From, in order, and
// MergeLanes the lanes they are the heads of.
type Action struct {
	Kind       ActionKind
	Lane       int
	From       string
	Merge      []string
	MergeLanes []string
}

// Due lists, in lane order, what the repository must be given before the run can go on: a waiting
// lane whose lanes it builds on are all done starts (from the base when it builds on none, from the
// first one's head with the others merged in otherwise), and the integration lane, once every step
// lane is done, merges them all from the base.
func Due(s State) []Action {
	var out []Action
	for i, l := range s.Lanes {
		if l.Stage != StageWaiting || l.Conflict.With != "" {
			continue
		}
		if l.Integration {
			var heads, ids []string
			ready := true
			for _, o := range s.Lanes {
				if o.Integration {
					continue
				}
				if o.Stage != StageDone {
					ready = false
					break
				}
				heads, ids = append(heads, o.Head), append(ids, o.ID)
			}
			if ready {
				out = append(out, Action{Kind: ActIntegrate, Lane: i, From: s.Base, Merge: heads, MergeLanes: ids})
			}
			continue
		}
		from, ready := s.Base, true
		var merge, ids []string
		for k, id := range l.After {
			j, ok := s.lane(id)
			if !ok || s.Lanes[j].Stage != StageDone {
				ready = false
				break
			}
			if k == 0 {
				from = s.Lanes[j].Head
			} else {
				merge, ids = append(merge, s.Lanes[j].Head), append(ids, id)
			}
		}
		if ready {
			out = append(out, Action{Kind: ActStart, Lane: i, From: from, Merge: merge, MergeLanes: ids})
		}
	}
	return out
}

// Started records a lane's start: its branch at start (what it builds on, merged), checked out in
// worktree. A step lane goes to brief; the integration lane goes to validate its first round.
func (s *State) Started(lane int, start, worktree string) {
	l := &s.Lanes[lane]
	l.Start, l.Worktree, l.Findings = start, worktree, ""
	if l.Integration {
		l.Head, l.Round, l.Stage = start, 1, StageValidate
		s.Changes++
		s.settle(lane) // with no validator for it, the integration is the result
		return
	}
	l.Stage = StageBrief
	s.Changes++
}

// Conflicted records that merging what a lane starts from conflicted: with is the lane whose head
// would not merge, head that head, files the files git named. The lane goes on waiting, in its
// worktree (the branch as it was before that merge), for a person to make the merge by hand; the
// lanes that build on it wait with it, and nothing that was delivered is undone. Resolved, and the
// next step, go on from there.
func (s *State) Conflicted(lane int, with, head string, files []string, worktree string) {
	l := &s.Lanes[lane]
	l.Conflict = Conflict{With: with, Head: head, Files: append([]string{}, files...)}
	l.Worktree = worktree
	l.Findings = fmt.Sprintf("Merging %s (%s) into %s conflicted on %s: it waits for that merge to be made by hand in its worktree.\n",
		with, Short(head), l.Branch, strings.Join(files, ", "))
	s.Changes++
}

// Resolved records that the merge a lane waited for was made by hand: the lane starts from its branch
// as the person left it, with the merges still due made after it.
func (s *State) Resolved(lane int) {
	l := &s.Lanes[lane]
	l.Conflict = Conflict{Files: []string{}}
	l.Findings = ""
	s.Changes++
}

// handBack hands a lane back with its findings, and with it every lane waiting on it and the
// integration, each saying which lane was handed back first.
func (s *State) handBack(lane int, findings string) { s.handBackFor(lane, findings, s.Lanes[lane].ID) }

func (s *State) handBackFor(lane int, findings, root string) {
	l := &s.Lanes[lane]
	l.Stage, l.Findings = StageHandedBack, findings
	s.Changes++
	for i, o := range s.Lanes {
		if o.Stage != StageWaiting {
			continue
		}
		switch {
		case o.Integration:
			s.handBackFor(i, fmt.Sprintf("%s was handed back, so the lanes were not integrated.\n", root), root)
		case slices.Contains(o.After, l.ID):
			s.handBackFor(i, fmt.Sprintf("It builds on %s, which was handed back.\n", l.ID), root)
		}
	}
}

// AbandonedFindings is what implement abandon hands each moving lane back with: how a run that was
// abandoned is told from one its reviews ended.
const AbandonedFindings = "The run was abandoned.\n"

// Abandon ends a run that is not finished: every lane still moving is handed back saying so, and
// its open awaits are dropped. What the run recorded stays.
func (s *State) Abandon(why string) {
	for i := range s.Lanes {
		l := &s.Lanes[i]
		if l.Stage == StageDone || l.Stage == StageHandedBack {
			continue
		}
		l.Awaits = []Await{}
		l.Conflict = Conflict{Files: []string{}}
		l.Stage, l.Findings = StageHandedBack, why
		s.Changes++
	}
}

// Plan is an await the next step should open.
type Plan struct {
	Lane  int
	Kind  AwaitKind
	Role  string
	Round int
}

// Pending lists, in a fixed order, the awaits the loop needs opened now: a brief lane's
// implementer, a fix lane's implementer, and each validator of a lane's current round not yet
// opened or answered. The intent-auditor joins a spec run's last lane only once every other lane is
// done and that lane's reviewers have passed the round.
func Pending(s State) []Plan {
	var plans []Plan
	for i, l := range s.Lanes {
		switch l.Stage {
		case StageBrief:
			plans = append(plans, Plan{Lane: i, Kind: AwaitImplement, Role: RoleImplementer})
		case StageFix:
			if !l.awaiting(AwaitFix, RoleImplementer, l.Round) {
				plans = append(plans, Plan{Lane: i, Kind: AwaitFix, Role: RoleImplementer, Round: l.Round})
			}
		case StageValidate:
			if s.checkDue(i) {
				continue // abcd runs build.dod on the head first; its validators see what it showed
			}
			for _, role := range s.laneValidators(i) {
				if !l.awaiting("", role, l.Round) && !l.answered(role, l.Round) {
					plans = append(plans, Plan{Lane: i, Kind: kindFor(role), Role: role, Round: l.Round})
				}
			}
			if s.legacy() && s.auditorDue(i) {
				plans = append(plans, Plan{Lane: i, Kind: AwaitAudit, Role: RoleAuditor, Round: l.Round})
			}
		}
	}
	return plans
}

// laneValidators are the roles that validate a lane's rounds: on a spec run, the reviewers validate
// each step lane and the intent-auditor the integration lane (a version 1 run's auditor joins its
// last lane through auditorDue instead); once a fix round added code to the integration, the
// reviewers review it beside the auditor, as they would a lane's. On a review or audit run, every
// validator of the run.
func (s State) laneValidators(lane int) []string {
	if s.Kind != KindSpec {
		return s.Validators
	}
	l := s.Lanes[lane]
	var out []string
	for _, role := range s.Validators {
		if (role == RoleAuditor) == l.Integration || l.Integration && l.Round > 1 {
			out = append(out, role)
		}
	}
	return out
}

func kindFor(role string) AwaitKind {
	if role == RoleAuditor {
		return AwaitAudit
	}
	return AwaitReview
}

// auditorDue: lane i is the last lane, every other lane is done, its reviewers passed this round,
// and the auditor is neither awaited nor answered in it.
func (s State) auditorDue(i int) bool {
	if i != len(s.Lanes)-1 {
		return false
	}
	l := s.Lanes[i]
	// Every other lane settled: done, or handed back (nothing else is pending).
	for j, other := range s.Lanes {
		if j != i && other.Stage != StageDone && other.Stage != StageHandedBack {
			return false
		}
	}
	for _, role := range s.Validators {
		if role == RoleAuditor {
			continue
		}
		v, ok := l.verdict(role, l.Round)
		if !ok || !v.Pass {
			return false
		}
	}
	return !l.awaiting("", RoleAuditor, l.Round) && !l.answered(RoleAuditor, l.Round)
}

func (l Lane) awaiting(kind AwaitKind, role string, round int) bool {
	for _, a := range l.Awaits {
		if a.Role == role && a.Round == round && (kind == "" || a.Kind == kind) {
			return true
		}
	}
	return false
}

func (l Lane) answered(role string, round int) bool {
	_, ok := l.verdict(role, round)
	return ok
}

func (l Lane) verdict(role string, round int) (Verdict, bool) {
	for _, r := range l.Rounds {
		if r.N != round {
			continue
		}
		for _, v := range r.Verdicts {
			if v.Role == role {
				return v, true
			}
		}
	}
	return Verdict{}, false
}

// Open records an await the step opened for a plan, and moves a brief lane to implement.
func (s *State) Open(p Plan, brief, ret string, routing Routing, at string) Await {
	s.Counter++
	a := Await{ID: fmt.Sprintf("await-%d", s.Counter), Kind: p.Kind, Role: p.Role, Round: p.Round,
		Brief: brief, Return: ret, Routing: routing, Opened: at}
	l := &s.Lanes[p.Lane]
	l.Awaits = append(l.Awaits, a)
	if l.Stage == StageBrief {
		l.Stage = StageImplement
	}
	s.Changes++
	return a
}

// FallBack records a route beside the host that did not take a step: the fallback receipt, and, on
// the await while it is open, the reason, so every line that tells the await says the step is the
// host's and why. Whatever the route answered before is forgotten: the review is the host's now.
func (s *State) FallBack(awaitID string, f Fallback) {
	s.Fallbacks = append(s.Fallbacks, f)
	s.Changes++
	if i, j, ok := s.FindID(awaitID); ok {
		aw := &s.Lanes[i].Awaits[j]
		aw.Answered = Answer{}
		aw.Routing.FellBack = f.Reason
	}
}

// OpenAwaits lists every open await, lane by lane.
func (s State) OpenAwaits() []Await {
	var out []Await
	for _, l := range s.Lanes {
		out = append(out, l.Awaits...)
	}
	return out
}

// FindID locates the open await with the id.
func (s State) FindID(id string) (lane, idx int, ok bool) {
	for i, l := range s.Lanes {
		for j, a := range l.Awaits {
			if a.ID == id {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// Find locates the open await whose return path is ret.
func (s State) Find(ret string) (lane, idx int, ok bool) {
	for i, l := range s.Lanes {
		for j, a := range l.Awaits {
			if a.Return == ret {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// RecordImplementation closes an implement or fix await with its verified receipt: the lane moves
// to validate on the receipt's head, in round 1 or the round after the failed one.
func (s *State) RecordImplementation(lane, idx int, impl Implementation) error {
	l := &s.Lanes[lane]
	a := l.Awaits[idx]
	if a.Kind != AwaitImplement && a.Kind != AwaitFix {
		return fmt.Errorf("await %s waits for a %s return, not an implementer's receipt", a.ID, a.Role)
	}
	impl.Round, impl.Await = a.Round, a.ID
	l.Implementations = append(l.Implementations, impl)
	l.Head = impl.Head
	l.Awaits = append(l.Awaits[:idx], l.Awaits[idx+1:]...)
	l.Stage = StageValidate
	l.Round = a.Round + 1
	s.Changes++
	return nil
}

// RecordBlocked closes an implement or fix await with a receipt that hands the step back: the lane
// is handed back with the implementer's reason, and every lane that builds on it and the
// integration with it; the run goes on with the lanes that do not.
func (s *State) RecordBlocked(lane, idx int, impl Implementation) error {
	l := &s.Lanes[lane]
	a := l.Awaits[idx]
	if a.Kind != AwaitImplement && a.Kind != AwaitFix {
		return fmt.Errorf("await %s waits for a %s return, not an implementer's receipt", a.ID, a.Role)
	}
	impl.Round, impl.Await = a.Round, a.ID
	l.Implementations = append(l.Implementations, impl)
	l.Awaits = append(l.Awaits[:idx], l.Awaits[idx+1:]...)
	why := fmt.Sprintf("The implementer handed the step back: %s\n", strings.TrimSpace(impl.Blocked))
	if impl.Report != "" {
		why += fmt.Sprintf("\nIts report: %s\n", impl.Report)
	}
	if l.Findings != "" {
		why += "\nThe findings it was fixing:\n\n" + l.Findings
	}
	s.handBack(lane, why)
	return nil
}

// RecordVerdict closes a validator's await with its verified verdict, then settles the round when
// every validator due in it has answered: all passing makes the lane done (after the auditor, on a
// spec run's last lane); any failing either opens a fix (with every validator's tier escalated for
// the next round by the caller through Escalated) or, after FixRounds failed rounds, hands the lane
// back with the findings.
func (s *State) RecordVerdict(lane, idx int, v Verdict) error {
	l := &s.Lanes[lane]
	a := l.Awaits[idx]
	if a.Kind != AwaitReview && a.Kind != AwaitAudit {
		return fmt.Errorf("await %s waits for an implementer's receipt, not a verdict", a.ID)
	}
	v.Role, v.Await = a.Role, a.ID
	v.Routing = a.Routing
	if a.Answered.Route != "" && v.Answered.Route == "" {
		v.Answered = a.Answered
	}
	// The state keeps a bounded excerpt; the whole return stays at its path, named with its digest.
	v.Findings = excerpt(v.Findings, MaxFindingsInState)
	l.Awaits = append(l.Awaits[:idx], l.Awaits[idx+1:]...)
	r := l.round(a.Round)
	r.Verdicts = append(r.Verdicts, v)
	s.Changes++
	s.settle(lane)
	return nil
}

func (l *Lane) round(n int) *Round {
	for i := range l.Rounds {
		if l.Rounds[i].N == n {
			return &l.Rounds[i]
		}
	}
	l.Rounds = append(l.Rounds, Round{N: n, Verdicts: []Verdict{}})
	return &l.Rounds[len(l.Rounds)-1]
}

// settle decides a lane's round once nothing in it is awaited.
func (s *State) settle(lane int) {
	l := &s.Lanes[lane]
	if l.Stage != StageValidate {
		return
	}
	for _, a := range l.Awaits {
		if a.Round == l.Round {
			return
		}
	}
	r := l.round(l.Round)
	var failed []Verdict
	for _, role := range s.laneValidators(lane) {
		if role == RoleAuditor && s.legacy() {
			continue
		}
		v, ok := l.verdict(role, l.Round)
		if !ok {
			return // a validator of this round has not been opened yet
		}
		if !v.Pass {
			failed = append(failed, v)
		}
	}
	// On a version 1 spec run the auditor joins the last lane outside its validators.
	if audit, ok := l.verdict(RoleAuditor, l.Round); ok && !audit.Pass && s.legacy() {
		failed = append(failed, audit)
	}
	if len(failed) == 0 {
		if s.legacy() && lane == len(s.Lanes)-1 && hasRole(s.Validators, RoleAuditor) && !l.answered(RoleAuditor, l.Round) {
			return // the auditor joins once every other lane is done
		}
		l.Stage = StageDone
		l.Findings = ""
		return
	}
	l.Failed++
	l.Findings = findingsOf(r.N, failed)
	if s.Kind != KindSpec || l.Failed >= s.FixRounds {
		s.handBack(lane, l.Findings)
		return
	}
	// The next round's validators are fresh and one tier up from what this round asked.
	for _, v := range r.Verdicts {
		if t := oracle.Tier(v.Routing.Tier); t.Valid() {
			l.Tiers[v.Role] = string(oracle.Escalate(t))
		}
	}
	l.Stage = StageFix
}

func hasRole(roles []string, role string) bool {
	for _, r := range roles {
		if r == role {
			return true
		}
	}
	return false
}

func findingsOf(round int, failed []Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d failed.\n", round)
	for _, v := range failed {
		fmt.Fprintf(&b, "\n### %s: %s\n\nThe whole return: %s\n\n%s\n", v.Role, v.Word, v.Return, strings.TrimSpace(v.Findings))
	}
	return b.String()
}

// MaxFindingsInState bounds the findings a verdict keeps in the state file, so rounds of long
// returns never grow it past MaxStateBytes; the brief names the return file for the rest.
const MaxFindingsInState = 16 << 10

// excerpt cuts s to at most max bytes on a rune boundary, saying where the rest is.
func excerpt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const note = "\n[cut here: the rest is in the whole return]"
	cut := max - len(note)
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + note
}

// Finished reports whether no lane can move any more.
func (s State) Finished() bool {
	for _, l := range s.Lanes {
		if l.Stage != StageDone && l.Stage != StageHandedBack {
			return false
		}
	}
	return true
}
