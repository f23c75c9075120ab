package dod

import (
	"os"
	"testing"

	"github.com/abcd-dev/abcd/adapters/sandbox"
)

// TestMain lets the test binary be the fence's helper, as abcd's main does.
func TestMain(m *testing.M) {
	sandbox.Helper()
	os.Exit(m.Run())
}
