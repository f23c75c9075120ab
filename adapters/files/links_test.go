package files

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestLinksResolveAsTheKernelDoes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	assert.NilError(t, err)
	mk := func(rel string) {
		assert.NilError(t, os.MkdirAll(filepath.Join(root, rel), 0o755))
	}
	ln := func(target, rel string) {
		assert.NilError(t, os.Symlink(target, filepath.Join(root, rel)))
	}
	mk("repo/.abcd")
	mk("repo/src/deep")
	ln("../.abcd", "repo/src/cfg")                    // relative link to a folder
	ln(filepath.Join(root, "repo/.abcd"), "repo/abs") // absolute link
	ln("deep", "repo/src/d")                          // a link before .. is resolved first
	ln("missing/guard.json", "repo/dangling")         // a link to nothing yet
	ln("loop", "repo/loop")                           // a link to itself
	var l Links
	cases := []struct{ in, want string }{
		{"repo/src/cfg/guard.json", "repo/.abcd/guard.json"},
		{"repo/abs/guard.json", "repo/.abcd/guard.json"},
		{"repo/src/d/../x", "repo/src/x"},
		{"repo/src/./deep/../cfg/guard.json", "repo/.abcd/guard.json"},
		{"repo/dangling", "repo/missing/guard.json"},
		{"repo/nothing/here/x", "repo/nothing/here/x"},
		{"repo/src/deep/x", "repo/src/deep/x"},
	}
	for _, c := range cases {
		assert.Check(t, is.Equal(l.Resolve(filepath.Join(root, c.in)), filepath.Join(root, c.want)), c.in)
	}
	// A loop of links ends after as many links as the kernel follows, and never hangs.
	assert.Check(t, is.Equal(l.Resolve(filepath.Join(root, "repo/loop/x")), filepath.Join(root, "repo/loop/x")))
}
