package core

import (
	"github.com/abcd-dev/abcd/domain/loop"
)

// integrationOf is a spec run's integration lane.
func IntegrationOf(s loop.State) (loop.Lane, bool) {
	for _, l := range s.Lanes {
		if l.Integration {
			return l, true
		}
	}
	return loop.Lane{}, false
}
