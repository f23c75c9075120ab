//go:build windows

package files

import "io/fs"

// modesMean is false on Windows: who may read a file is its access control list, which abcd does
// not read, and the mode bits Go reports say nothing of it. The machine folder's privacy there is
// the user profile's; a key file, whose privacy abcd cannot check, is refused (ReadSecret).
const modesMean = false

// otherOwner: ownership is part of the access control list abcd does not read on Windows.
func otherOwner(fs.FileInfo) bool { return false }
