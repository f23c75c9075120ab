package files

import (
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
)

// workMarkers are the folders of abcd's own inside a repository a lane's worktree lives under:
// the lanes' folder (<repo>/.abcd-lanes/<run>/<lane>), and the machine files' folder where an
// earlier abcd made them (<repo>/.abcd/.work.local/run/<run>/worktrees/<lane>).
var workMarkers = []string{
	string(filepath.Separator) + filepath.FromSlash(layout.Lanes) + string(filepath.Separator),
	string(filepath.Separator) + filepath.FromSlash(layout.Local) + string(filepath.Separator),
}

// OwnerDir is the folder abcd acts in for dir: dir itself, or, inside one of abcd's own folders (a
// lane's worktree, where the briefs send the agents), the repository that holds them. A worktree is
// a checkout of its own, and its record is the lane branch's copy: the run, the record and the
// receipts are the repository's.
func OwnerDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	at := -1
	for _, m := range workMarkers {
		if i := strings.Index(abs+string(filepath.Separator), m); i > 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at > 0 {
		return abs[:at]
	}
	return abs
}
