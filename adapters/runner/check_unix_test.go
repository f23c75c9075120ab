//go:build unix

package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	domain "github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// What a CLI prints when its --version fails stands in the preflight's detail: scrubbed of the key
// the runner holds and of a URL's password, before it leaves the adapter.
func TestThePreflightsDetailIsScrubbed(t *testing.T) {
	w := newWorld(t)
	cli := filepath.Join(w.dir, "claude")
	assert.NilError(t, os.WriteFile(cli, []byte("#!/bin/sh\necho \"proxy http://user:pw@10.1.2.3/x refused the key "+canary+"\" >&2\nexit 1\n"), 0o700))
	r := w.r
	r.Executable = cli
	rep, err := w.a.Check(context.Background(), ports.RunnerCheck{Runner: r})
	assert.NilError(t, err)
	assert.Assert(t, rep.Failure != nil)
	assert.Check(t, is.Equal(rep.Failure.Cause, domain.CauseVersion))
	assert.Check(t, is.Contains(rep.Failure.Detail, "user:[key]@10.1.2.3"))
	assert.Check(t, !strings.Contains(rep.Failure.Detail, "pw@"), rep.Failure.Detail)
	assert.Check(t, !strings.Contains(rep.Failure.Detail, canary), rep.Failure.Detail)
}
