package loop

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The tests drive the machine the way the use cases do: Pending → AwaitPaths → Open, then Find the
// return path an agent wrote to and RecordImplementation or RecordVerdict. The harness plays the
// caller, including asking each validator at the lane's escalated tier when it has one.

const at = "2025-01-02T03:04:05Z"

// specValidators is a spec run's validators, in the configured order.
func specValidators() []string { return []string{RoleRuthless, RoleSecurity, RoleAuditor} }

type harness struct {
	t testing.TB
	s State
	// table is the routing table's tier per role, what a validator is asked at before any escalation.
	table map[string]string
	heads int
}

func defaultTable() map[string]string {
	return map[string]string{RoleImplementer: "frontier", RoleRuthless: "local", RoleSecurity: "economy", RoleAuditor: "frontier"}
}

func laneSpecs(n int) []LaneSpec {
	var ls []LaneSpec
	for i := range n {
		ls = append(ls, LaneSpec{Step: i + 1, Text: fmt.Sprintf("do step %d", i+1), Branch: fmt.Sprintf("abcd/run-1/lane-%d", i+1)})
	}
	return ls
}

func specOptions(fixRounds int, validators []string) Options {
	return Options{Run: "run-1", Spec: "spec-7", Intent: "intent-3", Base: "base000", Created: at, DoD: "make check",
		Criteria: []string{"ac-1", "ac-2"}, FixRounds: fixRounds, Validators: validators}
}

// newSpec is a version 1 spec run of n lanes with the three validators, as abcd before version 2
// wrote it: no integration lane, every lane at brief from the start, the auditor joining the last
// lane. The tests written for it hold that such a run, read back, steps as it always did.
func newSpec(t testing.TB, n, fixRounds int) *harness {
	return &harness{t: t, s: legacyState(New(KindSpec, specOptions(fixRounds, specValidators()), laneSpecs(n))), table: defaultTable()}
}

// legacyState turns a new spec run into the shape a version 1 abcd wrote.
func legacyState(s State) State {
	s.SchemaVersion = 1
	var lanes []Lane
	for _, l := range s.Lanes {
		if l.Integration {
			continue
		}
		l.Stage = StageBrief
		lanes = append(lanes, l)
	}
	s.Lanes = lanes
	return s
}

// newV2 is a spec run with the three validators over lanes given as specs (with their After), each
// started by the harness as the engine would: Due, then Started with a head of its own.
func newV2(t testing.TB, fixRounds int, specs []LaneSpec) *harness {
	o := specOptions(fixRounds, specValidators())
	o.IntegrationBranch = "abcd/run-1/integration"
	return &harness{t: t, s: New(KindSpec, o, specs), table: defaultTable()}
}

// start carries out every Due action as the engine would, with no conflict, and returns them.
func (h *harness) start() []Action {
	h.t.Helper()
	acts := Due(h.s)
	for _, a := range acts {
		h.heads++
		start := a.From
		if len(a.Merge) > 0 {
			start = fmt.Sprintf("merge-%d", h.heads)
		}
		h.s.Started(a.Lane, start, WorktreeDir(h.s.Run, h.s.Lanes[a.Lane].ID))
		checkInvariants(h.t, h.s)
	}
	h.check()
	return acts
}

func newReview(t testing.TB) *harness {
	s := New(KindReview, Options{Run: "run-r", Base: "base000", Created: at, Validators: []string{RoleRuthless, RoleSecurity}},
		[]LaneSpec{{Branch: "feature/x", Head: "head-review"}})
	return &harness{t: t, s: s, table: defaultTable()}
}

func newAudit(t testing.TB) *harness {
	s := New(KindAudit, Options{Run: "run-a", Intent: "intent-3", Base: "base000", Created: at, Criteria: []string{"ac-1", "ac-2"},
		Validators: []string{RoleAuditor}}, []LaneSpec{{Branch: "main", Head: "head-audit"}})
	return &harness{t: t, s: s, table: defaultTable()}
}

// routing is what the caller asks for a plan: the lane's escalated tier when it has one, else the
// routing table's.
func (h *harness) routing(p Plan) Routing {
	tier := h.table[p.Role]
	if t, ok := h.s.Lanes[p.Lane].Tiers[p.Role]; ok {
		tier = t
	}
	return Routing{Agent: p.Role, Tier: tier, FanOut: 1, Source: "repo", Origin: ".abcd/config/oracle-routing.json",
		Route: "host", Ran: "host"}
}

func (h *harness) open(p Plan) Await {
	h.t.Helper()
	brief, ret := AwaitPaths(h.s.Run, h.s.Lanes[p.Lane].ID, p)
	a := h.s.Open(p, brief, ret, h.routing(p), at)
	checkInvariants(h.t, h.s)
	return a
}

// openPending opens every plan Pending lists, and returns them.
func (h *harness) openPending() []Plan {
	h.t.Helper()
	h.check()
	plans := Pending(h.s)
	for _, p := range plans {
		h.open(p)
	}
	return plans
}

// check records build.dod as abcd runs it (passing) on every lane head that waits for it, as a step
// does before it opens the lane's validators.
func (h *harness) check() {
	h.t.Helper()
	for _, c := range ChecksDue(h.s) {
		l := h.s.Lanes[c.Lane]
		if !h.s.RecordCheck(l.ID, Check{Round: c.Round, Head: c.Head, Command: h.s.DoD, Tail: "ok\n", Lines: 1, Millis: 1200}) {
			h.t.Fatalf("a check due on %s was not recorded", l.ID)
		}
		if again := ChecksDue(h.s); len(again) > 0 && again[0].Lane == c.Lane {
			h.t.Fatalf("%s still waits for its check once it is recorded", l.ID)
		}
		checkInvariants(h.t, h.s)
	}
}

// await is the lane's open await for role.
func (h *harness) await(lane int, role string) Await {
	h.t.Helper()
	for _, a := range h.s.Lanes[lane].Awaits {
		if a.Role == role {
			return a
		}
	}
	h.t.Fatalf("lane %d has no open %s await; its awaits: %+v", lane, role, h.s.Lanes[lane].Awaits)
	return Await{}
}

// find locates an open await by its return path, as `abcd implement receipt <path>` does.
func (h *harness) find(lane int, role string) (int, int, Await) {
	h.t.Helper()
	a := h.await(lane, role)
	i, j, ok := h.s.Find(a.Return)
	if !ok || i != lane || h.s.Lanes[i].Awaits[j].ID != a.ID {
		h.t.Fatalf("Find(%s) = %d, %d, %v; want lane %d await %s", a.Return, i, j, ok, lane, a.ID)
	}
	return i, j, a
}

// implement records the lane's implementer (or fix) receipt, with a fresh head.
func (h *harness) implement(lane int) string {
	h.t.Helper()
	i, j, a := h.find(lane, RoleImplementer)
	h.heads++
	head := fmt.Sprintf("head-%d", h.heads)
	impl := Implementation{Commits: []string{head}, Head: head, Model: "model-x", Receipt: a.Return, At: at}
	if err := h.s.RecordImplementation(i, j, impl); err != nil {
		h.t.Fatalf("RecordImplementation(lane %d): %v", lane, err)
	}
	ims := h.s.Lanes[i].Implementations
	if got := ims[len(ims)-1].Await; got != a.ID {
		h.t.Fatalf("the implementation keeps await %q, want %q, the await it closed", got, a.ID)
	}
	checkInvariants(h.t, h.s)
	h.check()
	return head
}

// word is the role's verdict word.
func word(role string, pass bool) string {
	switch {
	case role == RoleRuthless && pass:
		return "SHIP"
	case role == RoleRuthless:
		return "FIX FIRST"
	case role == RoleSecurity && pass:
		return "APPROVE"
	case role == RoleSecurity:
		return "BLOCK"
	case pass:
		return "MET"
	}
	return "NOT_MET"
}

// findingText is the findings a failing verdict carries, unique per lane, role and round.
func findingText(lane int, role string, round int) string {
	return fmt.Sprintf("finding of %s on lane %d in round %d", role, lane, round)
}

// answer records the role's verdict on the lane's open await.
func (h *harness) answer(lane int, role string, pass bool) {
	h.t.Helper()
	i, j, a := h.find(lane, role)
	v := Verdict{Word: word(role, pass), Pass: pass, Return: a.Return, SHA256: "e3b0c442", At: at}
	if !pass {
		v.Findings = findingText(lane, role, a.Round)
	}
	if err := h.s.RecordVerdict(i, j, v); err != nil {
		h.t.Fatalf("RecordVerdict(lane %d, %s): %v", lane, role, err)
	}
	if got, ok := h.s.Lanes[i].verdict(role, a.Round); !ok || got.Await != a.ID {
		h.t.Fatalf("the verdict keeps await %q, want %q, the await it closed", got.Await, a.ID)
	}
	checkInvariants(h.t, h.s)
}

// plansFor is the part of Pending that is about one lane.
func plansFor(s State, lane int) []Plan {
	var out []Plan
	for _, p := range Pending(s) {
		if p.Lane == lane {
			out = append(out, p)
		}
	}
	return out
}

func samePlans(t testing.TB, what string, got, want []Plan) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Pending = %+v\nwant %+v", what, got, want)
	}
}

func wantStage(t testing.TB, s State, lane int, want Stage) {
	t.Helper()
	if got := s.Lanes[lane].Stage; got != want {
		t.Fatalf("lane %d is at %s, want %s (lane: %+v)", lane, got, want, s.Lanes[lane])
	}
}

// checkInvariants holds after every change: Pending is a pure, repeatable function of the state; it
// never asks for an await already open or a verdict already given; it asks only what the lane's
// stage allows; the auditor of a spec run joins only the last lane once every other lane is done.
func checkInvariants(t testing.TB, s State) {
	t.Helper()
	before := string(Encode(s))
	p1, p2 := Pending(s), Pending(s)
	if !reflect.DeepEqual(p1, p2) {
		t.Fatalf("Pending is not repeatable: %+v then %+v", p1, p2)
	}
	if after := string(Encode(s)); after != before {
		t.Fatal("Pending changed the state")
	}
	seen := map[Plan]bool{}
	for _, p := range p1 {
		if seen[p] {
			t.Fatalf("Pending lists %+v twice", p)
		}
		seen[p] = true
		if p.Lane < 0 || p.Lane >= len(s.Lanes) {
			t.Fatalf("plan %+v names no lane", p)
		}
		l := s.Lanes[p.Lane]
		for _, a := range l.Awaits {
			if a.Role == p.Role && a.Round == p.Round && a.Kind == p.Kind {
				t.Fatalf("Pending asks %+v again while %s is open", p, a.ID)
			}
		}
		for _, r := range l.Rounds {
			for _, v := range r.Verdicts {
				if r.N == p.Round && v.Role == p.Role {
					t.Fatalf("Pending asks %+v again though round %d has its verdict", p, r.N)
				}
			}
		}
		switch p.Kind {
		case AwaitImplement:
			if l.Stage != StageBrief || p.Role != RoleImplementer || p.Round != 0 {
				t.Fatalf("implement plan %+v on a lane at %s", p, l.Stage)
			}
		case AwaitFix:
			if l.Stage != StageFix || p.Role != RoleImplementer || p.Round != l.Round {
				t.Fatalf("fix plan %+v on a lane at %s round %d", p, l.Stage, l.Round)
			}
		case AwaitReview, AwaitAudit:
			if l.Stage != StageValidate || p.Round != l.Round || p.Round < 1 {
				t.Fatalf("validator plan %+v on a lane at %s round %d", p, l.Stage, l.Round)
			}
			if (p.Kind == AwaitAudit) != (p.Role == RoleAuditor) {
				t.Fatalf("plan %+v: the auditor's await is an audit, a reviewer's a review", p)
			}
			if !hasRoleIn(s.Validators, p.Role) {
				t.Fatalf("plan %+v asks a role that is not one of the run's validators %v", p, s.Validators)
			}
			if p.Role == RoleAuditor && s.Kind == KindSpec {
				if s.legacy() && p.Lane != len(s.Lanes)-1 {
					t.Fatalf("the auditor is asked on lane %d, not the last lane", p.Lane)
				}
				if !s.legacy() && !l.Integration {
					t.Fatalf("the auditor is asked on step lane %s, not the integration", l.ID)
				}
				for j, other := range s.Lanes {
					if j != p.Lane && other.Stage != StageDone && other.Stage != StageHandedBack {
						t.Fatalf("the auditor is asked while lane %d is at %s", j, other.Stage)
					}
				}
			}
			if p.Role != RoleAuditor && l.Integration && l.Round < 2 {
				t.Fatalf("the integration lane is asked a %s before a fix round added code to it", p.Role)
			}
		default:
			t.Fatalf("plan %+v has an unknown kind", p)
		}
	}
	for i, l := range s.Lanes {
		if (l.Stage == StageDone || l.Stage == StageHandedBack || l.Stage == StageWaiting) && len(l.Awaits) > 0 {
			t.Fatalf("lane %d is %s with open awaits %+v", i, l.Stage, l.Awaits)
		}
		if l.Stage == StageWaiting {
			for _, id := range l.After {
				if j, _ := s.lane(id); s.Lanes[j].Stage == StageHandedBack {
					t.Fatalf("lane %s waits on %s, which was handed back", l.ID, id)
				}
			}
		}
	}
}

func hasRoleIn(roles []string, role string) bool {
	for _, r := range roles {
		if r == role {
			return true
		}
	}
	return false
}

// headings counts the findings' "### <role>:" headings of a role.
func headings(findings, role string) int {
	return strings.Count(findings, "### "+role+":")
}
