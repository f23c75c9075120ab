package files

import (
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
)

// workMarker is where abcd keeps its machine files inside a repository; a lane's worktree lives
// under it (<repo>/.abcd/.work.local/run/<run>/worktrees/<lane>).
var workMarker = string(filepath.Separator) + filepath.FromSlash(layout.Local) + string(filepath.Separator)

// OwnerDir is the folder abcd acts in for dir: dir itself, or, inside one of abcd's own folders (a
// lane's worktree, where the briefs send the agents), the repository that holds them. A worktree is
// a checkout of its own, and its record is the lane branch's copy: the run, the record and the
// receipts are the repository's.
func OwnerDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if i := strings.Index(abs+string(filepath.Separator), workMarker); i > 0 {
		return abs[:i]
	}
	return abs
}
