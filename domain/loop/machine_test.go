package loop

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/oracle"
)

func TestNewSpecRun(t *testing.T) {
	for _, c := range []struct {
		name      string
		fixRounds int
		want      int
	}{
		{"fix rounds given", 3, 3},
		{"fix rounds defaulted", 0, DefaultFixRounds},
		{"negative fix rounds defaulted", -2, DefaultFixRounds},
		{"one fix round", 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(KindSpec, specOptions(c.fixRounds, specValidators()), laneSpecs(3))
			if s.SchemaVersion != SchemaVersion || s.Kind != KindSpec || s.FixRounds != c.want {
				t.Fatalf("schema %d kind %s fix rounds %d, want %d", s.SchemaVersion, s.Kind, s.FixRounds, c.want)
			}
			if len(s.Lanes) != 4 || !s.Lanes[3].Integration || s.Lanes[3].ID != IntegrationLane {
				t.Fatalf("%d lanes, want 3 and the integration: %+v", len(s.Lanes), s.Lanes)
			}
			ids := map[string]bool{}
			for i, l := range s.Lanes[:3] {
				if l.Stage != StageWaiting || l.Round != 0 || l.Head != "" || l.Step != i+1 || l.Branch == "" || l.Start != "" || l.Worktree != "" {
					t.Fatalf("lane %d starts as %+v", i, l)
				}
				if l.Tiers == nil || l.Awaits == nil || l.Rounds == nil || l.Implementations == nil {
					t.Fatalf("lane %d has a nil list or map: %+v", i, l)
				}
				ids[l.ID] = true
			}
			if len(ids) != 3 {
				t.Fatalf("lane ids are not distinct: %v", ids)
			}
			if s.Finished() {
				t.Fatal("a new run is finished")
			}
		})
	}
}

// Pending opens one implementer per lane; Open moves the lane from brief to implement and the plan
// disappears; asking again without Open returns the same plans.
func TestPendingOpensOneImplementerPerLane(t *testing.T) {
	h := newSpec(t, 3, 3)
	want := []Plan{
		{Lane: 0, Kind: AwaitImplement, Role: RoleImplementer},
		{Lane: 1, Kind: AwaitImplement, Role: RoleImplementer},
		{Lane: 2, Kind: AwaitImplement, Role: RoleImplementer},
	}
	for range 3 {
		samePlans(t, "a new spec run", Pending(h.s), want)
	}
	checkInvariants(t, h.s)
	for k, p := range want {
		a := h.open(p)
		if a.Kind != AwaitImplement || a.Role != RoleImplementer || a.Round != 0 || a.ID == "" || a.Opened != at {
			t.Fatalf("opened %+v", a)
		}
		wantStage(t, h.s, p.Lane, StageImplement)
		for j := k + 1; j < 3; j++ {
			wantStage(t, h.s, j, StageBrief)
		}
		samePlans(t, fmt.Sprintf("after opening %d", k+1), Pending(h.s), want[k+1:])
	}
	if got := len(h.s.OpenAwaits()); got != 3 {
		t.Fatalf("%d open awaits, want 3", got)
	}
	ids, rets := map[string]bool{}, map[string]bool{}
	for _, a := range h.s.OpenAwaits() {
		ids[a.ID], rets[a.Return] = true, true
	}
	if len(ids) != 3 || len(rets) != 3 {
		t.Fatalf("await ids %v and return paths %v are not distinct", ids, rets)
	}
	// A lane being implemented asks nothing more.
	samePlans(t, "every lane implementing", Pending(h.s), nil)
}

// The implementer's receipt moves the lane to validate round 1 on its head; Pending then asks for
// both reviewers of that lane, and never the auditor while another lane is not done, even on the
// last lane.
func TestImplementationStartsRoundOne(t *testing.T) {
	for lane := range 3 {
		t.Run(fmt.Sprintf("lane %d", lane), func(t *testing.T) {
			h := newSpec(t, 3, 3)
			h.openPending()
			changes := h.s.Changes
			head := h.implement(lane)
			l := h.s.Lanes[lane]
			if l.Stage != StageValidate || l.Round != 1 || l.Head != head {
				t.Fatalf("after the receipt: stage %s round %d head %s, want validate 1 %s", l.Stage, l.Round, l.Head, head)
			}
			if len(l.Awaits) != 0 {
				t.Fatalf("the implement await is still open: %+v", l.Awaits)
			}
			if len(l.Implementations) != 1 || l.Implementations[0].Head != head || l.Implementations[0].Round != 0 ||
				!reflect.DeepEqual(l.Implementations[0].Commits, []string{head}) {
				t.Fatalf("implementations: %+v", l.Implementations)
			}
			// The receipt, then abcd's run of build.dod on the head.
			if h.s.Changes != changes+2 || len(l.Checks) != 1 || l.Checks[0].Head != head || l.Checks[0].Round != 1 {
				t.Fatalf("changes %d, want %d; checks %+v", h.s.Changes, changes+2, l.Checks)
			}
			want := []Plan{
				{Lane: lane, Kind: AwaitReview, Role: RoleRuthless, Round: 1},
				{Lane: lane, Kind: AwaitReview, Role: RoleSecurity, Round: 1},
			}
			samePlans(t, "after the receipt", Pending(h.s), want)
			samePlans(t, "asked again", Pending(h.s), want)
			h.open(want[0])
			samePlans(t, "after opening the ruthless reviewer", Pending(h.s), want[1:])
			h.open(want[1])
			samePlans(t, "after opening both", Pending(h.s), nil)
			// One reviewer's pass is not enough, and the lane does not leave validate.
			h.answer(lane, RoleRuthless, true)
			wantStage(t, h.s, lane, StageValidate)
			samePlans(t, "after the first pass", Pending(h.s), nil)
		})
	}
}

// A lane whose reviewers both pass is done; the last lane waits for the auditor until every other
// lane is done, whatever order the lanes pass in; the auditor's pass makes it done and the run
// finished.
func TestLastLaneWaitsForTheAuditor(t *testing.T) {
	for _, c := range []struct {
		name  string
		order []int
	}{
		{"last lane passes first", []int{2, 0, 1}},
		{"last lane passes last", []int{0, 1, 2}},
		{"last lane passes second", []int{1, 2, 0}},
		{"reverse order", []int{2, 1, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSpec(t, 3, 3)
			h.openPending()
			for lane := range 3 {
				h.implement(lane)
			}
			h.openPending()
			passed := map[int]bool{}
			for _, lane := range c.order {
				h.answer(lane, RoleRuthless, true)
				wantStage(t, h.s, lane, StageValidate)
				h.answer(lane, RoleSecurity, true)
				passed[lane] = true
				if lane == 2 {
					wantStage(t, h.s, lane, StageValidate)
				} else {
					wantStage(t, h.s, lane, StageDone)
				}
				var want []Plan
				if passed[0] && passed[1] && passed[2] {
					want = []Plan{{Lane: 2, Kind: AwaitAudit, Role: RoleAuditor, Round: 1}}
				}
				samePlans(t, fmt.Sprintf("after lane %d passed", lane), Pending(h.s), want)
				if h.s.Finished() {
					t.Fatal("finished before the auditor")
				}
			}
			a := h.open(Plan{Lane: 2, Kind: AwaitAudit, Role: RoleAuditor, Round: 1})
			if a.Kind != AwaitAudit || a.Routing.Tier != "frontier" {
				t.Fatalf("auditor await %+v", a)
			}
			samePlans(t, "the auditor open", Pending(h.s), nil)
			if h.s.Finished() {
				t.Fatal("finished while the auditor is open")
			}
			h.answer(2, RoleAuditor, true)
			wantStage(t, h.s, 2, StageDone)
			if !h.s.Finished() {
				t.Fatal("not finished after the auditor passed")
			}
			samePlans(t, "finished", Pending(h.s), nil)
			if len(h.s.OpenAwaits()) != 0 {
				t.Fatalf("open awaits on a finished run: %+v", h.s.OpenAwaits())
			}
			r := h.s.Lanes[2].Rounds
			if len(r) != 1 || r[0].N != 1 || len(r[0].Verdicts) != 3 || r[0].Verdicts[2].Role != RoleAuditor {
				t.Fatalf("last lane's rounds: %+v", r)
			}
			for lane := range 2 {
				if r := h.s.Lanes[lane].Rounds; len(r) != 1 || len(r[0].Verdicts) != 2 {
					t.Fatalf("lane %d rounds: %+v", lane, r)
				}
			}
		})
	}
}

// A one-lane spec run's only lane is the last lane: the auditor is due as soon as its reviewers pass.
func TestOneLaneSpecRunAsksTheAuditorAfterItsReviewers(t *testing.T) {
	h := newSpec(t, 1, 3)
	h.openPending()
	h.implement(0)
	samePlans(t, "after the receipt", Pending(h.s), []Plan{
		{Lane: 0, Kind: AwaitReview, Role: RoleRuthless, Round: 1},
		{Lane: 0, Kind: AwaitReview, Role: RoleSecurity, Round: 1},
	})
	h.openPending()
	h.answer(0, RoleSecurity, true)
	samePlans(t, "one reviewer passed", Pending(h.s), nil)
	h.answer(0, RoleRuthless, true)
	samePlans(t, "both passed", Pending(h.s), []Plan{{Lane: 0, Kind: AwaitAudit, Role: RoleAuditor, Round: 1}})
	h.openPending()
	h.answer(0, RoleAuditor, true)
	if !h.s.Finished() {
		t.Fatal("not finished")
	}
}

// A spec run configured without the auditor never asks it: its last lane is done on its reviewers.
func TestSpecRunWithoutTheAuditor(t *testing.T) {
	h := &harness{t: t, s: legacyState(New(KindSpec, specOptions(3, []string{RoleRuthless, RoleSecurity}), laneSpecs(3))), table: defaultTable()}
	h.openPending()
	for lane := range 3 {
		h.implement(lane)
	}
	h.openPending()
	for _, lane := range []int{2, 0, 1} {
		h.answer(lane, RoleRuthless, true)
		h.answer(lane, RoleSecurity, true)
		wantStage(t, h.s, lane, StageDone)
		samePlans(t, "after a pass", Pending(h.s), nil)
	}
	if !h.s.Finished() {
		t.Fatal("not finished")
	}
}

// A failing reviewer sends the lane to fix: Pending asks for a fix await of the failed round, every
// validator's tier is escalated one step from the tier recorded on its verdict, the findings name
// every failing verdict; the fix receipt starts round 2 on its head.
func TestFailedRoundOpensAFix(t *testing.T) {
	for _, c := range []struct {
		name               string
		ruthless, security bool
		table              map[string]string
		want               map[string]string
	}{
		{"ruthless fails", false, true,
			map[string]string{RoleRuthless: "local", RoleSecurity: "economy"},
			map[string]string{RoleRuthless: "economy", RoleSecurity: "frontier"}},
		{"security fails", true, false,
			map[string]string{RoleRuthless: "economy", RoleSecurity: "local"},
			map[string]string{RoleRuthless: "frontier", RoleSecurity: "economy"}},
		{"both fail at frontier", false, false,
			map[string]string{RoleRuthless: "frontier", RoleSecurity: "frontier"},
			map[string]string{RoleRuthless: "frontier", RoleSecurity: "frontier"}},
		{"both fail at host-decides", false, false,
			map[string]string{RoleRuthless: "host-decides", RoleSecurity: "host-decides"},
			map[string]string{RoleRuthless: "host-decides", RoleSecurity: "host-decides"}},
		{"security fails, mixed", true, false,
			map[string]string{RoleRuthless: "host-decides", RoleSecurity: "frontier"},
			map[string]string{RoleRuthless: "host-decides", RoleSecurity: "frontier"}},
	} {
		for _, lane := range []int{0, 2} {
			for _, securityFirst := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/lane %d/security first %v", c.name, lane, securityFirst), func(t *testing.T) {
					h := newSpec(t, 3, 3)
					for role, tier := range c.table {
						h.table[role] = tier
					}
					h.openPending()
					h.implement(lane)
					h.openPending()
					first, second := RoleRuthless, RoleSecurity
					firstPass, secondPass := c.ruthless, c.security
					if securityFirst {
						first, second, firstPass, secondPass = second, first, secondPass, firstPass
					}
					h.answer(lane, first, firstPass)
					// The round is not settled while a validator of it is open.
					wantStage(t, h.s, lane, StageValidate)
					samePlans(t, "one verdict in", plansFor(h.s, lane), nil)
					h.answer(lane, second, secondPass)

					l := h.s.Lanes[lane]
					wantStage(t, h.s, lane, StageFix)
					if l.Failed != 1 || l.Round != 1 {
						t.Fatalf("failed %d round %d, want 1 1", l.Failed, l.Round)
					}
					// The verdicts carry the role and the routing the await asked.
					if len(l.Rounds) != 1 || len(l.Rounds[0].Verdicts) != 2 {
						t.Fatalf("rounds: %+v", l.Rounds)
					}
					for _, v := range l.Rounds[0].Verdicts {
						if v.Routing.Tier != c.table[v.Role] || v.Routing.Agent != v.Role {
							t.Fatalf("verdict %s recorded routing %+v, want tier %s", v.Role, v.Routing, c.table[v.Role])
						}
						if got := string(oracle.Escalate(oracle.Tier(v.Routing.Tier))); got != c.want[v.Role] {
							t.Fatalf("the table's own expectation disagrees with Escalate for %s: %s", v.Role, got)
						}
					}
					if !reflect.DeepEqual(l.Tiers, c.want) {
						t.Fatalf("tiers %v, want %v", l.Tiers, c.want)
					}
					if !strings.Contains(l.Findings, "Round 1 failed.") {
						t.Fatalf("findings do not name the round:\n%s", l.Findings)
					}
					for role, pass := range map[string]bool{RoleRuthless: c.ruthless, RoleSecurity: c.security} {
						n := headings(l.Findings, role)
						has := strings.Contains(l.Findings, findingText(lane, role, 1))
						if pass && (n != 0 || has) {
							t.Fatalf("findings name the passing %s:\n%s", role, l.Findings)
						}
						if !pass && (n != 1 || !has || !strings.Contains(l.Findings, "### "+role+": "+word(role, false))) {
							t.Fatalf("findings do not name the failing %s once with its word and findings:\n%s", role, l.Findings)
						}
					}

					fix := []Plan{{Lane: lane, Kind: AwaitFix, Role: RoleImplementer, Round: 1}}
					samePlans(t, "the failed round", plansFor(h.s, lane), fix)
					samePlans(t, "asked again", plansFor(h.s, lane), fix)
					a := h.open(fix[0])
					if a.Kind != AwaitFix || a.Round != 1 {
						t.Fatalf("fix await %+v", a)
					}
					wantStage(t, h.s, lane, StageFix)
					samePlans(t, "the fix open", plansFor(h.s, lane), nil)

					head := h.implement(lane)
					l = h.s.Lanes[lane]
					if l.Stage != StageValidate || l.Round != 2 || l.Head != head {
						t.Fatalf("after the fix: stage %s round %d head %s", l.Stage, l.Round, l.Head)
					}
					if len(l.Implementations) != 2 || l.Implementations[1].Round != 1 || l.Implementations[1].Head != head {
						t.Fatalf("implementations: %+v", l.Implementations)
					}
					round2 := []Plan{
						{Lane: lane, Kind: AwaitReview, Role: RoleRuthless, Round: 2},
						{Lane: lane, Kind: AwaitReview, Role: RoleSecurity, Round: 2},
					}
					samePlans(t, "round 2", plansFor(h.s, lane), round2)
					h.openPending()
					for _, role := range []string{RoleRuthless, RoleSecurity} {
						if got := h.await(lane, role).Routing.Tier; got != c.want[role] {
							t.Fatalf("round 2 asks %s at %s, want %s", role, got, c.want[role])
						}
					}
				})
			}
		}
	}
}

// After FixRounds failed rounds the lane is handed back with the findings, and Pending asks nothing
// more for it; the tiers climb one step per failed round.
func TestHandedBackAfterTheLastFixRound(t *testing.T) {
	for _, c := range []struct {
		name      string
		fixRounds int
		want      int
	}{
		{"three fix rounds", 3, 3},
		{"default fix rounds", 0, DefaultFixRounds},
		{"one fix round", 1, 1},
		{"two fix rounds", 2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSpec(t, 3, c.fixRounds)
			h.table[RoleRuthless], h.table[RoleSecurity] = "local", "local"
			h.openPending()
			h.implement(1)
			ladder := []string{"local", "economy", "frontier", "frontier", "frontier"}
			for round := 1; ; round++ {
				h.openPending()
				for _, role := range []string{RoleRuthless, RoleSecurity} {
					if got := h.await(1, role).Routing.Tier; got != ladder[round-1] {
						t.Fatalf("round %d asks %s at %s, want %s", round, role, got, ladder[round-1])
					}
				}
				h.answer(1, RoleRuthless, false)
				h.answer(1, RoleSecurity, true)
				l := h.s.Lanes[1]
				if l.Failed != round {
					t.Fatalf("failed %d after round %d", l.Failed, round)
				}
				if !strings.Contains(l.Findings, fmt.Sprintf("Round %d failed.", round)) || !strings.Contains(l.Findings, findingText(1, RoleRuthless, round)) {
					t.Fatalf("findings after round %d:\n%s", round, l.Findings)
				}
				if round < c.want {
					wantStage(t, h.s, 1, StageFix)
					if l.Tiers[RoleRuthless] != ladder[round] || l.Tiers[RoleSecurity] != ladder[round] {
						t.Fatalf("tiers after round %d: %v, want %s", round, l.Tiers, ladder[round])
					}
					samePlans(t, "fix", plansFor(h.s, 1), []Plan{{Lane: 1, Kind: AwaitFix, Role: RoleImplementer, Round: round}})
					h.openPending()
					h.implement(1)
					continue
				}
				wantStage(t, h.s, 1, StageHandedBack)
				if len(l.Awaits) != 0 {
					t.Fatalf("a handed-back lane has awaits: %+v", l.Awaits)
				}
				if len(l.Rounds) != c.want {
					t.Fatalf("%d rounds recorded, want %d", len(l.Rounds), c.want)
				}
				for i, r := range l.Rounds {
					if r.N != i+1 || len(r.Verdicts) != 2 {
						t.Fatalf("round %d: %+v", i+1, r)
					}
				}
				if len(l.Implementations) != c.want {
					t.Fatalf("%d implementations, want %d", len(l.Implementations), c.want)
				}
				break
			}
			for range 3 {
				samePlans(t, "handed back", plansFor(h.s, 1), nil)
			}
			// The other lanes are untouched: still implementing.
			for _, lane := range []int{0, 2} {
				wantStage(t, h.s, lane, StageImplement)
			}
			if h.s.Finished() {
				t.Fatal("finished with lanes implementing")
			}
		})
	}
}

// The auditor's failure fails the round: the last lane goes to fix with the auditor's findings, and
// the next round asks its reviewers first and the auditor again once they pass.
func TestFailingAuditorFailsTheRound(t *testing.T) {
	h := newSpec(t, 3, 3)
	h.openPending()
	for lane := range 3 {
		h.implement(lane)
	}
	h.openPending()
	for lane := range 3 {
		h.answer(lane, RoleRuthless, true)
		h.answer(lane, RoleSecurity, true)
	}
	samePlans(t, "every reviewer passed", Pending(h.s), []Plan{{Lane: 2, Kind: AwaitAudit, Role: RoleAuditor, Round: 1}})
	h.openPending()
	h.answer(2, RoleAuditor, false)

	l := h.s.Lanes[2]
	wantStage(t, h.s, 2, StageFix)
	if l.Failed != 1 || h.s.Finished() {
		t.Fatalf("failed %d finished %v", l.Failed, h.s.Finished())
	}
	if headings(l.Findings, RoleAuditor) != 1 || !strings.Contains(l.Findings, "### intent-auditor: NOT_MET") ||
		!strings.Contains(l.Findings, findingText(2, RoleAuditor, 1)) {
		t.Fatalf("findings do not name the auditor once:\n%s", l.Findings)
	}
	if headings(l.Findings, RoleRuthless)+headings(l.Findings, RoleSecurity) != 0 {
		t.Fatalf("findings name passing reviewers:\n%s", l.Findings)
	}
	want := map[string]string{RoleRuthless: "economy", RoleSecurity: "frontier", RoleAuditor: "frontier"}
	if !reflect.DeepEqual(l.Tiers, want) {
		t.Fatalf("tiers %v, want %v", l.Tiers, want)
	}
	samePlans(t, "auditor failed", Pending(h.s), []Plan{{Lane: 2, Kind: AwaitFix, Role: RoleImplementer, Round: 1}})
	h.openPending()
	h.implement(2)
	samePlans(t, "round 2", Pending(h.s), []Plan{
		{Lane: 2, Kind: AwaitReview, Role: RoleRuthless, Round: 2},
		{Lane: 2, Kind: AwaitReview, Role: RoleSecurity, Round: 2},
	})
	h.openPending()
	h.answer(2, RoleRuthless, true)
	samePlans(t, "one reviewer of round 2", Pending(h.s), nil)
	h.answer(2, RoleSecurity, true)
	samePlans(t, "round 2 reviewers passed", Pending(h.s), []Plan{{Lane: 2, Kind: AwaitAudit, Role: RoleAuditor, Round: 2}})
	h.openPending()
	if got := h.await(2, RoleAuditor).Routing.Tier; got != "frontier" {
		t.Fatalf("auditor asked at %s", got)
	}
	h.answer(2, RoleAuditor, true)
	wantStage(t, h.s, 2, StageDone)
	if !h.s.Finished() {
		t.Fatal("not finished")
	}
}

// A failing auditor in the lane's last allowed round hands the lane back.
func TestFailingAuditorInTheLastRoundHandsBack(t *testing.T) {
	h := newSpec(t, 2, 1)
	h.openPending()
	h.implement(0)
	h.implement(1)
	h.openPending()
	for lane := range 2 {
		h.answer(lane, RoleRuthless, true)
		h.answer(lane, RoleSecurity, true)
	}
	h.openPending()
	h.answer(1, RoleAuditor, false)
	wantStage(t, h.s, 1, StageHandedBack)
	samePlans(t, "handed back", Pending(h.s), nil)
	if !h.s.Finished() {
		t.Fatal("not finished")
	}
}

// A review run is one lane at validate on its head: its reviewers pass and it is done, or a failed
// round hands it back without a fix.
func TestReviewRun(t *testing.T) {
	for _, c := range []struct {
		name               string
		ruthless, security bool
		want               Stage
	}{
		{"both pass", true, true, StageDone},
		{"ruthless fails", false, true, StageHandedBack},
		{"security fails", true, false, StageHandedBack},
		{"both fail", false, false, StageHandedBack},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newReview(t)
			l := h.s.Lanes[0]
			if len(h.s.Lanes) != 1 || l.Stage != StageValidate || l.Round != 1 || l.Head != "head-review" {
				t.Fatalf("a new review run: %+v", h.s.Lanes)
			}
			want := []Plan{
				{Lane: 0, Kind: AwaitReview, Role: RoleRuthless, Round: 1},
				{Lane: 0, Kind: AwaitReview, Role: RoleSecurity, Round: 1},
			}
			samePlans(t, "a new review run", Pending(h.s), want)
			h.openPending()
			h.answer(0, RoleRuthless, c.ruthless)
			wantStage(t, h.s, 0, StageValidate)
			h.answer(0, RoleSecurity, c.security)
			wantStage(t, h.s, 0, c.want)
			samePlans(t, "settled", Pending(h.s), nil)
			if !h.s.Finished() {
				t.Fatal("not finished")
			}
			l = h.s.Lanes[0]
			if c.want == StageHandedBack {
				if l.Failed != 1 || !strings.Contains(l.Findings, "Round 1 failed.") {
					t.Fatalf("failed %d findings %q", l.Failed, l.Findings)
				}
				if len(l.Tiers) != 0 {
					t.Fatalf("a handed-back review escalated tiers for a next round: %v", l.Tiers)
				}
			}
		})
	}
}

// An audit run asks only the intent-auditor, and is done on its pass or handed back on its failure.
func TestAuditRun(t *testing.T) {
	for _, pass := range []bool{true, false} {
		t.Run(fmt.Sprintf("pass %v", pass), func(t *testing.T) {
			h := newAudit(t)
			samePlans(t, "a new audit run", Pending(h.s), []Plan{{Lane: 0, Kind: AwaitAudit, Role: RoleAuditor, Round: 1}})
			a := h.open(Pending(h.s)[0])
			if a.Kind != AwaitAudit || !strings.HasSuffix(a.Return, "/return.json") {
				t.Fatalf("auditor await %+v", a)
			}
			samePlans(t, "the auditor open", Pending(h.s), nil)
			h.answer(0, RoleAuditor, pass)
			samePlans(t, "settled", Pending(h.s), nil)
			if !h.s.Finished() {
				t.Fatal("not finished")
			}
			if pass {
				wantStage(t, h.s, 0, StageDone)
				return
			}
			wantStage(t, h.s, 0, StageHandedBack)
		})
	}
}

// The findings of a failed audit run name the auditor's verdict once.
func TestAuditRunFindingsNameTheAuditorOnce(t *testing.T) {
	h := newAudit(t)
	h.openPending()
	h.answer(0, RoleAuditor, false)
	f := h.s.Lanes[0].Findings
	if n := headings(f, RoleAuditor); n != 1 {
		t.Errorf("the findings name the auditor's verdict %d times, want once:\n%s", n, f)
	}
	if n := strings.Count(f, findingText(0, RoleAuditor, 1)); n != 1 {
		t.Errorf("the auditor's findings appear %d times, want once", n)
	}
}

// Pending is idempotent through a whole run: asked twice without Open it answers the same; each
// Open removes exactly its plan; an answered await is never asked again.
func TestPendingIsIdempotent(t *testing.T) {
	h := newSpec(t, 3, 3)
	openOneByOne := func() {
		t.Helper()
		for {
			p := Pending(h.s)
			if len(p) == 0 {
				return
			}
			samePlans(t, "asked again", Pending(h.s), p)
			h.open(p[0])
			samePlans(t, fmt.Sprintf("after opening %+v", p[0]), Pending(h.s), p[1:])
		}
	}
	openOneByOne()
	for lane := range 3 {
		h.implement(lane)
	}
	openOneByOne()
	h.answer(0, RoleRuthless, false)
	h.answer(0, RoleSecurity, true)
	h.answer(1, RoleRuthless, true)
	h.answer(1, RoleSecurity, true)
	openOneByOne()
	h.implement(0)
	openOneByOne()
	h.answer(0, RoleSecurity, true)
	h.answer(0, RoleRuthless, true)
	h.answer(2, RoleSecurity, true)
	h.answer(2, RoleRuthless, true)
	openOneByOne()
	h.answer(2, RoleAuditor, true)
	if !h.s.Finished() {
		t.Fatalf("not finished: %+v", h.s.Lanes)
	}
	samePlans(t, "finished", Pending(h.s), nil)
}

// A reviewer asked lazily: one reviewer fails before the other is even opened; Pending still asks
// the other, and the round settles once it answers.
func TestRoundWaitsForAValidatorNotYetOpened(t *testing.T) {
	h := newSpec(t, 3, 3)
	h.openPending()
	h.implement(0)
	h.open(Plan{Lane: 0, Kind: AwaitReview, Role: RoleRuthless, Round: 1})
	h.answer(0, RoleRuthless, false)
	wantStage(t, h.s, 0, StageValidate)
	samePlans(t, "the other reviewer", plansFor(h.s, 0), []Plan{{Lane: 0, Kind: AwaitReview, Role: RoleSecurity, Round: 1}})
	h.openPending()
	h.answer(0, RoleSecurity, true)
	wantStage(t, h.s, 0, StageFix)
}

// Recording the wrong kind of return on an await is an error that changes nothing.
func TestWrongReturnForTheAwaitIsRefused(t *testing.T) {
	setups := map[AwaitKind]func(t *testing.T) (*harness, int, string){
		AwaitImplement: func(t *testing.T) (*harness, int, string) {
			h := newSpec(t, 3, 3)
			h.openPending()
			return h, 1, RoleImplementer
		},
		AwaitFix: func(t *testing.T) (*harness, int, string) {
			h := newSpec(t, 3, 3)
			h.openPending()
			h.implement(0)
			h.openPending()
			h.answer(0, RoleRuthless, false)
			h.answer(0, RoleSecurity, false)
			h.openPending()
			return h, 0, RoleImplementer
		},
		AwaitReview: func(t *testing.T) (*harness, int, string) {
			h := newSpec(t, 3, 3)
			h.openPending()
			h.implement(2)
			h.openPending()
			return h, 2, RoleSecurity
		},
		AwaitAudit: func(t *testing.T) (*harness, int, string) {
			h := newSpec(t, 1, 3)
			h.openPending()
			h.implement(0)
			h.openPending()
			h.answer(0, RoleRuthless, true)
			h.answer(0, RoleSecurity, true)
			h.openPending()
			return h, 0, RoleAuditor
		},
	}
	for kind, setup := range setups {
		t.Run(string(kind), func(t *testing.T) {
			h, lane, role := setup(t)
			i, j, a := h.find(lane, role)
			if a.Kind != kind {
				t.Fatalf("set up a %s await, got %+v", kind, a)
			}
			before := string(Encode(h.s))
			var err error
			if kind == AwaitImplement || kind == AwaitFix {
				err = h.s.RecordVerdict(i, j, Verdict{Role: RoleRuthless, Word: "SHIP", Pass: true})
			} else {
				err = h.s.RecordImplementation(i, j, Implementation{Commits: []string{"c"}, Head: "c"})
			}
			if err == nil {
				t.Fatal("the wrong return was recorded")
			}
			if !strings.Contains(err.Error(), a.ID) {
				t.Fatalf("the error does not name the await %s: %v", a.ID, err)
			}
			if after := string(Encode(h.s)); after != before {
				t.Fatalf("a refused return changed the state:\n%s\nwas\n%s", after, before)
			}
			// The await is still there, and the right return is still accepted.
			if _, _, ok := h.s.Find(a.Return); !ok {
				t.Fatal("the await is gone")
			}
			if role == RoleImplementer {
				h.implement(lane)
			} else {
				h.answer(lane, role, true)
			}
		})
	}
}

// Find locates an open await by its return path, and nothing else.
func TestFind(t *testing.T) {
	h := newSpec(t, 3, 3)
	h.openPending()
	h.implement(1)
	h.openPending()
	for lane, l := range h.s.Lanes {
		for idx, a := range l.Awaits {
			i, j, ok := h.s.Find(a.Return)
			if !ok || i != lane || j != idx {
				t.Fatalf("Find(%s) = %d, %d, %v; want %d, %d", a.Return, i, j, ok, lane, idx)
			}
		}
	}
	sec := h.await(1, RoleSecurity)
	if _, j, _ := h.s.Find(sec.Return); j != 1 {
		t.Fatalf("the security reviewer is await %d of lane 1, want 1", j)
	}
	for _, ret := range []string{"", "nope", sec.Return + "x", strings.TrimSuffix(sec.Return, "/return.md"), sec.Brief,
		returnPath("run-2", "lane-2", Plan{Kind: AwaitReview, Role: RoleSecurity, Round: 1})} {
		if i, j, ok := h.s.Find(ret); ok {
			t.Fatalf("Find(%q) = %d, %d, true", ret, i, j)
		}
	}
	h.answer(1, RoleSecurity, true)
	if _, _, ok := h.s.Find(sec.Return); ok {
		t.Fatal("an answered await is still found")
	}
	impl := returnPath("run-1", "lane-2", Plan{Kind: AwaitImplement, Role: RoleImplementer})
	if _, _, ok := h.s.Find(impl); ok {
		t.Fatal("a recorded implement await is still found")
	}
	// The ruthless reviewer, now await 0 of lane 1, is still found after the other was removed.
	rut := h.await(1, RoleRuthless)
	if i, j, ok := h.s.Find(rut.Return); !ok || i != 1 || j != 0 {
		t.Fatalf("Find(%s) = %d, %d, %v", rut.Return, i, j, ok)
	}
}

// Every lane that cannot move makes a finished run: a run in which nothing is open and nothing is
// pending is finished. A handed-back lane must not strand the last lane waiting for an auditor that
// is never asked.
func TestHandedBackLaneDoesNotStrandTheRun(t *testing.T) {
	for _, c := range []struct {
		name      string
		lastFirst bool
	}{
		{"the last lane passes before the other is handed back", true},
		{"the last lane passes after the other is handed back", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newSpec(t, 2, 1)
			h.openPending()
			h.implement(0)
			h.implement(1)
			h.openPending()
			passLast := func() {
				h.answer(1, RoleRuthless, true)
				h.answer(1, RoleSecurity, true)
			}
			if c.lastFirst {
				passLast()
			}
			h.answer(0, RoleRuthless, false)
			h.answer(0, RoleSecurity, true)
			wantStage(t, h.s, 0, StageHandedBack)
			if !c.lastFirst {
				passLast()
			}
			if len(Pending(h.s)) == 0 && len(h.s.OpenAwaits()) == 0 && !h.s.Finished() {
				t.Fatalf("the run is stuck: nothing pending, nothing open, not finished; the last lane is at %s round %d waiting for an auditor Pending never asks",
					h.s.Lanes[1].Stage, h.s.Lanes[1].Round)
			}
		})
	}
}

func returnPath(run, lane string, p Plan) string {
	_, ret := AwaitPaths(run, lane, p)
	return ret
}

// lanesAfter is a spec of steps where step 3 builds on steps 1 and 2.
func lanesAfter() []LaneSpec {
	ls := laneSpecs(3)
	ls[2].After = []int{1, 2}
	return ls
}

// TestDependentLanesStartFromWhatTheyBuildOn: lanes that build on nothing start from the base at
// once, side by side; a lane that builds on others waits until they are done, then starts from the
// first one's head with the others merged in. No await opens on a lane before it starts.
func TestDependentLanesStartFromWhatTheyBuildOn(t *testing.T) {
	h := newV2(t, 3, lanesAfter())
	if got := h.s.Lanes[2].After; !reflect.DeepEqual(got, []string{"lane-1", "lane-2"}) {
		t.Fatalf("lane-3 builds on %v", got)
	}
	samePlans(t, "before any lane starts", Pending(h.s), nil)
	acts := Due(h.s)
	want := []Action{{Kind: ActStart, Lane: 0, From: "base000"}, {Kind: ActStart, Lane: 1, From: "base000"}}
	if !reflect.DeepEqual(acts, want) {
		t.Fatalf("Due = %+v, want %+v", acts, want)
	}
	h.start()
	wantStage(t, h.s, 0, StageBrief)
	wantStage(t, h.s, 1, StageBrief)
	wantStage(t, h.s, 2, StageWaiting)
	if h.s.Lanes[0].Worktree != ".abcd-lanes/run-1/lane-1" || h.s.Lanes[0].Start != "base000" {
		t.Fatalf("lane-1 started as %+v", h.s.Lanes[0])
	}
	h.openPending()
	heads := []string{h.implement(0), h.implement(1)}
	h.openPending()
	for lane := range 2 {
		h.answer(lane, RoleRuthless, true)
		if len(Due(h.s)) != 0 {
			t.Fatalf("lane-3 is due while lane %d still awaits its security review", lane)
		}
		h.answer(lane, RoleSecurity, true)
	}
	acts = Due(h.s)
	want = []Action{{Kind: ActStart, Lane: 2, From: heads[0], Merge: []string{heads[1]}, MergeLanes: []string{"lane-2"}}}
	if !reflect.DeepEqual(acts, want) {
		t.Fatalf("Due = %+v, want %+v", acts, want)
	}
	h.start()
	wantStage(t, h.s, 2, StageBrief)
	samePlans(t, "the dependent lane", Pending(h.s), []Plan{{Lane: 2, Kind: AwaitImplement, Role: RoleImplementer}})
	if h.s.Finished() {
		t.Fatal("finished with a lane to go")
	}
}

// TestTheIntegrationIsAuditedAndFixed: once every step lane is done the lanes are merged into the
// integration branch from the base; the intent-auditor audits that lane alone (never a step lane);
// a failed audit opens a fix on the integration lane, whose receipt starts the next audit round.
func TestTheIntegrationIsAuditedAndFixed(t *testing.T) {
	h := newV2(t, 3, laneSpecs(2))
	h.start()
	h.openPending()
	heads := []string{h.implement(0), h.implement(1)}
	h.openPending()
	for lane := range 2 {
		h.answer(lane, RoleRuthless, true)
		h.answer(lane, RoleSecurity, true)
		wantStage(t, h.s, lane, StageDone)
	}
	integ := 2
	want := []Action{{Kind: ActIntegrate, Lane: integ, From: "base000", Merge: heads, MergeLanes: []string{"lane-1", "lane-2"}}}
	if acts := Due(h.s); !reflect.DeepEqual(acts, want) {
		t.Fatalf("Due = %+v, want %+v", acts, want)
	}
	h.s.Started(integ, "merged-1", WorktreeDir("run-1", IntegrationLane))
	checkInvariants(t, h.s)
	wantStage(t, h.s, integ, StageValidate)
	// abcd runs build.dod on the integration before the auditor is opened.
	samePlans(t, "before the integration's check", Pending(h.s), nil)
	if due := ChecksDue(h.s); !reflect.DeepEqual(due, []CheckPlan{{Lane: integ, Round: 1, Head: "merged-1"}}) {
		t.Fatalf("ChecksDue = %+v", due)
	}
	h.check()
	samePlans(t, "the audit", Pending(h.s), []Plan{{Lane: integ, Kind: AwaitAudit, Role: RoleAuditor, Round: 1}})
	h.openPending()
	h.answer(integ, RoleAuditor, false)
	wantStage(t, h.s, integ, StageFix)
	if h.s.Lanes[integ].Tiers[RoleAuditor] != "frontier" || !strings.Contains(h.s.Lanes[integ].Findings, findingText(integ, RoleAuditor, 1)) {
		t.Fatalf("after a failed audit: %+v", h.s.Lanes[integ])
	}
	samePlans(t, "the fix", Pending(h.s), []Plan{{Lane: integ, Kind: AwaitFix, Role: RoleImplementer, Round: 1}})
	h.openPending()
	h.implement(integ)
	// The code the fix added is reviewed, ruthless and security, as a lane's is, beside the audit.
	second := []Plan{{Lane: integ, Kind: AwaitReview, Role: RoleRuthless, Round: 2}, {Lane: integ, Kind: AwaitReview, Role: RoleSecurity, Round: 2},
		{Lane: integ, Kind: AwaitAudit, Role: RoleAuditor, Round: 2}}
	samePlans(t, "the second round", Pending(h.s), second)
	h.openPending()
	// The audit passing is not enough: a reviewer that fails the fix's code fails the round.
	h.answer(integ, RoleAuditor, true)
	h.answer(integ, RoleSecurity, true)
	wantStage(t, h.s, integ, StageValidate)
	h.answer(integ, RoleRuthless, false)
	wantStage(t, h.s, integ, StageFix)
	if !strings.Contains(h.s.Lanes[integ].Findings, findingText(integ, RoleRuthless, 2)) {
		t.Fatalf("the reviewer's findings on the integration's fix are not the fix's brief: %q", h.s.Lanes[integ].Findings)
	}
	h.openPending()
	h.implement(integ)
	for i := range second {
		second[i].Round = 3
	}
	samePlans(t, "the third round", Pending(h.s), second)
	h.openPending()
	for _, role := range specValidators() {
		h.answer(integ, role, true)
	}
	wantStage(t, h.s, integ, StageDone)
	if !h.s.Finished() {
		t.Fatal("not finished after the integration passed")
	}
}

// TestWithoutTheAuditorTheIntegrationIsTheResult: a spec run configured without the auditor still
// merges its lanes, and the run is finished once they are merged.
func TestWithoutTheAuditorTheIntegrationIsTheResult(t *testing.T) {
	o := specOptions(3, []string{RoleRuthless, RoleSecurity})
	o.IntegrationBranch = "abcd/run-1/integration"
	h := &harness{t: t, s: New(KindSpec, o, laneSpecs(1)), table: defaultTable()}
	h.start()
	h.openPending()
	h.implement(0)
	h.openPending()
	h.answer(0, RoleRuthless, true)
	h.answer(0, RoleSecurity, true)
	if acts := h.start(); len(acts) != 1 || acts[0].Kind != ActIntegrate {
		t.Fatalf("integration not due: %+v", acts)
	}
	wantStage(t, h.s, 1, StageDone)
	if !h.s.Finished() {
		t.Fatal("not finished once integrated")
	}
}

// TestAHandedBackLaneHandsBackWhatBuildsOnIt: a lane handed back after its last fix round, or whose
// start would not merge, takes every lane waiting on it and the integration with it, so the run is
// finished and says why for each.
func TestAHandedBackLaneHandsBackWhatBuildsOnIt(t *testing.T) {
	t.Run("failed rounds", func(t *testing.T) {
		h := newV2(t, 1, lanesAfter())
		h.start()
		h.openPending()
		h.implement(0)
		h.implement(1)
		h.openPending()
		h.answer(0, RoleRuthless, false)
		h.answer(0, RoleSecurity, true)
		wantStage(t, h.s, 0, StageHandedBack)
		wantStage(t, h.s, 2, StageHandedBack)
		wantStage(t, h.s, 3, StageHandedBack)
		if !strings.Contains(h.s.Lanes[2].Findings, "builds on lane-1") || !strings.Contains(h.s.Lanes[3].Findings, "lane-1 was handed back") {
			t.Fatalf("findings: %q / %q", h.s.Lanes[2].Findings, h.s.Lanes[3].Findings)
		}
		if h.s.Finished() {
			t.Fatal("finished while lane-2 is still being reviewed")
		}
		h.answer(1, RoleRuthless, true)
		h.answer(1, RoleSecurity, true)
		if !h.s.Finished() || len(Due(h.s)) != 0 || len(Pending(h.s)) != 0 {
			t.Fatalf("not settled: due %+v pending %+v", Due(h.s), Pending(h.s))
		}
	})
	t.Run("a start that conflicts", func(t *testing.T) {
		h := newV2(t, 3, lanesAfter())
		h.start()
		h.openPending()
		h.implement(0)
		h.implement(1)
		h.openPending()
		for lane := range 2 {
			h.answer(lane, RoleRuthless, true)
			h.answer(lane, RoleSecurity, true)
		}
		acts := Due(h.s)
		head := h.s.Lanes[1].Head
		h.s.Conflicted(acts[0].Lane, acts[0].MergeLanes[0], head, []string{"a.go", "b.go"}, WorktreeDir(h.s.Run, "lane-3"))
		checkInvariants(t, h.s)
		// Nothing is handed back: the lane waits for the merge by hand, and the integration with it.
		wantStage(t, h.s, 2, StageWaiting)
		wantStage(t, h.s, 3, StageWaiting)
		if f := h.s.Lanes[2].Findings; !strings.Contains(f, "lane-2") || !strings.Contains(f, "a.go, b.go") {
			t.Fatalf("findings %q", f)
		}
		if h.s.Finished() || len(Due(h.s)) != 0 || len(Pending(h.s)) != 0 {
			t.Fatalf("finished %v, due %+v, pending %+v", h.s.Finished(), Due(h.s), Pending(h.s))
		}
		next := NextSteps(h.s, "/r")
		if len(next) != 1 || next[0].Run == nil || next[0].Run.Verb != "implement_step" ||
			!strings.Contains(next[0].String(), "lane-3 waits for a merge by hand: merging lane-2 ("+Short(head)+") into abcd/run-1/lane-3 conflicted on a.go, b.go. In its checkout /r/"+WorktreeDir(h.s.Run, "lane-3")+" (branch abcd/run-1/lane-3), run `git merge "+head+"`") {
			t.Fatalf("next %+v", next)
		}
		// Made by hand, the lane is due again, to go on from its branch as it was left.
		h.s.Resolved(2)
		if acts := Due(h.s); len(acts) != 1 || acts[0].Lane != 2 || h.s.Lanes[2].Worktree == "" {
			t.Fatalf("due %+v, lane %+v", acts, h.s.Lanes[2])
		}
		// Abandoned instead, nothing waits for it any more.
		h.s.Conflicted(2, "lane-2", head, []string{"a.go"}, WorktreeDir(h.s.Run, "lane-3"))
		h.s.Abandon("The run was abandoned.\n")
		if !h.s.Finished() || h.s.Lanes[2].Conflict.With != "" {
			t.Fatalf("abandoned: %+v", h.s.Lanes[2])
		}
	})
	t.Run("an integration that conflicts", func(t *testing.T) {
		h := newV2(t, 3, laneSpecs(2))
		h.start()
		h.openPending()
		h.implement(0)
		h.implement(1)
		h.openPending()
		for lane := range 2 {
			h.answer(lane, RoleRuthless, true)
			h.answer(lane, RoleSecurity, true)
		}
		acts := Due(h.s)
		h.s.Conflicted(acts[0].Lane, "lane-2", h.s.Lanes[1].Head, []string{"shared.go"}, WorktreeDir(h.s.Run, IntegrationLane))
		wantStage(t, h.s, 2, StageWaiting)
		wantStage(t, h.s, 0, StageDone)
		wantStage(t, h.s, 1, StageDone)
		if f := h.s.Lanes[2].Findings; !strings.Contains(f, "into abcd/run-1/integration conflicted on shared.go") {
			t.Fatalf("findings %q", f)
		}
		if h.s.Finished() {
			t.Fatal("finished while the integration waits for a merge by hand")
		}
		if next := NextSteps(h.s, "/r"); len(next) != 1 || !strings.HasPrefix(next[0].String(), "the integration waits for a merge by hand") {
			t.Fatalf("next %+v", next)
		}
	})
}

// TestCheckRefusesAStateThatNamesWhatItMayNot: a state read from disk is untrusted: a lane id, a
// branch, a worktree, a commit or an await's path that does not match its pattern is refused when
// read, not only stopped where it is used.
func TestCheckRefusesAStateThatNamesWhatItMayNot(t *testing.T) {
	good := func() State {
		o := Options{Run: "run-1", Spec: "spec-7", Intent: "intent-3", Base: strings.Repeat("a", 40), Created: at, FixRounds: 3,
			Validators: specValidators(), IntegrationBranch: "abcd/run-1/integration"}
		s := New(KindSpec, o, []LaneSpec{{Step: 1, Text: "x", Branch: "abcd/run-1/lane-1"}})
		s.Started(0, strings.Repeat("a", 40), WorktreeDir("run-1", "lane-1"))
		return s
	}
	if err := good().Check(); err != nil {
		t.Fatalf("a good state is refused: %v", err)
	}
	waiting := good()
	waiting.Conflicted(1, "lane-1", strings.Repeat("b", 40), []string{"a.go"}, WorktreeDir("run-1", IntegrationLane))
	if err := waiting.Check(); err != nil {
		t.Fatalf("a lane waiting for a merge by hand is refused: %v", err)
	}
	for name, bend := range map[string]func(*State){
		"lane id":        func(s *State) { s.Lanes[0].ID = "../lane" },
		"duplicate lane": func(s *State) { s.Lanes[1].ID = "lane-1" },
		"branch":         func(s *State) { s.Lanes[0].Branch = "--upload-pack=x" },
		"foreign branch": func(s *State) { s.Lanes[0].Branch = "main" },
		"worktree":       func(s *State) { s.Lanes[0].Worktree = "../../elsewhere" },
		"start":          func(s *State) { s.Lanes[0].Start = "HEAD~1" },
		"base":           func(s *State) { s.Base = "-x" },
		"run":            func(s *State) { s.Run = "../run-1" },
		"after":          func(s *State) { s.Lanes[0].After = []string{"lane-9"} },
		"after itself":   func(s *State) { s.Lanes[0].After = []string{"lane-1"} },
		"conflict head":  func(s *State) { s.Lanes[1].Conflict = Conflict{With: "lane-1", Head: "--x"} },
		"conflict with a lane it has not": func(s *State) {
			s.Lanes[1].Worktree = WorktreeDir("run-1", IntegrationLane)
			s.Lanes[1].Conflict = Conflict{With: "lane-9", Head: strings.Repeat("b", 40)}
		},
		"conflict on a lane that started": func(s *State) {
			s.Lanes[0].Conflict = Conflict{With: "lane-1", Head: strings.Repeat("b", 40)}
		},
		"await outside": func(s *State) {
			s.Lanes[0].Awaits = []Await{{ID: "await-1", Brief: "/etc/passwd", Return: ".abcd/.work.local/run/run-1/x"}}
		},
		"await climbs out": func(s *State) {
			s.Lanes[0].Awaits = []Await{{ID: "await-1", Brief: ".abcd/.work.local/run/run-1/../../../x", Return: ".abcd/.work.local/run/run-1/x"}}
		},
	} {
		s := good()
		bend(&s)
		if err := s.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Abandon settles every lane still moving, drops their awaits, and keeps what was recorded.
func TestAbandon(t *testing.T) {
	h := newV2(t, 3, lanesAfter())
	h.start()
	h.openPending()
	h.implement(0)
	h.openPending()
	h.answer(0, RoleRuthless, true)
	h.answer(0, RoleSecurity, true)
	h.s.Abandon("The run was abandoned.\n")
	checkInvariants(t, h.s)
	if !h.s.Finished() || len(h.s.OpenAwaits()) != 0 || len(Due(h.s)) != 0 || len(Pending(h.s)) != 0 {
		t.Fatalf("not settled: %+v", h.s.Lanes)
	}
	wantStage(t, h.s, 0, StageDone)
	for _, lane := range []int{1, 2, 3} {
		wantStage(t, h.s, lane, StageHandedBack)
		if h.s.Lanes[lane].Findings != "The run was abandoned.\n" {
			t.Errorf("lane %d: %q", lane, h.s.Lanes[lane].Findings)
		}
	}
	if len(h.s.Lanes[0].Rounds) != 1 || len(h.s.Lanes[0].Implementations) != 1 {
		t.Error("the record of what was done is kept")
	}
}
