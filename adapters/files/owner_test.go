package files

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestOwnerDirIsTheRepositoryHoldingALanesWorktree(t *testing.T) {
	for dir, want := range map[string]string{
		"/work/repo":         "/work/repo",
		"/work/repo/src/pkg": "/work/repo/src/pkg",
		"/work/repo/.abcd/.work.local/run/run-2611300000001234/worktrees/lane-1":       "/work/repo",
		"/work/repo/.abcd/.work.local/run/run-2611300000001234/worktrees/lane-1/src/x": "/work/repo",
		"/work/repo/.abcd/.work.local":                                                 "/work/repo",
		"/work/repo/.abcd-lanes/run-2611300000001234/lane-1":                           "/work/repo",
		"/work/repo/.abcd-lanes/run-2611300000001234/lane-1/src/.abcd-lanes/x":         "/work/repo",
		"/work/repo/.abcd-lanes":                                                       "/work/repo",
		"/work/repo/.abcd-lanesnot/x":                                                  "/work/repo/.abcd-lanesnot/x",
		"/work/repo/.abcd/development":                                                 "/work/repo/.abcd/development",
		"/work/repo/.abcd/.work.localnot/x":                                            "/work/repo/.abcd/.work.localnot/x",
	} {
		assert.Equal(t, OwnerDir(dir), want, dir)
	}
}
