package loop

import (
	"strings"
	"testing"
)

// A check is due once per round, on the head the round validates, only with a definition of done;
// one that comes after the lane moved on is dropped.
func TestChecksDueOncePerRoundOnItsHead(t *testing.T) {
	o := specOptions(3, []string{RoleRuthless, RoleSecurity})
	o.IntegrationBranch = "abcd/run-1/integration"
	h := &harness{t: t, s: New(KindSpec, o, laneSpecs(1)), table: defaultTable()}
	h.start()
	h.openPending()
	i, j, a := h.find(0, RoleImplementer)
	if err := h.s.RecordImplementation(i, j, Implementation{Commits: []string{"h1"}, Head: "h1", Receipt: a.Return, At: at}); err != nil {
		t.Fatal(err)
	}
	if due := ChecksDue(h.s); len(due) != 1 || due[0] != (CheckPlan{Lane: 0, Round: 1, Head: "h1"}) {
		t.Fatalf("ChecksDue = %+v", due)
	}
	if len(Pending(h.s)) != 0 {
		t.Fatalf("the reviewers are opened before the check: %+v", Pending(h.s))
	}
	if h.s.RecordCheck("lane-1", Check{Round: 1, Head: "h0", Command: "make check"}) {
		t.Fatal("a check of another head was recorded")
	}
	if !h.s.RecordCheck("lane-1", Check{Round: 1, Head: "h1", Command: "make check", Tail: strings.Repeat("é", CheckTailBytes)}) {
		t.Fatal("the due check was not recorded")
	}
	if c, _ := h.s.Lanes[0].CheckOf(1); len(c.Tail) > CheckTailBytes {
		t.Fatalf("the state keeps %d bytes of tail", len(c.Tail))
	}
	if h.s.RecordCheck("lane-1", Check{Round: 1, Head: "h1", Command: "make check"}) || len(ChecksDue(h.s)) != 0 {
		t.Fatal("a second check of the same round was recorded, or one is still due")
	}

	// Without a definition of done, nothing is due and the reviewers open at once.
	o.DoD = ""
	h = &harness{t: t, s: New(KindSpec, o, laneSpecs(1)), table: defaultTable()}
	h.start()
	h.openPending()
	i, j, a = h.find(0, RoleImplementer)
	if err := h.s.RecordImplementation(i, j, Implementation{Commits: []string{"h1"}, Head: "h1", Receipt: a.Return, At: at}); err != nil {
		t.Fatal(err)
	}
	if len(ChecksDue(h.s)) != 0 || len(Pending(h.s)) != 2 {
		t.Fatalf("without build.dod: due %+v, pending %+v", ChecksDue(h.s), Pending(h.s))
	}
}
