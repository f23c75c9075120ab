package loop

import (
	"testing"

	"github.com/abcd-dev/abcd/domain/refusal"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// What came back while a step was being placed is placed together in the next one: every answer and
// check already handed over, and nothing still out waited for.
func TestTheDriverPlacesWhatCameBackMeanwhileTogether(t *testing.T) {
	// A buffer stands for the goroutines waiting to hand their results over.
	results := make(chan came, 4)
	answer := func(lane string) came {
		return came{Routes: []answered{{dispatch: dispatch{Lane: lane}}}}
	}
	running := 4
	results <- answer("lane-1")
	o := gather(results, &running)
	assert.Check(t, is.Len(o.Routes, 1))
	assert.Check(t, is.Equal(running, 3))

	results <- answer("lane-2")
	results <- came{Checks: []Checked{{CheckJob: CheckJob{Lane: "lane-3"}}}}
	results <- answer("lane-4")
	o = gather(results, &running)
	assert.Check(t, is.Len(o.Routes, 2))
	assert.Check(t, is.Equal(o.Routes[0].Lane, "lane-2"))
	assert.Check(t, is.Equal(o.Routes[1].Lane, "lane-4"))
	assert.Check(t, is.Len(o.Checks, 1))
	assert.Check(t, is.Equal(running, 0))

	// One still out is not waited for once nothing else has come.
	running = 2
	results <- answer("lane-5")
	o = gather(results, &running)
	assert.Check(t, is.Len(o.Routes, 1))
	assert.Check(t, is.Equal(running, 1))
}

// A busy run's refusal says where the answers the driver could not place are kept; any other error,
// or nothing kept, is left as it was.
func TestABusyRunsRefusalSaysWhereTheAnswersAreKept(t *testing.T) {
	busy := func() *refusal.Error {
		return refusal.Busy(refusal.CodeRunLocked, "run-1", "another abcd holds the run")
	}
	one, two, none := busy(), busy(), busy()
	sayKeptAside(one, []string{"a/rp-return.md"})
	sayKeptAside(two, []string{"a/rp-return.md", "b/rp-return.md"})
	sayKeptAside(none, nil)
	assert.Check(t, is.Equal(one.Why, "another abcd holds the run; the route's answer is kept aside at a/rp-return.md"))
	assert.Check(t, is.Equal(two.Why, "another abcd holds the run; the routes' answers are kept aside at a/rp-return.md, b/rp-return.md"))
	assert.Check(t, is.Equal(none.Why, "another abcd holds the run"))
	other := refusal.New("run_unknown", "run-1", "no such run")
	sayKeptAside(other, []string{"a/rp-return.md"})
	assert.Check(t, is.Equal(other.Why, "no such run"))
}
