package apptest

import (
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports/fake"
	"gotest.tools/v3/assert"
)

// stateOf is the run's state as the store holds it.
func RunStateOf(t *testing.T, rs *fake.Runs, run string) loop.State {
	t.Helper()
	s, err := loop.Decode("state.json", rs.Files[loop.RunDir(run)+"/state.json"])
	assert.NilError(t, err)
	return s
}
