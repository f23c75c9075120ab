package loop

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// carryPrev is a finished run of three steps, 2 building on 1 and 3 on nothing: 1 and 2 delivered,
// 3 handed back, so the integration was handed back too.
func carryPrev() State {
	head := strings.Repeat("a", 40)
	s := New(KindSpec, Options{Run: "run-1", Spec: "spc-1"}, []LaneSpec{
		{Step: 1, Text: "One."}, {Step: 2, Text: "Two.", After: []int{1}}, {Step: 3, Text: "Three."}})
	for i := range s.Lanes {
		s.Lanes[i].Stage, s.Lanes[i].Head = StageDone, head
	}
	s.Lanes[2].Stage, s.Lanes[3].Stage = StageHandedBack, StageHandedBack
	return s
}

func carrySteps() []LaneSpec {
	return []LaneSpec{{Step: 1, Text: "One."}, {Step: 2, Text: "Two.", After: []int{1}}, {Step: 3, Text: "Three."}}
}

func TestCarryKeepsTheDeliveredAndRedoesTheRest(t *testing.T) {
	c := Carry(carryPrev(), carrySteps(), nil)
	assert.Check(t, is.Len(c.Kept, 2))
	assert.Check(t, is.Equal(c.Kept[2].From(), "run-1/lane-2"))
	assert.Check(t, is.DeepEqual(c.Redo, map[int]string{3: "handed back in run-1"}))
	s := New(KindSpec, Options{Run: "run-2"}, func() []LaneSpec {
		steps := carrySteps()
		for i := range steps {
			if k, ok := c.Kept[steps[i].Step]; ok {
				steps[i].Kept = &k
			}
		}
		return steps
	}())
	assert.Check(t, is.Equal(s.Lanes[0].Stage, StageDone))
	assert.Check(t, s.Lanes[0].Delivered, "its Progress line was written by the run that delivered it")
	assert.Check(t, is.Equal(s.Lanes[1].KeptFrom, "run-1/lane-2"))
	assert.Check(t, is.Equal(s.Lanes[2].Stage, StageWaiting))
	assert.NilError(t, s.Check())
	// The integration waits for lane-3 alone; once it is done, it merges the kept heads too.
	assert.Check(t, is.Len(Due(s), 1))
	assert.Check(t, is.Equal(c.Words(s.Lanes), "goes on from run-1: keeps lane-1 (step 1) at aaaaaaaaaaaa, lane-2 (step 2) at aaaaaaaaaaaa, as that run delivered them (not done again); does again lane-3 (step 3: handed back in run-1)"))
}

// TestCarryRedoesWhatBuildsOnARedoneStep: a lost head, or a changed text, redoes that step and every
// kept step built on it.
func TestCarryRedoesWhatBuildsOnARedoneStep(t *testing.T) {
	c := Carry(carryPrev(), carrySteps(), map[string]string{"lane-1": "its branch was deleted"})
	assert.Check(t, is.Len(c.Kept, 0))
	assert.Check(t, is.Equal(c.Redo[1], "its branch was deleted"))
	assert.Check(t, is.Equal(c.Redo[2], "it builds on step 1, which is done again"))

	steps := carrySteps()
	steps[0].Text = "One, said otherwise."
	c = Carry(carryPrev(), steps, nil)
	assert.Check(t, is.Equal(c.Redo[1], "its text changed since run-1"))
	assert.Check(t, is.Equal(c.Redo[2], "it builds on step 1, which is done again"))

	steps = carrySteps()
	steps[1].After = nil
	c = Carry(carryPrev(), steps, nil)
	assert.Check(t, is.Equal(c.Redo[2], "the steps it builds on changed since run-1"))
	assert.Check(t, is.Equal(c.Kept[1].Lane, "lane-1"))
}

// TestCarryTakesNothingFromADeliveredRun: a run that delivered every lane and its integration was
// the spec done; a new run of it starts over, saying nothing of the old.
func TestCarryTakesNothingFromADeliveredRun(t *testing.T) {
	prev := carryPrev()
	for i := range prev.Lanes {
		prev.Lanes[i].Stage = StageDone
	}
	c := Carry(prev, carrySteps(), nil)
	assert.Check(t, is.Len(c.Kept, 0))
	assert.Check(t, is.Len(c.Redo, 0))
	assert.Check(t, is.Equal(c.Words(prev.Lanes), ""))
}

func TestCheckRefusesAKeptLaneThatIsNotDone(t *testing.T) {
	s := carryPrev()
	s.Lanes[2].KeptFrom = "run-0/lane-3"
	assert.Check(t, is.ErrorContains(s.Check(), "lane lane-3 is kept from"))
	s.Lanes[2].Stage, s.Lanes[2].KeptFrom = StageDone, "run-0/integration"
	assert.Check(t, is.ErrorContains(s.Check(), "lane lane-3 is kept from"))
}
