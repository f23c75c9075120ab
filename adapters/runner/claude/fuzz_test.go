package claude

import (
	"testing"

	"github.com/abcd-dev/abcd/adapters/runner/runnertest"
)

func FuzzParser(f *testing.F) { runnertest.FuzzParser(f, Dialect{}) }
