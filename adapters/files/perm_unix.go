//go:build unix

package files

import (
	"io/fs"
	"os"
	"syscall"
)

// modesMean is true where a file's mode bits say who may read and write it, so abcd can hold its
// machine files to "yours alone".
const modesMean = true

// otherOwner reports whether st belongs to a user other than the one running abcd.
func otherOwner(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) != os.Geteuid()
}
