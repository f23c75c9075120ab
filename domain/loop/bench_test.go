package loop

import (
	"testing"
)

// bench20 is a 20-lane spec run mid-flight: lanes passed and done, lanes in a fix, lanes with their
// round-2 reviewers open, lanes whose reviewers are still to be opened, and the last lane passed and
// waiting for the auditor.
func bench20(b *testing.B) State {
	h := newSpec(b, 20, 3)
	h.openPending()
	for lane := range 20 {
		h.implement(lane)
	}
	h.openPending()
	for lane := range 20 {
		switch {
		case lane == 19 || lane%4 == 0:
			h.answer(lane, RoleRuthless, true)
			h.answer(lane, RoleSecurity, true)
		case lane%4 == 1:
			h.answer(lane, RoleRuthless, false)
			h.answer(lane, RoleSecurity, true)
		case lane%4 == 2:
			h.answer(lane, RoleRuthless, true)
			h.answer(lane, RoleSecurity, false)
		}
	}
	// The lanes in fix with their fix open, and half of them through to round 2 with reviewers open.
	h.openPending()
	for lane := range 20 {
		if lane%4 == 1 {
			h.implement(lane)
		}
	}
	h.openPending()
	return h.s
}

// BenchmarkPending asks Pending of a 20-lane run, as every `implement step` and `status` does.
func BenchmarkPending(b *testing.B) {
	s := bench20(b)
	s.Lanes[3].Stage = StageValidate // a lane whose reviewers are yet to be opened
	s.Lanes[3].Awaits = []Await{}
	want := len(Pending(s))
	if want == 0 {
		b.Fatal("the benchmark state has nothing pending")
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := len(Pending(s)); got != want {
			b.Fatalf("%d plans, want %d", got, want)
		}
	}
}
