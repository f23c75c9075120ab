package sandbox_test

import (
	"os"
	"testing"

	"github.com/abcd-dev/abcd/adapters/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Helper()
	os.Exit(m.Run())
}
