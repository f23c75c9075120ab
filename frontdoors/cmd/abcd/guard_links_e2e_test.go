//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"
)

// TestGuardHookFollowsLinks: a file tool's or a patch's path is checked as written and as the links
// on its way resolve it, so a write through a link to the guard file or the harness's settings is
// denied, a link that names nothing yet included.
func TestGuardHookFollowsLinks(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s := newSandbox(t, true)
	assert.NilError(t, os.MkdirAll(filepath.Join(s.root, ".abcd"), 0o755))
	assert.NilError(t, os.Symlink(filepath.Join(s.root, ".abcd"), filepath.Join(s.root, "l1")))
	assert.NilError(t, os.Symlink(".claude", filepath.Join(s.root, "dangling")))
	assert.NilError(t, os.MkdirAll(filepath.Join(s.root, "src"), 0o755))
	assert.NilError(t, os.Symlink("../l1", filepath.Join(s.root, "src", "chain")))
	assert.NilError(t, os.MkdirAll(filepath.Join(s.root, ".abcd", "sub"), 0o755))
	assert.NilError(t, os.Symlink(filepath.Join(s.root, ".abcd", "sub"), filepath.Join(s.root, "l2")))
	before := s.snapshot(t)
	for _, tc := range []struct {
		tool  string
		input map[string]any
		rule  string
	}{
		{"Write", map[string]any{"file_path": filepath.Join(s.root, "l1", "guard.json"), "content": "{}"}, "guard-file-write"},
		{"Edit", map[string]any{"file_path": "l1/guard.json"}, "guard-file-write"},
		{"Write", map[string]any{"file_path": "src/chain/guard.json", "content": "{}"}, "guard-file-write"},
		{"Write", map[string]any{"file_path": "dangling/settings.json", "content": "{}"}, "harness-settings-write"},
		{"apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: l1/guard.json\n+{}\n*** End Patch\n"}, "guard-file-write"},
		{"apply_patch", map[string]any{"command": "*** Begin Patch\n*** Delete File: src/chain/guard.json\n*** End Patch\n"}, "guard-file-write"},
		// the kernel follows l2 before .. climbs out of it: l2/../guard.json is .abcd/guard.json
		{"Write", map[string]any{"file_path": "l2/../guard.json", "content": "{}"}, "guard-file-write"},
		{"Write", map[string]any{"file_path": "l2/new/../../guard.json", "content": "{}"}, "guard-file-write"},
	} {
		res := s.hook(t, hookPayload(t, tc.tool, tc.input, s.root))
		res.Assert(t, icmd.Success)
		assert.Check(t, is.Contains(res.Stdout(), "(rule "+tc.rule+")"), "%s %v: %s", tc.tool, tc.input, res.Stdout())
	}
	res := s.hook(t, hookPayload(t, "Write", map[string]any{"file_path": "src/ok.txt", "content": "x"}, s.root))
	res.Assert(t, icmd.Success)
	assert.Equal(t, res.Stdout(), "", "a write with no link on its way is allowed, silently")
	assert.DeepEqual(t, s.snapshot(t), before)
}
