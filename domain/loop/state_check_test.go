package loop

import (
	"strings"
	"testing"
)

func TestCheckRefusesMeaninglessValues(t *testing.T) {
	good := New(KindSpec, Options{Run: "run-1"}, []LaneSpec{{Step: 1}})
	if err := good.Check(); err != nil {
		t.Fatalf("a new run is refused: %v", err)
	}
	for name, c := range map[string]struct {
		edit func(*State)
		says string
	}{
		"unknown kind":  {func(s *State) { s.Kind = "party" }, "kind"},
		"no run":        {func(s *State) { s.Run = "" }, "run is empty"},
		"no fix rounds": {func(s *State) { s.FixRounds = 0 }, "fix_rounds"},
		"unknown stage": {func(s *State) { s.Lanes[0].Stage = "limbo" }, "stage"},
	} {
		s := New(KindSpec, Options{Run: "run-1"}, []LaneSpec{{Step: 1}})
		c.edit(&s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: got %v, want it to say %q", name, err, c.says)
		}
	}
}
