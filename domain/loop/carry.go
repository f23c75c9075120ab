package loop

import (
	"fmt"
	"slices"
	"strings"
)

// Kept is a lane a new run of a spec takes over from the spec's last run, which delivered it: the
// lane starts done, at the head that run's review passed, and is not implemented again.
type Kept struct {
	Run   string // the run that delivered it
	Lane  string // its id there
	Start string
	Head  string
}

// From is how a kept lane names where it came from: <run>/<lane>.
func (k Kept) From() string { return k.Run + "/" + k.Lane }

// Carried is what a new run of a spec takes over from the spec's last run: the lanes it keeps and
// the ones it does again, each by step number, the latter with why.
type Carried struct {
	From string
	Kept map[int]Kept
	Redo map[int]string
}

// delivered reports whether a lane of a run was delivered: a step lane whose work was committed
// (a head) and whose review passed (done).
func (l Lane) delivered() bool { return !l.Integration && l.Stage == StageDone && isCommit(l.Head) }

// Carry decides which of a new run's steps keep what prev delivered: a step kept is one prev
// delivered under the same number and text, building on the same steps, whose head is not lost
// (lost: prev's lane id to why its head can no longer be reached, as git told the caller), and whose
// steps it builds on are kept too (its commits hold theirs). Every other step is done again, saying
// why. A run that delivered every lane and its integration carries nothing: the spec was done, and a
// new run of it starts over.
func Carry(prev State, steps []LaneSpec, lost map[string]string) Carried {
	c := Carried{From: prev.Run, Kept: map[int]Kept{}, Redo: map[int]string{}}
	if prev.Kind != KindSpec || prev.Run == "" || prev.done() {
		return c
	}
	stepOf := map[string]int{}
	byStep := map[int]Lane{}
	for _, l := range prev.Lanes {
		if !l.Integration {
			stepOf[l.ID], byStep[l.Step] = l.Step, l
		}
	}
	for _, st := range steps {
		old, ok := byStep[st.Step]
		var after []int
		for _, id := range old.After {
			after = append(after, stepOf[id])
		}
		switch {
		case !ok:
			c.Redo[st.Step] = "it is new"
		case old.Stage == StageHandedBack:
			c.Redo[st.Step] = "handed back in " + prev.Run
		case !old.delivered():
			c.Redo[st.Step] = "not delivered in " + prev.Run
		case oneLine(old.Text) != oneLine(st.Text):
			c.Redo[st.Step] = "its text changed since " + prev.Run
		case !sameSteps(after, st.After):
			c.Redo[st.Step] = "the steps it builds on changed since " + prev.Run
		case lost[old.ID] != "":
			c.Redo[st.Step] = lost[old.ID]
		default:
			c.Kept[st.Step] = Kept{Run: prev.Run, Lane: old.ID, Start: old.Start, Head: old.Head}
		}
	}
	// A kept step built on one done again holds that one's old commits: it is done again too, until
	// nothing changes (each pass moves at least one step, so this ends).
	for changed := true; changed; {
		changed = false
		for _, st := range steps {
			if _, ok := c.Kept[st.Step]; !ok {
				continue
			}
			for _, n := range st.After {
				if _, redo := c.Redo[n]; redo {
					delete(c.Kept, st.Step)
					c.Redo[st.Step] = fmt.Sprintf("it builds on step %d, which is done again", n)
					changed = true
					break
				}
			}
		}
	}
	return c
}

// done reports whether every lane of a run was delivered, its integration with them.
func (s State) done() bool {
	for _, l := range s.Lanes {
		if l.Stage != StageDone {
			return false
		}
	}
	return len(s.Lanes) > 0
}

func sameSteps(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Words say what a new run carried over, in one line: the lanes kept (with the head each starts
// at) and the ones done again, with why; "" when it carried nothing and redoes nothing for a reason.
func (c Carried) Words(lanes []Lane) string {
	if len(c.Kept)+len(c.Redo) == 0 {
		return ""
	}
	var kept, redo []string
	for _, l := range lanes {
		if k, ok := c.Kept[l.Step]; ok && l.KeptFrom != "" {
			kept = append(kept, fmt.Sprintf("%s (step %d) at %s", l.ID, l.Step, Short(k.Head)))
		} else if why, ok := c.Redo[l.Step]; ok && !l.Integration {
			redo = append(redo, fmt.Sprintf("%s (step %d: %s)", l.ID, l.Step, why))
		}
	}
	if len(kept) == 0 {
		return fmt.Sprintf("goes on from %s, which delivered no lane this run can keep: every lane is done again: %s", c.From, strings.Join(redo, "; "))
	}
	line := fmt.Sprintf("goes on from %s: keeps %s, as that run delivered them (not done again)", c.From, strings.Join(kept, ", "))
	if len(redo) > 0 {
		line += "; does again " + strings.Join(redo, "; ")
	}
	return line
}

// keptFrom is <run id>/<lane id>.
func keptFrom(s string) bool {
	run, lane, ok := strings.Cut(s, "/")
	return ok && ValidRunID(run) && validLaneID(lane) && lane != IntegrationLane
}
